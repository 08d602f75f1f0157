"""/cdf on paper (issue 39, 5): printed as loaded, without scrolling and without `beforeprint`
(an automated print fires none), every figure is drawn and whole, the text equivalents and the
folded intro are there, and the screen's chrome (figure toolbars, the stream's controls, the
buttons, the save bar, the tour's opener) is left out. Print media by page.emulate_media and a
real page.pdf; both languages; polling waits (expect), no fixed sleeps.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from app.shell.i18n import t
from ui.conftest import Server, shot

LANGS = ("ko", "en")
ACCEPT = {"ko": "ko-KR,ko;q=0.9", "en": "en-US,en;q=0.9"}
FIGURES = (".dp-cdf-plot", ".dp-cdf-degree-plot", ".dp-cdf-stream-plot")
# True when the element or one of its ancestors (across shadow roots) is display: none.
NOT_DISPLAYED = """el => {
  for (let e = el; e; e = e.parentElement || (e.getRootNode() || {}).host || null) {
    if (getComputedStyle(e).display === "none") return true;
  }
  return false; }"""
# How many curves a figure has drawn (SVG paths with at least one segment, across shadow roots).
CURVES = """host => {
  let curves = 0;
  const stack = [host];
  while (stack.length) {
    const node = stack.pop();
    for (const el of node.shadowRoot ? node.shadowRoot.querySelectorAll("*") : []) {
      if (el.tagName === "path" && /L/.test(el.getAttribute("d") || "")) curves += 1;
      if (el.shadowRoot) stack.push(el);
    }
  }
  return curves; }"""


@pytest.fixture
def open_cdf(browser: Any, server: Server, requests_seen: Any) -> Iterator[Any]:
    """``open_cdf(lang, query)``: a fresh 1366x768 context and page on /cdf, returned once the
    curve, its ledger and the parts sent in a second message (the stream, the save bar) are
    there (nothing scrolled)."""
    made: list[Any] = []
    errors: list[str] = []

    def open_(lang: str, query: str) -> Any:
        ctx = browser.new_context(viewport={"width": 1366, "height": 768},
                                  extra_http_headers={"Accept-Language": ACCEPT[lang]})
        ctx.set_default_timeout(30000)
        made.append(ctx)
        pg = ctx.new_page()
        pg.on("request", lambda r: requests_seen.append(r.url))
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto(f"{server.url}/cdf?lang={lang}&{query}")
        expect(pg.locator(".dp-cdf-ks")).to_be_visible()
        expect(pg.locator(".dp-cdf-plot svg.dp-svg path.dp-cdf-ref").first).to_be_visible()
        expect(pg.locator(".dp-cdf-stream-pane p").first).to_be_visible()
        expect(pg.locator(".dp-exports")).to_be_visible()
        return pg

    yield open_
    for ctx in made:
        ctx.close()
    assert requests_seen.external() == [], f"non-local requests: {requests_seen.external()}"
    assert errors == [], f"JavaScript errors in the page: {errors}"


def hidden_on_paper(loc: Any) -> None:
    expect(loc).to_be_hidden()
    assert loc.evaluate(NOT_DISPLAYED), "laid out in print"


@pytest.mark.parametrize("lang", LANGS)
def test_cdf_print_is_complete_without_its_controls(open_cdf: Any, lang: str) -> None:
    pg = open_cdf(lang, "n=2000&eps=1&method=pp")
    add = pg.get_by_role("button", name=t("cdf.stream.add.batches", lang))
    add.click()  # one batch: the stream's figure is drawn too
    expect(pg.locator(".dp-cdf-stream-plot")).to_be_visible()
    buttons = [add, pg.get_by_role("button", name=t("cdf.stream.reset", lang)),
               pg.get_by_role("button", name=t("cdf.ctl.all", lang)),
               pg.get_by_role("button", name=t("cdftour.start", lang))]
    # (by class as well: a role locator finds nothing once the element is not displayed)
    chrome = [".dp-cdf-stream-mode", ".dp-cdf-parts",
              ".dp-cdf-add-batch", ".dp-cdf-all", ".dp-exports", ".dp-tour-start"]
    for loc in [*buttons, *(pg.locator(sel) for sel in chrome)]:  # all on the screen ...
        expect(loc.first).to_be_visible()
    pg.emulate_media(media="print")
    for loc in buttons:  # ... none on paper
        expect(loc).to_be_hidden()
    for sel in chrome:
        hidden_on_paper(pg.locator(sel).first)
    expect(pg.locator("#sidebar")).to_be_hidden()
    for sel in FIGURES:
        fig = pg.locator(sel)
        expect(fig).to_be_visible()
        box = fig.bounding_box()
        assert box is not None and box["width"] > 300 and box["height"] > 250, (sel, box)
        curves = fig.evaluate(CURVES)
        assert curves >= 2, f"{sel}: {curves} curves drawn"
        # never cut by a page break
        assert fig.evaluate("el => getComputedStyle(el).breakInside") == "avoid", sel
    # the text equivalents and the ledger
    for sel in (".dp-cdf-table", ".dp-cdf-degree-table-pane table", ".dp-cdf-stream-pane p",
                ".dp-cdf-privacy-pane", ".dp-cdf-ks"):
        expect(pg.locator(sel).first).to_be_visible()
    shot(pg, f"cdf-print-{lang}")
    pdf = pg.pdf(format="A4", print_background=True)
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    assert pages >= 2, f"the print has {pages} page(s)"
    pg.emulate_media(media="screen")
    for loc in [*buttons, *(pg.locator(sel) for sel in chrome)]:
        expect(loc.first).to_be_visible()


@pytest.mark.parametrize("lang", LANGS)
def test_cdf_print_of_the_projector_view_unfolds_the_intro(open_cdf: Any, lang: str) -> None:
    # Projector type folds the intro (<details>) so the curve keeps the first screen: on paper
    # it is there without a click and without `beforeprint`.
    pg = open_cdf(lang, "n=2000&eps=1&method=pp&size=large")
    fold = pg.locator("details.dp-fold").first
    expect(fold).not_to_have_attribute("open", "")
    intro = fold.locator("p").first
    expect(intro).to_be_hidden()
    pg.emulate_media(media="print")
    expect(intro).to_be_visible()
    box = intro.bounding_box()
    assert box is not None and box["height"] > 20, box
    for sel in FIGURES[:2]:
        assert pg.locator(sel).evaluate(CURVES) >= 2, sel
    shot(pg, f"cdf-print-large-{lang}")
    pg.emulate_media(media="screen")
    expect(intro).to_be_hidden()
