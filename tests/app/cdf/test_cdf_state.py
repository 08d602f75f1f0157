"""State of the /cdf page without a browser: releases, free degree, ledger, URL, views.

Expected numbers are recomputed here with dpcore directly (same data, same seeds), never typed in.
"""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest

from app.cdf import views, views_auto, views_degree
from app.cdf.inputs import METHODS
from app.cdf.page import CDFState, metrics_html, privacy_html, table_html
from app.cdf.state import RefGrid, ecdf_sorted, integral_sq_ecdf
from app.shell.i18n import LANGUAGES, t
from app.shell.numbers import fmt_input as fmt_url
from dpcore import accounting, gaussian
from dpcore.cdf import estimate, legendre
from dpcore.cdf.datasets import load_real, population_cdf, sample
from dpcore.cdf.metrics import distances, ecdf


def _x(family: str = "bimodal", n: int = 10_000, seed: int = 1) -> np.ndarray:
    return sample(family, n, np.random.default_rng([seed, 11]))


def _est(x: np.ndarray, method: str, seed: int = 1, bounds=(0.0, 1.0), eps=1.0, delta=1e-6):
    opts = {"degree": "auto"} if method == "pp" else {}
    return estimate(x, bounds=bounds, eps=eps, delta=delta, method=method,
                    rng=np.random.default_rng([seed, 12]), **opts)


def test_every_parameter_has_doc_and_bounds_or_objects() -> None:
    s = CDFState()
    for name, p in s.param.objects().items():
        if name == "name":
            continue
        assert p.doc, name
        assert (getattr(p, "bounds", None) is not None or getattr(p, "objects", None)
                or isinstance(p.default, (bool, str))), name


def test_page_opens_on_a_pp_release_with_the_slider_live() -> None:
    s = CDFState()
    assert s.method == "pp" and s.auto_degree
    info = s.degree_info()
    ref = _est(_x(), "pp")
    assert info.available and info.k_max == 64
    assert info.in_use == info.auto_k == ref.degree  # the slider shows the degree in use
    np.testing.assert_array_equal(s.current().grid_f, ref.grid_f)


def test_degree_change_is_free_curve_changes_guarantee_and_ledger_do_not() -> None:
    s = CDFState(n=2000)
    first = s.current()
    eps0, delta0 = first.eps, first.delta
    led0 = s.ledger()
    curves = []
    for k in (0, 3, 10, 40, 64):
        s.set_input("degree", k)
        cur = s.current()
        assert cur.degree == k and s.degree_info().in_use == k
        assert cur.release is first.release  # the same noisy coefficients
        assert (cur.eps, cur.delta) == (eps0, delta0)
        curves.append(cur.grid_f.copy())
    assert all(not np.array_equal(a, b) for a, b in itertools.pairwise(curves))
    assert s.ledger() == led0 and s.ledger().releases == 1
    # the automatic toggle moves the handle back to the automatic choice
    s.set_input("degree", "auto")
    assert s.auto_degree and s.degree_info().in_use == first.degree


def test_new_release_same_key_and_new_noise() -> None:
    s = CDFState(n=2000)
    s.current()
    s.eps = 0.5
    s.current()
    assert s.ledger().releases == 2
    s.eps = 1.0  # the same inputs and seeds reproduce the first output: nothing new revealed
    s.current()
    assert s.ledger().releases == 2
    s.new_noise()
    s.current()
    assert s.ledger().releases == 3 and s.noise_seed == 2


def test_overlapping_n_is_one_source_and_gaussians_compose_exactly() -> None:
    # issue 9: uniform at n = 10,000 is the first 10,000 records of n = 10,100
    assert np.array_equal(_x("uniform", 10_100)[:10_000], _x("uniform", 10_000))
    s = CDFState(dataset="uniform")
    for n in (10_000, 10_100, 10_200):
        s.n = n
        s.current()
    led = s.ledger()
    assert led.releases == 3 and led.rule == "gdp"
    mus = [accounting.gaussian_mu(1 / n, gaussian.calibrate_sigma(1.0, 1e-6, 1 / n))
           for n in (10_000, 10_100, 10_200)]
    expected = accounting.gdp_epsilon(1e-6, accounting.gdp_compose(mus))
    assert led.total.eps == pytest.approx(expected, rel=1e-12)
    assert led.total.delta == 1e-6
    assert led.composition.basic_eps == pytest.approx(3.0)
    html = privacy_html(s, "en")
    assert f'<span class="dp-cdf-total-eps">{views.g(expected, 6)}</span>' in html
    assert "Total of all 3 releases" in html


