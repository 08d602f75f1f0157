"""Browser tests of the lab page: presets, URLs, curve clicks, scales, keyboard, bad input."""

from __future__ import annotations

import json
import math
import re
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from app.lab.state import PRESET_BY_KEY
from app.shell.numbers import fmt_log10, parse_number
from dpcore import certify
from ui.conftest import Server, shot, show_curve


def open_lab(page: Any, server: Server, query: str = "lang=en") -> None:
    page.goto(f"{server.url}/lab?{query}")
    expect(page.locator(".dp-verdict")).to_be_visible()
    # The server-rendered first card (app/shell/first_paint.py) has made way for the live one.
    expect(page.locator("#dp-first-paint")).to_have_count(0)
    show_curve(page)


def card(page: Any) -> dict[str, str]:
    return {c: page.locator(f".dp-{c}").first.inner_text().strip()
            for c in ("required-delta", "log10-delta", "sensitivity", "verdict", "sigma", "eps")}


def check_card(page: Any, query: str, n: int, B: float, sigma: float, eps: float,
               claimed: float, lang: str = "en") -> certify.Certification:
    c = certify.certify(query, n, B, sigma, eps, claimed)
    words = {"en": ("pass", "fail"), "ko": ("통과", "실패")}[lang]
    # Poll every field that can change: two releases may share log10 delta (only the claim
    # differs), so waiting on one field alone could read the previous card.
    expect(page.locator(".dp-log10-delta")).to_have_text(fmt_log10(c.log10_delta))
    expect(page.locator(".dp-verdict")).to_contain_text(words[0] if c.passes else words[1])
    got = card(page)
    if c.required_delta == 0:
        assert got["required-delta"] == "0"
    else:
        assert float(got["required-delta"]) == pytest.approx(c.required_delta, rel=1e-9)
        assert len(re.sub(r"[^0-9]", "", got["required-delta"].split("e")[0]).lstrip("0")) >= 8
    assert float(got["sensitivity"]) == c.sensitivity
    assert (words[0] if c.passes else words[1]) in got["verdict"]
    return c


def url_params(page: Any) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def test_default_page_matches_dpcore(page: Any, server: Server) -> None:
    open_lab(page, server)
    check_card(page, "sum", 4, 1.0, 1.0, 1.0, 0.13)
    assert card(page)["required-delta"] == "0.1269367375"
    expect(page.locator(".dp-density-text")).to_contain_text("0.30853754")
    shot(page, "lab-default-en")


def test_presets_in_one_click(page: Any, server: Server) -> None:
    open_lab(page, server)
    for key in ("sum_fail", "mean_small", "mean_underflow", "const", "count", "sum_eps0",
                "sum_pass"):
        p = PRESET_BY_KEY[key]
        page.locator(f".dp-preset-{key} button").click()
        c = check_card(page, p.query, p.n, p.B, p.sigma, p.eps, parse_number(p.delta))
        if key == "mean_underflow":
            assert card(page)["required-delta"] == "0"
            assert card(page)["log10-delta"] == "-2223595.4904"
            expect(page.locator(".dp-density-text .dp-t-outside")).to_be_visible()
            expect(page.locator(".dp-flag-underflow")).to_have_text("yes")
            shot(page, "lab-preset-underflow")
        if key == "const":
            assert c.sensitivity == 0 and card(page)["log10-delta"] == "-inf"
            expect(page.locator(".dp-curve-text")).to_contain_text("exactly")
        if key == "sum_eps0":
            assert float(card(page)["required-delta"]) == pytest.approx(0.3829249225, rel=1e-9)
        # the address follows with the figures (after a short pause when clicks come fast)
        expect(page).to_have_url(
            re.compile(rf"(?=.*[?&]q={p.query}(&|$))(?=.*[?&]n={p.n}(&|$))"))


def test_url_state_both_directions(page: Any, server: Server) -> None:
    open_lab(page, server, "q=mean&n=4&B=1&sigma=1&eps=1&delta=1e-6&lang=en")
    check_card(page, "mean", 4, 1.0, 1.0, 1.0, 1e-6)
    history = page.evaluate("() => window.history.length")
    box = page.get_by_label(re.compile(r"^σ — noise"))
    box.fill("0.5")
    box.press("Enter")
    check_card(page, "mean", 4, 1.0, 0.5, 1.0, 1e-6)
    expect(page).to_have_url(re.compile(r"sigma=0\.5"))
    # The address is replaced in place: Back leaves the lab instead of undoing each move.
    box.fill("0.75")
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"sigma=0\.75"))
    assert page.evaluate("() => window.history.length") == history
    box.fill("0.5")
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"sigma=0\.5"))
    args = url_params(page)
    assert (args["q"], args["n"], args["B"], args["eps"], args["delta"]) == (
        "mean", "4", "1", "1", "1e-6")
    # the address is a complete link: reloading it shows the same card
    page.goto(page.url)
    expect(page.locator(".dp-sigma")).to_have_text("0.5")
    check_card(page, "mean", 4, 1.0, 0.5, 1.0, 1e-6)


