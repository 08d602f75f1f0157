"""Redis stops in the middle of a class and comes back (a redis-server of the test's own):
paused (its data kept), then ended and started again empty (persistence off). Every lab keeps
working on its own and says "class connection lost, retrying"; after the pause the labs follow
again, at the state the teacher reached meanwhile; the room's pages answer 503 with the store's
message (the open room page shows it); after the restart the server writes the room back from
what its labs hold, and the students follow the teacher again."""

from __future__ import annotations

import asyncio
import html
import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import wsclient
from test_room_protocol import fetch, room_app_server

from app.shell.assets import path as asset_path

ROOT = Path(__file__).resolve().parents[3]
TOKEN = "test-teacher-token-fault"


@pytest.fixture
def server(own_redis: Any) -> Iterator[str]:
    yield from room_app_server(own_redis.url, TOKEN)


def test_redis_stops_and_comes_back(server: str, own_redis: Any) -> None:
    asyncio.run(_fault(server, own_redis))


async def banner_says(tab: wsclient.Tab, needle: str, timeout: float = 20) -> None:
    await tab.wait_text("dp-room-banner", lambda t: needle in html.unescape(t), timeout)


def newest_banner(tab: wsclient.Tab) -> str:
    return html.unescape(list(tab.texts(tab.model("dp-room-banner")))[-1])


async def _fault(base: str, redis: Any) -> None:
    r = await fetch(base + "/teach", "POST", f"token={TOKEN}", origin=base)
    cookie = r.headers["Set-Cookie"].split(";", 1)[0].split("=", 1)[1]
    code = re.search(r"room=([A-Z0-9]{6})", r.headers["Location"]).group(1)  # type: ignore
    teacher = await wsclient.Tab.open(f"{base}/lab?room={code}&lang=en",
                                      extra_cookies={"dplab_teacher": cookie})
    a = await wsclient.Tab.open(f"{base}/lab?room={code}&lang=en")
    b = await wsclient.Tab.open(f"{base}/lab?room={code}&lang=ko")
    await wsclient.move_sigma(teacher, 0.3)  # σ = 1.995
    for s in (a, b):
        await s.wait_text("dp-card-pane", lambda t: wsclient.card_sigma(t) == "1.995")

    # ---- Redis stops answering (paused: its data is kept) --------------------------------
    redis.pause()
    await banner_says(teacher, "Class connection lost, retrying")
    await banner_says(a, "Class connection lost, retrying")
    await banner_says(b, "수업 연결이 끊겼습니다")
    # every lab keeps working on its own
    await wsclient.move_sigma(teacher, 0.5)  # 3.162 on the teacher's card
    await wsclient.move_sigma(a, -0.5)  # 0.3162 on this student's card
    # the open room page's API says so once its own call gives up (a hung Redis: after the
    # client's timeout, so the teacher's publish of 3.162, sent before, has failed too)
    r = await fetch(f"{base}/teach/api/rooms/{code}?lang=en", cookie=cookie)
    assert r.code == 503 and "does not answer" in json.loads(r.body)["message"]
    assert "3.162" not in [wsclient.card_sigma(t) for t in b.texts(b.model("dp-card-pane"))]
    # ---- it answers again: the labs follow again, at the teacher's state ------------------
    redis.resume()
    await banner_says(a, "Following the instructor")
    await banner_says(b, "교수자를 따라가는 중입니다")
    await banner_says(teacher, "You are leading class")
    for s in (a, b):  # what the teacher changed meanwhile reaches the class
        await s.wait_text("dp-card-pane", lambda t: wsclient.card_sigma(t) == "3.162")
    await wsclient.move_sigma(teacher, 0.0)  # and the next move as before
    for s in (a, b):
        await s.wait_text("dp-card-pane", lambda t: wsclient.card_sigma(t) == "1")

    # ---- Redis stops (the process ends) ----------------------------------------------------
    redis.stop()
    await banner_says(a, "Class connection lost, retrying")
    await wsclient.move_sigma(a, 0.5)  # still works on its own
    # the room's pages say what happened (no traceback): a 503 with the store's message
    down = "The class connection (the store) does not answer"
    r = await fetch(f"{base}/teach?room={code}&lang=en", cookie=cookie)
    assert r.code == 503 and down in r.body.decode() and "Traceback" not in r.body.decode()
    r = await fetch(f"{base}/teach/api/rooms/{code}?lang=en", cookie=cookie)
    assert r.code == 503 and json.loads(r.body)["message"].startswith(down)
    r = await fetch(f"{base}/join?room={code}&lang=en")
    assert r.code == 503 and down in r.body.decode()
    page = await fetch(f"{base}/teach?lang=en", cookie=cookie)
    r = await fetch(f"{base}/teach/rooms/{code}/reveal?lang=en", "POST",
                    "csrf=" + re.search(r'name="csrf" value="([0-9a-f]+)"',  # type: ignore
                                        page.body.decode()).group(1), cookie=cookie,
                    origin=base)
    assert r.code == 503 and down in r.body.decode()
    # ---- it comes back empty (persistence is off): the processes write the room back from
    # what their labs hold, the labs follow again, the class goes on ---------------------------
    redis.start()
    # the open room page, asking at once, hears "retrying" (503), never "no such room" (404),
    # until the room is back
    codes = []
    while not codes or codes[-1] != 200:
        codes.append((await fetch(f"{base}/teach/api/rooms/{code}?lang=en", cookie=cookie)).code)
        assert set(codes) <= {200, 503} and len(codes) < 200, codes
        await asyncio.sleep(0.05)
    for tab, needle in ((teacher, "You are leading class"), (a, "Following the instructor"),
                        (b, "교수자를 따라가는 중입니다")):
        await tab.wait_latest("dp-room-banner", lambda t, n=needle: n in t)  # type: ignore
    # a's own σ (3.162, moved while lost) gives way to the room's
    await a.wait_latest("dp-card-pane", lambda t: wsclient.card_sigma(t) == "1")
    for tab in (teacher, a, b):
        assert "ended" not in newest_banner(tab) and "끝났" not in newest_banner(tab)
    r = await fetch(f"{base}/teach?room={code}&lang=en", cookie=cookie)
    assert r.code == 200 and 'class="dp-room-code"' in r.body.decode()
    await wsclient.move_sigma(teacher, -0.5)  # 0.3162: the next move reaches every student
    for s in (a, b):
        await s.wait_text("dp-card-pane", lambda t: wsclient.card_sigma(t) == "0.3162")
    await wsclient.move_sigma(b, 0.5)  # the labs still work on their own too
    for tab in (teacher, a, b):
        await tab.close()


