"""Browser tests of /cdf's main-area controls as components of parts (app/cdf/component.py):
the degree box and the stream's controls by the keyboard alone (Tab, arrow keys, Space, Enter),
named by their labels; "compare all" by Enter. Both languages; polling with expect() (no fixed
sleeps)."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from playwright.sync_api import expect

from app.shell.i18n import t
from ui.conftest import Server, shot


def open_cdf(page: Any, server: Server, query: str) -> None:
    page.goto(f"{server.url}/cdf?{query}")
    expect(page.locator(".dp-cdf-ks")).to_be_visible()
    expect(page.locator(".dp-cdf-plot svg.dp-svg path.dp-cdf-ref").first).to_be_visible()
    expect(page).to_have_url(re.compile(r"[?&]seed="))


def agreed_degree(page: Any, degree: Any, slider: Any, timeout_s: float = 20.0) -> int:
    """The degree once the card's text and the slider show the same one, read together (polled:
    in one full run the text read right after a wait for digits was empty, its pane drawn anew
    in between)."""
    deadline = time.monotonic() + timeout_s
    while True:
        text, value = degree.inner_text().strip(), slider.input_value()
        if text.isdigit() and text == value:
            return int(text)
        assert time.monotonic() < deadline, f"degree {text!r}, slider {value!r}"
        page.wait_for_timeout(50)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_degree_box_by_keyboard(page: Any, server: Server, lang: str) -> None:
    open_cdf(page, server, f"lang={lang}&data=bimodal&n=20000")
    box = page.get_by_role("checkbox", name=t("cdf.ctl.auto_degree", lang))
    slider = page.get_by_role("slider", name=t("cdf.ctl.degree", lang))
    expect(box).to_be_checked()
    # the degree's text comes with the page's later refresh (after the card): wait for it
    degree = page.locator(".dp-cdf-degree").first
    expect(degree).to_have_text(re.compile(r"^\d+$"))
    k = agreed_degree(page, degree, slider)
    box.focus()
    page.keyboard.press("Tab")  # the slider is the next stop
    expect(slider).to_be_focused()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(page.locator(".dp-cdf-degree").first).to_have_text(str(k + 2))
    expect(page.locator(".dp-cdf-degree-slider output")).to_have_text(str(k + 2))
    expect(box).not_to_be_checked()
    expect(page).to_have_url(re.compile(f"[?&]degree={k + 2}(&|$)"))
    page.keyboard.press("Home")
    expect(page.locator(".dp-cdf-degree").first).to_have_text("0")
    page.keyboard.press("Shift+Tab")  # back to the box: Space puts the automatic degree back
    expect(box).to_be_focused()
    page.keyboard.press("Space")
    expect(box).to_be_checked()
    expect(slider).to_have_value(str(k))
    expect(page.locator(".dp-cdf-degree").first).to_have_text(str(k))
    shot(page, f"cdf-degree-box-keyboard-{lang}")


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_stream_controls_by_keyboard(page: Any, server: Server, lang: str) -> None:
    open_cdf(page, server, f"lang={lang}&n=2000&eps=1&method=pp")
    group = page.get_by_role("radiogroup", name=t("cdf.stream.mode", lang))
    batches = group.get_by_role("radio", name=t("cdf.stream.mode.batches", lang))
    sites = group.get_by_role("radio", name=t("cdf.stream.mode.sites", lang))
    expect(batches).to_be_checked()
    batches.focus()
    page.keyboard.press("ArrowRight")  # a radio group: the arrow moves the choice
    expect(sites).to_be_checked()
    expect(page).to_have_url(re.compile(r"[?&]stream=sites(&|$)"))
    add = page.get_by_role("button", name=t("cdf.stream.add.sites", lang))
    expect(add).to_be_visible()
    # the number of sites: a rejected text is said at its field, then fixed with Enter
    parts = page.get_by_role("textbox", name=t("cdf.stream.parts", lang))
    page.keyboard.press("Tab")
    expect(parts).to_be_focused()
    parts.fill("99")
    page.keyboard.press("Enter")
    expect(page.locator(".dp-cdf-err-stream_parts [role=alert]")).to_be_visible()
    expect(parts).to_have_attribute("aria-invalid", "true")
    parts.fill("2")
    page.keyboard.press("Enter")
    expect(page.locator(".dp-cdf-err-stream_parts [role=alert]")).to_have_count(0)
    expect(parts).not_to_have_attribute("aria-invalid", "true")
    expect(page).to_have_url(re.compile(r"[?&]parts=2(&|$)"))
    # Tab to "add", Enter twice: two sites released, then the button is off
    page.keyboard.press("Tab")
    expect(add).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator(".dp-cdf-stream-table tbody tr")).to_have_count(1)
    page.keyboard.press("Enter")
    expect(page.locator(".dp-cdf-stream-table tbody tr")).to_have_count(2)
    expect(add).to_be_disabled()
    reset = page.get_by_role("button", name=t("cdf.stream.reset", lang))
    reset.focus()
    page.keyboard.press("Enter")
    expect(page.locator(".dp-cdf-stream-table tbody tr")).to_have_count(0)
    expect(add).to_be_enabled()
    shot(page, f"cdf-stream-keyboard-{lang}")


def test_compare_all_by_enter(page: Any, server: Server) -> None:
    open_cdf(page, server, "lang=en&n=2000&eps=1&method=pp")
    page.get_by_role("button", name=t("cdf.ctl.all", "en")).focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"[?&]method=all(&|$)"))
    expect(page.locator(".dp-cdf-multiple")).to_have_count(5)
    expect(page.get_by_role("button", name=t("cdf.ctl.all", "en"))).to_have_count(0)
