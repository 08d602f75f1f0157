"""The index page leads to both pages without any external request."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from ui.conftest import Server, shot


def test_index_links_to_the_pages(page: Any, server: Server) -> None:
    page.goto(f"{server.url}/?lang=en")
    lab = page.locator("a.dp-tile[href='/lab?lang=en']")
    expect(lab).to_be_visible()
    expect(page.locator("a.dp-tile[href='/lab?lang=en&tour=1']")).to_be_visible()
    expect(page.locator("a.dp-tile[href='/cdf?lang=en']")).to_be_visible()
    expect(page.locator("a.dp-tile[href='/lesson?lang=en']")).to_be_visible()
    expect(page.locator("a.dp-tile[href='/lesson?lang=en&topic=cdf']")).to_be_visible()
    shot(page, "index-en")
    lab.click()
    expect(page.locator(".dp-verdict")).to_be_visible()


def test_index_korean(page: Any, server: Server) -> None:
    page.goto(f"{server.url}/?lang=ko")
    expect(page.locator(".dp-index h1")).to_contain_text("차등 프라이버시")
