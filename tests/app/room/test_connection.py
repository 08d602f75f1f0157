"""What a page of the live class is given to say that its connection dropped, and how it goes
back (app/room/connection.py, assets/dplab-reconnect.js): the messages in both languages, the
health route behind a prefix, BokehJS's own reconnection off for a room's lab, the banner's
mode, a lab reopened with ``follow=own`` still on its own (its first card its own), and the
address the script reloads (run as shipped, under Node). The browser test with a killed worker:
tests/deploy/test_reconnect_prod.py."""

from __future__ import annotations

import asyncio
import html
import json
import re
import shutil
import subprocess
from collections.abc import Callable

import pytest
import wsclient

from app.lab.first_paint import early_first_paint
from app.lab.follow import LabFollowable
from app.lab.page import LabPage, attach_tour
from app.lab.state import LabState
from app.room import connection
from app.room.hub import RoomHub, set_hub
from app.room.link import RoomLink
from app.room.state import parse_message, state_message
from app.room.store import MemoryStore
from app.serve import room_wiring
from app.shell import options
from app.shell.assets import path
from app.shell.i18n import t

ROOM_LAB = {"q": "mean", "n": "4", "B": "1", "sigma": "2.5", "eps": "1", "delta": "1e-6"}


def test_every_message_in_both_languages() -> None:
    for key in connection.KEYS:
        ko, en = t(f"conn.{key}", "ko"), t(f"conn.{key}", "en")
        assert ko and en and ko != en, key
        assert re.search(r"[가-힣]", ko) and not re.search(r"[가-힣]", en), key
        assert "아니오" not in ko and not re.search(r"\((을|를|이|가|은|는|으)\)", ko), key
    assert t("conn.word.lost", "ko") == "연결 끊김" and t("conn.word.lost", "en") == "Disconnected"
    # the countdown's number comes with its unit
    assert "{seconds}초" in t("conn.next", "ko") and "{seconds} s" in t("conn.next", "en")
    for lang in ("ko", "en"):
        data = connection.data_html(lang, "lab")
        assert f'lang="{lang}"' in data and "hidden" in data
        for key in connection.KEYS:
            name = "data-msg-" + key.replace(".", "-").replace("_", "-")
            assert f'{name}="{html.escape(t(f"conn.{key}", lang))}"' in data, (lang, key)


def test_the_health_route_and_the_script_behind_a_prefix(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    assert 'data-health="/healthz"' in connection.data_html("en", "class")
    monkeypatch.setenv("DPLAB_PREFIX", "course")
    assert 'data-health="/course/healthz"' in connection.data_html("en", "class")
    assert connection.script_url().startswith("/course/assets/dplab-reconnect.js?v=")
    pane = connection.watch_pane("ko")
    assert f'<script src="{html.escape(connection.script_url())}">' in pane.object
    assert 'data-kind="lab"' in pane.object and "연결 끊김" in pane.object
    with pytest.raises(ValueError):
        connection.data_html("en", "teach")


def test_bokehs_own_reconnection_is_off() -> None:
    from bokeh.document import Document

    doc = Document()
    assert doc.config.reconnect_session and doc.config.notify_connection_status
    connection.take_over(doc)
    assert not doc.config.reconnect_session and not doc.config.notify_connection_status


async def until(cond: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not cond():
        assert asyncio.get_running_loop().time() < deadline, "condition not reached"
        await asyncio.sleep(0.01)


async def a_lab(hub: RoomHub, code: str, teacher: bool = False) -> tuple[LabPage, RoomLink]:
    lab = LabPage(LabState(), "en")
    attach_tour(lab, None)
    link = RoomLink(code, teacher=teacher, hub=hub)
    objects = link.attach(LabFollowable(lab))
    assert link.banner in objects
    watch = [o for o in objects if "dp-conn-watch" in (getattr(o, "css_classes", None) or [])]
    assert len(watch) == 1 and "dplab-reconnect.js" in watch[0].object
    await until(lambda: link.state.status == "live")
    return lab, link


def test_the_banner_names_the_mode_a_reload_keeps(monkeypatch: pytest.MonkeyPatch) -> None:
    async def body() -> None:
        hub = RoomHub(MemoryStore(60.0))
        code = await hub.create_room("en")
        _, follower = await a_lab(hub, code)
        assert 'data-mode="follow"' in follower.banner.object
        assert follower.toggle is not None and follower.toggle.value
        _, teacher = await a_lab(hub, code, teacher=True)
        assert 'data-mode="lead"' in teacher.banner.object
        follower.toggle.value = False  # "explore on my own"
        assert 'data-mode="own"' in follower.banner.object
        # the browser reloaded a student exploring on her own: /lab?room=CODE&follow=own
        monkeypatch.setattr(options, "session_args", lambda: {"room": code, "follow": "own"})
        lab, own = await a_lab(hub, code)
        assert not own.state.following and own.toggle is not None and not own.toggle.value
        assert 'data-mode="own"' in own.banner.object
        assert "Exploring on your own" in own.banner.object
        msg = parse_message(state_message(7, "t", {"lab": ROOM_LAB, "tour": 0,
                                                   "revealed": True}, None))
        assert msg is not None
        own.deliver(msg)
        await asyncio.sleep(0.05)
        assert lab.state.sigma == 1.0  # the class's change stays off her lab
        await hub.stop()

    asyncio.run(body())


def test_a_lab_reopened_on_its_own_streams_its_own_first_card() -> None:
    async def body() -> None:
        hub = RoomHub(MemoryStore(60.0))
        set_hub(hub)
        try:
            code = await hub.create_room("en")
            await hub.publish(code, {"lab": ROOM_LAB, "tour": 0, "revealed": True}, "t")
            follow = await room_wiring.first_paint_args({"room": code, "sigma": "0.7"})
            own = {"room": code, "follow": "own", "sigma": "0.7"}
            assert await room_wiring.first_paint_args(own) == own
            for args, sigma in ((follow, "2.5"), (own, "0.7")):
                early = early_first_paint(args, None)
                assert early is not None and wsclient.card_sigma(early.fragment) == sigma
        finally:
            set_hub(None)
            await hub.stop()

    asyncio.run(body())


RELOAD_HARNESS = """
const window = { location: { href: process.argv[2] }, addEventListener() {},
                 history: { replaceState() {} } };
const document = { querySelectorAll: () => [] };
eval(require("fs").readFileSync(process.argv[1], "utf8"));
console.log(JSON.stringify(["follow", "lead", "own", "alone"].map(
  (m) => window.dplabReconnect.reloadUrl(m))));
"""


def test_the_address_a_page_reloads() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node: tests/deploy/test_reconnect_prod.py checks the addresses")
    here = ("http://h:1/course/lab?room=ABCDEF&lang=ko&size=large&sigma=0.7&tour=2"
            "&follow=own#x")
    out = subprocess.run([node, "-e", RELOAD_HARNESS, str(path("dplab-reconnect.js")), here],
                         capture_output=True, text=True, timeout=60, check=True)
    follow, lead, own, alone = json.loads(out.stdout)
    # following or leading: the room gives the state; the address a page built ahead can take
    assert follow == lead == "http://h:1/course/lab?room=ABCDEF&lang=ko&size=large"
    # on her own: her own settings, and that she was on her own
    assert own == "http://h:1/course/lab?room=ABCDEF&lang=ko&size=large&sigma=0.7&tour=2" \
        "&follow=own"
    assert alone == "http://h:1/course/lab?room=ABCDEF&lang=ko&size=large&sigma=0.7&tour=2"
