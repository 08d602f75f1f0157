"""Method "auto_v6" (auto_plan_v6, issue 40, 2026-12-06): a Chebyshev-edged histogram below
n*eps = 300, a 9-ary depth-3 tree for 1500 <= n*eps < 15000, v5's plan elsewhere.

References restated here, independent of dpcore: the Chebyshev edges from their formula in
exact-enough mpmath-free float arithmetic (cos of k pi / m), the Laplace scale 2 / (n eps) as a
fraction, the switch table; brute force over every pair of cells (and over values at, just
below and just above every edge) for the sensitivity; property tests for the estimate.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpcore.cdf as cdf
from dpcore.cdf import auto_plan_v4, auto_plan_v5, auto_plan_v6, estimate, tree
from dpcore.cdf.auto_v6 import (
    LOW_BAND_V6,
    LOW_WARP_V6,
    MID_BRANCHING_V6,
    low_band_scale,
    warped_cell_index,
    warped_edges,
)
from dpcore.cdf.datasets import sample
from dpcore.cdf.hist import auto_bins
from dpcore.cdf.metrics import RefGrid, ecdf
from dpcore.errors import DPError


# --- warped_edges and the cells ----------------------------------------------------------------
@pytest.mark.parametrize("m", [1, 2, 4, 7, 10, 16])
def test_warped_edges_formula(m: int) -> None:
    k = np.arange(m + 1)
    np.testing.assert_allclose(warped_edges(m, 0.0), k / m, rtol=0, atol=1e-15)
    cheb = [(1 - math.cos(math.pi * j / m)) / 2 for j in range(m + 1)]
    np.testing.assert_allclose(warped_edges(m, 1.0), cheb, rtol=0, atol=1e-15)
    a = LOW_WARP_V6
    mix = [(1 - a) * j / m + a * c for j, c in zip(range(m + 1), cheb, strict=True)]
    e = warped_edges(m)
    np.testing.assert_allclose(e, mix, rtol=0, atol=1e-15)
    assert e[0] == 0.0 and e[-1] == 1.0
    assert np.all(np.diff(e) > 0.0)
    np.testing.assert_allclose(e, 1.0 - e[::-1], rtol=0, atol=1e-15)  # symmetric


def test_warped_edges_at_n_eps_100() -> None:
    """The heavy shape's cell: 7 cells at n eps = 100, the first ~0.059 wide (v4: 1/7)."""
    e = warped_edges(7, 0.9)
    assert auto_bins(1000, 0.1) == 7
    assert e[1] == pytest.approx(0.1 * 1 / 7 + 0.9 * (1 - math.cos(math.pi / 7)) / 2, abs=1e-15)
    assert 0.055 < e[1] < 0.06


@pytest.mark.parametrize(("m", "warp", "key"), [(0, 0.5, "out_of_range.whole"),
                                                (3, -0.1, "out_of_range.interval"),
                                                (3, 1.5, "out_of_range.interval"),
                                                (3, float("nan"), None)])
def test_warped_edges_domain(m: int, warp: float, key: str | None) -> None:
    with pytest.raises(ValueError) as e:
        warped_edges(m, warp)
    assert isinstance(e.value, DPError)
    if key is not None:
        assert e.value.key == key


def test_every_value_has_one_cell_and_a_replacement_moves_two_counts() -> None:
    """Brute force: values at, just below and just above every edge (and the bounds); each
    lands in one cell 0..m-1 that contains it; replacing one record by another changes the
    frequency vector by 0 or exactly 2/n in L1, so the loss with scale 2/(n eps) is <= eps,
    attained (the two end cells)."""
    for m in (4, 7, 10):
        e = warped_edges(m)
        pts = np.unique(np.clip(np.concatenate([e, np.nextafter(e, -1.0), np.nextafter(e, 2.0),
                                                np.linspace(0, 1, 101)]), 0.0, 1.0))
        idx = warped_cell_index(pts, e)
        assert idx.min() == 0 and idx.max() == m - 1
        assert np.all((e[idx] <= pts) & ((pts < e[idx + 1]) | ((idx == m - 1) & (pts <= 1.0))))
        n, eps = 50, 2.0
        base = np.bincount(warped_cell_index(np.linspace(0.01, 0.99, n - 1), e), minlength=m)
        scale = low_band_scale(n, eps)
        losses = []
        for i in idx:
            for j in idx:
                a = base.copy()
                b = base.copy()
                a[i] += 1
                b[j] += 1
                losses.append(np.abs(a - b).sum() / n / scale)
        assert max(losses) == pytest.approx(eps, rel=1e-12)
        assert all(x <= eps * (1 + 1e-12) for x in losses)


