"""A following class (issue 20): N students follow one room, the teacher moves the σ slider.

Protocol level (benchmarks/wsclient.py): the teacher signs in (``POST /teach``), opens
``/lab?room=CODE`` with the ``dplab_teacher`` cookie; N students open ``/lab?room=CODE``
(through the balancer, so they land on every worker); then the teacher makes ``--moves`` σ
moves, one every ``--interval`` s. For each move: the time from the teacher's first frame to
the moment each follower's card shows the new σ (latency), and followers that never see it
within ``--lost-after`` s (lost). Also: the teacher's own card, and the server's CPU per move.

    .venv/bin/python benchmarks/room_follow.py --students 100 --server-cmd scripts/serve-prod
    .venv/bin/python benchmarks/room_follow.py --students 100   # one process, in-process store
    .venv/bin/python benchmarks/room_follow.py --url http://127.0.0.1:8080 --token T --students 100
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import wsclient  # noqa: E402
from _common import ROOT, free_port, pct, server_env  # noqa: E402


class Follower(wsclient.Tab):
    """A student's tab that notes when its card first shows each σ."""

    def __init__(self, url: str, page: wsclient.Page) -> None:
        super().__init__(url, page)
        self.seen: dict[str, float] = {}

    async def _on_push(self, msg: wsclient.Message) -> None:
        card = self.by_class.get("dp-card-pane")
        cj = msg.content_json
        if card is None or f'"id":"{card}"' not in cj or "dp-sigma" not in cj:
            return
        for ev in msg.content.get("events", []):
            if (ev.get("model") or {}).get("id") == card and ev.get("attr") == "text":
                s = wsclient.card_sigma(str(ev.get("new", "")).replace("&quot;", '"'))
                if s is None:
                    import html

                    s = wsclient.card_sigma(html.unescape(str(ev.get("new", ""))))
                if s is not None and s not in self.seen:
                    self.seen[s] = msg.received_at


async def sign_in(base: str, token: str) -> tuple[str, str]:
    from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest

    req = HTTPRequest(base + "/teach", method="POST", body=f"token={token}",
                      follow_redirects=False, headers={"Origin": base})
    try:
        r = await AsyncHTTPClient().fetch(req)
    except HTTPClientError as exc:
        if exc.response is None:
            raise
        r = exc.response
    if r.code != 303:
        raise SystemExit(f"POST /teach answered {r.code}")
    cookie = r.headers["Set-Cookie"].split(";", 1)[0].split("=", 1)[1]
    m = re.search(r"room=([A-Z0-9]{6})", r.headers["Location"])
    assert m
    return cookie, m.group(1)


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
    cookie, code = await sign_in(base, token)
    teacher = await wsclient.Tab.open(f"{base}/lab?room={code}&lang=en",
                                      extra_cookies={"dplab_teacher": cookie})
    t0 = time.perf_counter()
    sem = asyncio.Semaphore(args.concurrency)

    async def open_one(i: int) -> Follower | None:
        async with sem:
            url = f"{base}/lab?room={code}&lang={'en' if i % 2 else 'ko'}"
            try:
                page = await wsclient.get_page(url, timeout=120)
                tab = Follower(url, page)
                from tornado.httpclient import HTTPRequest

                headers = {"Origin": base}
                if page.cookies:
                    headers["Cookie"] = wsclient.cookie_header(page.cookies)
                assert page.token
                await tab._connect(HTTPRequest(wsclient.ws_url(url), headers=headers,
                                               request_timeout=120), page.token, 256 << 20, 120)
                reply = await tab._pull_doc(120)
                tab.by_class = wsclient.models_by_class(reply.content["doc"])
                tab._reader = asyncio.create_task(tab._read_loop())
                await asyncio.wait_for(await tab._patch([wsclient.DOCUMENT_READY]), 120)
                return tab
            except Exception as exc:
                print(f"  student {i}: {type(exc).__name__}: {exc}", file=sys.stderr)
                return None

    opened = await asyncio.gather(*(open_one(i) for i in range(args.students)))
    students = [s for s in opened if s is not None]
    workers: dict[str, int] = {}
    for s in students:
        workers[s.worker or "-"] = workers.get(s.worker or "-", 0) + 1
    print(f"room {code}: {len(students)} of {args.students} students opened in "
          f"{time.perf_counter() - t0:.1f} s; per worker: {workers}")
    await asyncio.sleep(3.0)
    lat: list[float] = []
    lost = 0
    teacher_lat: list[float] = []
    cpu0 = cpu_seconds(pid)
    values = [0.05 * ((k % 20) + 1) * (1 if k % 2 else -1) for k in range(args.moves)]
    for k, v in enumerate(values):
        want = f"{wsclient.sigma_shown(v):.4g}"
        sent = time.perf_counter()
        await teacher.set("dp-slider-sigma", "value", v)
        await teacher.set("dp-slider-sigma", "value_throttled", v)
        deadline = sent + args.lost_after
        while time.perf_counter() < deadline:
            if all(_shows(s, want) for s in students):
                break
            await asyncio.sleep(0.005)
        for s in students:
            at = _seen_at(s, want)
            if at is None:
                lost += 1
            else:
                lat.append(at - sent)
        tt = [m.received_at for m in teacher.pushed[-5:]]
        if tt:
            teacher_lat.append(max(tt) - sent)
        for s in students:
            s.seen.clear()
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


def _shows(s: Follower, want: str) -> bool:
    return _seen_at(s, want) is not None


def _seen_at(s: Follower, want: str) -> float | None:
    for k, at in s.seen.items():
        try:
            if abs(float(k) - float(want)) <= 1e-9 * max(1.0, float(want)):
                return at
        except ValueError:
            continue
    return None


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
    args = p.parse_args()
    token = args.token or secrets.token_urlsafe(12)
    proc = None
    pid = args.pid
    if args.url:
        base = args.url.rstrip("/")
    else:
        port = free_port()
        env = server_env(ROOT, DPLAB_TEACHER_TOKEN=token, DPLAB_PORT=str(port),
                         DPLAB_ADDRESS="127.0.0.1", DPLAB_MAX_SESSIONS="400")
        cmd = ([str(ROOT / args.server_cmd)] if args.server_cmd else
               [sys.executable, "-c", f"from app.serve.server import serve; serve(port={port})"])
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        pid = proc.pid
        base = f"http://127.0.0.1:{port}"
        import urllib.request

        for _ in range(600):
            try:
                with urllib.request.urlopen(base + "/join", timeout=5):
                    break
            except OSError:
                time.sleep(0.25)
        time.sleep(1.0)
    try:
        asyncio.run(run(args, base, token, pid))
    finally:
        if proc is not None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(30)


if __name__ == "__main__":
    main()
