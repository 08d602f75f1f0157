"""Browser tests of issue 17: every screen, every key, every reader.

axe-core (scripts/ensure-axe.sh fetches it from the npm registry into build/axe-core/; never a
CDN) runs inside each page; the focus outline, the skip link, the names screen readers hear,
the /cdf first screen and its history, the tour's concealment, Korean line breaks and the 404
page are checked on the page itself. Polling waits (expect), no fixed sleeps.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from app.shell.i18n import t
from ui.conftest import ARTIFACTS, ROOT, Server, run_axe, shot, show_curve

# (css) -> what a reader of this page sees first once it is ready
READY = {
    "/lab": ".dp-verdict, .dp-concealed-box",
    "/cdf": ".dp-cdf-ks",
}


def _wait_ready(page: Any, path: str) -> None:
    base = path.split("?", 1)[0]
    if base in READY:
        expect(page.locator(READY[base]).first).to_be_visible()
        # a figure drawn: the lab's by the page itself (SVG), /cdf's by BokehJS (canvas)
        expect(page.locator("svg.dp-svg, canvas.bk-layer").first).to_be_attached()
        expect(page.locator("#dp-first-paint")).to_have_count(0)
        if base == "/lab":  # its controls are one component, named in the server's markup
            expect(page.locator(".dp-lab-controls input[type=range]").first).to_be_attached()
        else:  # /cdf's controls are components too, named in the server's markup
            expect(page.locator(".dp-cdf-degree-slider input[type=range]").first
                   ).to_be_attached()
    else:
        page.wait_for_load_state("load")
        if base.startswith("/lesson"):
            expect(page.locator(".katex").first).to_be_attached()
            expect(page.locator("label.dp-option input[aria-label]").first).to_be_attached()


PAGES = ["/", "/lesson", "/lesson?topic=cdf", "/lab", "/lab?tour=1", "/cdf", "/nonexistent"]


@pytest.mark.parametrize("theme", ["default", "dark"])
@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("path", PAGES)
def test_axe_finds_no_violation_at_any_impact(page: Any, server: Server, path: str,
                                              lang: str, theme: str) -> None:
    sep = "&" if "?" in path else "?"
    url = f"{path}{sep}lang={lang}" + ("&theme=dark" if theme == "dark" else "")
    page.goto(server.url + url)
    _wait_ready(page, path)
    if path.startswith("/lab"):
        show_curve(page)  # the curve's toolbar and legend are checked too
    found = run_axe(page)
    # kept for the note (test-artifacts/axe-*.json)
    ARTIFACTS.mkdir(exist_ok=True)
    name = re.sub(r"[^a-z0-9]+", "-", f"{path}-{lang}-{theme}".lower()).strip("-")
    (ARTIFACTS / f"axe-{name}.json").write_text(json.dumps(found, indent=1, ensure_ascii=False),
                                                encoding="utf-8")
    # none at all: critical and serious (the bar), and also moderate and minor
    assert found == [], json.dumps(found, indent=1, ensure_ascii=False)


# ---- keyboard focus -------------------------------------------------------------------------
_FOCUS_JS = """(el) => {
  function rgb(c) { const m = c.match(/[\\d.]+/g).map(Number);
                    return {r: m[0], g: m[1], b: m[2], a: m.length > 3 ? m[3] : 1}; }
  function lum(c) { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92
                                        : Math.pow((v + 0.055) / 1.055, 2.4); };
                    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); }
  // the colour behind the outline: the first opaque background up the tree (across shadow
  // roots) whose box holds the whole outline (a slider's thin track does not), white if none
  const own = el.getBoundingClientRect();
  let node = el.parentNode, bg = {r: 255, g: 255, b: 255, a: 1};
  while (node) {
    if (node.nodeType === 11) { node = node.host; continue; }
    if (node.nodeType !== 1) { node = node.parentNode; continue; }
    const c = rgb(getComputedStyle(node).backgroundColor);
    const b = node.getBoundingClientRect();
    const holds = b.height >= own.height + 8 && b.width >= own.width + 8;
    if (c.a > 0.9 && holds) { bg = c; break; }
    node = node.parentNode;
  }
  const s = getComputedStyle(el);
  const o = rgb(s.outlineColor), l1 = lum(o), l2 = lum(bg);
  return {style: s.outlineStyle, width: parseFloat(s.outlineWidth),
          ratio: (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05),
          visible: el.matches(':focus-visible'), tag: el.tagName};
}"""


def _check_focus(page: Any, locator: Any, what: str) -> None:
    locator.focus()
    expect(locator).to_be_focused()
    got = locator.evaluate(_FOCUS_JS)
    assert got["style"] == "solid" and got["width"] >= 3, (what, got)
    assert got["ratio"] >= 3.0, (what, got)  # WCAG 2.1 non-text contrast, 1.4.11


@pytest.mark.parametrize("theme", ["default", "dark"])
def test_focus_outline_on_every_control_type(page: Any, server: Server, theme: str) -> None:
    page.set_viewport_size({"width": 1366, "height": 768})
    dark = "&theme=dark" if theme == "dark" else ""
    page.goto(f"{server.url}/lab?lang=en{dark}")
    _wait_ready(page, "/lab")
    controls = {
        "guided-example button": page.locator(".dp-preset-sum_pass button"),
        "tour button": page.locator(".dp-tour-start button"),
        "text field": page.locator(".dp-input-n input"),
        "select": page.locator(".dp-input-query select"),
        "slider": page.locator(".dp-slider-sigma input[type=range]"),
        "checkbox": page.locator(".dp-overlays input[type=checkbox]").first,
        "header link": page.locator(".dp-nav-link").first,
    }
    for what, loc in controls.items():
        _check_focus(page, loc, what)
    # a focused text field keeps its dark border (it used to turn pale)
    field = page.locator(".dp-input-n input")
    field.focus()
    border = field.evaluate("(el) => getComputedStyle(el).borderTopColor")
    nums = [int(x) for x in re.findall(r"\d+", border)[:3]]
    assert sum(nums) < 3 * 160 or theme == "dark", border
    page.locator(".dp-preset-sum_pass button").focus()
    shot(page, f"a11y-focus-preset-{theme}")
    page.goto(f"{server.url}/cdf?lang=en{dark}")
    _wait_ready(page, "/cdf")
    _check_focus(page, page.locator(".dp-cdf-auto input[type=checkbox]"), "cdf checkbox")
    _check_focus(page, page.locator(".dp-cdf-new-noise button"), "cdf button")
    _check_focus(page, page.locator(".dp-cdf-degree-slider input[type=range]"), "cdf slider")


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_skip_link_is_the_first_tab_stop(page: Any, server: Server, lang: str) -> None:
    for path in ("/cdf", "/lab"):
        page.goto(f"{server.url}{path}?lang={lang}")
        _wait_ready(page, path)
        page.locator("body").focus()
        page.keyboard.press("Tab")
        skip = page.locator("a.dp-skip-panel")
        expect(skip).to_be_focused()
        expect(skip).to_have_text(t("common.skip", lang))
        box = skip.bounding_box()
        assert box is not None and box["x"] >= 0 and box["y"] >= 0
        page.keyboard.press("Enter")
        assert page.evaluate("document.activeElement.id") == "main"
        expect(page.get_by_role("main")).to_have_count(1)
        expect(page.get_by_role("heading", level=1)).to_have_count(1)


# ---- /cdf: the first screen, the history, the plots ---------------------------------------
def _box(page: Any, css: str) -> dict[str, float]:
    loc = page.locator(css).first
    expect(loc).to_be_visible()
    box = loc.bounding_box()
    assert box is not None, css
    return box


@pytest.mark.parametrize(("size", "w", "h", "theme"), [("normal", 1366, 768, "default"),
                                                       ("large", 1920, 1080, "dark"),
                                                       ("large", 1920, 1080, "default")])
def test_cdf_slider_curve_and_error_plot_on_the_first_screen(
        page: Any, server: Server, size: str, w: int, h: int, theme: str) -> None:
    page.set_viewport_size({"width": w, "height": h})
    q = "lang=ko" + ("&size=large" if size == "large" else "") + (
        "&theme=dark" if theme == "dark" else "")
    page.goto(f"{server.url}/cdf?{q}")
    _wait_ready(page, "/cdf")
    for css in (".dp-cdf-degree-slider input[type=range]", ".dp-cdf-plot", ".dp-cdf-degree-plot"):
        b = _box(page, css)
        assert b["y"] >= 0 and b["y"] + b["height"] <= h, (css, b)
    for css in (".dp-cdf-plot", ".dp-cdf-degree-plot"):
        assert _box(page, css)["height"] >= 250, css
    shot(page, f"a11y-cdf-first-screen-{size}-{theme}")


def test_cdf_phone_puts_the_slider_under_the_curve(page: Any, server: Server) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server.url}/cdf?lang=ko")
    _wait_ready(page, "/cdf")
    plot = _box(page, ".dp-cdf-plot")
    handle = _box(page, ".dp-cdf-degree-slider input[type=range]")
    gap = handle["y"] - (plot["y"] + plot["height"])
    assert 0 <= gap <= 120, gap
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_cdf_back_leaves_the_page_in_one_step(page: Any, server: Server) -> None:
    page.goto(f"{server.url}/?lang=en")
    page.goto(f"{server.url}/cdf?lang=en&data=bimodal&n=20000")
    _wait_ready(page, "/cdf")
    expect(page).to_have_url(re.compile(r"[?&]seed="))
    length = page.evaluate("history.length")
    k = int(page.locator(".dp-cdf-degree").first.inner_text())
    page.locator(".dp-cdf-degree-slider input[type=range]").focus()
    for _ in range(3):
        page.keyboard.press("ArrowLeft")
    expect(page.locator(".dp-cdf-degree").first).to_have_text(str(k - 3))
    expect(page).to_have_url(re.compile(f"[?&]degree={k - 3}(&|$)"))
    assert page.evaluate("history.length") == length  # replaced in place, no new entries
    # the address is the state: the same degree and ε as the page shows
    assert re.search(r"[?&]eps=1(&|$)", page.url)
    expect(page.locator(".dp-cdf-degree-slider")).to_contain_text(str(k - 3))
    page.go_back()
    expect(page).to_have_url(re.compile(r"/\?lang=en$"))


def test_cdf_all_methods_as_small_multiples(page: Any, server: Server) -> None:
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(f"{server.url}/cdf?lang=en&method=all&n=5000")
    _wait_ready(page, "/cdf")
    assert _box(page, ".dp-cdf-plot")["height"] >= 250
    expect(page.locator(".dp-cdf-multiple")).to_have_count(5)
    for i in range(5):
        loc = page.locator(".dp-cdf-multiple").nth(i)
        loc.scroll_into_view_if_needed()
        b = loc.bounding_box()
        assert b is not None and b["height"] >= 250
    shot(page, "a11y-cdf-all-methods")


def test_cdf_disabled_degree_slider_looks_disabled(page: Any, server: Server) -> None:
    page.goto(f"{server.url}/cdf?lang=en&method=hq")
    _wait_ready(page, "/cdf")
    target = page.locator(".dp-cdf-degree-slider input[type=range]")
    expect(target).to_have_attribute("disabled", re.compile(".*"))
    assert float(target.evaluate("(el) => getComputedStyle(el).opacity")) <= 0.5


def test_cdf_logs_no_range_warnings(page: Any, server: Server) -> None:
    logs: list[str] = []
    page.on("console", lambda m: logs.append(m.text))
    page.goto(f"{server.url}/cdf?lang=en")
    _wait_ready(page, "/cdf")
    expect(page.locator(".dp-cdf-degree-plot svg.dp-svg path.dp-deg-expected").first
           ).to_be_visible()
    assert not [m for m in logs if "could not set initial ranges" in m], logs


# ---- names for screen readers ----------------------------------------------------------------
@pytest.mark.parametrize("lang", ["ko", "en"])
def test_sliders_and_checkboxes_have_names(page: Any, server: Server, lang: str) -> None:
    page.goto(f"{server.url}/lab?lang={lang}&sigma=1")
    _wait_ready(page, "/lab")
    sigma = page.get_by_role("slider", name=t("lab.ctl.sigma_slider", lang))
    expect(sigma).to_have_attribute("aria-valuetext", "σ = 1")
    sigma.focus()
    page.keyboard.press("ArrowRight")
    expect(sigma).to_have_attribute("aria-valuetext", "σ = 1.023")
    expect(page.get_by_role("slider", name=t("lab.ctl.eps_slider", lang))).to_have_count(1)
    page.goto(f"{server.url}/cdf?lang={lang}")
    _wait_ready(page, "/cdf")
    expect(page.get_by_role("checkbox", name=t("cdf.ctl.auto_degree", lang))).to_be_checked()
    teacher = page.get_by_role("checkbox", name=t("cdf.ctl.teacher", lang))
    expect(teacher).not_to_be_checked()
    expect(page.get_by_role("slider", name=t("cdf.ctl.degree", lang))).to_have_count(1)


# ---- the tour hides every view that answers its question ------------------------------------
@pytest.mark.parametrize(("lang", "size"), [("en", "normal"), ("ko", "large")])
def test_tour_conceals_every_answering_view(page: Any, server: Server, lang: str,
                                            size: str) -> None:
    large = "&size=large" if size == "large" else ""
    page.goto(f"{server.url}/lab?lang={lang}&tour=2{large}")
    expect(page.locator(".dp-concealed-box").first).to_be_visible()
    note = page.locator(".dp-tour-conceal-note")
    expect(note).to_be_visible()
    expect(note).to_contain_text(t("tour.concealed_views", lang))
    for css in (".dp-curve-plot", ".dp-exports"):
        expect(page.locator(css)).to_be_hidden()
    expect(page.locator(".dp-verdict")).to_have_count(0)
    body = page.locator("#main").inner_text()
    assert "P₀ =" not in body
    subtitles = page.locator(".dp-density-plot text.dp-svg-title")
    expect(subtitles.first).to_be_attached()
    titles = " ".join(subtitles.all_text_contents())
    assert "P₀" not in titles and t("tour.concealed_sub", lang) in titles, titles
    shot(page, f"a11y-tour-concealed-{lang}-{size}")
    # a prediction reveals the card and every view with it
    page.locator(".dp-tour-option-0 button").click()
    expect(page.locator(".dp-verdict")).to_be_visible()
    show_curve(page)
    expect(page.locator(".dp-curve-plot")).to_be_visible()
    expect(note).to_be_hidden()
    expect(page.locator(".dp-density-plot svg.dp-svg")).to_contain_text("P₀")


# ---- Korean line breaks, the 404 page ----------------------------------------------------------
_SPLIT_WORDS_JS = """(sel) => {
  const split = [];
  for (const el of document.querySelectorAll(sel)) {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    let node;
    while ((node = walker.nextNode())) {
      const text = node.textContent;
      const re = /[\\uac00-\\ud7a3]+/g;
      let m;
      while ((m = re.exec(text))) {
        if (m[0].length < 2) continue;
        const r = document.createRange();
        r.setStart(node, m.index); r.setEnd(node, m.index + m[0].length);
        const tops = new Set([...r.getClientRects()].filter(b => b.width > 0)
                               .map(b => Math.round(b.top)));
        if (tops.size > 1) split.push(m[0]);
      }
    }
  }
  return split;
}"""


def test_korean_words_are_not_broken_at_390px(page: Any, server: Server) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server.url}/?lang=ko")
    page.wait_for_load_state("load")
    assert page.evaluate(_SPLIT_WORDS_JS, "main p, main h2, main h3") == []
    page.goto(f"{server.url}/lesson?lang=ko")
    expect(page.locator(".katex").first).to_be_attached()
    assert page.evaluate(_SPLIT_WORDS_JS, "main p, main legend, main th") == []
    shot(page, "a11y-lesson-phone-ko")


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_wide_formulas_on_a_phone_say_they_scroll(page: Any, server: Server, lang: str) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server.url}/lesson?lang={lang}")
    expect(page.locator(".dp-math.dp-display.dp-scrolls").first).to_be_attached()
    report = page.evaluate("""() => [...document.querySelectorAll('.dp-math.dp-display')]
      .map(el => ({wide: el.scrollWidth > el.clientWidth + 1,
                   marked: el.classList.contains('dp-scrolls'),
                   focusable: el.tabIndex === 0,
                   hint: (el.nextElementSibling && el.nextElementSibling.classList
                          .contains('dp-scroll-hint'))
                         ? el.nextElementSibling.textContent : null}))""")
    wide = [r for r in report if r["wide"]]
    assert len(wide) >= 3  # the lesson has formulas wider than 390 px
    assert all(r["marked"] and r["focusable"] and r["hint"] == t("lesson.formula_scrolls", lang)
               for r in wide)
    assert not any(r["marked"] or r["hint"] for r in report if not r["wide"])
    # on a wide screen the same formulas fit and carry no hint
    page.set_viewport_size({"width": 1366, "height": 768})
    expect(page.locator(".dp-scroll-hint")).to_have_count(0)


def test_glossary_tip_on_a_phone_opens_next_to_its_word(page: Any, server: Server) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server.url}/lesson?lang=ko")
    expect(page.locator(".katex").first).to_be_attached()
    terms = page.locator(".dp-term")
    for k in (2, 5, 12):
        term = terms.nth(k)
        term.scroll_into_view_if_needed()
        term.focus()
        tip = term.locator(".dp-tip")
        expect(tip).to_be_visible()
        word, box = term.bounding_box(), tip.bounding_box()
        assert word is not None and box is not None
        gap = box["y"] - (word["y"] + word["height"]) if box["y"] >= word["y"] else \
            word["y"] - (box["y"] + box["height"])
        assert 0 <= gap <= 12, (k, word, box)  # just under (or over) the word, not far away
        assert box["y"] >= 0 and box["y"] + box["height"] <= 844


def test_quiz_question_of_two_lines_stays_inside_its_box(page: Any, server: Server) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server.url}/lesson?lang=ko")
    expect(page.locator(".katex").first).to_be_attached()
    rows = page.evaluate("""() => [...document.querySelectorAll('.dp-quiz-question')].map(q => {
      const l = q.querySelector('legend').getBoundingClientRect();
      const b = q.getBoundingClientRect();
      return [l.height, l.top - b.top];
    })""")
    two_line = [r for r in rows if r[0] > 40]
    assert two_line, rows  # the phone width makes some questions wrap
    assert all(top > 0 for _, top in rows), rows  # legend below the box's top border


@pytest.mark.parametrize("path", ["/lab", "/cdf"])
def test_phone_page_keeps_its_menu_without_its_style_sheet(page: Any, server: Server,
                                                           path: str) -> None:
    """dplab.css failing to load (seen once on a phone): the menu and the controls stay."""
    blocked: list[str] = []

    def drop(route: Any) -> None:
        blocked.append(route.request.url)
        route.abort()

    page.route("**/assets/dplab.css*", drop)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server.url}{path}?lang=ko")
    expect(page.locator("svg.dp-svg, canvas.bk-layer").first).to_be_attached()
    assert blocked  # the style sheet really was missing
    for key in ("common.nav.home", "common.nav.lesson", "common.nav.lab", "common.nav.cdf"):
        nav = page.get_by_role("navigation", name=t("common.nav.label", "ko"))
        link = nav.get_by_role("link", name=t(key, "ko"), exact=True)
        expect(link).to_be_visible()
        box = link.bounding_box()
        assert box is not None and 0 <= box["y"] and box["x"] + box["width"] <= 390, (key, box)
    expect(page.get_by_text("Toggle the Sidebar")).to_be_hidden()
    toggle = page.get_by_role("button", name=t("common.sidebar.toggle", "ko"))
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(page.locator(".noUi-handle, .dp-lab-controls input[type=range]").first
           ).to_be_visible()


@pytest.mark.parametrize("path", ["/lab", "/cdf"])
def test_projector_type_on_a_small_screen_keeps_the_header_links_whole(
        page: Any, server: Server, path: str) -> None:
    """size=large at 1366×768: the wrapped header grows instead of clipping its links, and the
    page still fits the screen (the content takes the rest)."""
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(f"{server.url}{path}?lang=ko&size=large")
    _wait_ready(page, path)
    nav = page.get_by_role("navigation", name=t("common.nav.label", "ko"))
    header = page.locator("#header").bounding_box()
    assert header is not None
    for key in ("common.nav.home", "common.nav.lesson", "common.nav.lab", "common.nav.cdf"):
        box = nav.get_by_role("link", name=t(key, "ko"), exact=True).bounding_box()
        assert box is not None
        assert header["y"] <= box["y"] and box["y"] + box["height"] <= header["y"] + header[
            "height"], (key, box, header)
    sizes = page.evaluate("""() => [document.documentElement.scrollHeight, innerHeight,
        document.querySelector('#sidebar').getBoundingClientRect().bottom]""")
    assert sizes[0] <= sizes[1] and sizes[2] <= sizes[1], sizes


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_not_found_page_in_the_readers_language(page: Any, server: Server, lang: str) -> None:
    resp = page.goto(f"{server.url}/nonexistent?lang={lang}&theme=dark")
    assert resp is not None and resp.status == 404
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.get_by_role("heading", level=1)).to_have_text(t("common.notfound.title", lang))
    back = page.get_by_role("link", name=t("common.notfound.back", lang))
    expect(back).to_have_attribute("href", re.compile(r"^/\?(.*&)?theme=dark"))
    expect(page.locator("html")).to_have_class(re.compile("dp-dark"))
    back.click()
    expect(page).to_have_url(re.compile(r"/\?"))


def test_axe_is_fetched_from_the_registry_not_a_cdn() -> None:
    script = (ROOT / "scripts" / "ensure-axe.sh").read_text(encoding="utf-8")
    assert "npm pack" in script and "http" not in script
    assert "ensure-axe.sh" in (ROOT / "Makefile").read_text(encoding="utf-8")
    assert Path(ROOT / ".gitignore").read_text(encoding="utf-8").count("build/") >= 1


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_cdf_figures_are_named_in_the_page_language(page: Any, server: Server,
                                                    lang: str) -> None:
    # Each figure is one SVG image (app/shell/svgplot.py LinePlot) named by its title; its
    # legend and labels are in the reader's language.
    page.goto(f"{server.url}/cdf?lang={lang}")
    _wait_ready(page, "/cdf")
    for css, key in ((".dp-cdf-plot", "cdf.plot.title"), (".dp-cdf-degree-plot",
                                                           "cdf.dplot.title")):
        svg = page.locator(f"{css} svg.dp-svg").first
        expect(svg).to_have_attribute("role", "img")
        expect(svg).to_have_attribute("aria-label", t(key, lang))
    legend = page.locator(".dp-cdf-plot svg.dp-svg .dp-svg-legend")
    expect(legend).to_contain_text(t("cdf.legend.reference", lang))
    expect(legend).to_contain_text(t("cdf.legend.private", lang))


def test_tabbing_through_the_sidebar_never_scrolls_the_page(page: Any, server: Server) -> None:
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(f"{server.url}/lab?lang=ko")
    _wait_ready(page, "/lab")
    for _ in range(40):
        page.keyboard.press("Tab")
        top = page.evaluate("[document.scrollingElement.scrollTop, "
                            "document.getElementById('header').getBoundingClientRect().top]")
        assert top == [0, 0], top


def test_a_rejected_address_value_leaves_the_address(page: Any, server: Server) -> None:
    page.goto(f"{server.url}/lab?lang=fr&tour=99&size=huge")
    _wait_ready(page, "/lab")
    expect(page.locator(".dp-notice")).to_contain_text("tour")
    expect(page).to_have_url(re.compile(r"[?&]sigma="))
    expect(page).not_to_have_url(re.compile(r"(lang=fr|tour=99|size=huge)"))
    page.goto(f"{server.url}/cdf?theme=purple&lang=en")
    _wait_ready(page, "/cdf")
    expect(page).to_have_url(re.compile(r"[?&]seed="))
    expect(page).not_to_have_url(re.compile("theme=purple"))
    assert "lang=en" in page.url


def test_constant_query_curve_keeps_its_axes(page: Any, server: Server) -> None:
    logs: list[str] = []
    page.on("console", lambda m: logs.append(m.text))
    page.goto(f"{server.url}/lab?lang=en&q=const")
    _wait_ready(page, "/lab")
    show_curve(page)
    page.locator(".dp-preset-sum_pass button").click()
    expect(page.locator(".dp-verdict")).to_contain_text("pass")
    assert not [m for m in logs if "could not set initial ranges" in m], logs
