"""/lab as a student with a keyboard, a printer and a projector meets it (issue 39, "What a
student meets on the pages": 5 print, 6b a focused control in view, 6c/6d the "Curve to ε"
message and the address follow the latest entry, 6i projector text ≥ 24 px).

Each test opens its own browser context (screen size, language) and waits by polling (Playwright's
``expect``, ``wait_for_function``), never by sleeping.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from app.lab.state import EPS_MAX
from app.shell.i18n import t
from ui.conftest import Server, shortcuts_ready, shot

LANGS = ("ko", "en")
ACCEPT = {"ko": "ko-KR,ko;q=0.9", "en": "en-US,en;q=0.9"}


@pytest.fixture
def open_lab(browser: Any, server: Server, requests_seen: Any) -> Iterator[Any]:
    """``open_lab(lang, width, height, query="")``: a fresh context and page on /lab, returned
    once the live card, the live controls and the densities are drawn (nothing scrolled)."""
    made: list[Any] = []
    errors: list[str] = []

    def open_(lang: str, width: int, height: int, query: str = "") -> Any:
        ctx = browser.new_context(viewport={"width": width, "height": height},
                                  extra_http_headers={"Accept-Language": ACCEPT[lang]})
        ctx.set_default_timeout(30000)
        made.append(ctx)
        pg = ctx.new_page()
        pg.on("request", lambda r: requests_seen.append(r.url))
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto(f"{server.url}/lab?lang={lang}{'&' + query if query else ''}")
        expect(pg.locator(".dp-verdict")).to_be_visible()
        expect(pg.locator("#dp-first-paint")).to_have_count(0)
        # (the live controls before anything is typed: these tests are about the live fields;
        # in one loaded run a first Enter got no answer within 20 s)
        expect(pg.locator("#dp-first-paint-controls")).to_have_count(0)
        expect(pg.locator(".dp-density-plot svg.dp-svg path.dp-dens-d0").first).to_be_visible()
        return pg

    yield open_
    for ctx in made:
        ctx.close()
    assert requests_seen.external() == [], f"non-local requests: {requests_seen.external()}"
    assert errors == [], f"JavaScript errors in the page: {errors}"


# ---------------------------------------------------------------------------------------------
# 5. print: complete without scrolling and without `beforeprint`; no screen-only chrome
# ---------------------------------------------------------------------------------------------
FIGURES = {"dp-density-plot": "path.dp-dens-d0", "dp-curve-plot": "path.dp-curve-y",
           "dp-tradeoff-plot": "path.dp-tradeoff-curve", "dp-sim-plot": "path.dp-sim-d0"}
SCREEN_ONLY = (".dp-tour-start", ".dp-export-bar")
# True when the element or one of its ancestors (across shadow roots) is display: none.
NOT_DISPLAYED = """el => {
  for (let e = el; e; e = e.parentElement || (e.getRootNode() || {}).host || null) {
    if (getComputedStyle(e).display === "none") return true;
  }
  return false; }"""


def display(loc: Any) -> str:
    return str(loc.evaluate("el => getComputedStyle(el).display"))


def check_figures_drawn(pg: Any) -> None:
    """Every figure of the lab, its drawn curve included, is on paper at a useful size. (A
    figure whose width changed with the print layout is drawn anew: its lines are looked up
    again until one is measured.)"""
    for cls, drawn in FIGURES.items():
        fig = pg.locator(f".{cls}").first
        line = fig.locator(f"svg.dp-svg {drawn}").first
        ink = {"width": 0.0, "height": 0.0}
        for _ in range(20):
            expect(line).to_be_visible()
            ink = line.evaluate("el => { const r = el.getBoundingClientRect();"
                                " return {width: r.width, height: r.height}; }")
            if ink["width"] > 0:
                break
        box = fig.bounding_box()
        assert box is not None and box["width"] > 200 and box["height"] > 150, (cls, box)
        assert ink["width"] > 50 and ink["height"] > 20, (cls, ink)


@pytest.mark.parametrize("lang", LANGS)
def test_print_without_scrolling_is_complete(open_lab: Any, lang: str) -> None:
    # An automated print (page.pdf, a print server) fires no `beforeprint`: the page must be
    # complete as loaded, the figures below the first screen included.
    pg = open_lab(lang, 1366, 768)
    for sel in SCREEN_ONLY:  # shown on the screen ...
        expect(pg.locator(sel).first).to_be_attached()
    expect(pg.locator(".dp-tour-start").first).to_be_visible()
    expect(pg.locator(".dp-attack-view")).to_be_visible()
    on_screen = display(pg.locator(".dp-attack-view"))
    shortcuts_ready(pg)
    pg.keyboard.press("?")  # ... and the keyboard help, opened
    expect(pg.locator(".dp-help-overlay")).to_be_visible()
    pg.emulate_media(media="print")
    check_figures_drawn(pg)
    for cls in ("dp-density-text", "dp-curve-text", "dp-sim-text", "dp-attack-text"):
        expect(pg.locator(f".{cls}").first).to_be_visible()
    expect(pg.locator(".dp-curve-text table")).to_be_visible()
    expect(pg.get_by_role("textbox", name=t("lab.attack.fpr_label", lang))).to_have_value("0.05")
    for sel in (*SCREEN_ONLY, ".dp-help-overlay"):  # ... but not on paper
        expect(pg.locator(sel).first).to_be_hidden()
        assert pg.locator(sel).first.evaluate(NOT_DISPLAYED), f"{sel} is laid out in print"
    expect(pg.locator("#sidebar")).to_be_hidden()
    # A flex box that breaks across pages lets what follows it overlap it (Chromium): on
    # paper the page's views are blocks; the closed tour's panel stays out.
    assert display(pg.locator(".dp-attack-view")) == "block"
    expect(pg.locator(".dp-tour-step")).to_be_hidden()
    assert pg.locator(".dp-tour-step").evaluate(NOT_DISPLAYED)
    shot(pg, f"lab-print-{lang}")
    pdf = pg.pdf(format="A4", print_background=True)
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    assert pages >= 2, f"the print has {pages} page(s)"
    pg.emulate_media(media="screen")
    expect(pg.locator(".dp-tour-start").first).to_be_visible()
    assert display(pg.locator(".dp-attack-view")) == on_screen


@pytest.mark.parametrize("lang", LANGS)
def test_print_of_the_projector_view_unfolds_everything(open_lab: Any, lang: str) -> None:
    # Projector type folds the card's details, the tables (<details>) and the simulation (a
    # folded card): on paper all of it is there, without `beforeprint` and without a click.
    pg = open_lab(lang, 1366, 768, "size=large")
    expect(pg.locator("details.dp-more")).not_to_have_attribute("open", "")
    folded = (".dp-flag-positive", ".dp-curve-text table", ".dp-density-plot .dp-boundary",
              ".dp-sim-text table")
    for sel in folded:
        expect(pg.locator(sel).first).to_be_hidden()
    expect(pg.locator(".dp-sim-plot")).to_be_hidden()
    pg.emulate_media(media="print")
    for sel in folded:
        expect(pg.locator(sel).first).to_be_visible()
    check_figures_drawn(pg)
    expect(pg.locator(".dp-tour-start").first).to_be_hidden()
    shot(pg, f"lab-print-large-{lang}")
    pg.emulate_media(media="screen")  # folded again as the student left them
    expect(pg.locator(".dp-sim-plot")).to_be_hidden()
    expect(pg.locator("details.dp-more")).not_to_have_attribute("open", "")
    expect(pg.locator(".dp-curve-text table")).to_be_hidden()


# ---------------------------------------------------------------------------------------------
# 6b. a control that gets the keyboard's focus is wholly on the screen
# ---------------------------------------------------------------------------------------------
FOCUSED = """() => {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  if (!a) return null;
  const r = a.getBoundingClientRect();
  return {id: a.id || "", top: r.top, bottom: r.bottom, left: r.left, right: r.right};
}"""
IN_VIEW = ("() => { const f = (" + FOCUSED + ")();"
           " return !!f && f.top >= 0 && f.bottom <= window.innerHeight; }")


def wait_in_view(pg: Any) -> None:
    """Poll until the focused control is wholly on the screen (the browser and our script
    scroll on focus); fail with where it is."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        pg.wait_for_function(IN_VIEW, timeout=5000)
    except PlaywrightTimeout:
        pytest.fail(f"the focused control is not wholly on the screen: {pg.evaluate(FOCUSED)}"
                    f" (window height {pg.evaluate('() => window.innerHeight')})")


