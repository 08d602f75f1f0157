"""The public entry point: outputs, records, clipping, bad input, properties for every method."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore.cdf import METHODS, estimate

DATA = np.random.default_rng(0).normal(50, 10, 500)


@pytest.mark.parametrize("method", METHODS)
def test_output_is_a_cdf_in_original_units(method: str) -> None:
    est = estimate(DATA, bounds=(0, 100), eps=1.0, delta=1e-6, method=method, rng=1)
    pts = np.linspace(-50, 150, 1001)
    f = est(pts)
    assert np.all(np.diff(f) >= 0)
    assert f.min() >= 0 and f.max() <= 1
    assert np.all(f[pts < 0] == 0) and np.all(f[pts >= 100] == 1)
    assert est(50.0) == pytest.approx(0.5, abs=0.15)  # median of N(50, 10)
    assert est.eps == 1.0 and est.delta in (0.0, 1e-6)
    rel = est.release
    assert rel.n == 500 and rel.bounds == (0.0, 100.0)
    assert rel.values.size >= 1 and np.all(np.isfinite(rel.values))
    assert rel.noise_scale > 0 and rel.sensitivity > 0
    assert rel.accounting


@pytest.mark.parametrize("method", METHODS)
def test_same_seed_same_release(method: str) -> None:
    a = estimate(DATA, bounds=(0, 100), eps=0.5, delta=1e-6, method=method, rng=5)
    b = estimate(
        DATA, bounds=(0, 100), eps=0.5, delta=1e-6, method=method, rng=np.random.default_rng(5)
    )
    np.testing.assert_array_equal(a.release.values, b.release.values)


def test_default_method_is_auto_histogram_then_tree() -> None:
    # n * eps = 500 (300 <= n eps < 1500): the default (auto_plan_v6) releases the two-level
    # 16-ary tree, pure eps-DP; the former default (auto_v4) the 32-bin PCHIP histogram
    est = estimate(DATA, bounds=(0, 100), eps=1.0, delta=1e-6, rng=0)
    assert est.method == "auto"
    assert est.info["plan"].method == "tree" and est.info["branching"] == 16
    assert est.release.mechanism == "laplace" and est.delta == 0.0
    assert est.release.values.size == 16 + 256
    est = estimate(DATA, bounds=(0, 100), eps=1.0, delta=1e-6, rng=0, method="auto_v4")
    plan = est.info["plan"]
    assert plan.method == "hq" and est.release.mechanism == "laplace" and est.delta == 0.0
    assert est.release.values.size == plan.k_max == 32  # n eps >= 300: 32 bins
    assert est.info["interpolation"] == "pchip"
    # n * eps = 100 < 300: the default's histogram (Chebyshev edges), pure eps-DP
    est = estimate(DATA, bounds=(0, 100), eps=0.2, delta=1e-6, rng=0)
    assert est.info["plan"].method == "hq" and est.info["layout"] == "chebyshev"
    assert est.release.values.size == est.info["bins"] and est.delta == 0.0
    # n = 2000 at eps = 1: n eps >= 1500, the 9-ary tree of depth 3 (9 + 81 + 729 nodes
    # released; auto_plan_v6) where auto_v4 has the 8-ary one (8 + 64 + 512)
    big = np.random.default_rng(2).uniform(0, 100, 2000)
    est = estimate(big, bounds=(0, 100), eps=1.0, delta=1e-6, rng=0)
    assert est.method == "auto"
    assert est.info["plan"].method == "tree" and est.info["depth"] == 3
    assert est.release.values.size == 819
    assert est.degree is None  # a tree has no degree
    est = estimate(big, bounds=(0, 100), eps=1.0, delta=1e-6, rng=0, method="auto_v4")
    assert est.release.values.size == 584
    # the former default auto_v2 (auto_plan_v2): depth 2 there (8 + 64 nodes)
    est = estimate(big, bounds=(0, 100), eps=1.0, delta=1e-6, rng=0, method="auto_v2")
    assert est.method == "auto_v2" and est.info["depth"] == 2
    assert est.release.values.size == 72


def test_former_default_auto_v1_histogram_then_pp() -> None:
    est = estimate(DATA, bounds=(0, 100), eps=1.0, delta=1e-6, method="auto_v1", rng=0)
    assert est.method == "auto_v1"
    # n * eps = 500 < 1500: the PCHIP Laplace histogram with auto_bins bins
    plan = est.info["plan"]
    assert plan.method == "hq" and est.release.mechanism == "laplace" and est.delta == 0.0
    assert est.release.values.size == plan.k_max == 13  # round(16 * 0.5^0.35) = 13
    assert est.info["interpolation"] == "pchip"
    # n = 2000 at eps = 1: n eps >= 1500, sigma = 4.2/2000 > 0.002, the high-noise PP regime
    big = np.random.default_rng(2).uniform(0, 100, 2000)
    est = estimate(big, bounds=(0, 100), eps=1.0, delta=1e-6, method="auto_v1", rng=0)
    assert est.info["plan"].method == "pp"
    assert est.info["plan"].noise == "laplace_weighted"
    assert est.degree is not None


def test_unknown_method_names_every_method() -> None:
    with pytest.raises(ValueError, match="auto_v1"):
        estimate(DATA, bounds=(0, 100), eps=1.0, delta=1e-6, method="auto2")


def test_values_outside_bounds_are_clipped_and_counted() -> None:
    x = np.r_[DATA, -5.0, -1.0, 120.0]
    est = estimate(x, bounds=(0, 100), eps=1.0, delta=1e-6, method="pp", rng=0)
    assert est.release.n == x.size  # nothing dropped
    assert (est.release.n_below, est.release.n_above, est.n_clipped) == (2, 1, 3)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"data": []}, "data"),
        ({"data": [1.0]}, "data"),
        ({"data": [1.0, np.nan]}, "data"),
        ({"data": [1.0, np.inf]}, "data"),
        ({"data": ["a", "b"]}, "data"),
        ({"bounds": (1, 1)}, "bounds"),
        ({"bounds": (2, 1)}, "bounds"),
        ({"bounds": (0, np.inf)}, "bounds"),
        ({"bounds": 5}, "bounds"),
        ({"eps": 0}, "eps"),
        ({"eps": -1}, "eps"),
        ({"eps": np.nan}, "eps"),
        ({"delta": 0}, "delta"),
        ({"delta": 1}, "delta"),
        ({"delta": 1.5}, "delta"),
        ({"method": "xx"}, "method"),
        ({"method": "pp", "degree": -1}, "degree"),
        ({"method": "pp", "degree": 65}, "degree"),
        ({"method": "pp", "degree": 2.5}, "degree"),
        ({"method": "pp", "k_max": 1000}, "k_max"),
        ({"method": "pp", "noise": "cauchy"}, "noise"),
        ({"method": "hq", "bins": 0}, "bins"),
        ({"method": "aq", "quantiles": 0}, "quantiles"),
        ({"method": "mp", "families": ("wavelet",)}, "families"),
        ({"method": "pp", "bogus": 1}, "bogus"),
        ({"rng": "seed"}, "rng"),
    ],
)
def test_bad_input_raises_clear_value_error(kwargs: dict, match: str) -> None:
    args = {"data": DATA, "bounds": (0, 100), "eps": 1.0, "delta": 1e-6}
    args.update(kwargs)
    data = args.pop("data")
    with pytest.raises(ValueError, match=match):
        estimate(data, **args)


@settings(max_examples=40, deadline=None)
@given(
    x=st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=200),
    lo=st.floats(-1e3, 0),
    width=st.floats(1e-3, 1e4),
    eps=st.floats(1e-3, 50),
    method=st.sampled_from(METHODS),
    seed=st.integers(0, 2**32 - 1),
)
def test_property_monotone_cdf_in_unit_interval(
    x: list[float], lo: float, width: float, eps: float, method: str, seed: int
) -> None:
    hi = lo + width
    est = estimate(x, bounds=(lo, hi), eps=eps, delta=1e-6, method=method, rng=seed)
    pts = np.linspace(lo - width, hi + width, 257)
    f = est(pts)
    assert np.all(np.isfinite(f))
    assert np.all(np.diff(f) >= 0) and f.min() >= 0 and f.max() <= 1
    assert f[-1] == 1.0 and f[0] == 0.0
    assert est.release.n_below + est.release.n_above == int(
        np.sum(np.asarray(x) < lo) + np.sum(np.asarray(x) > hi)
    )


def test_auto_switches_to_laplace_when_delta_is_tiny() -> None:
    from dpcore.cdf import auto_plan

    assert auto_plan(10_000, 1.0, 1e-6).noise == "gaussian_split"
    assert auto_plan(10_000, 1.0, 1e-12).noise == "laplace"
    big = np.random.default_rng(1).uniform(0, 100, 10_000)
    est = estimate(big, bounds=(0, 100), eps=1.0, delta=1e-12, method="auto_v1", rng=0)
    assert est.release.mechanism == "laplace" and est.delta == 0.0
    assert est.release.values.size == 65
    est = estimate(big, bounds=(0, 100), eps=1.0, delta=1e-12, rng=0)
    assert est.release.mechanism == "laplace" and est.delta == 0.0
    assert est.release.values.size == 9 + 81 + 729  # the 9-ary tree of depth 3 (n eps = 10^4)
