"""Browser tests of the /cdf page: numbers shown, free degree slider (keyboard), ledger, Korean."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from app.i18n import t
from ui.conftest import Server, shot


def open_cdf(page: Any, server: Server, query: str = "lang=en") -> None:
    page.goto(f"{server.url}/cdf?{query}")
    expect(page.locator(".dp-cdf-ks")).to_be_visible()
    expect(page.locator(".dp-cdf-plot canvas.bk-layer:not(.bk-glyph)").first).to_be_visible()


def test_default_page_shows_estimate_metrics_and_privacy(page: Any, server: Server) -> None:
    open_cdf(page, server)
    expect(page.locator(".dp-cdf-eps")).to_have_text("1")
    expect(page.locator(".dp-cdf-total-eps")).to_have_text("1")
    ks = float(page.locator(".dp-cdf-ks").inner_text())
    assert 0 < ks < 0.1
    expect(page.locator(".dp-cdf-table")).to_contain_text("NOT private")
    expect(page.locator(".dp-cdf-table tbody tr")).to_have_count(5)
    shot(page, "cdf-default-en")


def test_degree_slider_by_keyboard_costs_no_privacy(page: Any, server: Server) -> None:
    open_cdf(page, server)
    page.get_by_label("Method").select_option(label=t("cdf.method.pp", "en"))
    expect(page.locator(".dp-cdf-total-eps")).to_have_text("2")  # a second release
    box = page.locator(".dp-cdf-auto input[type=checkbox]")
    expect(box).to_be_checked()
    box.focus()
    page.keyboard.press("Space")  # keyboard path
    expect(box).not_to_be_checked()
    expect(page.locator(".dp-cdf-degree")).to_have_text("10")
    handle = page.locator(".dp-cdf-degree-slider .noUi-handle")
    handle.focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    expect(page.locator(".dp-cdf-degree")).to_have_text("13")
    page.keyboard.press("ArrowLeft")
    expect(page.locator(".dp-cdf-degree")).to_have_text("12")
    # post-processing only: the session total did not move
    expect(page.locator(".dp-cdf-total-eps")).to_have_text("2")
    # fresh noise is a new release: the total grows
    seed = page.get_by_label(re.compile(r"^Noise seed"))
    seed.focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("5")
    page.keyboard.press("Enter")
    expect(page.locator(".dp-cdf-total-eps")).to_have_text("3")
    shot(page, "cdf-degree-12")


def test_real_data_and_korean(page: Any, server: Server) -> None:
    open_cdf(page, server, "lang=ko")
    expect(page.locator(".dp-cdf-table")).to_contain_text("보호되지 않음")
    page.get_by_label(t("cdf.ctl.dataset", "ko")).select_option(
        label=t("cdf.data.penguins_mass", "ko")
    )
    expect(page.locator(".dp-cdf-table")).to_contain_text("x (g)")
    shot(page, "cdf-penguins-ko")