def test_a_short_link_becomes_the_full_address_after_load(page: Any, server: Server) -> None:
    # A lesson link names a few parameters; once the page is live the address names them all,
    # so copying it from the address bar reproduces the card exactly.
    open_lab(page, server, "sigma=2&lang=en")
    expect(page).to_have_url(re.compile(r"eps=1(&|$)"))
    args = url_params(page)
    assert (args["sigma"], args["q"], args["n"], args["delta"]) == ("2", "sum", "4", "0.13")
    assert args["lang"] == "en"


def test_bad_url_values_fall_back_with_a_visible_message(page: Any, server: Server) -> None:
    open_lab(page, server, "q=median&sigma=-1&eps=abc&delta=2&n=4&lang=en")
    notice = page.locator(".dp-notice")
    expect(notice).to_be_visible()
    for name in ("q", "sigma", "eps", "delta"):
        expect(notice).to_contain_text(f"{name} =")
    check_card(page, "sum", 4, 1.0, 1.0, 1.0, 0.13)


@pytest.mark.parametrize(("label", "text", "message"), [
    (r"^σ — noise", "0", "σ must be"),
    (r"^σ — noise", "1e300", "σ must be"),
    (r"^ε \(no unit\)", "-1", "ε must be"),
    (r"^ε \(no unit\)", "1e6", "ε must be"),
    (r"^Claimed δ", "1.5", "δ must lie in"),
    (r"^n — public", "0", "whole number"),
    (r"^B — public", "-2", "B must be"),
    (r"^σ — noise", "abc", "not a number"),
])
def test_bad_input_at_the_control_keeps_the_last_valid_state(
        page: Any, server: Server, label: str, text: str, message: str) -> None:
    open_lab(page, server)
    before = card(page)
    box = page.get_by_label(re.compile(label))
    box.fill(text)
    box.press("Enter")
    alert = page.get_by_role("alert").filter(has_text=message)
    expect(alert).to_be_visible()
    assert card(page) == before
    check_card(page, "sum", 4, 1.0, 1.0, 1.0, 0.13)


def test_clicking_the_curve_sets_eps(page: Any, server: Server) -> None:
    open_lab(page, server)
    canvas = page.locator(".dp-curve-plot svg.dp-svg").first
    canvas.scroll_into_view_if_needed()
    expect(page.locator(".dp-curve-plot path.dp-curve-y").first).to_be_visible()
    box = canvas.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] * 0.6, box["y"] + box["height"] * 0.4)
    expect(page.locator(".dp-eps")).not_to_have_text("1")
    eps = float(card(page)["eps"])
    assert 2.0 < eps < 9.0  # x range is [0, 10]; 60 % of the figure incl. the axis area
    check_card(page, "sum", 4, 1.0, 1.0, eps, 0.13)
    expect(page.get_by_label(re.compile(r"^ε \(no unit\)"))).to_have_value(card(page)["eps"])
    assert url_params(page)["eps"] == card(page)["eps"]
    shot(page, "lab-curve-clicked")


def test_scale_switch(page: Any, server: Server) -> None:
    open_lab(page, server, "q=mean&n=32&B=1&sigma=10&eps=10&delta=0&lang=en")
    table = page.locator(".dp-curve-text table")
    expect(table).to_contain_text("log10 δ")
    expect(table).to_contain_text("-2223595.4904")
    page.get_by_role("button", name="δ (linear)").click()
    expect(page.locator(".dp-curve-text")).to_contain_text("δ = 0;")
    expect(table).not_to_contain_text("log10")
    assert url_params(page)["scale"] == "linear"
    shot(page, "lab-linear-scale")
    page.get_by_role("button", name="log10 δ").click()
    expect(table).to_contain_text("-2223595.4904")
    assert url_params(page)["scale"] == "log10"


