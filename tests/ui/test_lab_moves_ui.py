"""A student's own slider moves by the page's moves channel (app/lab/moves.py), in Chromium: a
release goes to ``/lab-moves`` and not through Bokeh, the card, the figures' texts, the field
and the address show the new state; a commit through the session afterwards shows the session's
own views of every move taken (nothing older comes back); without the channel the moves go
through Bokeh as before. Keyboard only, both languages, polling waits."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import expect

from ui.conftest import Server, shot
from ui.test_lab_ui import check_card, open_lab


def frames_by_socket(page: Any) -> dict[str, list[str]]:
    """Frames the page sent, by the path of their websocket ("/lab/ws", "/lab-moves")."""
    sent: dict[str, list[str]] = {}

    def on_ws(ws: Any) -> None:
        path = re.sub(r"^wss?://[^/]+", "", ws.url).split("?")[0]
        ws.on("framesent", lambda payload: sent.setdefault(path, []).append(str(payload)))

    page.on("websocket", on_ws)
    return sent


def slider_by_bokeh(frames: list[str]) -> int:
    return sum('"slider"' in f for f in frames)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_release_goes_by_the_channel_and_the_session_takes_it_later(
        page: Any, server: Server, lang: str) -> None:
    sent = frames_by_socket(page)
    open_lab(page, server, f"lang={lang}")
    handle = page.locator(".dp-slider-sigma input[type=range]").first
    handle.focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    check_card(page, "sum", 4, 1.0, 1.072, 1.0, 0.13, lang=lang)  # 10 ** 0.03
    moved = [json.loads(f) for f in sent.get("/lab-moves", [])]
    assert [(m["c"], m["v"]) for m in moved] == [("sigma", 0.01), ("sigma", 0.02),
                                                  ("sigma", 0.03)]
    assert sent.get("/lab/ws") and slider_by_bokeh(sent["/lab/ws"]) == 0  # none by Bokeh
    # every view of the new state: the field, the readout, a figure's text, the address
    expect(page.locator("#dpc-sigma")).to_have_value("1.072")
    expect(page.locator(".dp-slider-sigma .dp-slider-value")).to_have_text("σ = 1.072")
    expect(page.locator(".dp-density-plot .dp-view-text")).to_contain_text("1.072")
    page.wait_for_function("() => location.search.includes('sigma=1.072')")
    shot(page, f"lab-moves-channel-{lang}")
    # a text through the session: its views now show every move and the new n
    box = page.locator("#dpc-n")
    box.fill("8")
    box.press("Enter")
    check_card(page, "sum", 8, 1.0, 1.072, 1.0, 0.13, lang=lang)
    expect(page.locator("#dpc-sigma")).to_have_value("1.072")
    expect(page.locator(".dp-slider-sigma .dp-slider-value")).to_have_text("σ = 1.072")
    expect(page.locator(".dp-density-plot .dp-view-text")).to_contain_text("1.072")
    # and the next release by the channel again, on top of the session's state
    handle.focus()
    page.keyboard.press("ArrowLeft")
    check_card(page, "sum", 8, 1.0, 1.047, 1.0, 0.13, lang=lang)
    page.wait_for_function("() => location.search.includes('n=8')"
                           " && location.search.includes('sigma=1.047')")


def test_moves_right_after_a_text_end_at_the_last_state(page: Any, server: Server) -> None:
    # a release while the session has a text not yet taken goes through the session too (in
    # order); whichever way each one went, the page ends at the last state
    open_lab(page, server, "lang=en")
    box = page.locator("#dpc-eps")
    box.fill("2")
    box.press("Enter")
    page.locator(".dp-slider-sigma input[type=range]").first.focus()
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    check_card(page, "sum", 4, 1.0, 1.096, 2.0, 0.13)  # 10 ** 0.04
    expect(page.locator("#dpc-eps")).to_have_value("2")
    expect(page.locator("#dpc-sigma")).to_have_value("1.096")


def test_without_the_channel_the_moves_go_through_bokeh(page: Any, server: Server) -> None:
    # the channel refused (a proxy that does not pass it): every release through the session
    page.route_web_socket(re.compile(r"/lab-moves"), lambda ws: ws.close(code=1011))
    sent = frames_by_socket(page)
    open_lab(page, server, "lang=ko")
    page.locator(".dp-slider-eps input[type=range]").first.focus()
    page.keyboard.press("ArrowRight")
    check_card(page, "sum", 4, 1.0, 1.0, 1.05, 0.13, lang="ko")
    assert slider_by_bokeh(sent.get("/lab/ws", [])) == 1
    assert sent.get("/lab-moves", []) == []
