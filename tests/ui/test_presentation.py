"""Presentation in the browser (issue 8): projector one-screen view, phones, themes, page options,
kept links, the stale card, print; screenshots of every page x size x theme.

Sizes: 1366x768 (laptop), 1920x1080 with ?size=large (projector), 390x844 (phone, touch). Every
screenshot lands in test-artifacts/ (look at them); each test also asserts what a student or an
instructor would stumble on.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from dpcore import certify
from ui.conftest import Server, shot, show_curve

SIZES = {
    "laptop": {"viewport": {"width": 1366, "height": 768}, "query": ""},
    "projector": {"viewport": {"width": 1920, "height": 1080}, "query": "size=large"},
    "phone": {"viewport": {"width": 390, "height": 844}, "query": "", "is_mobile": True,
              "has_touch": True},
}
THEMES = ("default", "dark")
# (a figure's view holds its figure, legend and folded text equivalent: the figure and its
# legend are on the first screen, the text's summary may be below it)
ONE_SCREEN = (".dp-verdict", ".dp-required-delta", ".dp-log10-delta",
              ".dp-density-plot svg.dp-svg", ".dp-density-plot .dp-view-legend",
              ".dp-curve-plot svg.dp-svg", ".dp-curve-plot .dp-view-legend")


def url(server: Server, path: str, *parts: str) -> str:
    q = "&".join(p for p in parts if p)
    return f"{server.url}{path}{'?' + q if q else ''}"


def theme_q(theme: str) -> str:
    return "theme=dark" if theme == "dark" else ""


@pytest.fixture(scope="module")
def contexts(browser: Any) -> Iterator[dict[str, Any]]:
    """One browser context per screen size for this module (HTTP cache shared per size)."""
    made: dict[str, Any] = {}

    def get(size: str) -> Any:
        if size not in made:
            spec = SIZES[size]
            made[size] = browser.new_context(
                viewport=spec["viewport"], is_mobile=spec.get("is_mobile", False),
                has_touch=spec.get("has_touch", False),
                extra_http_headers={"Accept-Language": "en-US,en;q=0.9"})
            made[size].set_default_timeout(30000)
        return made[size]

    yield get  # type: ignore[misc]
    for ctx in made.values():
        ctx.close()


@pytest.fixture
def open_page(contexts: Any, requests_seen: Any) -> Iterator[Any]:
    pages: list[Any] = []
    errors: list[str] = []

    def open_(size: str) -> Any:
        pg = contexts(size).new_page()
        pg.on("request", lambda r: requests_seen.append(r.url))
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pages.append(pg)
        return pg

    yield open_
    for pg in pages:
        pg.close()
    assert requests_seen.external() == [], f"non-local requests: {requests_seen.external()}"
    assert errors == [], f"JavaScript errors in the page: {errors}"


def wait_lab(pg: Any) -> None:
    expect(pg.locator(".dp-verdict")).to_be_visible()
    expect(pg.locator(".dp-density-plot svg.dp-svg path.dp-dens-d0").first).to_be_visible()
    # The server-rendered first card (app/shell/first_paint.py) has made way for the live one.
    expect(pg.locator("#dp-first-paint")).to_have_count(0)
    show_curve(pg)


def no_horizontal_scroll(pg: Any) -> None:
    width = pg.viewport_size["width"]
    sw = pg.evaluate("() => Math.max(document.documentElement.scrollWidth,"
                     " document.body.scrollWidth)")
    assert sw <= width, f"page is {sw} px wide in a {width} px window"


def common_checks(pg: Any, lang: str = "en") -> None:
    assert pg.locator('meta[name="viewport"]').count() == 1
    expect(pg.locator("html")).to_have_attribute("lang", lang)
    assert "Traceback" not in pg.content()
    no_horizontal_scroll(pg)


# ---------------------------------------------------------------------------------------------
# /lab at every size and theme
# ---------------------------------------------------------------------------------------------
def check_one_screen(pg: Any) -> None:
    for cls in ONE_SCREEN:
        box = pg.locator(cls).first.bounding_box()
        assert box is not None, cls
        assert box["x"] >= 0 and box["y"] >= 0, (cls, box)
        assert box["x"] + box["width"] <= 1920 and box["y"] + box["height"] <= 1080, (cls, box)
    assert pg.evaluate("() => document.getElementById('main').scrollTop") == 0


@pytest.mark.parametrize("theme", THEMES)
def test_laptop_then_projector_view(open_page: Any, server: Server, theme: str) -> None:
    """1366x768: card and densities side by side, everything open. Then, as an instructor
    would: ? shows the shortcuts, the window goes 1920x1080 and p switches to the projector
    view of the same release; verdict, required δ, log10, densities and curve are on one screen
    and one slider key press changes all of them."""
    pg = open_page("laptop")
    pg.goto(url(server, "/lab", "lang=en", theme_q(theme)))
    wait_lab(pg)
    common_checks(pg)
    card = pg.locator(".dp-card").first.bounding_box()
    dens = pg.locator(".dp-density-plot").first.bounding_box()
    assert card and dens and dens["x"] > card["x"] + card["width"] - 1, "two columns at 1366 px"
    expect(pg.locator("details.dp-more")).to_have_attribute("open", "")
    shot(pg, f"present-lab-laptop-{theme}")
    pg.locator("body").press("?")
    expect(pg.get_by_role("dialog")).to_be_visible()
    pg.keyboard.press("Escape")
    expect(pg.get_by_role("dialog")).to_have_count(0)

    pg.set_viewport_size({"width": 1920, "height": 1080})
    pg.locator("body").press("p")
    expect(pg).to_have_url(re.compile(r"size=large"))
    wait_lab(pg)
    common_checks(pg)
    assert "lang=en" in pg.url and (theme != "dark" or "theme=dark" in pg.url)
    check_one_screen(pg)
    # Secondary parts are folded, one Enter on their summary away.
    expect(pg.locator("details.dp-more")).not_to_have_attribute("open", "")
    expect(pg.locator(".dp-sim-card")).to_be_visible()
    size = pg.locator(".dp-header .dp-nav-link").first.evaluate(
        "e => parseFloat(getComputedStyle(e).fontSize)")
    assert size >= 20, "header links stay small in projector mode"
    shot(pg, f"present-lab-projector-{theme}")
    # One ε slider key press: card, curve marker and densities follow, still on one screen.
    before = pg.locator(".dp-density-plot").first.screenshot()
    pg.locator(".dp-slider-eps input[type=range]").focus()
    pg.keyboard.press("ArrowRight")
    expect(pg.locator(".dp-eps")).to_have_text("1.05")
    c = certify.certify("sum", 4, 1.0, 1.0, 1.05, 0.13)
    expect(pg.locator(".dp-log10-delta")).to_have_text(f"{c.log10_delta:.4f}")
    expect(pg).to_have_url(re.compile(r"[?&]eps=1\.05(&|$)"))
    changed = False
    for _ in range(100):  # poll the picture (the boundary t moves), no fixed sleep
        if pg.locator(".dp-density-plot").first.screenshot() != before:
            changed = True
            break
        pg.wait_for_timeout(50)
    assert changed, "the density plot did not follow the slider"
    check_one_screen(pg)
    # The summary opens with the keyboard.
    pg.locator("details.dp-more > summary").focus()
    pg.keyboard.press("Enter")
    expect(pg.locator("details.dp-more")).to_have_attribute("open", "")


@pytest.mark.parametrize("theme", THEMES)
def test_phone_one_column_no_horizontal_scroll(open_page: Any, server: Server,
                                               theme: str) -> None:
    pg = open_page("phone")
    pg.goto(url(server, "/lab", "lang=en", theme_q(theme)))
    wait_lab(pg)
    common_checks(pg)
    # The sidebar starts folded; its toggle is a labelled button that works with the keyboard.
    expect(pg.locator("#sidebar")).to_have_class(re.compile(r"\bhidden\b"))
    toggle = pg.locator("#sidebar-button")
    expect(toggle).to_have_attribute("role", "button")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    card = pg.locator(".dp-card").first.bounding_box()
    dens = pg.locator(".dp-density-plot").first.bounding_box()
    assert card and dens and dens["y"] >= card["y"] + card["height"] - 1, "one column"
    assert dens["x"] >= 0 and dens["x"] + dens["width"] <= 390
    shot(pg, f"present-lab-phone-{theme}")
    toggle.focus()
    pg.keyboard.press("Enter")
    expect(toggle).to_have_attribute("aria-expanded", "true")
    handle = pg.locator(".dp-slider-eps input[type=range]")
    expect(handle).to_be_visible()
    hb = handle.bounding_box()
    assert hb and hb["width"] >= 24 and hb["height"] >= 24, f"touch target {hb}"
    no_horizontal_scroll(pg)
    # A finger drags the ε handle to the right: ε follows (touch events through CDP).
    handle.scroll_into_view_if_needed()
    hb = handle.bounding_box()
    assert hb is not None
    # the thumb (about 16 px wide) stands at ε = 1 of 0 … 20
    x0, y0 = hb["x"] + 8 + (hb["width"] - 16) / 20, hb["y"] + hb["height"] / 2
    cdp = pg.context.new_cdp_session(pg)

    def touch(kind: str, x: float) -> None:
        points = [] if kind == "touchEnd" else [{"x": x, "y": y0}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    touch("touchStart", x0)
    for k in range(1, 6):
        touch("touchMove", x0 + 16 * k)
    touch("touchEnd", x0 + 80)
    expect(pg.locator(".dp-eps")).not_to_have_text("1")
    eps = float(pg.locator(".dp-eps").inner_text())
    assert 1 < eps <= 20


# ---------------------------------------------------------------------------------------------
# page options, links, notices
# ---------------------------------------------------------------------------------------------
def check_option_notice(pg: Any) -> None:
    notice = pg.get_by_role("alert").filter(has_text="theme")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("light")
    expect(notice).to_contain_text("size")
    text = pg.content()
    assert "Traceback" not in text and "KeyError" not in text and "/work/" not in text
    # The defaults apply and the links do not carry the bad values on.
    hrefs = pg.locator(".dp-nav-link").evaluate_all("els => els.map(e => e.href)")
    assert hrefs and not any("theme=light" in h or "size=huge" in h for h in hrefs)


def test_bad_options_notice_and_stale_card(open_page: Any, server: Server) -> None:
    """theme=light / size=huge: the lab's notice, no traceback. Then a rejected input marks the
    card dp-stale (last valid values) until it is fixed."""
    pg = open_page("laptop")
    resp = pg.goto(url(server, "/lab", "lang=en", "theme=light", "size=huge"))
    assert resp is not None and resp.status == 200
    wait_lab(pg)
    check_option_notice(pg)
    expect(pg.locator(".dp-verdict")).to_contain_text("pass")
    shot(pg, "present-lab-bad-options")

    expect(pg.locator(".dp-card.dp-stale")).to_have_count(0)
    box = pg.get_by_label(re.compile(r"^σ — noise"))
    box.fill("-3")
    box.press("Enter")
    expect(pg.locator(".dp-card.dp-stale")).to_have_count(1)
    expect(pg.locator(".dp-stale-note")).to_contain_text("last valid values")
    expect(pg.locator(".dp-stale-note")).to_contain_text("σ")
    expect(pg.locator(".dp-sigma")).to_have_text("1")  # still the last valid release
    shot(pg, "present-lab-stale")
    box.fill("2")
    box.press("Enter")
    expect(pg.locator(".dp-sigma")).to_have_text("2")
    expect(pg.locator(".dp-card.dp-stale")).to_have_count(0)
    c = certify.certify("sum", 4, 1.0, 2.0, 1.0, 0.13)
    expect(pg.locator(".dp-log10-delta")).to_have_text(f"{c.log10_delta:.4f}")


def test_links_keep_size_and_theme(open_page: Any, server: Server) -> None:
    pg = open_page("laptop")
    pg.goto(url(server, "/lab", "lang=en", "size=large", "theme=dark", "eps=2"))
    wait_lab(pg)
    hrefs = pg.locator(".dp-header nav .dp-nav-link").evaluate_all(
        "els => els.map(e => e.getAttribute('href'))")
    assert len(hrefs) == 4
    for h in hrefs:
        assert "lang=en" in h and "size=large" in h and "theme=dark" in h, h
    # The switches keep the rest of the address (here the lab's ε) and change one option.
    light = pg.get_by_role("link", name="Light screen").get_attribute("href") or ""
    assert "theme=default" in light and "size=large" in light and "eps=2" in light
    korean = pg.get_by_role("link", name=re.compile("한국어")).get_attribute("href") or ""
    assert "lang=ko" in korean and "theme=dark" in korean and "size=large" in korean
    pg.get_by_role("link", name="Lessons").click()
    expect(pg.locator("html.dp-dark.dp-large")).to_have_count(1)
    pg.locator(".dp-header nav").get_by_role("link", name="Gaussian mechanism lab").click()
    wait_lab(pg)
    assert "size=large" in pg.url and "theme=dark" in pg.url and "lang=en" in pg.url


# ---------------------------------------------------------------------------------------------
# print
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_print_keeps_the_whole_page(open_page: Any, server: Server, lang: str) -> None:
    pg = open_page("laptop")
    pg.goto(url(server, "/lab", f"lang={lang}", "size=large"))
    wait_lab(pg)
    expect(pg.locator("details.dp-more")).not_to_have_attribute("open", "")
    pg.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")
    expect(pg.locator("details.dp-more")).to_have_attribute("open", "")
    pg.emulate_media(media="print")
    main = pg.evaluate("() => { const m = getComputedStyle(document.getElementById('main'));"
                       " return [m.overflowY, m.height]; }")
    assert main[0] == "visible", main
    expect(pg.locator("#sidebar")).to_be_hidden()
    expect(pg.locator(".dp-curve-text table")).to_be_visible()
    png = shot(pg, f"present-lab-print-{lang}")
    pdf = pg.pdf(format="A4", print_background=True)
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    assert pages >= 2, f"the print has {pages} page(s): only the first screen?"
    png.with_suffix(".pdf").write_bytes(pdf)
    pg.emulate_media(media="screen")
    pg.evaluate("() => window.dispatchEvent(new Event('afterprint'))")
    expect(pg.locator("details.dp-more")).not_to_have_attribute("open", "")


# ---------------------------------------------------------------------------------------------
# every page x size x theme
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("path", "size", "theme"), [
    *[(p, size, theme) for p in ("/", "/lesson") for size in SIZES for theme in THEMES],
    ("/cdf", "laptop", "default"),
    ("/cdf", "projector", "dark"),
    ("/cdf", "phone", "dark"),
])
def test_every_page_size_theme(open_page: Any, server: Server, path: str, size: str,
                               theme: str) -> None:
    """Screenshot + the checks that hold everywhere (/lab: the tests above; /cdf at one theme
    per size, its own tests cover the rest). /cdf at 1366 px also gets bad option values."""
    pg = open_page(size)
    bad = path == "/cdf" and size == "laptop"
    opts = ("theme=light", "size=huge") if bad else (SIZES[size]["query"], theme_q(theme))
    pg.goto(url(server, path, "lang=ko", *opts))
    if path == "/cdf":
        expect(pg.locator(".dp-cdf-plot svg.dp-svg path.dp-cdf-ref").first).to_be_visible()
    else:
        expect(pg.locator("main")).to_be_visible()
    shot(pg, f"present{path.replace('/', '-') if path != '/' else '-index'}-{size}-{theme}")
    if bad:
        check_option_notice(pg)
    common_checks(pg, lang="ko")
