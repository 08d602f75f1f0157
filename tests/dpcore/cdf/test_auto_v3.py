"""The rule of issue 40 (auto_plan_v3, the default 2026-12-04 to 2026-12-05, now method
"auto_v3"; its depth bands are the default auto_plan_v4's): switch points and properties.

Public numbers only (n, eps, delta, the lattice size); the former rule auto_plan_v2 is kept
unchanged as method "auto_v2".
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpcore.cdf as cdf
from dpcore.cdf import (
    HISTOGRAM_EPS_N,
    TREE_BRANCHING,
    TREE_DEPTH_FROM,
    TREE_DEPTH_FROM_V3,
    auto_plan_v2,
    auto_plan_v3,
    estimate,
    tree_depth_v2,
    tree_depth_v3,
)

#: The switch points, by name: (n*eps from which, depth).
SWITCHES = {"depth 3 from the histogram's end": (HISTOGRAM_EPS_N, 3),
            "depth 4": (15_000.0, 4), "depth 5": (150_000.0, 5), "depth 6": (1_500_000.0, 6)}


def test_the_switch_points_are_the_named_ones() -> None:
    assert TREE_DEPTH_FROM_V3 == tuple(SWITCHES.values())
    # the former rule is kept as it was
    assert TREE_DEPTH_FROM == ((1500.0, 2), (3000.0, 3), (60000.0, 4), (300000.0, 5))


@pytest.mark.parametrize("name", list(SWITCHES))
def test_each_switch_point(name: str) -> None:
    start, depth = SWITCHES[name]
    n = 10_000
    at, below = start / n, start / n * (1 - 1e-9)
    plan = auto_plan_v3(n, at, 1e-6)
    assert plan.method == "tree" and plan.k_max == TREE_BRANCHING**depth
    assert tree_depth_v3(n, at) == depth
    before = auto_plan_v3(n, below, 1e-6)
    if depth == 3:
        assert before.method == "hq"  # below 1500: the histogram, as before
    else:
        assert before.k_max == TREE_BRANCHING ** (depth - 1)


@pytest.mark.parametrize(("n", "eps", "leaves"), [
    (2_000, 1.0, 512), (10_000, 1.0, 512), (10_000, 2.0, 4096), (100_000, 0.5, 4096),
    (100_000, 2.0, 32768), (1_000_000, 1.0, 32768), (1_000_000, 2.0, 262144),
])
def test_bands(n: int, eps: float, leaves: int) -> None:
    assert auto_plan_v3(n, eps, 1e-6).k_max == leaves


n_st = st.integers(2, 10**7)
eps_st = st.floats(0.01, 20.0)
delta_st = st.sampled_from([1e-5, 1e-6, 1e-9, 1e-12])


@settings(max_examples=200, deadline=None)
@given(n=n_st, eps=eps_st, delta=delta_st)
def test_v3_is_v2_below_1500_and_never_shallower_above(n: int, eps: float, delta: float) -> None:
    v2, v3 = auto_plan_v2(n, eps, delta), auto_plan_v3(n, eps, delta)
    if n * eps < HISTOGRAM_EPS_N:
        assert v3 == v2
    else:
        assert v3.method == v2.method == "tree"
        assert tree_depth_v2(n, eps) <= tree_depth_v3(n, eps) <= tree_depth_v2(n, eps) + 1
        assert v3.k_max == TREE_BRANCHING ** tree_depth_v3(n, eps) >= v2.k_max


@settings(max_examples=200, deadline=None)
@given(n=n_st, eps=eps_st, f=st.floats(1.0, 50.0), delta=delta_st)
def test_leaves_grow_with_n_eps_and_depend_on_it_alone(n: int, eps: float, f: float,
                                                        delta: float) -> None:
    a, b = auto_plan_v3(n, eps, delta), auto_plan_v3(n, eps * f, delta)
    assert (b.method, a.method) != ("hq", "tree")
    if a.method == b.method == "tree":
        assert b.k_max >= a.k_max
        # the shape depends on n*eps alone (the noise on n, eps and delta)
        assert a.k_max == TREE_BRANCHING ** tree_depth_v3(1, n * eps)


@settings(max_examples=100, deadline=None)
@given(n=n_st, eps=eps_st, size=st.integers(2, 5000))
def test_the_lattice_rule_is_v2s(n: int, eps: float, size: int) -> None:
    assert auto_plan_v3(n, eps, 1e-6, size) == auto_plan_v2(n, eps, 1e-6, size)


def test_estimate_auto_has_v3s_trees_and_auto_v2_keeps_the_former_rule() -> None:
    x = np.random.default_rng(3).beta(0.5, 0.5, 20_000)
    new = estimate(x, bounds=(0, 1), eps=1.0, delta=1e-6, rng=1)  # n eps = 20000
    old = estimate(x, bounds=(0, 1), eps=1.0, delta=1e-6, rng=1, method="auto_v2")
    assert new.method == "auto" and old.method == "auto_v2"
    assert new.info["leaves"] == 4096 and old.info["leaves"] == 512
    assert new.info["branching"] == old.info["branching"] == 8
    assert new.info["interpolation"] == old.info["interpolation"] == "pchip"
    assert new.eps <= 1.0 and new.delta <= 1e-6
    # on a public lattice both are the lattice rule
    xs = np.round(x * 80) / 80
    a = estimate(xs, bounds=(0, 1), eps=1.0, delta=1e-6, rng=1, granularity=1 / 80)
    b = estimate(xs, bounds=(0, 1), eps=1.0, delta=1e-6, rng=1, granularity=1 / 80,
                 method="auto_v2")
    np.testing.assert_array_equal(a.grid_f, b.grid_f)
    assert "auto_v2" in cdf.ALL_METHODS
