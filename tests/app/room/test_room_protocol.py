"""The live class at the Bokeh protocol level (benchmarks/wsclient.py), one server on a real
Redis: sign-in, join, follow / detach / follow again, a student's forged change, ask the class +
answers + reveal, and the end of the class (nothing left in Redis); the tour: ask at a
prediction step, each follower answers once in the tour panel, the reveal reaches every one."""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import wsclient

ROOT = Path(__file__).resolve().parents[3]
TOKEN = "test-teacher-token-20"


def room_app_server(redis_url: str, token: str) -> Iterator[str]:
    """Our ``serve()`` in a process of its own on a free port with the teacher ``token`` and the
    store at ``redis_url``; yields its base address once ``/join`` answers (a fixture body)."""
    port = socket_port()
    root = ROOT
    env = {**os.environ, "PYTHONPATH": str(root), "DPLAB_TEACHER_TOKEN": token,
           "DPLAB_REDIS_URL": redis_url}
    proc = subprocess.Popen([sys.executable, "-c",
                             f"from app.serve.server import serve; serve(port={port})"],
                            cwd=root, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    try:
        while True:
            try:
                with urllib.request.urlopen(base + "/join", timeout=5):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("server did not start")
                time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture(scope="module")
def server(redis_server: Any) -> Iterator[str]:
    yield from room_app_server(redis_server.url, TOKEN)


def socket_port() -> int:
    import socket

    with socket.socket() as sk:
        sk.bind(("127.0.0.1", 0))
        return int(sk.getsockname()[1])


async def fetch(url: str, method: str = "GET", body: str | None = None,
                cookie: str = "", origin: str | None = None) -> Any:
    from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest

    headers = {"Accept-Language": "en"}
    if cookie:
        headers["Cookie"] = f"dplab_teacher={cookie}"
    if origin:
        headers["Origin"] = origin
    req = HTTPRequest(url, method=method, body=body, headers=headers, follow_redirects=False)
    try:
        return await AsyncHTTPClient().fetch(req)
    except HTTPClientError as exc:
        assert exc.response is not None
        return exc.response


def click(model_id: str) -> dict[str, Any]:
    return {"kind": "MessageSent", "msg_type": "bokeh_event",
            "msg_data": {"type": "event", "name": "button_click",
                         "values": {"type": "map", "entries": [["model", {"id": model_id}]]}}}


async def banner(tab: wsclient.Tab, needle: str, timeout: float = 15) -> str:
    return await tab.wait_text("dp-room-banner", lambda t: needle in t, timeout)


def sigma_shown(tab: wsclient.Tab) -> list[str | None]:
    return [wsclient.card_sigma(t) for t in tab.texts(tab.model("dp-card-pane"))]


def test_live_class(server: str, redis_server: Any) -> None:
    asyncio.run(_live_class(server, redis_server.url))


async def _live_class(base: str, redis_url: str) -> None:
    # ---- sign-in: wrong token 403, the right one 303 + a Strict, HttpOnly cookie ---------
    r = await fetch(base + "/teach", "POST", "token=wrong", origin=base)
    assert r.code == 403 and "not right" in r.body.decode()
    r = await fetch(base + "/teach", "POST", f"token={TOKEN}", origin="http://evil.example")
    assert r.code == 403  # another site's form
    r = await fetch(base + "/teach", "POST", f"token={TOKEN}", origin=base)
    assert r.code == 303
    set_cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in set_cookie and "SameSite=Strict" in set_cookie
    assert TOKEN not in r.headers["Location"]
    cookie = set_cookie.split(";", 1)[0].split("=", 1)[1]
    code = re.search(r"room=([A-Z0-9]{6})", r.headers["Location"]).group(1)  # type: ignore
    assert not set(code) & set("0O1IL")
    page = (await fetch(f"{base}/teach?room={code}&lang=en", cookie=cookie)).body.decode()
    assert 'class="dp-room-code"' in page and code in page and "<svg" in page
    assert "dp-room-count" in page and TOKEN not in page
    # students are refused by the teacher's API and buttons
    assert (await fetch(f"{base}/teach/api/rooms/{code}")).code == 403
    assert (await fetch(f"{base}/teach/rooms/{code}/end", "POST", "csrf=x",
                        origin=base)).code == 403
    # ---- join ----------------------------------------------------------------------------
    r = await fetch(f"{base}/join?room=ZZZZZZ&lang=en")
    assert r.code == 404 and "no class with this code" in r.body.decode()
    r = await fetch(f"{base}/join?room={code.lower()}&lang=en")  # the class's page
    assert r.code == 200 and f"/lab?room={code}" in r.body.decode()
    # ---- the teacher leads, students follow -------------------------------------------------
    teacher = await wsclient.Tab.open(f"{base}/lab?room={code}&lang=en",
                                      extra_cookies={"dplab_teacher": cookie})
    assert cookie not in teacher.page.body  # never copied into the page's session token
    a = await wsclient.Tab.open(f"{base}/lab?room={code}&lang=en")
    b = await wsclient.Tab.open(f"{base}/lab?room={code}&lang=ko")
    await wsclient.move_sigma(teacher, 0.3)  # σ = 1.995
    for s in (a, b):
        await s.wait_text("dp-card-pane", lambda t: wsclient.card_sigma(t) == "1.995")
    # a forged change from a student changes nothing for anyone else
    await wsclient.move_sigma(a, -0.5)
    await asyncio.sleep(1.0)
    assert "0.3162" not in sigma_shown(b) and "0.3162" not in sigma_shown(teacher)
    # detach: the teacher's next move does not reach A; follow again jumps to it
    await a.set("dp-follow", "active", False)
    await banner(a, "Exploring on your own")
    await wsclient.move_sigma(teacher, 0.5)  # 3.162
    await b.wait_text("dp-card-pane", lambda t: wsclient.card_sigma(t) == "3.162")
    await asyncio.sleep(0.5)
    assert "3.162" not in sigma_shown(a)
    await a.set("dp-follow", "active", True)
    await a.wait_text("dp-card-pane", lambda t: wsclient.card_sigma(t) == "3.162")
    # counts: two students, both following (workers write every 2 s)
    deadline = time.monotonic() + 10
    while True:
        api = await fetch(f"{base}/teach/api/rooms/{code}?lang=en", cookie=cookie)
        data = __import__("json").loads(api.body)
        if (data["connected"], data["following"]) == (2, 2) or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.5)
    assert (data["connected"], data["following"]) == (2, 2)
    # ---- ask the class a quiz question; one answer per student; reveal ----------------------
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)  # type: ignore
    r = await fetch(f"{base}/teach/rooms/{code}/quiz?lang=en", "POST",
                    f"csrf={csrf}&ref=gaussian:q-pure", cookie=cookie, origin=base)
    assert r.code == 303
    await banner(a, "The instructor asks the class")
    await asyncio.sleep(1.0)
    a.by_class.update(await _option_ids(a))
    b.by_class.update(await _option_ids(b))
    await asyncio.wait_for(await a._patch([click(a.model("dp-room-option-1"))]), 10)
    await asyncio.wait_for(await b._patch([click(b.model("dp-room-option-0"))]), 10)
    await banner(a, "Your answer")
    deadline = time.monotonic() + 10
    while True:
        data = __import__("json").loads(
            (await fetch(f"{base}/teach/api/rooms/{code}?lang=en", cookie=cookie)).body)
        if data["answers"] == 2 or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.3)
    assert data["counts"] == [1, 1, 0]
    r = await fetch(f"{base}/teach/rooms/{code}/reveal?lang=en", "POST", f"csrf={csrf}",
                    cookie=cookie, origin=base)
    assert r.code == 303
    await banner(b, "수업 {code}".replace("{code}", code), 5)
    # ---- end: everyone is told, the labs keep working, nothing is left in Redis ----------
    r = await fetch(f"{base}/teach/rooms/{code}/end?lang=en", "POST", f"csrf={csrf}",
                    cookie=cookie, origin=base)
    assert r.code == 303
    await banner(a, "has ended")
    await banner(b, "끝났습니다")
    await wsclient.move_sigma(a, 0.0)  # A's lab still works on its own
    from app.room.store import RedisStore

    store = RedisStore(redis_url, 60)
    assert await store.stored_keys(code) == []
    await store.close()
    assert (await fetch(f"{base}/join?room={code}")).code == 404
    for tab in (teacher, a, b):
        await tab.close()