@pytest.mark.parametrize(("n", "eps"), [(1000, 0.1), (342, 0.5), (944, 0.25), (2, 1e-3)])
def test_low_band_scale_is_exact(n: int, eps: float) -> None:
    assert low_band_scale(n, eps) == float(Fraction(2) / (n * Fraction(eps)))


@pytest.mark.parametrize(("n", "eps"), [(1, 1.0), (100, 0.0), (100, -1.0), (2.5, 1.0)])
def test_low_band_scale_domain(n: float, eps: float) -> None:
    with pytest.raises(ValueError) as e:
        low_band_scale(n, eps)  # type: ignore[arg-type]
    assert isinstance(e.value, DPError) and e.value.key


# --- auto_plan_v6: the switch table, the domain --------------------------------------------
@pytest.mark.parametrize(("neps", "method", "k_max", "branching", "layout"), [
    (100.0, "hq", 7, 8, "chebyshev"), (299.0, "hq", 10, 8, "chebyshev"),
    (300.0, "tree", 256, 16, "centred"), (1499.0, "tree", 256, 16, "centred"),
    (1500.0, "tree", 729, 9, "centred"), (14999.0, "tree", 729, 9, "centred"),
    (15000.0, "tree", 4096, 8, "centred")])
def test_plan_switch_points(neps: float, method: str, k_max: int, branching: int,
                            layout: str) -> None:
    n = 1000 if neps < 15000 else 10000
    p = auto_plan_v6(n, neps / n, 1e-6)
    assert (p.method, p.k_max, p.branching, p.layout) == (method, k_max, branching, layout)


n_st = st.integers(2, 10**7)
eps_st = st.floats(0.01, 20.0)
delta_st = st.sampled_from([1e-5, 1e-6, 1e-9, 1e-12])


@settings(max_examples=200, deadline=None)
@given(n=n_st, eps=eps_st, delta=delta_st)
def test_v6_against_v5_and_v4(n: int, eps: float, delta: float) -> None:
    v4, v5, v6 = (auto_plan_v4(n, eps, delta), auto_plan_v5(n, eps, delta),
                  auto_plan_v6(n, eps, delta))
    ne = n * eps
    if ne < LOW_BAND_V6:
        assert (v6.method, v6.k_max, v6.noise, v6.layout) == ("hq", auto_bins(n, eps),
                                                              "laplace", "chebyshev")
        assert v6.noise_sd == pytest.approx(math.sqrt(2) * 2 / ne, rel=1e-12)
    elif ne < cdf.HISTOGRAM_EPS_N:
        assert v6 == v5
    elif ne < 15000.0:
        tp = tree.plan_tree(n, eps, delta, leaves=MID_BRANCHING_V6**3, branching=MID_BRANCHING_V6)
        assert (v6.method, v6.k_max, v6.branching, v6.noise) == ("tree", 729, 9, tp.noise)
        assert v6.noise_sd == tp.node_sd and v6.shrink == cdf.TREE_SHRINK
        # the same depth, so the same node noise, as v4's 8-ary depth-3 tree
        assert (tp.depth, tp.noise, tp.node_sd) == (3, v4.noise, v4.noise_sd)
    else:
        assert v6 == v4


@settings(max_examples=100, deadline=None)
@given(n=n_st, eps=eps_st, size=st.integers(2, 5000))
def test_the_lattice_rule_is_v4s(n: int, eps: float, size: int) -> None:
    assert auto_plan_v6(n, eps, 1e-6, size) == auto_plan_v4(n, eps, 1e-6, size)


@pytest.mark.parametrize(("args", "key"), [((1, 1.0, 1e-6), "out_of_range.whole"),
                                           ((100, -1.0, 1e-6), "out_of_range.lo"),
                                           ((100, 1.0, 0.0), None),
                                           ((100, 1.0, 1e-6, 1), "out_of_range.whole")])