def test_new_class_data_is_a_fresh_source_and_a_fresh_ledger() -> None:
    s = CDFState(n=1000)
    s.current()
    s.new_noise()
    s.current()
    old = s.ledger()
    s.new_class_data()
    assert s.data_seed == 2
    s.current()
    assert s.ledger().releases == 1 and s.ledger().source != old.source
    assert s.ledger(old.source).releases == 2  # the old ledger is kept
    assert len(s.sources()) == 2


def test_real_data_auto_histogram_explains_and_pp_view_is_a_new_release() -> None:
    # ANES ages at eps = 0.1: n eps = 94.4 < 300, the default's histogram with Chebyshev edges
    # (at eps = 1, n eps = 944, it is the two-level tree: test_real_data_auto_band_tree...)
    s = CDFState(dataset="anes96_age", method="auto", eps=0.1)
    plan = s.auto_plan()
    assert plan is not None and plan.method == "hq" and plan.layout == "chebyshev"
    info = s.degree_info()
    assert not info.available and info.reason == "histogram"
    text = views_auto.auto_choice_html(s, "en")
    assert "94.4" in text and "is below 300" in text and f"{plan.k_max} bars" in text
    b = s.current().release.noise_scale
    assert f"b = {views.g(b, 3)}" in text and "dp-cdf-auto-hist" in text
    # the end bars and the middle ones, in years (the data's unit)
    edges = s.current().release.extra["edges"]
    w = np.diff(edges) * (100 - 18)
    assert f"each end bar is {views.g(float(w.min()), 3)} years wide" in text
    assert f"up to {views.g(float(w.max()), 3)} years" in text
    assert "Not available" in views_degree.degree_side_html(s, info, "en")
    assert s.ledger().releases == 1 and s.ledger().total.delta == 0.0
    s.set_input("method", "pp")
    assert s.degree_info().available
    led = s.ledger()
    assert led.releases == 2 and led.rule == "mixed"
    real = load_real("anes96_age")
    ref = _est(np.asarray(real.values), "pp", bounds=real.bounds, eps=0.1)
    np.testing.assert_array_equal(s.current().grid_f, ref.grid_f)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_real_data_auto_band_tree_explains_its_two_levels(lang: str) -> None:
    # ANES ages at eps = 1: n eps = 944, the two-level 16-ary tree (pure eps-DP)
    s = CDFState(dataset="anes96_age", method="auto")
    plan = s.auto_plan()
    assert plan is not None and plan.method == "tree" and plan.branching == 16
    info = s.degree_info()
    assert not info.available and info.reason == "tree"
    text = views_auto.auto_choice_html(s, lang)
    assert "944" in text and "300 ≤ n·ε &lt; 1,500" in text and "dp-cdf-auto-band" in text
    assert s.ledger().releases == 1 and s.ledger().total.delta == 0.0


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_auto_tree_says_what_it_released_and_the_slider_is_not_available(lang: str) -> None:
    s = CDFState(method="auto")  # bimodal, n = 10,000, eps = 1: n eps = 10^4 -> 9-ary, depth 3
    est = s.current()
    plan = s.auto_plan()
    assert plan is not None and plan.method == "tree"
    assert est.release.values.size == 9 + 81 + 729
    np.testing.assert_array_equal(est.grid_f, _est(_x(), "auto").grid_f)  # dpcore's release
    info = s.degree_info()
    assert not info.available and info.reason == "tree"
    text = views_auto.auto_choice_html(s, lang)
    sd = views.g(float(est.release.extra["node_sd"]), 3)
    assert "dp-cdf-auto-tree" in text and sd in text and "819" in text and "729" in text
    assert "10,000" in text and "1,500 ≤ n·ε &lt; 15,000" in text
    assert t("cdf.auto.mid_note", lang, b=9, b8=8, leaves="729", cells="640", depth=3) in text
    shape = s.release_shape()
    assert shape is not None and (shape.branching, shape.depth, shape.leaves) == (9, 3, 729)
    card = privacy_html(s, lang)
    assert views.shape_text(shape, lang) in card
    side = views_degree.degree_side_html(s, info, lang)
    assert "dp-cdf-degree-na" in side and t("cdf.degree.side_tree", lang) in side
    # moving the (disabled) degree does nothing to the release or the ledger
    s.set_input("degree", 5)
    assert s.current() is est and s.ledger().releases == 1


