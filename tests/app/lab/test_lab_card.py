"""The certification card and the text equivalents (HTML built without a browser)."""

from __future__ import annotations

import math
import re

import pytest

from app.lab import compute as lc
from app.lab.card import card_html
from app.lab.page import LabPage
from app.lab.state import LabState
from app.lab.texts import curve_text, density_text
from app.shell.numbers import fmt_delta, fmt_log10
from dpcore import certify


def _cls(html: str, cls: str) -> str:
    m = re.search(rf'class="{cls}">([^<]*)<', html)
    assert m, cls
    return m.group(1)


def _card(state: LabState, lang: str) -> tuple[str, certify.Certification]:
    c = certify.certify(state.query, state.n, state.B, state.sigma, state.eps, state.delta)
    return card_html(state, c, lang), c


def test_formatting_rules() -> None:
    assert fmt_delta(0.0) == "0"
    assert fmt_delta(0.12693673750664386) == "0.1269367375"  # >= 8 significant digits
    assert fmt_delta(2.9242721048564203e-06) == "2.924272105e-06"
    assert fmt_log10(-math.inf) == "-inf"
    assert fmt_log10(-2223595.4904127656) == "-2223595.4904"


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("preset", ["sum_pass", "sum_fail", "mean_small", "mean_underflow",
                                    "const", "count"])
def test_card_key_outputs_match_dpcore(lang: str, preset: str) -> None:
    s = LabState()
    s.load_preset(preset)
    html, c = _card(s, lang)
    assert float(_cls(html, "dp-required-delta")) == pytest.approx(c.required_delta, rel=1e-9)
    log10 = _cls(html, "dp-log10-delta")
    if c.sensitivity == 0:
        assert log10 == "-inf"
    else:
        assert float(log10) == pytest.approx(c.log10_delta, abs=5e-5)
    assert float(_cls(html, "dp-sensitivity")) == c.sensitivity
    verdict = _cls(html, "dp-verdict")
    word = {("en", True): "pass", ("en", False): "fail", ("ko", True): "통과",
            ("ko", False): "실패"}[(lang, c.passes)]
    assert word in verdict
    if c.underflow:
        assert _cls(html, "dp-required-delta") == "0"


def test_card_shows_units_and_local_difference() -> None:
    s = LabState()
    s.load_preset("mean_small")
    s.set_text("replacement", "0.5")
    html, _ = _card(s, "en")
    assert "mean units" in html
    assert _cls(html, "dp-local-difference").startswith("0.125")  # |1 - 0.5| / 4
    assert "global Δ = 0.25 mean units" in html


def test_density_text_mentions_boundary_outside_window() -> None:
    dv = lc.density_view(1 / 32, 10.0, 10.0)
    html = density_text(dv, 1 / 32, 10.0, 10.0, "mean units", "en")
    assert "outside the window" in html and "-31999.98" in html
    ko = density_text(dv, 1 / 32, 10.0, 10.0, "평균 단위", "ko")
    assert "창 밖" in ko


def test_curve_text_lists_values() -> None:
    cv = lc.curve_view(1.0, 1.0, 1.0, 0.13, 0.0, 10.0, "log10")
    html = curve_text(cv, 0.13, "en")
    assert "-0.8964" in html and "<table" in html


def test_page_builds_without_a_server_and_reacts_in_place() -> None:
    page = LabPage(LabState(), "en")
    plot = page.curve_plot
    before = page.curve_plot.data
    page.state.set_text("sigma", "2")
    assert page.curve_plot is plot and page.curve_plot.data != before  # one new message
    assert "dp-sigma\">2<" in page.card.object
    page.state.set_text("sigma", "-1")
    assert "σ must be" in page.controls.panel.errors["sigma"]
    assert page.state.sigma == 2.0


def test_tap_sets_eps() -> None:
    page = LabPage(LabState(), "en")
    page.curve_plot._handle_msg({"tap": 3.14159})  # what a click in the figure sends
    page.curve_plot._handle_msg({"tap": "not a number"})  # ignored
    page.curve_plot._handle_msg({"tap": float("nan")})
    assert page.state.eps == pytest.approx(3.14)
    assert "dp-eps\">3.14<" in page.card.object
