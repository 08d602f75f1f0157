"""Unit tests of the lab state and its pure views (no browser)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.lab import compute as lc
from app.lab.state import DATA_EDIT_MAX, EPS_MAX, PRESETS, SIGMA_MAX, LabState
from app.lab.values import VALUE_NAMES
from app.shell.numbers import fmt_input, parse_number
from dpcore import certify, gaussian, queries


def cert(s: LabState) -> certify.Certification:
    return certify.certify(s.query, s.n, s.B, s.sigma, s.eps, s.delta)


def test_every_parameter_has_doc_and_bounds_where_numeric() -> None:
    for name, p in LabState.param.objects().items():
        if name == "name":
            continue
        assert p.doc, name
        if hasattr(p, "bounds") and type(p).__name__ in ("Number", "Integer"):
            assert p.bounds is not None, name


def test_defaults_are_the_first_guided_example() -> None:
    s = LabState()
    c = cert(s)
    assert (s.query, s.n, s.B, s.sigma, s.eps, s.delta) == ("sum", 4, 1.0, 1.0, 1.0, 0.13)
    assert c.passes and abs(c.required_delta - 0.12693674) < 1e-8


@pytest.mark.parametrize(("key", "passes", "reason"), [
    ("sum_pass", True, "claim_covers"),
    ("sum_fail", False, "claim_too_small"),
    ("mean_small", False, "claim_zero_positive_delta"),
    ("mean_underflow", False, "claim_zero_positive_delta"),
    ("const", True, "zero_sensitivity"),
])
def test_presets_reproduce_the_seed_examples(key: str, passes: bool, reason: str) -> None:
    s = LabState()
    s.load_preset(key)
    c = cert(s)
    assert c.passes is passes and c.reason == reason
    assert len(s.data) == s.n and all(0 <= v <= s.B for v in s.data)
    if key == "mean_underflow":
        assert c.underflow and c.required_delta == 0.0
        assert round(c.log10_delta, 4) == pytest.approx(-2223595.4904, abs=1e-4)
    if key == "mean_small":
        assert c.required_delta == pytest.approx(2.9242721e-6, rel=1e-7)


def test_all_presets_load_and_are_valid() -> None:
    for p in PRESETS:
        s = LabState()
        s.load_preset(p.key)
        assert s.errors == {} and s.query == p.query and s.n == p.n
        cert(s)  # raises on an invalid state


@pytest.mark.parametrize(("control", "text", "key"), [
    ("sigma", "0", "lab.err.sigma"),
    ("sigma", "-1", "lab.err.sigma"),
    ("sigma", "1e300", "lab.err.sigma"),
    ("sigma", "abc", "lab.err.not_number"),
    ("sigma", "nan", "lab.err.not_number"),
    ("eps", "-0.5", "lab.err.eps"),
    ("eps", "1e6", "lab.err.eps"),
    ("eps", "inf", "lab.err.not_number"),
    ("delta", "1.5", "lab.err.delta"),
    ("delta", "-1e-9", "lab.err.delta"),
    ("n", "0", "lab.err.n"),
    ("n", "2.5", "lab.err.n"),
    ("B", "0", "lab.err.B"),
    ("B", "-3", "lab.err.B"),
    ("record", "9", "lab.err.record"),
    ("replacement", "2", "lab.err.value"),
    ("eps_hi", "0", "lab.err.range"),
    ("sim_n", "5", "lab.err.sim_n"),
])
def test_bad_input_keeps_the_last_valid_state(control: str, text: str, key: str) -> None:
    s = LabState()
    before = {k: v for k, v in s.param.values().items() if k not in ("errors", "name")}
    err = s.set_text(control, text)
    assert err is not None and err[0] == key
    assert s.errors[control][0] == key
    after = {k: v for k, v in s.param.values().items() if k not in ("errors", "name")}
    assert after == before
    # a valid value clears the message
    good = {"sigma": "2", "eps": "0.5", "delta": "1e-6", "n": "8", "B": "2", "record": "2",
            "replacement": "1", "eps_hi": "20", "sim_n": "1000"}[control]
    assert s.set_text(control, good) is None
    assert control not in s.errors


def test_h_outside_verified_range_is_rejected() -> None:
    s = LabState()
    assert s.set_text("sigma", "1e-5") is not None  # h = 1e5 > 1e3
    assert s.sigma == 1.0


def test_delta_text_keeps_the_typed_form() -> None:
    s = LabState()
    assert s.set_text("delta", "1e-6") is None
    assert s.delta == 1e-6 and s.delta_text == "1e-6"
    assert s.set_text("delta", "0") is None
    assert s.delta == 0.0 and s.url_query()["delta"] == "0"


def test_changing_n_resizes_the_dataset_and_clamps_the_record() -> None:
    s = LabState()
    s.set_text("record", "4")
    assert s.set_text("n", "2") is None
    assert len(s.data) == 2 and s.record == 2
    assert s.set_text("n", "7") is None
    assert len(s.data) == 7
    assert s.set_text("n", str(DATA_EDIT_MAX + 1)) is None
    assert not s.data_editable
    assert s.set_text("data", "1,0")[0] == "lab.err.data_long"


def test_changing_B_rescales_the_dataset_into_the_new_bound() -> None:
    s = LabState()
    assert s.set_text("B", "10") is None
    assert s.data == [10.0, 0.0, 10.0, 0.0]
    assert s.set_text("B", "0.5") is None
    assert max(s.data) <= 0.5 and s.replacement <= 0.5


def test_dataset_validation() -> None:
    s = LabState()
    assert s.set_text("data", "1, 0.5, 0") == ("lab.err.data_len", {"n": 4, "got": 3})
    assert s.set_text("data", "1, 0.5, 0, 2")[0] == "lab.err.value"
    assert s.set_text("data", "1, x, 0, 2")[0] == "lab.err.data_number"
    assert s.set_text("data", "1 0.5 0 0.25") is None
    assert s.data == [1.0, 0.5, 0.0, 0.25]
    assert queries.value("sum", s.data, s.B) == 1.75


def test_eps_outside_curve_range_extends_it() -> None:
    s = LabState()
    assert s.set_text("eps", "50") is None
    assert s.eps_lo <= 50 <= s.eps_hi <= EPS_MAX


def test_url_round_trip() -> None:
    s = LabState()
    s.load_preset("mean_underflow")
    s.set_text("record", "3")
    s.scale = "linear"
    q = s.url_query()
    assert {k: q[k] for k in ("q", "n", "B", "sigma", "eps", "delta")} == {
        "q": "mean", "n": "32", "B": "1", "sigma": "10", "eps": "10", "delta": "0"}
    t = LabState()
    assert t.apply_url(q) == []
    for k in ("query", "n", "B", "sigma", "eps", "delta", "data", "record", "replacement",
              "eps_lo", "eps_hi", "scale"):
        assert getattr(t, k) == getattr(s, k), k


def test_url_example_from_the_issue() -> None:
    s = LabState()
    assert s.apply_url({"q": "mean", "n": "4", "B": "1", "sigma": "1", "eps": "1",
                        "delta": "1e-6"}) == []
    c = cert(s)
    assert c.sensitivity == 0.25 and not c.passes and c.reason == "claim_too_small"


def test_bad_url_values_fall_back_with_a_notice() -> None:
    s = LabState()
    notices = s.apply_url({"q": "median", "sigma": "-2", "eps": "x", "delta": "2", "n": "4",
                           "scale": "cubic"})
    names = sorted(f["name"] for _, f in notices)
    assert names == ["delta", "eps", "q", "scale", "sigma"]
    assert s.notices == notices and s.errors == {}
    d = LabState()
    assert (s.query, s.sigma, s.eps, s.delta, s.scale) == (
        d.query, d.sigma, d.eps, d.delta, d.scale)


def test_parse_number() -> None:
    assert parse_number(" 1e-6 ") == 1e-6
    assert parse_number("0,5") == 0.5
    assert parse_number("\u22121") == -1.0
    for bad in ("", "abc", "nan", "inf", "-inf", "1e400"):
        with pytest.raises(ValueError):
            parse_number(bad)


def test_fmt_input_round_trips() -> None:
    for x in (1.0, 0.25, 1e-6, 0.1, 123456.789, 3.0, SIGMA_MAX, 2.5e-300):
        assert parse_number(fmt_input(x)) == x
    assert fmt_input(1.0) == "1" and fmt_input(10.0) == "10"


# ---- pure views -------------------------------------------------------------------------
def test_density_view_shades_exactly_the_worst_event() -> None:
    dv = lc.density_view(1.0, 1.0, 1.0)
    assert dv.t == pytest.approx(-0.5)
    assert dv.t_outside is None
    xe, pe, qe = dv.event
    assert xe.max() == pytest.approx(-0.5) and (xe <= dv.t).all() and len(pe) == len(qe) == len(xe)
    assert dv.p0 - dv.p1_scaled == pytest.approx(0.12693674, abs=1e-8)


def test_density_view_flags_boundary_outside_window() -> None:
    dv = lc.density_view(1 / 32, 10.0, 10.0)
    assert dv.t_outside == "left" and dv.t < dv.lo and dv.event[0].size == 0
    assert math.isfinite(dv.log_p0)


def test_density_view_zero_sensitivity_curves_coincide() -> None:
    dv = lc.density_view(0.0, 1.0, 1.0)
    assert np.array_equal(dv.p, dv.q) and dv.event[0].size == 0 and dv.t == -math.inf


def test_curve_view_log_scale_goes_below_underflow() -> None:
    cv = lc.curve_view(1 / 32, 10.0, 10.0, 0.0, 0.0, 10.0, "log10")
    assert np.isfinite(cv.y).all()
    assert cv.y[-1] == pytest.approx(-2223595.4904, abs=1e-3)
    assert math.isnan(cv.claimed_y)  # claimed 0: no line on the log scale
    lin = lc.curve_view(1 / 32, 10.0, 10.0, 0.0, 0.0, 10.0, "linear")
    assert lin.y[-1] == 0.0 and lin.claimed_y == 0.0


def test_curve_view_matches_dpcore_and_overlays() -> None:
    cv = lc.curve_view(1.0, 1.0, 1.0, 0.13, 0.0, 4.0, "linear", points=9)
    expect = np.asarray(gaussian.delta(np.linspace(0, 4, 9), 1.0, 1.0))
    np.testing.assert_allclose(cv.y, expect, rtol=1e-14)
    assert cv.current_y == pytest.approx(0.12693674, abs=1e-8)
    # Laplace at equal MSE: b = 1/sqrt 2, eps0 = sqrt 2; delta_Lap(0) = 1 - e^{-eps0/2}
    assert cv.laplace[0] == pytest.approx(1 - math.exp(-math.sqrt(2) / 2), rel=1e-12)
    # classic bound drawn only inside its proof (eps < 1) on the solid part
    assert np.isnan(cv.classic_in[cv.eps >= 1]).all()
    assert np.isnan(cv.classic_out[cv.eps < 1]).all()


def test_curve_view_zero_sensitivity() -> None:
    cv = lc.curve_view(0.0, 1.0, 1.0, 0.0, 0.0, 10.0, "log10")
    assert cv.all_zero and np.isnan(cv.y).all()


def test_wilson_interval() -> None:
    lo, hi = lc.wilson(0, 100)
    assert lo == 0.0 and 0.03 < hi < 0.04
    lo, hi = lc.wilson(50, 100)
    assert lo < 0.5 < hi and hi - lo == pytest.approx(0.19, abs=0.01)


def test_simulation_frequencies_bracket_the_exact_probabilities() -> None:
    sv = lc.simulation(1.0, 1.0, 1.0, 20000, 7, -4.0, 5.0)
    assert sv.ci0[0] <= sv.p0 <= sv.ci0[1]
    assert sv.ci1[0] <= sv.p1 <= sv.ci1[1]
    assert sv.p0 == pytest.approx(0.30853754, abs=1e-8)
    width = sv.edges[1] - sv.edges[0]
    assert sv.hist0.sum() * width <= 1.0 + 1e-12
    # reproducible for a fixed seed
    assert lc.simulation(1.0, 1.0, 1.0, 20000, 7, -4.0, 5.0).k0 == sv.k0


def test_an_empty_field_asks_for_a_value_and_1e999_is_too_large() -> None:
    """Issue 17 §15: "" asks for a value; 1e999 is a number, too large (not "not a number")."""
    s = LabState()
    sigma = s.sigma
    assert s.set_text("sigma", "  ") == ("lab.err.empty", {})
    assert s.set_text("sigma", "1e999") == ("lab.err.too_large", {"text": "1e999"})
    assert s.set_text("sigma", "abc") == ("lab.err.not_number", {"text": "abc"})
    assert s.sigma == sigma


def test_values_name_every_parameter_and_follow_every_change() -> None:
    """``LabState.values`` (what the views read, app/lab/state.py LabValues) has one field per
    parameter, is made once per change, and is made anew after any way of setting one:
    an attribute, ``param.update``, a batch of watchers, a preset, an address."""
    import param

    s = LabState()
    assert set(VALUE_NAMES) == set(s.param) - {"name"}
    v = s.values()
    assert s.values() is v  # nothing changed: the same values
    s.sigma = 2.5
    assert s.values() is not v and s.values().sigma == 2.5
    s.param.update(eps=3.0, eps_lo=0.5)
    assert (s.values().eps, s.values().eps_lo) == (3.0, 0.5)
    with param.parameterized.batch_call_watchers(s):
        s.delta_text = "0.2"
        assert s.values().delta_text == "0.2"  # inside the batch too
        s.delta = 0.2
    s.load_preset("mean_underflow")
    assert (s.values().query, s.values().n, s.values().sigma) == ("mean", 32, 10.0)
    s.apply_url({"sigma": "3", "q": "count"})
    w = s.values()
    assert (w.query, w.sigma, w.certification()) == ("count", 3.0, s.certification())
    assert w.url_query() == s.url_query() and w.url_query()["sigma"] == "3"