def test_release_shape_of_every_method_is_public_structure() -> None:
    s = CDFState(n=2000)
    pp_shape = s.shape_of(s.release("pp"))
    assert pp_shape.kind == "pp" and pp_shape.k_max == 64 and pp_shape.degree is not None
    mp_est = s.release("mp")
    mp_shape = s.shape_of(mp_est)
    assert mp_shape.kind == "mp" and mp_shape.atoms == tuple(mp_est.info["chosen"])
    assert views.shape_text(mp_shape, "en").startswith(f"{len(mp_shape.atoms)} of the")
    assert views._atoms_text(("legendre[0]", "legendre[1]", "legendre[2]", "bspline8[3]",
                              "bspline8[5]")) == "legendre 0–2; bspline8 3, 5"
    hq_shape = s.shape_of(s.release("hq"))
    assert hq_shape.kind == "hq" and hq_shape.bins == 32
    assert s.shape_of(s.release("aq")).quantiles == 31


def test_all_methods_each_its_own_release_numbers_equal_dpcore() -> None:
    s = CDFState(n=3000, method="all")
    rows = s.compare()
    assert [r.method for r in rows] == list(METHODS)
    x = _x(n=3000)
    pop = population_cdf("bimodal")
    for r in rows:
        ref = _est(x, r.method)
        np.testing.assert_array_equal(r.est.grid_f, ref.grid_f)
        d = distances(ref, pop, 0.0, 1.0)
        assert (r.metrics.ks, r.metrics.w1, r.metrics.energy) == (d.ks, d.w1, d.energy)
        assert r.seconds > 0
    assert s.ledger().releases == 5
    # switching to one method reuses that method's release (same key): no new release
    s.set_input("method", "hq")
    s.current()
    assert s.ledger().releases == 5
    html = views.compare_html(s, rows, "en")
    assert html.count("<tr>") == 1 + 5


def test_refgrid_equals_dpcore_distances_exactly() -> None:
    x = np.asarray(load_real("penguins_mass").values)
    ref = ecdf(np.clip(x, 2000, 7000))
    est = _est(x, "pp", bounds=(2000, 7000))
    a = RefGrid(ecdf_sorted(np.clip(x, 2000, 7000)), 2000.0, 7000.0).distances(est)
    assert a == distances(est, ref, 2000.0, 7000.0)
    b = RefGrid(population_cdf("beta"), 0.0, 1.0).distances(est.with_degree(3))
    assert b == distances(est.with_degree(3), population_cdf("beta"), 0.0, 1.0)


def test_degree_errors_split_and_realised_error_by_quadrature() -> None:
    s = CDFState(n=500, eps=2.0)
    errs = s.degree_errors()
    rel = s.current().release
    sd2 = np.asarray(rel.extra["noise_sd"]) ** 2
    np.testing.assert_allclose(errs.noise, np.cumsum(sd2), rtol=1e-15)
    y = rel.values
    np.testing.assert_allclose(errs.trunc_est[10], np.sum(y[11:] ** 2 - sd2[11:]), rtol=1e-12)
    assert errs.trunc_est[-1] == 0.0
    np.testing.assert_allclose(errs.expected, np.maximum(errs.trunc_est, 0) + errs.noise)
    assert errs.best_expected == int(np.argmin(errs.expected))
    # realised: int_0^1 (sum_{k<=K} y_k p_k(t) - F_n(t))^2 dt by a fine midpoint rule
    t = np.clip(_x(n=500), 0, 1)
    grid = (np.arange(200_000) + 0.5) / 200_000
    f_n = ecdf(t)(grid)
    basis = legendre.basis(grid, 8)
    for k in (0, 3, 8):
        direct = np.mean((basis[:, : k + 1] @ y[: k + 1] - f_n) ** 2)
        assert errs.realised[k] == pytest.approx(direct, rel=2e-3)
    assert integral_sq_ecdf(t) == pytest.approx(np.mean(f_n**2), rel=1e-4)


