"""The Content-Security-Policy (app/hardening.py) allows what the pages really load: a browser
reports no violation on /, /lesson, /lab and /cdf, and the pages still render and work."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from ui.conftest import Server

COLLECT = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', e => window.__cspViolations.push(
  [e.violatedDirective, e.blockedURI, e.sourceFile, e.lineNumber].join(' | ')));
"""

PAGES = [
    ("/?lang=en", ".dp-index h1"),
    ("/lesson?lang=en", ".dp-quiz-question"),
    ("/lab?lang=en", ".dp-card-pane .dp-sigma"),
    ("/cdf?lang=en", ".dp-cdf-ks"),
]


def _watch(page: Any) -> list[str]:
    """CSP messages Chromium prints (kept across navigations, unlike the page's own list)."""
    seen: list[str] = []
    page.on("console", lambda m: seen.append(m.text) if "Content Security Policy" in m.text
            else None)
    page.add_init_script(COLLECT)
    return seen


@pytest.mark.parametrize(("path", "ready"), PAGES)
def test_no_csp_violation(page: Any, server: Server, path: str, ready: str) -> None:
    console = _watch(page)
    response = page.goto(server.url + path)
    assert response is not None and response.status == 200
    csp = response.headers.get("content-security-policy", "")
    assert "default-src 'self'" in csp and "frame-ancestors 'self'" in csp
    expect(page.locator(ready).first).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert page.evaluate("window.__cspViolations") == []
    assert console == []


def test_lab_header_links_work_under_the_policy(page: Any, server: Server) -> None:
    # Panel's header links run inline onclick handlers: switching the language through the
    # header must not be blocked.
    console = _watch(page)
    page.goto(server.url + "/lab?lang=en")
    expect(page.locator(".dp-card-pane .dp-sigma")).to_be_visible()
    page.get_by_role("link", name="한국어").first.click()
    expect(page).to_have_url(re.compile(r"lang=ko"))
    expect(page.locator(".dp-card-pane .dp-sigma")).to_be_visible()
    assert page.evaluate("window.__cspViolations") == []
    assert console == []
