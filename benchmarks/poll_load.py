"""A class answers a private poll (issue 21), at the protocol level: N students at once.

The teacher signs in (``POST /teach``), opens a local yes/no poll at ε = ln 3; then N students
each open ``/join?room=CODE`` (the plain page), read ``/join/state`` and send one randomized
answer to ``/join/answer`` (randomized here exactly as assets/dplab-poll.js does), and keep
reading ``/join/state`` every 2 s like the page; meanwhile the projector reads
``/teach/api/rooms/CODE/polls/current`` once a second like assets/dplab-poll-teach.js.
Reported: the time from the start until the projector shows all N answers, each student's
time to an accepted answer (page + state + answer), errors, and the server's CPU per answer.

    .venv/bin/python benchmarks/poll_load.py --students 300 --server-cmd scripts/serve-prod
    .venv/bin/python benchmarks/poll_load.py --students 500 --server-cmd scripts/serve-prod
    .venv/bin/python benchmarks/poll_load.py --students 300          # one process, in-process store
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import re
import secrets
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _common import pct, room_server  # noqa: E402
from room_follow import cpu_seconds  # noqa: E402
from wsclient import teacher_sign_in  # noqa: E402


async def fetch(url: str, method: str = "GET", body: str | None = None,
                headers: dict[str, str] | None = None,
                jar: dict[str, str] | None = None) -> tuple[int, bytes]:
    """One request; ``jar``: a student's cookies, sent and updated as a browser does (the
    class page's answer issues the student credential, app/room/roster.py)."""
    from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest

    headers = dict(headers or {})
    if jar:
        headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in jar.items())
    req = HTTPRequest(url, method=method, body=body, headers=headers,
                      follow_redirects=False, request_timeout=60, connect_timeout=30)
    try:
        r = await AsyncHTTPClient().fetch(req)
    except HTTPClientError as exc:
        if exc.response is None:
            return 599, b""
        r = exc.response
    if jar is not None:
        for line in r.headers.get_list("Set-Cookie"):
            name, _, rest = line.partition("=")
            jar[name.strip()] = rest.split(";", 1)[0].strip('"')
    return r.code, r.body or b""


def randomized(truth: int, eps: float) -> int:
    keep = 1 / (1 + math.exp(-eps))
    return truth if secrets.randbelow(2**53) / 2**53 < keep else 1 - truth


async def run(args: argparse.Namespace, base: str, token: str, pid: int | None) -> None:
    from tornado.httpclient import AsyncHTTPClient

    AsyncHTTPClient.configure(None, max_clients=args.connections)
    cookie, code = await teacher_sign_in(base, token)
    th = {"Cookie": f"dplab_teacher={cookie}", "Origin": base}
    _, page = await fetch(f"{base}/teach?room={code}&lang=en", headers=th)
    csrf = re.search(rb'name="csrf" value="([0-9a-f]+)"', page)
    assert csrf
    eps = math.log(3)
    st, _ = await fetch(f"{base}/teach/rooms/{code}/poll-open?lang=en", "POST",
                        urlencode({"csrf": csrf.group(1).decode(), "preset": "homework",
                                   "eps": f"{eps:.9f}", "model": "local"}), th)
    assert st == 303, st
    api = f"{base}/teach/api/rooms/{code}/polls/current?lang=en"
    done = asyncio.Event()
    errors: dict[str, int] = {}
    answered: list[float] = []
    t0 = time.perf_counter()
    cpu0 = cpu_seconds(pid)
    shown_at: list[float] = []

    async def projector() -> None:
        while not done.is_set():
            s, body = await fetch(api, headers=th)
            if s == 200 and json.loads(body).get("n") == args.students:
                shown_at.append(time.perf_counter() - t0)
                done.set()
                return
            await asyncio.sleep(1.0)

    async def student(i: int) -> None:
        await asyncio.sleep(args.spread * i / max(1, args.students))
        start = time.perf_counter()
        lang = "en" if i % 2 else "ko"
        jar: dict[str, str] = {}  # this student's browser
        s, _ = await fetch(f"{base}/join?room={code}&lang={lang}", jar=jar)
        if s != 200:
            errors[f"page {s}"] = errors.get(f"page {s}", 0) + 1
            return
        s, body = await fetch(f"{base}/join/state?room={code}&lang={lang}", jar=jar)
        if s != 200:
            errors[f"state {s}"] = errors.get(f"state {s}", 0) + 1
            return
        poll = json.loads(body)["poll"]
        sent = ("yes", "no")[randomized(0, float(poll["eps"]))]
        payload = json.dumps({"room": code, "poll": poll["id"], "sent": sent})
        s, _ = await fetch(f"{base}/join/answer", "POST", payload,
                           {"Content-Type": "application/json", "Origin": base}, jar)
        if s != 200:
            errors[f"answer {s}"] = errors.get(f"answer {s}", 0) + 1
            return
        answered.append(time.perf_counter() - start)
        while not done.is_set():  # the page keeps reading the state every 2 s
            await asyncio.sleep(2.0)
            await fetch(f"{base}/join/state?room={code}&lang={lang}", jar=jar)

    proj = asyncio.create_task(projector())
    # The students read the state until the projector shows all N answers; when some answers
    # never arrive (refused, lost), that is never, so the whole run is bounded by --timeout
    # and what was measured is printed all the same.
    try:
        await asyncio.wait_for(
            asyncio.gather(proj, *(student(i) for i in range(args.students))),
            args.spread + args.timeout)
    except TimeoutError:
        done.set()
    cpu = cpu_seconds(pid) - cpu0
    _, body = await fetch(api, headers=th)
    data = json.loads(body)
    await fetch(f"{base}/teach/rooms/{code}/end?lang=en", "POST",
                urlencode({"csrf": csrf.group(1).decode()}), th)
    print(f"room {code}: {args.students} students, spread over {args.spread:g} s, "
          f"{args.connections} connections")
    print(f"  accepted answers: {len(answered)}; errors: {errors or 'none'}")
    shown = f"{shown_at[0]:.2f} s" if shown_at else f"not within {args.timeout:g} s"
    print(f"  projector shows all {args.students} answers after {shown}")
    if answered:
        print(f"  per student (page + state + answer): p50 {pct(answered, 0.5) * 1e3:.0f} ms, "
              f"p95 {pct(answered, 0.95) * 1e3:.0f} ms, max {max(answered) * 1e3:.0f} ms")
    print(f"  server CPU: {cpu:.2f} s in all, {cpu / max(1, len(answered)) * 1e3:.2f} ms per "
          f"answering student (page, state reads, answer)")
    print(f"  projector: n = {data.get('n')}, reported {data.get('reported')}, estimate "
          f"{data.get('estimate')}, ci95 {data.get('ci95')}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--students", type=int, default=300)
    p.add_argument("--spread", type=float, default=0.0,
                   help="students start evenly over this many seconds (0: all at once)")
    p.add_argument("--connections", type=int, default=200, help="client connections at once")
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--server-cmd", default="", help="e.g. scripts/serve-prod")
    p.add_argument("--url", default="")
    p.add_argument("--token", default="")
    p.add_argument("--pid", type=int, default=None)
    args = p.parse_args()
    token = args.token or secrets.token_urlsafe(12)
    with room_server(args.url, args.server_cmd, token, args.pid) as (base, pid):
        asyncio.run(run(args, base, token, pid))


if __name__ == "__main__":
    main()