def test_tabbing_to_the_sigma_slider_brings_it_into_view(open_lab: Any) -> None:
    pg = open_lab("en", 1366, 768)
    pg.locator(".dp-preset-sum_pass button").focus()
    seen: list[str] = []
    for _ in range(40):
        pg.keyboard.press("Tab")  # (focus moves before press() returns)
        f = pg.evaluate(FOCUSED)
        assert f is not None
        seen.append(f["id"])
        if f["id"] == "dpc-sigma-s":
            break
    else:
        pytest.fail(f"Tab never reached the σ slider: {seen}")
    wait_in_view(pg)
    box = pg.locator("#dpc-sigma-s").bounding_box()
    assert box is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= 768, box
    assert box["x"] >= 0 and box["x"] + box["width"] <= 1366, box
    # and every control further down, one Tab at a time, down to "Draw new noise"
    for _ in range(30):
        pg.keyboard.press("Tab")
        wait_in_view(pg)
        if pg.evaluate("() => { let a = document.activeElement; while (a && a.shadowRoot &&"
                       " a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;"
                       " return !!(a && a.dataset && a.dataset.resample); }"):
            break
    else:
        pytest.fail("Tab never reached the resample button")


# ---------------------------------------------------------------------------------------------
# 6c, 6d. the "Curve to ε" message and the address follow the latest entry, not the one before
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_the_curve_message_and_the_address_follow_the_latest_entry(open_lab: Any,
                                                                   lang: str) -> None:
    pg = open_lab(lang, 1366, 900)
    box = pg.get_by_label(t("lab.ctl.eps_hi", lang), exact=True)
    error = pg.locator(".dp-error-eps_hi")
    steps = [("0", t("lab.err.range", lang, hi=EPS_MAX)),
             ("abc", t("lab.err.not_number", lang, text="abc")),
             ("xyz", t("lab.err.not_number", lang, text="xyz")),
             ("12", None), ("7", None)]
    for text, message in steps:
        box.fill(text)
        box.press("Enter")
        if message is None:
            expect(error).to_have_text("")
            expect(box).not_to_have_attribute("aria-invalid", "true")
            expect(pg).to_have_url(re.compile(rf"[?&]hi={text}(&|$)"))
        else:
            expect(error.get_by_role("alert")).to_have_text("⚠ " + message)
            expect(box).to_have_attribute("aria-invalid", "true")
    # the address follows each slider step (arrow key), the last one included
    handle = pg.locator("#dpc-sigma-s")
    handle.focus()
    for sigma in ("1.023", "1.047", "1.072"):  # 10 ** 0.01, 10 ** 0.02, 10 ** 0.03
        pg.keyboard.press("ArrowRight")
        expect(pg.locator(".dp-sigma").first).to_have_text(sigma)
        expect(pg).to_have_url(re.compile(rf"[?&]sigma={re.escape(sigma)}(&|$)"))
    pg.keyboard.press("ArrowLeft")
    expect(pg).to_have_url(re.compile(r"[?&]sigma=1\.047(&|$)"))
    # and a typed ε, then one step of its slider
    eps = pg.get_by_label(t("lab.ctl.eps", lang), exact=True)
    eps.fill("2")
    eps.press("Enter")
    expect(pg).to_have_url(re.compile(r"[?&]eps=2(&|$)"))
    pg.locator("#dpc-eps-s").focus()
    pg.keyboard.press("ArrowRight")
    expect(pg).to_have_url(re.compile(r"[?&]eps=2\.05(&|$)"))


