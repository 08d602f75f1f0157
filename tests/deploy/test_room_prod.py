"""The live class through scripts/serve-prod (2 workers behind HAProxy, the Redis serve-prod
starts) when a worker is killed in the middle of the class: the teacher and the students on the
other worker go on following; the killed worker's students reconnect through the balancer (their
affinity cookie names the dead worker: HAProxy sends them to the live one), open the lab at the
room's state (the card streamed before the page is built too) and follow the teacher again; the
room counts each student once.

Protocol-level tabs (benchmarks/wsclient.py). Timeouts bound a hang; nothing asserts a duration.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import re
import shutil
import signal
from typing import Any
from urllib.parse import urlsplit

import pytest
import wsclient
from test_serve_prod import HAPROXY, Prod, _alive, wait_until

TOKEN = "test-teacher-token-prod-kill"
REDIS = shutil.which("redis-server") or (
    "/usr/bin/redis-server" if os.access("/usr/bin/redis-server", os.X_OK) else None)

pytestmark = pytest.mark.skipif(
    HAPROXY is None or REDIS is None,
    reason="haproxy or redis-server not installed: the live class through serve-prod is not "
           "tested (scripts/ensure-haproxy.sh and scripts/ensure-redis.sh install Debian's)")


def request(prod: Prod, method: str, path: str, body: str | None = None,
            cookie: str = "") -> tuple[int, list[tuple[str, str]], bytes]:
    """One request through the balancer (no redirect followed)."""
    u = urlsplit(prod.base + path)
    conn = http.client.HTTPConnection(u.hostname or "127.0.0.1", u.port, timeout=30)
    headers = {"Accept-Language": "en", "Origin": f"{u.scheme}://{u.netloc}"}
    if cookie:
        headers["Cookie"] = f"dplab_teacher={cookie}"
    if body is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    try:
        conn.request(method, u.path + (f"?{u.query}" if u.query else ""), body=body,
                     headers=headers)
        r = conn.getresponse()
        return r.status, r.getheaders(), r.read()
    finally:
        conn.close()


async def all_follow(tabs: list[wsclient.Tab], sigma: str) -> None:
    await asyncio.gather(*(t.wait_latest("dp-card-pane",
                                         lambda s: wsclient.card_sigma(s) == sigma, 60)
                           for t in tabs))


def test_students_of_a_killed_worker_reconnect_and_follow_again(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    prod = Prod(tmp_path_factory.mktemp("room-kill"), DPLAB_TEACHER_TOKEN=TOKEN,
                DPLAB_RESTART_DELAY="120")  # the dead worker stays dead during the test
    try:
        assert "redis-server pid" in prod.text()
        status, headers, _ = request(prod, "POST", "/teach", f"token={TOKEN}")
        assert status == 303, status
        cookie = next(v.split(";", 1)[0].split("=", 1)[1] for k, v in headers
                      if k.lower() == "set-cookie" and v.startswith("dplab_teacher="))
        where = next(v for k, v in headers if k.lower() == "location")
        code = re.search(r"room=([A-Z0-9]{6})", where).group(1)  # type: ignore
        lab = f"{prod.base}/lab?room={code}&lang=en"
        prod.run(_class(prod, lab, code, cookie))
    finally:
        # (serve-prod's own log says which process ended and how: printed when it failed)
        status = prod.stop()
        assert status == 0, f"serve-prod exited with {status}; its log ends:\n{prod.text()[-4000:]}"


async def _class(prod: Prod, lab: str, code: str, cookie: str) -> None:
    teacher = await wsclient.Tab.open(lab, cookie="w1", extra_cookies={"dplab_teacher": cookie})
    stay = [await wsclient.Tab.open(lab, cookie="w1") for _ in range(3)]
    gone = [await wsclient.Tab.open(lab, cookie="w2") for _ in range(3)]
    assert [t.worker for t in [teacher, *stay, *gone]] == ["w1"] * 4 + ["w2"] * 3
    await wsclient.move_sigma(teacher, 0.3)  # σ = 1.995
    await all_follow([*stay, *gone], "1.995")

    # ---- w2 is killed: its students' connections end -------------------------------------
    victim = prod.pids()["w2"]
    try:
        os.kill(victim, signal.SIGKILL)
    except ProcessLookupError:  # it must not have ended on its own: say how it ended
        log = prod.text()[-4000:]
        raise AssertionError(f"w2 (pid {victim}) had already ended:\n{log}") from None
    await asyncio.to_thread(wait_until, lambda: not _alive(victim), 10, "w2 to die")
    await asyncio.to_thread(wait_until, lambda: all(t.closed_by_server for t in gone), 30,
                            "w2's websockets to close")
    # the class goes on for the others
    await wsclient.move_sigma(teacher, -0.3)  # 0.5012
    await all_follow(stay, "0.5012")

    # ---- its students reload: the affinity cookie names the dead worker, the balancer sends
    # them to the live one; the lab opens at the room's state and follows again ---------------
    back = [await wsclient.Tab.open(lab, cookie="w2") for _ in gone]
    assert [t.worker for t in back] == ["w1"] * 3
    for t in back:
        # the card streamed before the page is built is the room's too (read from Redis)
        assert wsclient.card_sigma(t.page.body) == "0.5012", wsclient.card_sigma(t.page.body)
        await t.wait_latest("dp-card-pane", lambda s: wsclient.card_sigma(s) == "0.5012")
        await t.wait_latest("dp-room-banner", lambda s: "Following the instructor" in s)
    await wsclient.move_sigma(teacher, 0.6)  # 3.981
    await all_follow([*stay, *back], "3.981")

    # ---- the room counts every student once: the dead worker's entry ages out -------------
    def counts() -> dict[str, Any]:
        status, _, body = request(prod, "GET", f"/teach/api/rooms/{code}?lang=en",
                                  cookie=cookie)
        assert status == 200, (status, body[:200])
        return dict(json.loads(body))

    got = await asyncio.to_thread(
        wait_until, lambda: (c := counts())["connected"] == 6 and c["following"] == 6 and c,
        60, "the room to count the 6 students once", 1.0)
    assert got["code"] == code
    for t in [teacher, *stay, *back]:
        await t.close()