def test_plan_domain(args: tuple, key: str | None) -> None:
    with pytest.raises(ValueError) as e:
        auto_plan_v6(*args)
    assert isinstance(e.value, DPError)
    if key is not None:
        assert e.value.key == key


# --- the estimate --------------------------------------------------------------------------
def test_registered_and_the_low_band_record() -> None:
    assert "auto_v6" in cdf.ALL_METHODS
    assert cdf.REGISTRY["auto_v6"].rule == "auto_plan_v6"
    x = sample("heavy", 1000, np.random.default_rng(5))
    est = estimate(x, bounds=(0, 1), eps=0.1, delta=1e-6, method="auto_v6", rng=3)
    assert est.method == "auto_v6" and est.eps == 0.1 and est.delta == 0.0
    rel = est.release
    assert rel.mechanism == "laplace" and rel.values.size == 7 and rel.norm == "L1"
    assert rel.sensitivity == 2.0 / 1000 and rel.noise_scale == low_band_scale(1000, 0.1)
    assert rel.sensitivity / rel.noise_scale == pytest.approx(0.1, rel=1e-12)
    np.testing.assert_array_equal(rel.extra["edges"], warped_edges(7))
    assert est.info["plan"].layout == "chebyshev"
    again = estimate(x, bounds=(0, 1), eps=0.1, delta=1e-6, method="auto_v6", rng=3)
    np.testing.assert_array_equal(est.grid_f, again.grid_f)


def test_the_mid_band_tree_record() -> None:
    x = np.random.default_rng(2).beta(2, 5, 1000)
    est = estimate(x, bounds=(0, 1), eps=8.0, delta=1e-6, method="auto_v6", rng=1)
    assert est.method == "auto_v6"
    assert (est.info["leaves"], est.info["branching"], est.info["depth"]) == (729, 9, 3)
    rel = est.release
    if rel.mechanism == "laplace":
        assert est.delta == 0.0 and rel.sensitivity == 6.0 / 1000
        assert rel.sensitivity / rel.noise_scale == pytest.approx(8.0, rel=1e-12)
    else:
        assert est.delta == 1e-6 and rel.sensitivity == pytest.approx(math.sqrt(6) / 1000)


def test_the_other_bands_are_v5s() -> None:
    x = np.random.default_rng(2).beta(2, 5, 4000)
    for eps in (0.1, 5.0):  # n eps = 400 (v5's band tree) and 20000 (v4's depth-4 tree)
        a = estimate(x, bounds=(0, 1), eps=eps, delta=1e-6, rng=1, method="auto_v5")
        b = estimate(x, bounds=(0, 1), eps=eps, delta=1e-6, rng=1, method="auto_v6")
        np.testing.assert_array_equal(a.grid_f, b.grid_f)
        assert b.method == "auto_v6"
    xs = np.round(x * 80) / 80
    for eps in (0.05, 1.0):  # on a declared lattice: v4's lattice rule in every band
        a = estimate(xs, bounds=(0, 1), eps=eps, delta=1e-6, rng=1, granularity=1 / 80)
        b = estimate(xs, bounds=(0, 1), eps=eps, delta=1e-6, rng=1, granularity=1 / 80,
                     method="auto_v6")
        np.testing.assert_array_equal(a.grid_f, b.grid_f)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(20, 5000), neps=st.floats(1.0, 14999.0),
       shape=st.sampled_from(["beta", "spikes", "heavy", "arcsine", "lattice"]),
       seed=st.integers(0, 2**31 - 1), lo=st.floats(-100.0, 100.0), width=st.floats(0.5, 50.0))
def test_estimate_is_a_cdf_on_the_bounds(n: int, neps: float, shape: str, seed: int, lo: float,
                                         width: float) -> None:
    eps = neps / n
    x = lo + width * sample(shape, n, np.random.default_rng(seed))
    est = estimate(x, bounds=(lo, lo + width), eps=eps, delta=1e-6, method="auto_v6", rng=seed)
    t = np.linspace(lo - 1.0, lo + width + 1.0, 2001)
    f = est(t)
    assert np.all(np.diff(f) >= 0.0)
    assert f.min() >= 0.0 and f.max() <= 1.0
    assert f[0] == 0.0 and f[-1] == 1.0
    assert est(lo + width) == 1.0
    assert est.eps <= eps * (1 + 1e-12)
    if n * eps < LOW_BAND_V6:
        assert est.delta == 0.0 and est.info["plan"].layout == "chebyshev"


