"""The live class in a real browser (issue 20): the teacher signs in at /teach, opens a room and
its projected lab; two students join by the code (one in English with the mouse, one in Korean
with the keyboard only) and follow; the teacher's σ reaches both cards; a student explores on
their own and "follow again" jumps to where the class is; the room page counts 2 connected and
2 following. Locators: roles, labels and the fixed CSS classes of the issue."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

from ui.conftest import (
    LOCAL_HOSTS,
    Server,
    shot,
    teacher_server,
)

TOKEN = "ui-teacher-token-20"


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    yield from teacher_server("ui-room-server.log", TOKEN)


class Watched:
    """A page's JavaScript errors and any request that leaves the machine."""

    def __init__(self, pg: Any) -> None:
        self.errors: list[str] = []
        self.external: list[str] = []
        pg.on("pageerror", lambda e: self.errors.append(str(e)))
        pg.on("request", self._request)

    def _request(self, req: Any) -> None:
        u = urlparse(req.url)
        if u.scheme not in ("data", "blob", "about") and u.hostname not in LOCAL_HOSTS:
            self.external.append(req.url)

    def check(self) -> None:
        assert self.errors == [] and self.external == [], (self.errors, self.external)


def focus_by_tab(pg: Any, selector: str, limit: int = 40) -> None:
    """Press Tab until ``selector`` has the focus (keyboard only)."""
    for _ in range(limit):
        pg.keyboard.press("Tab")
        if pg.evaluate("(s) => document.activeElement?.matches(s) ?? false", selector):
            return
    raise AssertionError(f"{selector} not reached with Tab in {limit} presses")