def test_keyboard_path(page: Any, server: Server) -> None:
    open_lab(page, server)
    # a preset button: focus + Enter
    btn = page.locator(".dp-preset-sum_fail button")
    btn.focus()
    page.keyboard.press("Enter")
    expect(page.locator(".dp-verdict")).to_contain_text("fail")
    # typed value: focus, select all, type, Enter
    box = page.get_by_label(re.compile(r"^ε \(no unit\)"))
    box.focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("2")
    page.keyboard.press("Enter")
    expect(page.locator(".dp-eps")).to_have_text("2")
    check_card(page, "sum", 4, 1.0, 1.0, 2.0, 0.126)
    # slider: Tab from the text box lands on the ε slider handle; arrows move it
    page.keyboard.press("Tab")
    page.keyboard.press("ArrowRight")
    expect(page.locator(".dp-eps")).to_have_text("2.05")
    check_card(page, "sum", 4, 1.0, 1.0, 2.05, 0.126)
    # the language switch is a plain link reachable with the keyboard; it carries the current
    # address, which follows the state once the keys pause (150 ms)
    expect(page).to_have_url(re.compile(r"[?&]eps=2\.05(&|$)"))
    link = page.get_by_role("link", name=re.compile("한국어"))
    link.focus()
    page.keyboard.press("Enter")
    expect(page.locator(".dp-card")).to_contain_text("합 단위")
    check_card(page, "sum", 4, 1.0, 1.0, 2.05, 0.126, lang="ko")


def test_dragging_the_sigma_slider_with_the_mouse(page: Any, server: Server) -> None:
    # A drag moves the handle in the browser; its release is sent (assets/dplab-lab-controls.js),
    # so the card shows where the handle stopped.
    open_lab(page, server)
    before = card(page)["sigma"]
    handle = page.locator(".dp-slider-sigma input[type=range]").first
    box = handle.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 60, y, steps=12)
    page.mouse.up()
    expect(page.locator(".dp-sigma")).not_to_have_text(before)
    sigma = float(card(page)["sigma"])
    assert sigma > float(before)
    check_card(page, "sum", 4, 1.0, sigma, 1.0, 0.13)
    expect(page.get_by_label(re.compile(r"^σ — noise"))).to_have_value(card(page)["sigma"])


def _control_messages(sent: list[Any]) -> list[dict[str, Any]]:
    """The messages the lab's controls (app/lab/controls.py) sent: one ``data_event`` each,
    decoded from Bokeh's map encoding, or a slider's release by the moves channel."""
    def plain(v: Any) -> Any:
        if isinstance(v, dict) and v.get("type") == "map":
            return {k: plain(x) for k, x in v.get("entries", [])}
        return v

    out = []
    for frame in sent:
        if isinstance(frame, str) and frame.startswith('{"n":'):
            # a slider's release by the page's moves channel (app/lab/moves.py)
            out.append({"k": "slider", **json.loads(frame)})
        elif isinstance(frame, str) and '"data_event"' in frame:
            for e in json.loads(frame).get("events", []):
                data = e.get("msg_data") or {}
                if data.get("name") == "data_event":
                    values = plain(data.get("values"))
                    msg = plain(values.get("data"))
                    if isinstance(msg, dict) and "k" in msg:
                        out.append(msg)
    return out


def _model_changes(sent: list[Any]) -> list[list[str]]:
    """The attributes of every ModelChanged the browser sent (PATCH-DOC frames)."""
    out = []
    for frame in sent:
        if isinstance(frame, str) and '"events"' in frame:
            attrs = [e["attr"] for e in json.loads(frame).get("events", [])
                     if e.get("kind") == "ModelChanged"]
            if attrs:
                out.append(attrs)
    return out


def test_a_key_press_or_a_drag_is_one_message(page: Any, server: Server) -> None:
    # The controls' sliders send their release only: a key press is one message, a drag
    # sends nothing until the handle is let go (assets/dplab-lab-controls.js).
    sent: list[Any] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
    open_lab(page, server)
    handle = page.locator(".dp-slider-eps input[type=range]").first
    handle.focus()
    sent.clear()
    page.keyboard.press("ArrowRight")
    expect(page.locator(".dp-eps")).to_have_text("1.05")
    assert _control_messages(sent) == [{"k": "slider", "c": "eps", "v": 1.05, "n": 1}]
    box = handle.bounding_box()
    assert box is not None
    # the thumb sits at 1.05 / 20 of the track
    x, y = box["x"] + box["width"] * 1.05 / 20, box["y"] + box["height"] / 2
    sent.clear()
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 60, y, steps=12)
    # the readout follows the handle in the browser while nothing is sent
    expect(page.locator(".dp-slider-eps .dp-slider-value").first).not_to_contain_text("1.05")
    assert _control_messages(sent) == []
    page.mouse.up()
    expect(page.locator(".dp-eps")).not_to_have_text("1.05")
    msgs = _control_messages(sent)
    assert len(msgs) == 1 and msgs[0]["k"] == "slider" and msgs[0]["c"] == "eps", msgs
    eps = float(card(page)["eps"])
    assert eps > 1.05
    check_card(page, "sum", 4, 1.0, 1.0, eps, 0.13)


