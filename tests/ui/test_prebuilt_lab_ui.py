"""A lab page built ahead (app/serve/prebuild.py) in a browser: the same card, address, keys,
simulation and language as a page built on demand."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from ui.conftest import Server, start_server, stop_server
from ui.test_lab_ui import check_card, open_lab

READY = "lab pages built ahead:"


@pytest.fixture(scope="module")
def ahead_server() -> Iterator[Server]:
    srv = start_server("ui-prebuilt-server.log", {"DPLAB_PREBUILT_PAGES": "8"})
    yield srv
    stop_server(srv)


def _wait_for_ready(srv: Server, count: int) -> None:
    """Poll the server log until the pool has announced itself full ``count`` times."""
    deadline = time.monotonic() + 30
    while srv.log_text().count(READY) < count:
        assert time.monotonic() < deadline, srv.log_text()[-2000:]
        time.sleep(0.1)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_page_built_ahead_works_as_one_built_on_demand(
        browser: Any, ahead_server: Server, lang: str) -> None:
    ctx = browser.new_context(viewport={"width": 1500, "height": 1000})
    ctx.set_default_timeout(20000)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        # One request for the address moves the pool's split towards it; once the pool is
        # full again, the next request takes a page built ahead.
        before = ahead_server.log_text().count(READY)
        open_lab(page, ahead_server, f"lang={lang}")
        _wait_for_ready(ahead_server, before + 1)
        runs, before = (ahead_server.log_text().count("page-run "),
                        ahead_server.log_text().count(READY))
        open_lab(page, ahead_server, f"lang={lang}")
        # It came from the pool (no page was built for it) and the pool refills.
        assert ahead_server.log_text().count("page-run ") == runs + 1
        _wait_for_ready(ahead_server, before + 1)
        check_card(page, "sum", 4, 1.0, 1.0, 1.0, 0.13, lang=lang)
        # The plain address becomes the full one once the page is live (as on demand).
        expect(page).to_have_url(re.compile(r"[?&]eps=1(&|$)"))
        # Keys: a typed ε, then the slider's arrow.
        eps_label = r"^ε \(no unit\)" if lang == "en" else r"^ε"
        box = page.get_by_label(re.compile(eps_label)).first
        box.focus()
        page.keyboard.press("Control+A")
        page.keyboard.type("2")
        page.keyboard.press("Enter")
        check_card(page, "sum", 4, 1.0, 1.0, 2.0, 0.13, lang=lang)
        page.keyboard.press("Tab")
        page.keyboard.press("ArrowRight")
        expect(page.locator(".dp-eps")).to_have_text("2.05")
        expect(page).to_have_url(re.compile(r"[?&]eps=2\.05(&|$)"))
        # The simulation figure, drawn by the page, with its text. (Its text is drawn anew with
        # each of the view's messages, so the element found may be replaced while the page
        # scrolls to it: the scroll is tried again on the new one.)
        for attempt in range(10):
            try:
                page.locator(".dp-sim-text").scroll_into_view_if_needed()
                break
            except PlaywrightError:
                if attempt == 9:
                    raise
        expect(page.locator(".dp-sim-plot path.dp-sim-h0").first).to_be_visible()
        expect(page.locator(".dp-sim-text")).to_contain_text("5000")
    finally:
        ctx.close()
    assert errors == [], errors