def test_a_class_follows_the_teacher(browser: Any, server: Server) -> None:
    contexts = [browser.new_context(viewport=vp) for vp in (
        {"width": 1920, "height": 1080}, {"width": 1280, "height": 900},
        {"width": 1280, "height": 900})]
    try:
        for c in contexts:
            c.set_default_timeout(20000)
        teach_ctx, en_ctx, ko_ctx = contexts
        watched: list[Watched] = []

        def new_page(ctx: Any) -> Any:
            pg = ctx.new_page()
            watched.append(Watched(pg))
            return pg

        # ---- the teacher: token form (field `token`), the room page, the projected lab ----
        room = new_page(teach_ctx)
        room.goto(server.url + "/teach?lang=en")
        assert room.locator("input[name=token]").count() == 1
        room.get_by_label("Teacher token").fill(TOKEN)
        room.get_by_role("button", name="Open a new class").click()
        room.wait_for_url(re.compile(r"/teach\?.*room=[A-Z0-9]{6}"))
        code = (room.locator(".dp-room-code").text_content() or "").strip()
        assert re.fullmatch(r"[A-HJKMNP-Z2-9]{6}", code), code
        assert TOKEN not in room.content()
        count = room.locator(".dp-room-count")
        expect(count).to_contain_text("student pages connected: 0")
        with teach_ctx.expect_page() as opened:
            room.get_by_role("link", name="Open the projected lab").click()
        lab = opened.value
        watched.append(Watched(lab))
        expect(lab.locator(".dp-room-banner")).to_contain_text(f"You are leading class {code}")
        expect(lab.locator(".dp-verdict")).to_be_visible()

        # ---- student 1, English: /join, type the code, the class page, the lab ------------
        en = new_page(en_ctx)
        en.goto(server.url + "/join?lang=en")
        en.get_by_label("Class code").fill(code.lower())  # case does not matter
        en.get_by_role("button", name="Join").click()
        en.get_by_role("link", name="Open the lab with the class").click()
        expect(en.locator(".dp-room-banner")).to_contain_text(
            f"Following the instructor (class {code})")

        # ---- student 2, Korean, keyboard only ------------------------------------------------
        ko = new_page(ko_ctx)
        ko.goto(server.url + "/join?lang=ko")
        focus_by_tab(ko, "#dp-code")
        ko.keyboard.type(code)
        ko.keyboard.press("Enter")
        expect(ko.get_by_role("link", name="수업과 함께 실습실 열기")).to_be_visible()
        focus_by_tab(ko, ".dp-join-lab")
        ko.keyboard.press("Enter")
        expect(ko.locator(".dp-room-banner")).to_contain_text(
            f"교수자를 따라가는 중입니다(수업 {code})")
        expect(ko.get_by_role("button", name="혼자 탐색하기")).to_be_visible()

        # ---- the teacher moves σ: both cards show it ---------------------------------------
        delta_before = lab.locator(".dp-required-delta").text_content()
        box = lab.get_by_label(re.compile(r"^σ — noise"))
        box.fill("0.5")
        box.press("Enter")
        expect(lab.locator(".dp-sigma")).to_have_text("0.5")
        expect(lab.locator(".dp-required-delta")).not_to_have_text(delta_before or "")
        delta = lab.locator(".dp-required-delta").text_content() or ""
        for s in (en, ko):
            expect(s.locator(".dp-sigma")).to_have_text("0.5")
            expect(s.locator(".dp-required-delta")).to_have_text(delta)
        # the state came by the class's channel (app/room/channel.py), one frame per state:
        # the controls and the figures too, with no second copy of any pane in the page
        channel_seq = "() => window.dplabRoomCard ? window.dplabRoomCard.seq : -2"
        en.wait_for_function(f"({channel_seq})() >= 1")
        ko.wait_for_function(f"({channel_seq})() >= 1")
        expect(en.get_by_label(re.compile(r"^σ — noise"))).to_have_value("0.5")
        expect(ko.locator(".dp-density-plot svg.dp-svg")).to_have_attribute(
            "aria-label", re.compile(r".+"))
        assert en.locator(".dp-card").count() == 1 and ko.locator(".dp-sigma").count() == 1

        # ---- the room page counts both students, both following ------------------------------
        expect(count).to_contain_text(
            re.compile(r"\(lab 2 · class page \d\) · following the instructor: 2$"))

        # ---- detach: the teacher's next move stays off that lab; "follow again" jumps -------
        en.get_by_role("button", name="Explore on my own").click()
        expect(en.locator(".dp-room-banner")).to_contain_text("Exploring on your own")
        # the session took the class's state: the page shows its own views, the same values
        expect(en.get_by_label(re.compile(r"^σ — noise"))).to_have_value("0.5")
        expect(en.locator(".dp-sigma")).to_have_text("0.5")
        en.wait_for_function("() => window.dplabChannelOver && "
                             "Object.keys(window.dplabChannelOver).length === 0")
        expect(count).to_contain_text(
            re.compile(r"\(lab 2 · class page \d\) · following the instructor: 1$"))
        en_seq = en.evaluate(channel_seq)
        ko_seq = ko.evaluate(channel_seq)
        box.fill("2")
        box.press("Enter")
        expect(ko.locator(".dp-sigma")).to_have_text("2")
        ko.wait_for_function(f"({channel_seq})() > {ko_seq}")
        expect(en.locator(".dp-sigma")).to_have_text("0.5")  # (Korean lab already took 2)
        assert en.evaluate(channel_seq) == en_seq  # no card is sent to a lab on its own
        delta2 = lab.locator(".dp-required-delta").text_content() or ""
        assert delta2 != delta
        en.get_by_role("button", name="Follow again").click()
        expect(en.locator(".dp-sigma")).to_have_text("2")
        expect(en.locator(".dp-required-delta")).to_have_text(delta2)
        expect(en.locator(".dp-room-banner")).to_contain_text("Following the instructor")
        expect(count).to_contain_text(
            re.compile(r"\(lab 2 · class page \d\) · following the instructor: 2$"))
        shot(room, "room-teacher-en")
        shot(ko, "room-student-ko")
        for w in watched:
            w.check()
    finally:
        for c in contexts:
            c.close()