def test_stream_pp_pays_once_aq_pays_every_run() -> None:
    s = CDFState(n=4000, stream_parts=4)
    s.current()
    for k in (1, 2, 3, 4):
        s.set_input("stream_steps", k)
        steps = s.stream()
        assert len(steps) == k and steps[-1].seen == 1000 * k
        assert steps[-1].pp_cost.eps == pytest.approx(1.0, rel=1e-9)  # parallel composition
        assert steps[-1].aq_cost.eps == pytest.approx(float(k))  # k re-runs on record 1
    assert s.set_input("stream_steps", 5) is None and s.stream_steps == 4  # capped at parts
    led = s.ledger()
    # main PP release + 4 PP batch releases + 4 AQ runs, but the first batch's records are in
    # the main release, one PP batch release and all 4 AQ runs: 6 releases touch them.
    assert led.releases == 9 and led.exposed == 6
    mu = [accounting.gaussian_mu(1 / n, gaussian.calibrate_sigma(1.0, 1e-6, 1 / n))
          for n in (4000, 1000)]
    assert led.total.eps == pytest.approx(
        4.0 + accounting.gdp_epsilon(1e-6, math.hypot(*mu)), rel=1e-12)
    html = views.stream_html(s, s.stream(), "en")
    assert html.count("<tr>") == 2 + 4


def test_stream_too_small_is_a_message_not_an_error() -> None:
    s = CDFState(n=10, stream_parts=20, stream_steps=1)
    assert s.stream_problem() is not None and s.stream() == []


def test_url_round_trip_reproduces_the_page() -> None:
    s = CDFState()
    for name, v in (("data", "beta"), ("n", "3210"), ("eps", "0.37"), ("delta", "2e-7"),
                    ("method", "pp"), ("degree", "7"), ("seed", "42")):
        attr = {"data": "dataset", "seed": "noise_seed"}.get(name, name)
        assert s.set_input(attr, v) is None
    q = s.url_query()
    for fixed in ("data", "n", "eps", "delta", "method", "degree", "seed"):
        assert fixed in q
    assert q["eps"] == "0.37" and q["delta"] == "2e-07" and q["degree"] == "7"
    t = CDFState()
    assert t.apply_url(q) == []
    assert t.url_query() == q
    np.testing.assert_array_equal(t.current().grid_f, s.current().grid_f)
    assert t.metrics() == s.metrics()
    assert metrics_html(t, "ko") == metrics_html(s, "ko")


def test_url_bad_values_keep_defaults_with_notices() -> None:
    s = CDFState()
    notices = s.apply_url({"data": "nope", "n": "-5", "eps": "abc", "delta": "2",
                           "method": "xx", "degree": "1.5", "seed": "", "data_x": "1"})
    assert {f["name"] for _, f in notices} == {"data", "n", "eps", "delta", "method", "degree",
                                               "seed"}
    assert s.url_query() == CDFState().url_query()
    assert s.apply_url({"data": "upload"}) == [("cdf.url.upload", {})]
    assert s.apply_url({"degree": "auto", "method": "all", "teacher": "1"}) == []
    assert s.auto_degree and s.method == "all" and s.teacher


def test_fmt_url_round_trips() -> None:
    for x in (1.0, 0.1, 1e-6, 2.5e-7, 0.37, 1 / 3, 19.99):
        assert float(fmt_url(x)) == x
    assert fmt_url(1.0) == "1" and fmt_url(1e-6) == "1e-06"


