"""The default's rule (auto_plan_v2), the tree's PCHIP cells, local matching pursuit (mpl)."""

from __future__ import annotations

import numpy as np
import pytest
from privacy_audit import worst_excess

import dpcore.cdf as cdf
from dpcore import gaussian
from dpcore.cdf import estimate, mp_local, tree
from dpcore.cdf.hist import auto_bins
from dpcore.errors import DPError


# --- the rule: public numbers only, the stated bands --------------------------------------------
@pytest.mark.parametrize(
    ("n", "eps", "method", "size"),
    [(1000, 0.1, "hq", auto_bins(1000, 0.1)), (1000, 0.5, "hq", 32), (944, 1.0, "hq", 32),
     (1000, 2.0, "tree", 64), (1000, 8.0, "tree", 512), (10_000, 1.0, "tree", 512),
     (100_000, 1.0, "tree", 4096), (1_000_000, 1.0, "tree", 32768)],
)
def test_auto_plan_v2_bands(n: int, eps: float, method: str, size: int) -> None:
    plan = cdf.auto_plan_v2(n, eps, 1e-6)
    assert plan.method == method and plan.k_max == size


@pytest.mark.parametrize(("method", "branching"), [("auto_v4", 8), ("auto", 9)])
def test_auto_tree_is_eight_ary_with_pchip_cells(method: str, branching: int) -> None:
    # n*eps = 8000: the former default's (auto_v4) 8-ary tree, the default's 9-ary one
    x = np.random.default_rng(1).beta(2, 5, 4000)
    est = estimate(x, bounds=(0, 1), eps=2.0, delta=1e-6, rng=2, method=method)
    assert est.info["plan"].method == "tree" and est.info["branching"] == branching
    assert est.info["depth"] == 3 and est.info["interpolation"] == "pchip"
    assert est.degree is None  # no degree slider for a tree
    with pytest.raises(DPError):
        est.with_degree(5)


# --- the tree's cells: PCHIP and the last cell -----------------------------------------------
@pytest.mark.parametrize("interpolation", ["linear", "pchip"])
def test_tree_cdf_is_monotone_and_keeps_the_last_cell_below_hi(interpolation: str) -> None:
    # all mass in the last inner cell: F just below hi must already be 1 (not a jump at hi)
    x = np.full(5000, 0.999)
    est = estimate(x, bounds=(0, 1), eps=8.0, delta=1e-6, method="tree", branching=8,
                   leaves=64, interpolation=interpolation, rng=3)
    f = est(np.linspace(-0.1, 1.1, 4001))
    assert np.all(np.diff(f) >= 0) and f.min() == 0.0 and f.max() == 1.0
    assert est(np.nextafter(1.0, 0.0)) == pytest.approx(1.0, abs=0.02)
    assert est(0.98) == pytest.approx(0.0, abs=0.02)


def test_tree_pchip_agrees_with_linear_at_the_cell_edges() -> None:
    x = np.random.default_rng(4).beta(0.5, 0.5, 3000)
    kw = dict(bounds=(0, 1), eps=2.0, delta=1e-6, method="tree", branching=4, leaves=64)
    lin = estimate(x, rng=5, **kw)  # type: ignore[arg-type]
    pch = estimate(x, rng=5, interpolation="pchip", **kw)  # type: ignore[arg-type]
    np.testing.assert_array_equal(lin.release.values, pch.release.values)
    edges = np.arange(63) / 62
    np.testing.assert_allclose(pch(edges), lin(edges), atol=1e-12)
    with pytest.raises(ValueError, match="interpolation"):
        estimate(x, rng=5, interpolation="cubic", **kw)  # type: ignore[arg-type]


# --- mpl: the release is the tree's; inputs; an empirical privacy audit ---------------------------
def test_mpl_certifies_the_tree_release() -> None:
    x = np.random.default_rng(6).beta(2, 5, 5000)
    est = estimate(x, bounds=(0, 1), eps=1.0, delta=1e-6, method="mpl", leaves=64, rng=7)
    plan = tree.plan_tree(5000, 1.0, 1e-6, leaves=64, branching=2)
    assert est.release.mechanism == plan.noise and est.release.sensitivity == plan.sensitivity
    assert est.release.values.size == 2 * 64 - 2 and est.eps == 1.0
    assert est.info["chosen"][0] == "legendre[0]"
    f = est(np.linspace(0, 1, 999))
    assert np.all(np.diff(f) >= 0) and f[-1] == 1.0


