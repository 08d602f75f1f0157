"""A following class (issue 20): N students follow one room, the teacher moves the σ slider.

Protocol level (benchmarks/wsclient.py): the teacher signs in (``POST /teach``), opens
``/lab?room=CODE`` with the ``dplab_teacher`` cookie; N students open ``/lab?room=CODE``
(through the balancer, so they land on every worker); then the teacher makes ``--moves`` σ
moves, one every ``--interval`` s. For each move: the time from the teacher's first frame to
the moment each follower's card shows the new σ (latency), and followers that never see it
within ``--lost-after`` s (lost). Also: the server's CPU per move. The follow scenario of
benchmarks/classroom_load.py runs the same class (the shared parts are in wsclient.py) with a
baseline measured in the same run.

    .venv/bin/python benchmarks/room_follow.py --students 100 --server-cmd scripts/serve-prod
    .venv/bin/python benchmarks/room_follow.py --students 100   # one process, in-process store
    .venv/bin/python benchmarks/room_follow.py --url http://127.0.0.1:8080 --token T --students 100
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import wsclient  # noqa: E402
from _common import pct, room_server  # noqa: E402


def cpu_seconds(pid: int | None) -> float:
    """CPU time of ``pid`` and its descendants (Linux /proc)."""
    if pid is None:
        return float("nan")
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ppid, utime, stime = int(stat[1]), int(stat[11]), int(stat[12])
        if int(d.name) == pid or _descends(int(d.name), pid, ppid):
            total += (utime + stime) / tick
    return total


def _descends(p: int, root: int, ppid: int) -> bool:
    seen = 0
    while ppid > 1 and seen < 20:
        if ppid == root:
            return True
        try:
            ppid = int((Path("/proc") / str(ppid) / "stat").read_text().rsplit(")", 1)[1]
                       .split()[1])
        except OSError:
            return False
        seen += 1
    return False


async def run(args: argparse.Namespace, base: str, token: str, pid: int | None) -> None:
    cookie, code = await wsclient.teacher_sign_in(base, token)
    teacher = await wsclient.Tab.open(f"{base}/lab?room={code}&lang=en",
                                      extra_cookies={"dplab_teacher": cookie})
    t0 = time.perf_counter()
    students, errors = await wsclient.open_followers(base, code, args.students,
                                                     args.concurrency)
    for e in errors:
        print(f"  a student did not open: {e}", file=sys.stderr)
    workers: dict[str, int] = {}
    for s in students:
        workers[s.worker or "-"] = workers.get(s.worker or "-", 0) + 1
    print(f"room {code}: {len(students)} of {args.students} students opened in "
          f"{time.perf_counter() - t0:.1f} s; per worker: {workers}")
    await asyncio.sleep(3.0)
    lat: list[float] = []
    lost = 0
    cpu0 = cpu_seconds(pid)
    for k, v in enumerate(wsclient.follow_values(args.moves)):
        sent = time.perf_counter()
        got, missed = await wsclient.teacher_move(teacher, students, v, args.lost_after)
        lat += got
        lost += missed
        await asyncio.sleep(max(0.0, args.interval - (time.perf_counter() - sent)))
        if (k + 1) % 10 == 0:
            print(f"  {k + 1} moves: p50 {pct(lat, .5) * 1e3:.0f} ms, p95 "
                  f"{pct(lat, .95) * 1e3:.0f} ms, lost {lost}")
    cpu = cpu_seconds(pid) - cpu0
    print(f"\n{len(students)} followers, {args.moves} teacher moves "
          f"({len(lat) + lost} deliveries):")
    print(f"  teacher move -> follower's card: p50 {pct(lat, .5) * 1e3:.0f} ms, "
          f"p95 {pct(lat, .95) * 1e3:.0f} ms, max {max(lat or [float('nan')]) * 1e3:.0f} ms; "
          f"lost {lost}")
    print(f"  server CPU per teacher move: {cpu / args.moves * 1e3:.0f} ms "
          f"({cpu / max(1, args.moves * len(students)) * 1e3:.2f} ms per follower)")
    for s in [teacher, *students]:
        await s.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--students", type=int, default=100)
    p.add_argument("--moves", type=int, default=30)
    p.add_argument("--interval", type=float, default=2.0)
    p.add_argument("--lost-after", type=float, default=10.0)
    p.add_argument("--concurrency", type=int, default=8, help="students opening at once")
    p.add_argument("--server-cmd", default="", help="e.g. scripts/serve-prod")
    p.add_argument("--url", default="")
    p.add_argument("--token", default="")
    p.add_argument("--pid", type=int, default=None)
    p.add_argument("--nodelay", action="store_true",
                   help="TCP_NODELAY on the tabs' websockets, as browsers (wsclient.NODELAY)")
    args = p.parse_args()
    wsclient.NODELAY = args.nodelay
    token = args.token or secrets.token_urlsafe(12)
    with room_server(args.url, args.server_cmd, token, args.pid,
                     DPLAB_MAX_SESSIONS="400") as (base, pid):
        asyncio.run(run(args, base, token, pid))


if __name__ == "__main__":
    main()