# The room page's script shows the store's message while the API answers 503 and hides it once
# the API answers again (run as shipped, in Node, with a stub page and fetch).
HARNESS = """
const els = {};
const el = () => ({ textContent: "", hidden: true, innerHTML: "", getAttribute: () => null,
                   setAttribute() {}, contains: () => false });
const room = { getAttribute: () => "/api", querySelector: (s) => els[s] || (els[s] = el()) };
const document = { querySelector: (s) => (s === ".dp-room[data-api]" ? room : null),
                   addEventListener() {} };
const replies = [{ status: 503, body: { error: "store", message: "DOWN" } },
                 { status: 200, body: { count_text: "C", step_text: "S", dist_html: "D" } }];
const seen = [];
const fetch = () => { const r = replies.shift();
  return Promise.resolve({ status: r.status, ok: r.status === 200,
                           json: () => Promise.resolve(r.body) }); };
const window = { location: { reload() {} }, setTimeout: (fn) => {
  const s = els[".dp-room-store"]; seen.push([s.hidden, s.textContent]);
  if (replies.length) { fn(); } else { console.log(JSON.stringify(seen)); } } };
eval(require("fs").readFileSync(process.argv[1], "utf8"));
"""


def test_room_page_says_the_store_is_down() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node")
    out = subprocess.run([node, "-e", HARNESS, str(asset_path("dplab-teach.js"))],
                         capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(out.stdout) == [[True, ""], [False, "DOWN"], [True, ""]]
