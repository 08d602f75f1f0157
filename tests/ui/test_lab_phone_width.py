"""Browser test of /lab in projector type on a phone (issue 39): /lab?size=large&tour=k at
390 px is never wider than the screen, with the tour's step panel open in the sidebar (above
the content on a phone): the card's strip and label/value grids go to one column, the tour's
answers and back/next/close wrap inside the screen (it was 818 px wide in English, 721 in
Korean; "Close the tour" ended at 426 px). Both languages; polling with expect() (no fixed
sleeps).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from app.shell.i18n import t
from ui.conftest import ARTIFACTS, Server, shot
from ui.test_cdf_phone_width import OVERFLOWING, inside_screen


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("step", [1, 8], ids=["first-step", "prediction-step"])
def test_lab_tour_in_projector_type_is_no_wider_than_a_phone(page: Any, server: Server,
                                                             lang: str, step: int) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server.url}/lab?lang={lang}&size=large&tour={step}")
    expect(page.locator(".dp-header.dp-large")).to_be_visible()
    expect(page.locator("#dp-first-paint")).to_have_count(0)
    # step 8 asks for a prediction: the card is concealed until the student answers
    expect(page.locator(".dp-verdict, .dp-card-concealed").first).to_be_visible()
    expect(page.locator(".dp-density-plot svg.dp-svg").first).to_be_visible()
    # the step panel heads the sidebar, folded above the content on a phone: opened
    expect(page.locator("#sidebar")).to_have_class(re.compile(r"\bhidden\b"))
    page.locator("#sidebar-button").click()
    expect(page.locator("#sidebar")).not_to_have_class(re.compile(r"\bhidden\b"))
    expect(page.locator(".dp-tour-step")).to_be_visible()
    expect(page.locator(".dp-tour-count")).to_contain_text(str(step))
    nav = [page.get_by_role("button", name=t(key, lang))
           for key in ("tour.back", "tour.next", "tour.close")]
    if step == 8:
        nav += [page.locator(".dp-tour-option .bk-btn").nth(i) for i in range(3)]
    for loc in nav:
        expect(loc).to_be_visible()
    found = page.evaluate(OVERFLOWING)
    assert found["inner"] == 390
    assert found["scroll"] <= found["inner"], found
    assert found["found"] == [], found
    for loc in nav:
        inside_screen(loc)
    shot(page, f"lab-phone-width-large-{lang}-tour{step}")
    if step == 1:  # the card's numbers, each under its label, on the screen too
        card = page.locator(".dp-required-delta").first
        expect(card).to_be_visible()
        box = card.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390.5, box


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_figure_titles_wrap_inside_a_phone(page: Any, server: Server, lang: str) -> None:
    # The attacker's title ("Best attacker: catches (TPR) for each false-alarm rate (FPR)") ran
    # past a 390 px figure's right edge: it breaks into lines that each fit, and its text is
    # still the whole title.
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server.url}/lab?lang={lang}")
    plot = page.locator(".dp-tradeoff-plot")
    plot.scroll_into_view_if_needed()
    title = plot.locator("svg.dp-svg text.dp-svg-title")
    expect(title).to_have_count(1)
    expect(title).to_have_text(t("lab.attack.title", lang))
    got = title.evaluate("""(el) => {
        const svg = el.ownerSVGElement.getBoundingClientRect();
        return {lines: el.querySelectorAll('tspan').length, right: svg.right,
                ends: [...el.querySelectorAll('tspan')].map(s => s.getBoundingClientRect().right)};
    }""")
    assert got["lines"] >= 2, got  # too long for one line at 390 px in both languages
    assert all(end <= got["right"] + 0.5 for end in got["ends"]), got
    ARTIFACTS.mkdir(exist_ok=True)
    plot.screenshot(path=str(ARTIFACTS / f"lab-phone-attack-title-{lang}.png"))
