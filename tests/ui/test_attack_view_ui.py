"""What δ means to an attacker (issue 41) in a real browser: the view draws the curve, the
claim's region and the attacker's point (`.dp-tradeoff-plot`), says the rates in words
(`.dp-attack-tpr`, `.dp-attack-advantage`), takes the attacker's FPR from its field by the
keyboard (`.dp-attack-fpr`, reached by its label), says why a value is refused, and follows σ
and ε like the other views; both languages; axe finds nothing inside the view."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from app.shell.i18n import t
from dpcore import tradeoff
from ui.conftest import Server, run_axe, shot


def open_view(page: Any, server: Server, lang: str) -> None:
    page.goto(f"{server.url}/lab?lang={lang}")
    view = page.locator(".dp-attack-view")
    expect(page.locator(".dp-tradeoff-plot svg.dp-svg path.dp-tradeoff-curve")).to_have_count(1)
    view.scroll_into_view_if_needed()
    expect(page.locator(".dp-tradeoff-plot .dp-tradeoff-point")).to_have_count(1)


def test_the_attacker_view_in_english(page: Any, server: Server) -> None:
    open_view(page, server, "en")
    words = page.locator(".dp-attack-tpr")
    expect(words).to_contain_text("allowed 5 false alarms in 100 catches at most 26 in 100")
    expect(page.locator(".dp-attack-advantage")).to_contain_text("at most 21 in 100")
    fpr = page.get_by_label(t("lab.attack.fpr_label", "en"))
    expect(fpr).to_have_value("0.05")
    # the keyboard path: focus the field, type, Enter
    fpr.focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("0.01")
    page.keyboard.press("Enter")
    expect(words).to_contain_text("allowed 1 false alarm in 100 catches at most 10 in 100")
    # a refused value: said next to the field, the last accepted FPR kept
    fpr.fill("0")
    fpr.press("Enter")
    expect(page.locator(".dp-attack-error")).to_contain_text("between 0 and 1")
    expect(fpr).to_have_attribute("aria-invalid", "true")
    expect(words).to_contain_text("1 false alarm in 100")
    fpr.fill("0.05")
    fpr.press("Enter")
    expect(page.locator(".dp-attack-error")).to_be_hidden()
    # it follows σ like the other views: σ = 2 (μ = 0.5)
    sigma = page.get_by_label(re.compile(r"^σ — noise"))
    sigma.fill("2")
    sigma.press("Enter")
    want = tradeoff.tpr(0.05, 0.5)
    expect(words).to_contain_text(f"at most {int(-(-want * 100 // 1))} in 100")
    expect(page.locator(".dp-attack-text .dp-attack-mu")).to_have_text("0.5")
    shot(page, "attack-view-en")
    violations = [v for v in run_axe(page)
                  if any("dp-attack" in n or "dp-tradeoff" in n for n in v["nodes"])]
    assert violations == [], violations


def test_the_attacker_view_in_korean(page: Any, server: Server) -> None:
    open_view(page, server, "ko")
    expect(page.locator(".dp-attack-tpr")).to_contain_text("100번 중 많아야 26번")
    expect(page.get_by_label(t("lab.attack.fpr_label", "ko"))).to_have_value("0.05")
    expect(page.locator(".dp-attack-verdict")).to_contain_text("카드의 판정과 같습니다")


@pytest.mark.parametrize("lang", ["en"])
def test_a_failing_claim_leaves_the_region(page: Any, server: Server, lang: str) -> None:
    page.goto(f"{server.url}/lab?lang={lang}&delta=0.1")
    page.locator(".dp-attack-view").scroll_into_view_if_needed()
    expect(page.locator(".dp-attack-verdict")).to_contain_text("the claim fails")
