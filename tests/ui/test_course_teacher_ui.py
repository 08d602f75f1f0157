"""Browser tests of issue 18: the card's δ ≥ 1/n warning, the teacher view, present mode,
the in-class predictions and the graded problem set (keyboard path, both languages)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from app.shell.i18n import t
from ui.conftest import Server


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_card_warns_when_delta_protects_no_one(page: Any, server: Server, lang: str) -> None:
    page.goto(f"{server.url}/lab?q=sum&n=4&B=1&sigma=1&eps=1&delta=0.5&lang={lang}")
    box = page.locator(".dp-verdict-box")
    expect(box).to_contain_text(t("lab.verdict.pass", lang))
    warn = box.locator(".dp-delta-no-one")
    expect(warn).to_be_visible()
    expect(warn).to_contain_text(t("lab.card.delta_no_one", lang, inv_n="0.25", expected="2"))
    # The live card replaces the first paint and keeps the warning.
    expect(page.locator("#dp-first-paint")).to_have_count(0)
    expect(page.locator(".dp-verdict-box .dp-delta-no-one")).to_be_visible()
