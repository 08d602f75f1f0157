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
    expect(page.locator(".dp-cdf-plot svg.dp-svg path.dp-cdf-ref").first).to_be_visible()
    expect(page).to_have_url(re.compile(r"[?&]seed="))
    # the parts sent in a second message (the error-by-degree part, the stream) are there
    expect(page.locator(".dp-cdf-stream-pane p").first).to_be_visible()
    expect(page.locator(".dp-exports")).to_be_visible()


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("query", ["n=2000&eps=1&method=pp",
                                   "data=anes96_age&eps=0.1&method=auto",
                                   "n=2000&eps=1&method=pp&degree=64"],
                         ids=["pp", "auto-histogram", "degree-at-its-end"])
def test_cdf_is_no_wider_than_a_phone(page: Any, server: Server, lang: str, query: str) -> None:
    open_phone(page, server, f"lang={lang}&{query}")
    buttons = [page.get_by_role("button", name=t("cdf.ctl.all", lang))]
    if "auto" in query:  # the auto histogram offers the polynomial curve (a long label too)
        buttons.append(page.get_by_role("button", name=t("cdf.ctl.pp_view", lang)))
    for b in buttons:
        expect(b).to_be_visible()
    handle = page.locator(".dp-cdf-degree-slider input[type=range]")
    if "degree=64" in query:  # the handle at the right end of its track
        expect(handle).to_have_value("64")
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


def inside_screen(loc: Any) -> None:
    """``loc``'s box is on the 390 px screen and its text wraps inside it."""
    box = loc.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390.5, (
        loc.inner_text(), box)
    assert loc.evaluate("el => el.scrollWidth <= el.clientWidth + 1"), loc.inner_text()


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("case", ["pp", "auto-sidebar-open", "tour"])
def test_cdf_in_projector_type_is_no_wider_than_a_phone(page: Any, server: Server, lang: str,
                                                        case: str) -> None:
    # size=large (22 px type): the stream's modes and batch count, the tour's start button, the
    # degree slider's "not available" title, the sidebar's field labels and the tour's answers
    # kept one line each; the English page was 434 px wide (535 with the auto histogram).
    query = {"pp": "n=2000&eps=1&method=pp", "auto-sidebar-open": "data=anes96_age&method=auto",
             "tour": "n=2000&eps=1&method=pp&tour=1"}[case]
    open_phone(page, server, f"lang={lang}&size=large&{query}")
    expect(page.locator(".dp-header.dp-large")).to_be_visible()
    font = page.locator(".dp-cdf-stream-mode .dp-seg").first.evaluate(
        "el => parseFloat(getComputedStyle(el).fontSize)")
    assert font >= 20, font  # projector type reaches into the widgets
    wrapped = [page.locator(".dp-cdf-stream-mode .dp-seg").nth(i) for i in range(2)]
    wrapped.append(page.locator(".dp-cdf-parts label"))
    if case == "tour":
        expect(page.locator(".dp-tour-step")).to_be_visible()
        wrapped += [page.get_by_role("button", name=t("tour.close", lang)),
                    page.locator(".dp-tour-option .bk-btn").first]
    else:
        wrapped.append(page.get_by_role("button", name=t("cdftour.start", lang)))
    if case == "auto-sidebar-open":  # the release's fields, above the content on a phone
        expect(page.locator(".dp-cdf-degree-slider label")).to_contain_text(
            t("cdf.ctl.degree_na", lang))
        wrapped.append(page.locator(".dp-cdf-degree-slider label"))
        expect(page.locator("#sidebar")).to_have_class(re.compile(r"\bhidden\b"))
        page.locator("#sidebar-button").click()
        expect(page.locator("#sidebar")).not_to_have_class(re.compile(r"\bhidden\b"))
        seed = page.get_by_role("textbox", name=t("cdf.ctl.noise_seed", lang))
        expect(seed).to_be_visible()
        wrapped += [page.locator(".dp-cdf-seed label"), page.locator(".dp-cdf-delta-input label")]
    for loc in wrapped:
        expect(loc).to_be_visible()
    found = page.evaluate(OVERFLOWING)
    assert found["inner"] == 390
    assert found["scroll"] <= found["inner"], found
    assert found["found"] == [], found
    for loc in wrapped:
        inside_screen(loc)
    shot(page, f"cdf-phone-width-large-{lang}-{case}")