def test_a_slider_moved_by_a_typed_value_and_back_by_a_key_counts(page: Any,
                                                                  server: Server) -> None:
    # A typed σ moves the slider from the server; an arrow key back to where the slider was
    # last released must still reach the server (the release-only script always sends it).
    open_lab(page, server)
    box = page.get_by_label(re.compile(r"^σ — noise"))
    box.fill("1.023")  # log10 σ = 0.01, one step right of the slider's start (σ = 1)
    box.press("Enter")
    expect(page.locator(".dp-sigma")).to_have_text("1.023")
    page.locator(".dp-slider-sigma input[type=range]").first.focus()
    page.keyboard.press("ArrowLeft")
    expect(page.locator(".dp-sigma")).to_have_text("1")
    check_card(page, "sum", 4, 1.0, 1.0, 1.0, 0.13)


def test_a_sigma_move_with_every_figure_shown_is_one_message(page: Any, server: Server) -> None:
    # The three figures are drawn again in the browser after a σ move (app/lab/views.py);
    # nothing goes back to the server but the slider's own value (BokehJS figures used to send
    # their new automatic ranges, assets/dplab-page-setup.js).
    sent: list[Any] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
    open_lab(page, server)
    page.locator(".dp-sim-plot").first.scroll_into_view_if_needed()
    paths = [page.locator(f"{css}").first for css in (
        ".dp-density-plot path.dp-dens-d0", ".dp-curve-plot path.dp-curve-y",
        ".dp-sim-plot path.dp-sim-h0")]
    for p in paths:
        expect(p).to_be_visible()
    before = [p.get_attribute("d") for p in paths]
    page.locator(".dp-slider-sigma input[type=range]").first.focus()
    sent.clear()
    page.keyboard.press("ArrowRight")
    expect(page.locator(".dp-sigma")).to_have_text("1.023")  # 10 ** 0.01
    # every figure drawn again with the new σ
    for p, d in zip(paths, before, strict=True):
        expect(p).not_to_have_attribute("d", d or "")
    assert _control_messages(sent) == [{"k": "slider", "c": "sigma", "v": 0.01, "n": 1}]
    assert _model_changes(sent) == []  # no figure sends anything back


def test_quick_arrow_presses_on_the_sigma_slider_all_count(page: Any, server: Server) -> None:
    # Five presses without a pause (a held key): the handle must not be sent back to an
    # earlier, rounded position between them (assets/dplab-lab-controls.js: a slider whose
    # position already gives the value stays).
    open_lab(page, server)
    handle = page.locator(".dp-slider-sigma input[type=range]").first
    handle.focus()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    expect(page.locator(".dp-sigma")).to_have_text("1.122")  # 10 ** 0.05, 4 digits
    check_card(page, "sum", 4, 1.0, 1.122, 1.0, 0.13)


def test_korean_is_the_default(browser: Any, server: Server, requests_seen: Any) -> None:
    ctx = browser.new_context(viewport={"width": 1500, "height": 1000},
                              extra_http_headers={"Accept-Language": "fr-FR"})
    pg = ctx.new_page()
    pg.on("request", lambda r: requests_seen.append(r.url))
    pg.goto(f"{server.url}/lab?q=mean&n=32&B=1&sigma=10&eps=10&delta=0")
    expect(pg.locator(".dp-verdict")).to_contain_text("실패")
    expect(pg.locator(".dp-card")).to_contain_text("평균 단위")
    check_card(pg, "mean", 32, 1.0, 10.0, 10.0, 0.0, lang="ko")
    shot(pg, "lab-underflow-ko")
    ctx.close()
    assert requests_seen and requests_seen.external() == []


def test_projector_and_dark_mode(page: Any, server: Server) -> None:
    open_lab(page, server, "size=large&theme=dark&lang=ko")
    size = page.locator(".dp-verdict").evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert size >= 30
    shot(page, "lab-large-dark-ko")


def test_simulation_table(page: Any, server: Server) -> None:
    open_lab(page, server)
    sim = page.locator(".dp-sim-text")
    expect(sim).to_contain_text("0.30853754")
    first = sim.locator("tbody tr").first.inner_text()
    page.locator(".dp-resample button").click()
    expect(sim.locator("tbody tr").first).not_to_have_text(first)
    k, n = re.search(r"(\d+) / (\d+)", sim.locator("tbody tr").first.inner_text()).groups()
    assert int(n) == 5000 and 0 < int(k) < 5000
    assert math.isfinite(float(k))


def test_accept_language_picks_english_without_lang_parameter(page: Any, server: Server) -> None:
    page.goto(f"{server.url}/lab")  # the fixture's browser context sends Accept-Language en-US
    expect(page.locator(".dp-verdict")).to_have_text("✓ pass")
    expect(page.locator(".dp-card")).to_contain_text("sum units")
