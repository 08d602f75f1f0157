"""Browser test of /cdf on a phone (issue 39): at 390 px the page is never wider than the
screen (no sideways scrolling); the long button labels wrap inside their buttons. Both
languages; polling with expect() (no fixed sleeps)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from app.shell.i18n import t
from ui.conftest import Server, shot

# The elements whose box reaches beyond the screen's right edge outside every scroll container
# (a table that scrolls inside its own box is fine), for the failure message.
OVERFLOWING = """() => {
  const vw = window.innerWidth; const found = [];
  const clipped = (el) => {
    for (let p = el.parentNode; p; p = p.parentNode || null) {
      if (p.nodeType === 11) p = p.host;
      if (p.nodeType !== 1 || p === document.body || p === document.documentElement) {
        return false;  // (the body's overflow is the page's own scroll)
      }
      const ox = getComputedStyle(p).overflowX;
      if (ox === "auto" || ox === "scroll" || ox === "hidden" || ox === "clip") return true;
    }
    return false; };
  const stack = [document];
  while (stack.length) {
    const root = stack.pop();
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) stack.push(el.shadowRoot);
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > vw + 0.5 && !clipped(el)) {
        const cls = typeof el.className === "string" ? el.className : "";
        const name = cls ? "." + cls.trim().split(/\\s+/).join(".") : "";
        found.push([el.tagName.toLowerCase() + name,
                    Math.round(r.right), (el.textContent || "").trim().slice(0, 80)]);
      }
    }
  }
  return {scroll: document.documentElement.scrollWidth, inner: vw, found}; }"""


def open_phone(page: Any, server: Server, query: str) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server.url}/cdf?{query}")
    expect(page.locator(".dp-cdf-ks")).to_be_visible()
    expect(page.locator(".dp-cdf-plot canvas.bk-layer:not(.bk-glyph)").first).to_be_visible()
    expect(page).to_have_url(re.compile(r"[?&]seed="))
    # the parts sent in a second message (the error-by-degree part, the stream) are there
    expect(page.locator(".dp-cdf-stream-pane p").first).to_be_visible()
    expect(page.locator(".dp-exports")).to_be_visible()


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("query", ["n=2000&eps=1&method=pp",
                                   "data=anes96_age&method=auto",
                                   "n=2000&eps=1&method=pp&degree=64"],
                         ids=["pp", "auto-histogram", "degree-at-its-end"])
def test_cdf_is_no_wider_than_a_phone(page: Any, server: Server, lang: str, query: str) -> None:
    open_phone(page, server, f"lang={lang}&{query}")
    buttons = [page.get_by_role("button", name=t("cdf.ctl.all", lang))]
    if "auto" in query:  # the auto histogram offers the polynomial curve (a long label too)
        buttons.append(page.get_by_role("button", name=t("cdf.ctl.pp_view", lang)))
    for b in buttons:
        expect(b).to_be_visible()
    handle = page.locator(".dp-cdf-degree-slider .noUi-handle")
    if "degree=64" in query:  # the handle at the right end of its track
        expect(handle).to_have_attribute("aria-valuenow", "64.0")
    found = page.evaluate(OVERFLOWING)
    assert found["inner"] == 390
    assert found["scroll"] <= found["inner"], found  # was 424 in English: "compare all"
    assert found["found"] == [], found
    for b in buttons:
        # the label wraps inside the button: nothing of it beyond the button's box
        inside = b.evaluate("el => el.scrollWidth <= el.clientWidth + 1")
        box = b.bounding_box()
        assert inside and box is not None and box["x"] + box["width"] <= 390.5, (
            b.inner_text(), box)
    # the degree slider's handle (30 px on a phone) stays on the screen
    box = handle.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390.5, box
    shot(page, f"cdf-phone-width-{lang}-{query.replace('&', '-').replace('=', '')}")