def test_teacher_view_shows_clip_counts_only_when_on() -> None:
    s = CDFState(dataset="penguins_mass", method="hq")
    rel = s.current().release
    hidden = privacy_html(s, "en")
    assert "dp-cdf-clip-hidden" in hidden and "dp-cdf-teacher-box" not in hidden
    s.teacher = True
    shown = privacy_html(s, "en")
    assert "dp-cdf-teacher-box" in shown and "not (ε, δ)-differentially private" in shown
    assert f"Clipped below the bounds: {rel.n_below}; above: {rel.n_above}" in shown


@pytest.mark.parametrize("lang", LANGUAGES)
def test_text_views_show_numbers_with_units_and_the_shown_numbers_are_dpcores(lang: str) -> None:
    s = CDFState(dataset="anes96_age")
    m = metrics_html(s, lang)
    real = load_real("anes96_age")
    x = np.asarray(real.values)
    d = distances(_est(x, "pp", bounds=real.bounds), ecdf(np.clip(x, 18, 100)), 18.0, 100.0)
    assert f'<span class="dp-cdf-ks">{views.g(d.ks)}</span>' in m
    assert f'<span class="dp-cdf-w1">{views.g(d.w1)}</span>' in m
    unit = {"en": "years", "ko": "세"}[lang]
    assert unit in m
    p = privacy_html(s, lang)
    assert "dp-cdf-total-eps" in p and "dp-cdf-eps" in p
    side = views_degree.degree_side_html(s, s.degree_info(), lang)
    assert f'<span class="dp-cdf-degree">{s.degree_info().in_use}</span>' in side
    tab = table_html(s, lang)
    assert tab.count("<tr>") == 6 and f"x ({unit})" in tab
    assert {"en": "NOT private", "ko": "보호되지 않음"}[lang] in tab
    # every view renders in both languages (a missing key would raise)
    s.method = "all"
    rows = s.compare()
    views.table_html(s, lang, rows)
    views.compare_html(s, rows, lang)
    views.sources_html(s, lang)
    views_degree.degree_table_html(s.degree_errors(), s.degree_info(), lang)
    views.data_note_html(s, lang)


def test_english_plurals() -> None:
    s = CDFState(n=1000)
    s.current()
    one = privacy_html(s, "en")
    assert "Total of the 1 release on" in one
    s.new_noise()
    s.current()
    assert "Total of all 2 releases on" in privacy_html(s, "en")
    # Korean keeps one form; no English left in the Korean card
    ko = privacy_html(s, "ko")
    assert not re.search(r"\b(release|releases|Total)\b", ko)


def test_inputs_are_validated_and_state_stays_valid() -> None:
    s = CDFState()
    before = s.url_query()
    for name, raw in (("n", "abc"), ("n", "5"), ("n", "2e6"), ("eps", "0"), ("eps", "nan"),
                      ("delta", "0.5"), ("delta", "-1"), ("noise_seed", "-1"),
                      ("degree", "300"), ("method", "best"), ("dataset", "x"),
                      ("stream_parts", "1"), ("nonsense", 1), ("eps", True)):
        assert s.set_input(name, raw) is not None, (name, raw)
    assert s.url_query() == before
    assert s.set_input("eps", " 2.5 ") is None and s.eps == 2.5
    assert s.set_input("delta", "1e-30") is None and s.delta == 1e-30


def test_an_empty_field_asks_for_a_value_and_1e999_is_too_large() -> None:
    """Issue 17 §15: the same wording as /lab; the last valid value stays."""
    s = CDFState()
    assert s.set_input("eps", "") == ("cdf.err.empty", {"name": "eps"})
    assert s.set_input("n", " ") == ("cdf.err.empty", {"name": "n"})
    key, fmt = s.set_input("eps", "1e999")  # type: ignore[misc]
    assert key == "cdf.err.too_large" and (fmt["lo"], fmt["hi"]) == ("0.01", "20")
    assert s.eps == 1.0 and s.n == 10000
    text = views.error_html(s.set_input("delta", "abc"), "en")  # type: ignore[arg-type]
    assert "The last valid value is still in use" in text
