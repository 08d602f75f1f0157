"""The lab's light views (app/lab/views.py): what each figure's message holds, from the state."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from app.lab.page import LabPage
from app.lab.state import LabState
from dpcore import gaussian


def page(**values: float | str) -> LabPage:
    p = LabPage(LabState(), "en")
    for name, v in values.items():
        p.state.set_text(name, str(v))
    return p


def test_the_densities_message_is_a_few_numbers_and_its_texts() -> None:
    p = page(sigma=2, eps=1)
    d = p.dens_plot.data
    assert (d["sigma"], d["d"], d["lo"], d["hi"]) == (2.0, 1.0, -8.0, 9.0)
    w = gaussian.worst_event(1.0, 1.0, 2.0)
    assert d["t"] == pytest.approx(float(w.t)) and d["tlabel"].startswith("t = ")
    assert f"{float(w.p0):.5f}"[:6] in d["sub2"]
    figure = {k: v for k, v in d.items() if k != "html_text"}  # (its text equivalent aside)
    assert len(json.dumps(figure)) < 600  # no arrays: the browser draws the curves


def test_a_zero_sensitivity_draws_no_threshold() -> None:
    p = page()
    p.state.load_preset("const")  # a constant query: Δ = 0, δ = 0 at every ε
    d, c = p.dens_plot.data, p.curve_plot.data
    assert d["d"] == 0 and d["t"] is None and d["note"] and d["sub"] == "Δ = 0: δ = 0"
    assert c["frame"] is not None and c["note"]  # the all-zero curve keeps its axes


def test_the_curve_is_dpcores_delta_on_an_even_grid() -> None:
    p = page(sigma=1.5, eps=2)
    c = p.curve_plot.data
    eps = np.linspace(c["lo"], c["hi"], len(c["y"]))
    ref = np.asarray(gaussian.log_delta(eps, 1.0, 1.5)) / math.log(10)
    got = np.array([np.nan if v is None else v for v in c["y"]])
    fin = np.isfinite(ref)
    np.testing.assert_allclose(got[fin], ref[fin], rtol=1e-3)  # 4 significant digits
    assert c["cur"][0] == c["span"] == 2.0
    assert c["cur"][1] == pytest.approx(float(gaussian.log_delta(2.0, 1.0, 1.5)) / math.log(10))
    assert c["claim"] == pytest.approx(math.log10(0.13))
    # the comparisons: switches and σ, Δ (drawn in closed form by the browser)
    assert (c["lap"], c["classic"], c["sigma"], c["d"]) == (True, True, 1.5, 1.0)
    assert len(json.dumps(c)) < 5000


def test_overlays_off_and_the_legend_follow() -> None:
    p = page()
    p.state.overlays = []
    c = p.curve_plot.data
    assert c["lap"] is False and c["classic"] is False
    shown = [e.label for i, e in enumerate(p.leg_curve) if i not in c["legend_off"]]
    assert not [x for x in shown if "Laplace" in x] and [x for x in shown if "claimed" in x]


def test_a_click_on_the_curve_sets_eps_rounded_and_bounded() -> None:
    p = page()
    p.curve_plot._handle_msg({"tap": 2.71828})
    assert p.state.eps == pytest.approx(2.72)
    p.curve_plot._handle_msg({"tap": -3})
    assert p.state.eps == 0.0
    p.curve_plot._handle_msg({"kind": "other"})  # not a click: nothing happens
    assert p.state.eps == 0.0


def test_the_simulation_message_is_the_histograms_on_their_bins() -> None:
    p = page(sigma=1)
    s = p.sim_plot.data
    assert len(s["edges"]) == len(s["h0"]) + 1 == len(s["h1"]) + 1
    widths = np.diff(np.asarray(s["edges"], dtype=float))
    # density-normalised counts: each histogram's area is the share of draws inside the window
    for h in (s["h0"], s["h1"]):
        area = float(np.sum(np.asarray(h, dtype=float) * widths))
        assert 0.98 < area <= 1.0 + 1e-3
    assert (s["lo"], s["hi"]) == (p.dens_plot.data["lo"], p.dens_plot.data["hi"])
    assert s["t"] == p.dens_plot.data["t"]


def test_pages_in_the_same_state_share_each_figures_message() -> None:
    # A room's followers: the same message objects, made once per worker (svgplot.shared).
    a, b = page(sigma=1.7, eps=0.9), page(sigma=1.7, eps=0.9)
    for name in ("dens_plot", "curve_plot", "sim_plot"):
        ma, mb = getattr(a, name).message, getattr(b, name).message
        assert isinstance(ma, str) and ma is mb  # one JSON text: Bokeh sets it as one value
    assert "<table" in a.curve_plot.data["html_text"]  # the text equivalent travels with it
    c = page(sigma=1.8, eps=0.9)
    assert c.curve_plot.message != a.curve_plot.message
    assert c.curve_plot.data["sigma"] == 1.8


def test_the_language_and_the_layout_are_part_of_a_shared_message() -> None:
    en, ko = LabPage(LabState(), "en"), LabPage(LabState(), "ko")
    assert en.curve_plot.data["title"] != ko.curve_plot.data["title"]
    big = LabPage(LabState(), "en", large=True)
    # the text equivalent is folded on the projector, the figure is the same
    assert big.curve_plot.data["html_text"] != en.curve_plot.data["html_text"]
    assert ({**big.curve_plot.data, "html_text": ""} == {**en.curve_plot.data, "html_text": ""})


def test_a_message_is_strict_json_without_nan() -> None:
    p = page()
    p.state.load_preset("const")

    def refuse(c: str) -> None:
        raise AssertionError(f"{c} in a figure's JSON")

    for name in ("dens_plot", "curve_plot", "sim_plot"):
        json.loads(getattr(p, name).message, parse_constant=refuse)