def test_a_pile_at_a_bound_is_resolved_where_equal_cells_are_not() -> None:
    """The low band's reason, on one data set (3 noise seeds): the |Cauchy| pile at 0."""
    x = sample("heavy", 1000, np.random.default_rng(11))
    ref = RefGrid(ecdf(x), 0.0, 1.0)
    ks6 = [ref.distances(estimate(x, bounds=(0, 1), eps=0.1, delta=1e-6, rng=s,
                                  method="auto_v6")).ks for s in range(3)]
    ks4 = [ref.distances(estimate(x, bounds=(0, 1), eps=0.1, delta=1e-6, rng=s,
                                  method="auto_v3")).ks for s in range(3)]
    assert math.fsum(ks6) < 0.7 * math.fsum(ks4)


def test_the_mid_band_layout_centres_eightieths() -> None:
    """640 centred cells: every k/80 (and k/16, k/10) of the range is a cell's centre (v4's 500
    cells put k/80 at 6.25 k / 500, on edges and quarter points)."""
    m = MID_BRANCHING_V6**3
    assert tree.centred_cells(m) == 640
    for q in (80, 16, 10):
        t = np.arange(1, q) / q
        idx = tree.leaf_index(t, m, "centred")
        centre = (idx - 1) / 640  # leaf 1 + j holds the cell centred on j / 640
        np.testing.assert_allclose(centre, t, rtol=0, atol=1e-15)


# --- the default since 2026-12-06: "auto" is auto_plan_v6, the former default "auto_v4" ---------
def test_the_default_is_v6_and_the_former_default_keeps_its_name() -> None:
    assert cdf.REGISTRY["auto"].rule == "auto_plan_v6"
    assert cdf.REGISTRY["auto_v4"].rule == "auto_plan_v4"
    assert "auto_v4" in cdf.ALL_METHODS and "auto_v4" not in cdf.METHODS
    x = sample("heavy", 1000, np.random.default_rng(5))
    for eps in (0.1, 0.5, 3.0, 20.0):  # one n*eps in each band: 100, 500, 3000, 20000
        dflt = estimate(x, bounds=(0, 1), eps=eps, delta=1e-6, rng=4)
        v6 = estimate(x, bounds=(0, 1), eps=eps, delta=1e-6, rng=4, method="auto_v6")
        v4 = estimate(x, bounds=(0, 1), eps=eps, delta=1e-6, rng=4, method="auto_v4")
        assert dflt.method == "auto" and v6.method == "auto_v6" and v4.method == "auto_v4"
        np.testing.assert_array_equal(dflt.grid_f, v6.grid_f)
        assert dflt.info["plan"] == auto_plan_v6(1000, eps, 1e-6)
        assert v4.info["plan"] == auto_plan_v4(1000, eps, 1e-6)
        assert (dflt.eps, dflt.delta) == (v6.eps, v6.delta)
    # the former default's releases below 1500 are the equal-bin histograms
    assert estimate(x, bounds=(0, 1), eps=0.5, delta=1e-6, rng=4,
                    method="auto_v4").info["bins"] == 32


def test_the_bands_table_is_the_rule() -> None:
    from dpcore.cdf.auto_v6 import BANDS_V6, band_of

    assert BANDS_V6[0].start == 0.0 and BANDS_V6[-1].end == math.inf
    for a, b in itertools.pairwise(BANDS_V6):
        assert a.end == b.start
    for band in BANDS_V6:
        for ne in (band.start, (band.start + min(band.end, 1e7)) / 2):
            if ne < 2.0:
                continue
            n = 10_000_000 if ne >= 1e6 else 1000
            plan = auto_plan_v6(n, ne / n, 1e-6)
            assert band_of(n, ne / n) == band
            if band.kind == "hq":
                assert plan.method == "hq" and plan.layout == "chebyshev"
            else:
                assert (plan.method, plan.branching, plan.k_max) == ("tree", band.branching,
                                                                     band.leaves)
                assert band.branching**band.depth == band.leaves
    assert [b.top_share for b in BANDS_V6 if b.top_share] == [cdf.auto_v5.BAND_TOP_SHARE]
    with pytest.raises(DPError):
        band_of(1, 1.0)
