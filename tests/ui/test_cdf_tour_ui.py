"""Browser test of the /cdf guided tour (issue 18 §4): predict with the keyboard, see the page
change, step with ← / →, the step in the address; both languages."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

import lessons
from app.shell.i18n import t
from ui.conftest import Server, shot


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_cdf_tour_with_the_keyboard(page: Any, server: Server, lang: str) -> None:
    steps = lessons.cdf_tour(lang)
    n = len(steps)
    page.goto(f"{server.url}/cdf?lang={lang}&tour=1")
    panel = page.locator(".dp-tour-step")
    expect(panel).to_contain_text(t("tour.count", lang, k=1, n=n))
    expect(page.locator(".dp-cdf-plot canvas.bk-layer:not(.bk-glyph)").first).to_be_visible()
    slider = page.locator(".dp-cdf-degree-slider")
    expect(slider).to_contain_text("10")
    # predict with the keyboard (the right answer): then the page shows degree 40
    page.locator(f".dp-tour-option-{steps[0].answer} button").focus()
    page.keyboard.press("Enter")
    expect(panel.locator(".dp-tour-result")).to_be_visible()
    expect(panel.locator(".dp-tour-reveal")).to_be_visible()
    expect(slider).to_contain_text("40")
    expect(page).to_have_url(re.compile(r"[?&]degree=40(&|$)"))
    # → to the next step; the address follows
    panel.locator(".dp-tour-next button").focus()
    page.keyboard.press("ArrowRight")
    expect(panel).to_contain_text(t("tour.count", lang, k=2, n=n))
    expect(page).to_have_url(re.compile(r"[?&]tour=2(&|$)"))
    # a wrong prediction still shows the change: the new seed is in the address
    wrong = next(i for i in range(len(steps[1].options)) if i != steps[1].answer)
    page.locator(f".dp-tour-option-{wrong} button").focus()
    page.keyboard.press("Enter")
    expect(panel.locator(".dp-tour-result")).to_be_visible()
    expect(page).to_have_url(re.compile(r"[?&]seed=2(&|$)"))
    # step 3: auto switches to a histogram once revealed
    page.keyboard.press("ArrowRight")
    expect(panel).to_contain_text(t("tour.count", lang, k=3, n=n))
    panel.locator(".dp-tour-reveal-btn button").click()
    expect(page).to_have_url(re.compile(r"[?&]n=1000(&|$)"))
    expect(page.locator(".dp-cdf-auto")).to_be_visible()
    shot(page, f"cdf-tour-step3-{lang}")
    page.keyboard.press("ArrowLeft")
    expect(panel).to_contain_text(t("tour.count", lang, k=2, n=n))
    # '?' opens the shortcut help, Escape closes it
    page.keyboard.press("?")
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text(t("cdftour.help.title", lang))
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