async def _option_ids(tab: wsclient.Tab) -> dict[str, str]:
    """The quiz buttons are added after the page was pulled: their ids from the pushes."""
    out: dict[str, str] = {}
    for msg in tab.pushed:
        for m in wsclient.walk_models(msg.content):
            for c in (m.get("attributes") or {}).get("css_classes") or []:
                if str(c).startswith("dp-room-option-"):
                    out[str(c)] = str(m["id"])
    assert out, "no quiz option buttons pushed"
    return out


# ---- the tour: ask the class at a prediction step, one answer each, reveal for everyone ----
def last_ids(tab: wsclient.Tab, prefix: str) -> dict[str, str]:
    """css class -> id of the newest pushed model with a class starting with ``prefix`` (the
    tour's option buttons are made again on each refresh)."""
    out: dict[str, str] = {}
    for msg in tab.pushed:
        for m in wsclient.walk_models(msg.content):
            for c in (m.get("attributes") or {}).get("css_classes") or []:
                if str(c).startswith(prefix):
                    out[str(c)] = str(m["id"])
    return out


async def wait_pushed(tab: wsclient.Tab, needle: str, timeout: float = 15) -> None:
    """Until some pushed text (any model, set or created) contains ``needle``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        for msg in tab.pushed:
            if needle in html.unescape(json.dumps(msg.content, ensure_ascii=False)):
                return
        left = deadline - loop.time()
        if left <= 0:
            raise AssertionError(f"{needle!r} never pushed")
        tab._push_event.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(tab._push_event.wait(), left)


async def room_api(base: str, code: str, cookie: str) -> dict[str, Any]:
    r = await fetch(f"{base}/teach/api/rooms/{code}?lang=en", cookie=cookie)
    return dict(json.loads(r.body))


async def until_api(base: str, code: str, cookie: str, ok: Any, timeout: float = 10
                    ) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        data = await room_api(base, code, cookie)
        if ok(data) or time.monotonic() > deadline:
            return data
        await asyncio.sleep(0.2)


def test_tour_ask_and_reveal(server: str) -> None:
    asyncio.run(_tour_ask_and_reveal(server))


async def _tour_ask_and_reveal(base: str) -> None:
    r = await fetch(base + "/teach", "POST", f"token={TOKEN}", origin=base)
    cookie = r.headers["Set-Cookie"].split(";", 1)[0].split("=", 1)[1]
    code = re.search(r"room=([A-Z0-9]{6})", r.headers["Location"]).group(1)  # type: ignore
    page = (await fetch(f"{base}/teach?room={code}&lang=en", cookie=cookie)).body.decode()
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)  # type: ignore

    async def post(action: str) -> Any:
        return await fetch(f"{base}/teach/rooms/{code}/{action}?lang=en", "POST",
                           f"csrf={csrf}", cookie=cookie, origin=base)

    teacher = await wsclient.Tab.open(f"{base}/lab?room={code}&lang=en",
                                      extra_cookies={"dplab_teacher": cookie})
    a = await wsclient.Tab.open(f"{base}/lab?room={code}&lang=en")
    b = await wsclient.Tab.open(f"{base}/lab?room={code}&lang=ko")
    # the tour starts at step 1, which predicts nothing: "ask the class" says so
    assert (await post("tour")).code == 303
    await wait_pushed(teacher, "Step 1 of")
    r = await post("ask")
    assert r.code == 303 and "note=ask" in r.headers["Location"]
    # the teacher's lab goes to step 2 (a prediction): the followers' cards are concealed
    nxt = last_ids(teacher, "dp-tour-next")["dp-tour-next"]
    await asyncio.wait_for(await teacher._patch([click(nxt)]), 10)
    await a.wait_text("dp-card-pane", lambda t: "shown after your prediction" in t)
    await b.wait_text("dp-card-pane", lambda t: "예측 후 공개" in t)
    # ask the class: every follower is asked in the tour panel, in their own language
    assert (await post("ask")).code == 303
    await banner(a, "pick one answer in the tour panel")
    await banner(b, "둘러보기 패널에서 답을 하나 고르세요")
    data = await room_api(base, code, cookie)
    assert data["question"]["kind"] == "tour" and data["question"]["ref"] == "2"
    assert data["counts"] == [0, 0] and not data["question"]["revealed"]
    a_opts, b_opts = last_ids(a, "dp-tour-option-"), last_ids(b, "dp-tour-option-")
    await asyncio.wait_for(await a._patch([click(a_opts["dp-tour-option-1"])]), 10)  # fail
    await asyncio.wait_for(await b._patch([click(b_opts["dp-tour-option-0"])]), 10)  # pass
    for tab, needle in ((a, 'Your answer "fail" is in'), (b, "답 ‘통과’를 보냈습니다")):
        await tab.wait_text("dp-room-banner", lambda t, n=needle: n in html.unescape(t), 15)
    data = await until_api(base, code, cookie, lambda d: d["answers"] >= 2)
    assert data["counts"] == [1, 1]
    # another tab of student a (the same browser: the same student credential) is refused and
    # shows a's answer on record
    student_a = next(v.split(";", 1)[0].split("=", 1)[1].strip('"')
                     for v in a.page.headers.get_list("Set-Cookie")
                     if v.startswith("dplab_student="))
    a2 = await wsclient.Tab.open(f"{base}/lab?room={code}&lang=en",
                                 extra_cookies={"dplab_student": student_a})
    assert not any(v.startswith("dplab_student=") for v in a2.page.headers.get_list("Set-Cookie"))
    # its tour panel came with the page (pulled, not pushed); a later refresh may push it anew
    a2_opts = {c: i for c, i in a2.by_class.items() if c.startswith("dp-tour-option-")}
    a2_opts.update(last_ids(a2, "dp-tour-option-"))
    await asyncio.wait_for(await a2._patch([click(a2_opts["dp-tour-option-0"])]), 10)
    await a2.wait_text("dp-room-banner", lambda t: 'already answered. What it sent: fail'
                       in html.unescape(t), 15)
    await a2.close()
    data = await until_api(base, code, cookie, lambda d: d["answers"] > 2, timeout=2)
    assert data["counts"] == [1, 1]
    # a second answer from the same student (their earlier option, sent again) is not counted
    with contextlib.suppress(Exception):
        await asyncio.wait_for(await a._patch([click(a_opts["dp-tour-option-0"])]), 10)
    await asyncio.wait_for(await b._patch([click(b_opts["dp-tour-option-1"])]), 10)
    data = await until_api(base, code, cookie, lambda d: d["answers"] > 2, timeout=2)
    assert data["counts"] == [1, 1] and data["answers"] == 2
    await teacher.wait_text("dp-room-dist-pane", lambda t: "2 answers" in t)
    # the teacher reveals: every follower's card appears and its tour panel says the answer
    assert (await post("reveal")).code == 303
    await a.wait_text("dp-card-pane", lambda t: wsclient.card_sigma(t) is not None)
    await b.wait_text("dp-card-pane", lambda t: wsclient.card_sigma(t) is not None)
    await wait_pushed(a, "Your prediction was right: “fail”")
    await wait_pushed(b, "내 예측: “통과”. 실제 답:")
    data = await room_api(base, code, cookie)
    assert data["question"]["revealed"] and data["counts"] == [1, 1]
    await teacher.wait_text("dp-room-dist-pane", lambda t: "(right answer)" in t)
    assert (await post("end")).code == 303
    for tab in (teacher, a, b):
        await tab.close()