def test_consistency_matrix_is_the_linear_part_of_consistency() -> None:
    rng = np.random.default_rng(8)
    noisy = [rng.normal(size=2**lev) for lev in range(1, 5)]
    c = mp_local.consistency_matrix(4)
    zero = tree.consistent([np.zeros(2**lev) for lev in range(1, 5)], 2)[-1]
    np.testing.assert_allclose(tree.consistent(noisy, 2)[-1], zero + c @ np.concatenate(noisy),
                               atol=1e-12)


@pytest.mark.parametrize(("opt", "value"), [("leaves", 100), ("leaves", 8), ("max_atoms", 0),
                                            ("max_atoms", 501)])
def test_mpl_bad_options(opt: str, value: int) -> None:
    with pytest.raises(DPError):
        estimate([0.1, 0.5, 0.9], bounds=(0, 1), eps=1, delta=1e-6, method="mpl",
                 **{opt: value})  # type: ignore[arg-type]


def _mpl_draws(trials: int) -> tuple[np.ndarray, np.ndarray]:
    """The released mpl CDF at t = 0.5 for neighbours (one record at lo vs at hi), n = 10."""
    n = 10
    rest = np.linspace(0.2, 0.8, n - 1)
    rng = np.random.default_rng(2026)
    out = []
    for first in (0.0, 1.0):
        x = np.r_[first, rest]
        out.append(np.array([estimate(x, bounds=(0, 1), eps=1.0, delta=1e-3, method="mpl",
                                      leaves=16, max_atoms=4, rng=rng)(0.5)
                             for _ in range(trials)]))
    return out[0], out[1]


def test_audit_passes_for_mpl() -> None:
    a, b = _mpl_draws(1500)
    assert worst_excess(a, b, 1.0, 1e-3) <= 0.0 and worst_excess(b, a, 1.0, 1e-3) <= 0.0


def test_audit_catches_an_under_noised_mpl(monkeypatch: pytest.MonkeyPatch) -> None:
    real = gaussian.calibrate_sigma
    tree._sigma.cache_clear()
    monkeypatch.setattr(tree, "_sigma", lambda e, d, s: real(e, d, s) / 8.0)
    a, b = _mpl_draws(1500)
    assert max(worst_excess(a, b, 1.0, 1e-3), worst_excess(b, a, 1.0, 1e-3)) > 0.0


# --- a wide public lattice: consecutive values share a leaf when n*eps is small ------------------
def test_auto_groups_a_wide_lattice_at_small_n_eps() -> None:
    plan = cdf.auto_plan_v2(944, 0.1, 1e-6, 83)  # 7 cells at n*eps = 94: 12 values per leaf
    assert plan.method == "tree" and plan.group == 12 and plan.k_max == 7
    assert cdf.auto_plan_v2(944, 8.0, 1e-6, 83).group == 1  # 512 cells: one leaf per value
    assert cdf.auto_plan_v2(10_000, 2.0, 1e-6, 11).group == 1
    x = np.random.default_rng(9).integers(18, 101, 944).astype(float)
    est = estimate(x, bounds=(18, 100), eps=0.1, delta=1e-6, granularity=1, rng=10)
    assert est.info["group"] == 12 and est.info["depth"] == 1
    f = est(np.linspace(17, 101, 3001))
    assert np.all(np.diff(f) >= 0) and f.min() == 0.0 and f.max() == 1.0
    assert est(40.0) == est(40.99) and est(100.0) == 1.0


def test_tree_group_bad_values() -> None:
    x = np.arange(18, 101, dtype=float)
    for g in (0, 84):
        with pytest.raises(DPError):
            estimate(x, bounds=(18, 100), eps=1, delta=1e-6, method="tree", granularity=1,
                     group=g)
