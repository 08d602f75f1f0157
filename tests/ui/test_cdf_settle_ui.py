"""Browser tests of /cdf (issue 39): arrow presses on the ε slider are one release once the
value settles, shown as pending until then; the ledger's numbers never break inside on a
phone. Both languages; polling with expect() (no fixed sleeps)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from app.shell.i18n import t
from ui.conftest import Server, shot

# every text the pending note shows, as it changes (it lasts SETTLE_MS: recorded, not raced)
RECORD = """() => { window.dpSeen = [];
  const stack = [document];
  while (stack.length) {
    const root = stack.pop();
    const el = root.querySelector(".dp-cdf-pending");
    if (el) {
      new MutationObserver(() => window.dpSeen.push(el.textContent)).observe(
        el, {childList: true, characterData: true, subtree: true});
      return true;
    }
    for (const e of root.querySelectorAll("*")) if (e.shadowRoot) stack.push(e.shadowRoot);
  }
  return false; }"""


def open_cdf(page: Any, server: Server, query: str) -> None:
    page.goto(f"{server.url}/cdf?{query}")
    expect(page.locator(".dp-cdf-ks")).to_be_visible()
    expect(page.locator(".dp-cdf-plot svg.dp-svg path.dp-cdf-ref").first).to_be_visible()
    expect(page).to_have_url(re.compile(r"[?&]seed="))


def releases(page: Any) -> Any:
    """The number of releases booked on the current data source (the sources table)."""
    return page.locator(".dp-cdf-sources .dp-cdf-current-row td").nth(1)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_six_quick_arrow_presses_are_one_release(page: Any, server: Server, lang: str) -> None:
    open_cdf(page, server, f"lang={lang}&n=2000&eps=1&method=pp")
    expect(releases(page)).to_have_text("1")
    recording = page.evaluate(RECORD)
    page.locator(".dp-cdf-eps-slider .noUi-handle").focus()
    for _ in range(6):
        page.keyboard.press("ArrowRight")
    # one release, at the settled value; the ledger counts it once
    expect(page.locator(".dp-cdf-eps").first).to_have_text("1.3")
    expect(releases(page)).to_have_text("2")
    expect(page).to_have_url(re.compile(r"[?&]eps=1\.3(&|$)"))
    # meanwhile the value was shown as not yet released, in a live region
    note = page.locator(".dp-cdf-pending")
    expect(note).to_have_attribute("role", "status")
    expect(note).to_have_text("")
    assert recording
    seen = page.evaluate("window.dpSeen")
    assert t("cdf.ctl.eps_pending", lang, eps="1.3", released="1") in seen, seen
    # Enter on the handle releases what is shown (one more release, not two)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    expect(page.locator(".dp-cdf-eps").first).to_have_text("1.4")
    expect(releases(page)).to_have_text("3")
    expect(page.locator(".dp-cdf-total-eps")).not_to_have_text("")
    expect(note).to_have_text("")


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_ledger_numbers_do_not_break_on_a_phone(page: Any, server: Server, lang: str) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    open_cdf(page, server, f"lang={lang}&n=2000&eps=1&delta=1e-6&method=pp&seed=3")
    spans = page.locator(".dp-cdf-privacy-pane :is(.dp-cdf-eps, .dp-cdf-delta, .dp-cdf-total-eps,"
                         " .dp-cdf-total-delta, .dp-cdf-num),"
                         " .dp-cdf-sources tbody td:nth-child(4)")
    expect(page.locator(".dp-cdf-total-delta")).to_have_text("1e-06")
    found = []
    for i in range(spans.count()):
        box = spans.nth(i)
        box.scroll_into_view_if_needed()
        # one line box for the text inside (a Range has one rectangle per line it spans)
        style, lines = box.evaluate("""el => { const r = document.createRange();
            r.selectNodeContents(el);
            const rects = Array.from(r.getClientRects()).filter((x) => x.width > 0);
            return [getComputedStyle(el).whiteSpace, new Set(rects.map((x) => x.top)).size]; }""")
        found.append((box.inner_text(), style, lines))
    assert [f for f in found if f[2] != 1] == []  # none broken inside
    assert [f for f in found if f[1] != "nowrap"] == []
    assert spans.count() >= 5  # the basic-composition line's numbers too
    shot(page, f"cdf-ledger-phone-{lang}")
