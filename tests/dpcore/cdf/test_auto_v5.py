"""Method "auto_v5" (auto_plan_v5, issue 40, 2026-12-06; not the default): a weighted two-level
16-ary tree for 300 <= n*eps < 1500, v4's plan elsewhere.

References: tests/reference/auto_v5_reference.json (tests/reference/make_auto_v5_reference.py:
a direct KKT solve of the weighted least squares, exact Laplace scales, the switch table);
property tests for monotonicity, bounds, the certified guarantee and the exact sensitivity.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import dpcore.cdf as cdf
from dpcore.cdf import auto_plan_v4, auto_plan_v5, estimate, tree
from dpcore.cdf.auto_v5 import (
    BAND_BRANCHING_V5,
    BAND_FROM_V5,
    BAND_SHRINK_V5,
    BAND_TOP_SHARE,
    band_noise_scales,
    weighted_consistent,
)
from dpcore.cdf.datasets import sample
from dpcore.errors import DPError

REF = json.loads((Path(__file__).resolve().parents[2] / "reference" / "auto_v5_reference.json")
                 .read_text(encoding="utf-8"))


# --- weighted_consistent ---------------------------------------------------------------------
@pytest.mark.parametrize("case", REF["consistent"], ids=lambda c: f"b{c['b']}")
def test_weighted_consistent_is_the_kkt_solution(case: dict) -> None:
    got = weighted_consistent([np.asarray(y) for y in case["noisy"]], case["b"],
                              case["variances"], case["root"])
    for g, e in zip(got, case["levels"], strict=True):
        np.testing.assert_allclose(g, e, rtol=0, atol=1e-12)


@settings(max_examples=50, deadline=None)
@given(b=st.integers(2, 6), depth=st.integers(1, 3), seed=st.integers(0, 2**31 - 1),
       var=st.floats(1e-6, 10.0))
def test_equal_variances_give_tree_consistent(b: int, depth: int, seed: int, var: float) -> None:
    rng = np.random.default_rng(seed)
    noisy = [rng.normal(1.0 / b**lev, 0.1, b**lev) for lev in range(1, depth + 1)]
    got = weighted_consistent(noisy, b, [var] * depth)
    for g, e in zip(got, tree.consistent(noisy, b), strict=True):
        np.testing.assert_allclose(g, e, rtol=0, atol=1e-12)
    # consistent: every parent is the sum of its children, level 1 sums to the root
    assert got[0].sum() == pytest.approx(1.0, abs=1e-12)
    for par, ch in itertools.pairwise(got):
        np.testing.assert_allclose(ch.reshape(-1, b).sum(axis=1), par, atol=1e-12)


def test_weighted_consistent_rejects_bad_input_with_keys() -> None:
    with pytest.raises(DPError) as e:
        weighted_consistent([np.ones(2)], 2, [1.0, 2.0])
    assert e.value.key == "out_of_range.interval"
    with pytest.raises(DPError) as e:
        weighted_consistent([np.ones(2)], 2, [0.0])
    assert e.value.key == "out_of_range.lo"
    with pytest.raises(DPError):
        weighted_consistent([np.ones(2)], 1, [1.0])


# --- band_noise_scales and the exact sensitivity -----------------------------------------------
@pytest.mark.parametrize("case", REF["scales"], ids=lambda c: f"n{c['n']}")
def test_band_noise_scales_reference(case: dict) -> None:
    top, leaf = band_noise_scales(case["n"], case["eps"])
    assert top == pytest.approx(case["top"], rel=1e-15)
    assert leaf == pytest.approx(case["leaf"], rel=1e-15)


@pytest.mark.parametrize(("n", "eps", "share"), [(1, 1.0, 0.5), (100, 0.0, 0.5),
                                                 (100, 1.0, 0.0), (100, 1.0, 1.0)])
def test_band_noise_scales_domain(n: int, eps: float, share: float) -> None:
    with pytest.raises(ValueError) as e:
        band_noise_scales(n, eps, share)
    assert isinstance(e.value, DPError) and e.value.key


def test_privacy_loss_of_every_replacement_is_at_most_eps_and_attained() -> None:
    """Brute force over every pair of leaves of the centred 256-leaf layout: the loss bound
    sum_l ||level_l(D) - level_l(D')||_1 / scale_l of moving one record is <= eps, = eps."""
    n, eps, b = 500, 1.0, BAND_BRANCHING_V5
    s_top, s_leaf = band_noise_scales(n, eps)
    m = b * b
    used = tree.inner_edges(m, "centred").size + 1  # leaves that can hold data
    i, j = np.meshgrid(np.arange(used), np.arange(used), indexing="ij")
    leaf_change = np.where(i != j, 2.0 / n, 0.0)
    top_change = np.where(i // b != j // b, 2.0 / n, 0.0)
    loss = leaf_change / s_leaf + top_change / s_top
    assert loss.max() == pytest.approx(eps, rel=1e-12)
    assert np.all(loss <= eps * (1 + 1e-12))


# --- auto_plan_v5: the switch table, the domain -----------------------------------------------
@pytest.mark.parametrize("case", REF["plans"], ids=lambda c: f"neps{c['n'] * c['eps']:g}")
def test_plan_switch_points(case: dict) -> None:
    p = auto_plan_v5(case["n"], case["eps"], 1e-6)
    assert (p.method, p.k_max, p.branching) == (case["method"], case["k_max"], case["branching"])


n_st = st.integers(2, 10**7)
eps_st = st.floats(0.01, 20.0)
delta_st = st.sampled_from([1e-5, 1e-6, 1e-9, 1e-12])


@settings(max_examples=200, deadline=None)
@given(n=n_st, eps=eps_st, delta=delta_st)
def test_v5_is_v4_outside_the_band(n: int, eps: float, delta: float) -> None:
    v4, v5 = auto_plan_v4(n, eps, delta), auto_plan_v5(n, eps, delta)
    if BAND_FROM_V5 <= n * eps < cdf.HISTOGRAM_EPS_N:
        assert (v5.method, v5.k_max, v5.branching, v5.noise) == ("tree", 256, 16, "laplace")
        assert v5.shrink == BAND_SHRINK_V5 and v5.layout == "centred"
    else:
        assert v5 == v4


@settings(max_examples=100, deadline=None)
@given(n=n_st, eps=eps_st, size=st.integers(2, 5000))
def test_the_lattice_rule_is_v4s(n: int, eps: float, size: int) -> None:
    assert auto_plan_v5(n, eps, 1e-6, size) == auto_plan_v4(n, eps, 1e-6, size)


@pytest.mark.parametrize(("args", "key"), [((1, 1.0, 1e-6), "out_of_range.whole"),
                                           ((100, -1.0, 1e-6), "out_of_range.lo"),
                                           ((100, 1.0, 0.0), None),
                                           ((100, 1.0, 1e-6, 1), "out_of_range.whole")])
def test_plan_domain(args: tuple, key: str | None) -> None:
    with pytest.raises(ValueError) as e:
        auto_plan_v5(*args)
    assert isinstance(e.value, DPError)
    if key is not None:
        assert e.value.key == key


# --- the estimate ----------------------------------------------------------------------------
def test_registered_not_default_and_the_record() -> None:
    assert "auto_v5" in cdf.ALL_METHODS and "auto_v5" not in cdf.METHODS
    assert cdf.REGISTRY["auto_v5"].rule == "auto_plan_v5"
    assert cdf.REGISTRY["auto"].rule == "auto_plan_v6"  # the default took v5's band over
    x = sample("spikes", 1000, np.random.default_rng(5))
    est = estimate(x, bounds=(0, 1), eps=0.5, delta=1e-6, method="auto_v5", rng=3)
    assert est.method == "auto_v5" and est.eps == 0.5 and est.delta == 0.0
    rel = est.release
    assert rel.mechanism == "laplace" and rel.values.size == 16 + 256
    assert rel.sensitivity / rel.noise_scale == pytest.approx(0.5, rel=1e-12)
    assert rel.extra["top_share"] == BAND_TOP_SHARE
    assert est.info["leaves"] == 256 and est.info["branching"] == 16
    # the same seed, the same release
    again = estimate(x, bounds=(0, 1), eps=0.5, delta=1e-6, method="auto_v5", rng=3)
    np.testing.assert_array_equal(est.grid_f, again.grid_f)


def test_outside_the_band_it_is_the_former_default() -> None:
    x = np.random.default_rng(2).beta(2, 5, 4000)
    for eps in (0.05, 1.0):  # n eps = 200 (v4's histogram) and 4000 (v4's tree)
        a = estimate(x, bounds=(0, 1), eps=eps, delta=1e-6, rng=1, method="auto_v4")
        b = estimate(x, bounds=(0, 1), eps=eps, delta=1e-6, rng=1, method="auto_v5")
        np.testing.assert_array_equal(a.grid_f, b.grid_f)
        assert b.method == "auto_v5"
    xs = np.round(x * 80) / 80
    a = estimate(xs, bounds=(0, 1), eps=0.2, delta=1e-6, rng=1, granularity=1 / 80,
                 method="auto_v4")
    b = estimate(xs, bounds=(0, 1), eps=0.2, delta=1e-6, rng=1, granularity=1 / 80,
                 method="auto_v5")
    np.testing.assert_array_equal(a.grid_f, b.grid_f)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(100, 5000), neps=st.floats(BAND_FROM_V5, 1499.0),
       shape=st.sampled_from(["beta", "spikes", "heavy", "arcsine", "lattice"]),
       seed=st.integers(0, 2**31 - 1), lo=st.floats(-100.0, 100.0), width=st.floats(0.5, 50.0))
@example(n=281, neps=300.0, shape="beta", seed=0, lo=0.0, width=1.0)
def test_estimate_is_a_cdf_on_the_bounds(n: int, neps: float, shape: str, seed: int, lo: float,
                                         width: float) -> None:
    eps = neps / n
    while n * eps < neps:  # (300/281 * 281 is 299.99999999999994: the band's switch point
        eps = math.nextafter(eps, math.inf)  # is n*eps itself, as the plan computes it)
    x = lo + width * sample(shape, n, np.random.default_rng(seed))
    est = estimate(x, bounds=(lo, lo + width), eps=eps, delta=1e-6, method="auto_v5", rng=seed)
    assert est.info["plan"].k_max == 256
    t = np.linspace(lo - 1.0, lo + width + 1.0, 2001)
    f = est(t)
    assert np.all(np.diff(f) >= 0.0)
    assert f.min() >= 0.0 and f.max() <= 1.0
    assert f[0] == 0.0 and f[-1] == 1.0
    assert est(lo + width) == 1.0
    assert est.eps <= eps * (1 + 1e-12) and est.delta == 0.0


def test_spikes_are_resolved_where_the_histogram_is_not() -> None:
    """The band's reason, on one data set (3 noise seeds): three spikes of width 0.002."""
    from dpcore.cdf.metrics import RefGrid, ecdf

    x = sample("spikes", 1000, np.random.default_rng(11))
    ref = RefGrid(ecdf(x), 0.0, 1.0)
    ks5 = [ref.distances(estimate(x, bounds=(0, 1), eps=1.0, delta=1e-6, rng=s,
                                  method="auto_v5")).ks for s in range(3)]
    ks4 = [ref.distances(estimate(x, bounds=(0, 1), eps=1.0, delta=1e-6, rng=s,
                                  method="auto_v4")).ks for s in range(3)]
    assert math.fsum(ks5) < 0.6 * math.fsum(ks4)