# ---------------------------------------------------------------------------------------------
# 6i. projector text: explanations, the card's secondary text and the legends ≥ 24 px
# ---------------------------------------------------------------------------------------------
MIN_PX = 24.0
# Elements holding text in each part (the superscripts of a formula may be smaller).
PROJECTOR_TEXT = {
    "density text": ".dp-density-text p, .dp-density-text dt, .dp-density-text dd",
    "curve text": ".dp-curve-text p, .dp-curve-text th, .dp-curve-text td",
    "text folds": "details.dp-fold > summary",
    "intro": ".dp-intro",
    "card secondary": ".dp-card .dp-reason, .dp-card .dp-delta-large, .dp-card .dp-muted,"
                      " .dp-card .dp-note",
    "card": ".dp-card dt, .dp-card dd",
    "legends": ".dp-legend li",
}
SIZES = """(sel) => {
  const out = [];
  const walk = (root) => {
    for (const e of root.querySelectorAll(sel)) {
      out.push([parseFloat(getComputedStyle(e).fontSize), e.textContent.trim().slice(0, 30)]);
    }
    for (const e of root.querySelectorAll("*")) if (e.shadowRoot) walk(e.shadowRoot);
  };
  walk(document);
  return out;
}"""


@pytest.mark.parametrize("lang", LANGS)
def test_projector_text_is_at_least_24_px(open_lab: Any, lang: str) -> None:
    pg = open_lab(lang, 1920, 1080, "size=large")
    expect(pg.locator(".dp-curve-plot svg.dp-svg path.dp-curve-y").first).to_be_visible()
    shot(pg, f"lab-projector-{lang}")
    small: dict[str, list[Any]] = {}
    for part, sel in PROJECTOR_TEXT.items():
        sizes = pg.evaluate(SIZES, sel)
        assert sizes, f"{part}: nothing matched {sel}"
        low = [s for s in sizes if s[0] < MIN_PX]
        if low:
            small[part] = low[:4]
    assert not small, f"projector text below {MIN_PX} px: {small}"
