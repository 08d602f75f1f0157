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


def test_a_read_only_arrays_picture_is_made_once_and_written_as_json_would() -> None:
    """svgplot.picture: the cached arrays of app/lab/compute.py (read-only) get one picture
    and one JSON text each; svgplot.encode writes that text, the same JSON as before; an
    array that can still change is pictured anew every time."""
    from app.shell import svgplot

    a = np.array([0.1234567, 1e-300, np.nan, -np.inf, 0.0, 2.5e7, 1 / 3])
    fresh = svgplot.picture(a)
    assert type(fresh) is list and fresh == svgplot.pictured(a)
    a.setflags(write=False)
    first = svgplot.picture(a)
    assert isinstance(first, svgplot.Picture) and svgplot.picture(a) is first
    assert first == fresh == [0.1235, 1e-300, None, None, 0.0, 2.5e7, 0.3333]
    assert svgplot.picture(a, 6) is not first and svgplot.picture(a, 6)[-1] == 0.333333
    data = {"lo": 0.5, "y": first, "title": "δ(ε) \"quoted\"", "z": svgplot.picture(a, 6)}
    text = svgplot.encode(data)
    assert json.loads(text) == json.loads(json.dumps(data, allow_nan=False))
    assert text.endswith(',"y":' + first.json + ',"z":' + data["z"].json + "}")
    assert svgplot.encode({"y": first}) == '{"y":' + first.json + "}"
    # a read-only view of an array that can change is not cached
    b = np.array([1.0, 2.0])
    v = b.view()
    v.setflags(write=False)
    assert type(svgplot.picture(v)) is list
    b[0] = 3.0
    assert svgplot.picture(v) == [3.0, 2.0]


def test_an_eps_move_reuses_the_curves_and_the_simulations_pictures() -> None:
    """The curve's δ(ε) and the simulation's bins depend on σ, not ε: after an ε move the
    messages hold the very same pictures (made once), and their JSON is what it would be."""
    p = page()
    curve, sim = p.curve_plot.data, p.sim_plot.data
    p.state.set_text("eps", "2.5")

    from app.lab import messages
    from app.lab.card import unit_label
    from app.shell import svgplot
    from dpcore import queries

    s = p.state
    sens = float(queries.sensitivity(s.query, s.n, s.B))
    unit = unit_label("en", queries.unit_key(s.query))
    c2 = messages.curve(s, sens, "en", False)[0]
    d2 = messages.density(s, sens, unit, "en", False)
    s2 = messages.sim(s, sens, unit, "en", d2.data)
    assert c2.data["span"] == 2.5 and curve["span"] != 2.5
    assert isinstance(c2.data["y"], svgplot.Picture) and c2.data["y"] == curve["y"]
    assert c2.data["y"] is messages.curve(LabState(), sens, "en", False)[0].data["y"]
    for k in ("edges", "h0", "h1"):
        assert isinstance(s2.data[k], svgplot.Picture) and s2.data[k] == sim[k]
    assert json.loads(c2.text) == json.loads(json.dumps(c2.data))
