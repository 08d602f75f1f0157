"""The default's rule since 2026-12-05 (auto_plan_v4, issue 40): the release of auto_plan_v3 on
the centred cell layout, its details shrunk toward the coarser level (post-processing).

Reference and property tests of ``tree.zvariances``, ``tree.shrink_details``,
``tree.centred_cells`` and ``tree.leaf_index(layout="centred")``; the former rule is kept as
method "auto_v3".
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpcore.cdf as cdf
from dpcore.cdf import (
    TREE_BRANCHING,
    TREE_LAYOUT_V4,
    TREE_SHRINK,
    auto_plan_v3,
    auto_plan_v4,
    estimate,
    tree,
)
from dpcore.cdf.common import clip_data
from dpcore.cdf.metrics import RefGrid, ecdf
from dpcore.errors import DPError


def _gls(b: int, depth: int, seed: int, var: float = 1.0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    noisy = [rng.normal(0.0, math.sqrt(var), b**lev) / b**lev + 1.0 / b**lev
             for lev in range(1, depth + 1)]
    return tree.consistent(noisy, b)


# --- zvariances: the bottom-up estimate's noise variance -----------------------------------
@pytest.mark.parametrize(("b", "depth"), [(2, 5), (8, 4), (16, 2)])
def test_zvariances_are_hays_weights(b: int, depth: int) -> None:
    var = tree.zvariances(b, depth, 2.5)
    for lev, v in enumerate(var):
        h = depth - lev  # height: leaves 1
        assert v == pytest.approx(2.5 * (b**h - b ** (h - 1)) / (b**h - 1), rel=1e-12)


def test_zvariances_match_a_simulation() -> None:
    b, depth, trials = 4, 3, 20000
    rng = np.random.default_rng(7)
    z_top = []
    for _ in range(trials):
        noisy = [rng.normal(0.0, 1.0, b**lev) for lev in range(1, depth + 1)]
        z = noisy[-1]
        for lev in range(depth - 2, -1, -1):
            h = depth - lev
            a = (b**h - b ** (h - 1)) / (b**h - 1)
            z = a * noisy[lev] + (1 - a) * z.reshape(-1, b).sum(axis=1)
        z_top.append(z[0])
    assert np.var(z_top) == pytest.approx(tree.zvariances(b, depth, 1.0)[0], rel=0.05)


# --- shrink_details: properties ----------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(b=st.sampled_from([2, 4, 8]), depth=st.integers(2, 4), seed=st.integers(0, 10**6),
       lam=st.floats(0.0, 20.0))
def test_shrinkage_keeps_a_consistent_tree_with_its_root(b: int, depth: int, seed: int,
                                                         lam: float) -> None:
    cons = _gls(b, depth, seed)
    out = tree.shrink_details(cons, b, 1.0, lam)
    np.testing.assert_allclose(out[0], cons[0], rtol=0, atol=0)  # level 1 kept
    assert out[0].sum() == pytest.approx(1.0, abs=1e-12)
    for lev in range(1, depth):
        np.testing.assert_allclose(out[lev].reshape(-1, b).sum(axis=1), out[lev - 1],
                                   rtol=0, atol=1e-12)


def test_lam_zero_is_least_squares_and_a_tiny_lam_nearly_so() -> None:
    cons = _gls(8, 3, 1)
    assert all(np.array_equal(a, c) for a, c in zip(tree.shrink_details(cons, 8, 1.0, 0.0),
                                                    cons, strict=True))
    near = tree.shrink_details(cons, 8, 1e-30, 1.0)  # noise variance ~0: nothing is shrunk
    for a, c in zip(near, cons, strict=True):
        np.testing.assert_allclose(a, c, rtol=0, atol=1e-12)


def test_a_huge_lam_keeps_only_level_one() -> None:
    """Every detail dropped: the leaves are the PCHIP prediction from level 1 alone."""
    a = _gls(8, 3, 1)
    b = [a[0], *_gls(8, 3, 2)[1:]]  # other lower levels, same level 1 (not consistent: fine)
    la = tree.shrink_details(a, 8, 1.0, 1e12)[-1]
    lb = tree.shrink_details(b, 8, 1.0, 1e12)[-1]
    np.testing.assert_allclose(la, lb, rtol=0, atol=1e-15)


def test_empty_leaves_get_no_predicted_mass() -> None:
    cons = _gls(8, 3, 3)
    used = 503  # the centred layout of 512 leaves: leaves 503..511 hold no data
    out = tree.shrink_details(cons, 8, 1.0, 1e12, used=used)
    assert np.all(out[-1][used:] == 0.0)
    assert out[-1].sum() == pytest.approx(1.0, abs=1e-12)


def test_shrinkage_keeps_a_spike_and_smooths_noise() -> None:
    """A spike far above the noise survives; on a flat density most of the noise goes."""
    b, depth = 8, 3
    m = b**depth
    flat = np.full(m, 1.0 / m)
    spike = flat * 0.5
    spike[200] += 0.5
    rng = np.random.default_rng(4)
    for truth, keep in ((flat, False), (spike, True)):
        lv = tree._levels(truth, b, depth)
        noisy = [x + rng.normal(0.0, 1e-4, x.size) for x in lv]
        cons = tree.consistent(noisy, b)
        out = tree.shrink_details(cons, b, 1e-8, TREE_SHRINK)[-1]
        if keep:
            assert out[200] == pytest.approx(0.5 + 0.5 / m, abs=5e-3)
        else:  # the least-squares leaves keep most of the noise, the shrunk ones little
            assert np.linalg.norm(out - flat) < 0.5 * np.linalg.norm(cons[-1] - flat)


# --- the centred layout ------------------------------------------------------------------------
def _smooth_2_5(x: int) -> bool:
    for p in (2, 5):
        while x % p == 0:
            x //= p
    return x == 1


@pytest.mark.parametrize("leaves", [4, 7, 64, 512, 4096, 32768, 262144])
def test_centred_cells_is_the_largest_2a5b_that_fits(leaves: int) -> None:
    c = tree.centred_cells(leaves)
    assert _smooth_2_5(c) and c <= leaves - 3
    assert not any(_smooth_2_5(k) for k in range(c + 1, leaves - 2))


def test_centred_cells_of_the_rules_trees() -> None:
    assert [tree.centred_cells(8**d) for d in (3, 4, 5, 6)] == [500, 4000, 32000, 256000]


@pytest.mark.parametrize("leaves", [512, 4096])
def test_round_fractions_sit_at_cell_centres(leaves: int) -> None:
    c = tree.centred_cells(leaves)
    t_e = tree.inner_edges(leaves, "centred")
    for q in (2, 4, 5, 10, 20, 100):
        if c % q:
            continue
        k = np.arange(1, q)
        idx = tree.leaf_index(k / q, leaves, "centred")
        centre = 0.5 * (t_e[idx - 1] + t_e[idx])
        np.testing.assert_allclose(centre, k / q, rtol=0, atol=1e-12)


def test_centred_leaf_index_bounds_and_cells() -> None:
    m = 512
    c = tree.centred_cells(m)
    t = np.array([0.0, 1e-9, 0.5 / c - 1e-12, 0.5 / c, 0.5, 1 - 1e-9, 1.0])
    idx = tree.leaf_index(t, m, "centred")
    assert idx.tolist() == [0, 1, 1, 2, 1 + c // 2, c + 1, c + 2]
    t_e = tree.inner_edges(m, "centred")
    assert t_e.size == c + 2 and t_e[0] == 0.0 and t_e[-1] == 1.0
    inner = np.random.default_rng(0).uniform(size=5000)
    j = tree.leaf_index(inner, m, "centred")
    assert np.all((t_e[j - 1] <= inner) & (inner < t_e[j]))


def test_sensitivity_is_unchanged_by_the_layout() -> None:
    """Replace-one moves one record between leaves whatever the layout: brute force."""
    b, depth, n = 2, 4, 5
    m = b**depth
    used = tree.inner_edges(m, "centred").size + 1
    worst = 0.0
    rest = np.zeros(n - 1, dtype=np.int64)
    for i, j in itertools.product(range(used), repeat=2):
        u = np.concatenate(tree._levels(tree.leaf_frequencies(np.r_[i, rest], m, n), b, depth))
        w = np.concatenate(tree._levels(tree.leaf_frequencies(np.r_[j, rest], m, n), b, depth))
        worst = max(worst, float(np.linalg.norm(u - w)))
    assert worst == pytest.approx(math.sqrt(2 * depth) / n, rel=1e-12)


# --- the rule ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("n", "eps"), [(2_000, 1.0), (10_000, 2.0), (100_000, 0.5),
                                         (1_000_000, 2.0), (500, 1.0), (10_000, 0.1)])
def test_v4_releases_what_v3_releases(n: int, eps: float) -> None:
    v3, v4 = auto_plan_v3(n, eps, 1e-6), auto_plan_v4(n, eps, 1e-6)
    assert (v4.method, v4.noise, v4.k_max, v4.noise_sd) == (v3.method, v3.noise, v3.k_max,
                                                            v3.noise_sd)
    if v3.method == "tree":
        assert (v4.shrink, v4.layout) == (TREE_SHRINK, TREE_LAYOUT_V4) == (1.5, "centred")
        assert (v3.shrink, v3.layout) == (0.0, "edges")
    else:
        assert v4 == v3


def test_v4_on_a_lattice_is_the_lattice_rule() -> None:
    assert auto_plan_v4(10_000, 1.0, 1e-6, 11) == auto_plan_v3(10_000, 1.0, 1e-6, 11)


def test_estimate_auto_v4_uses_v4_and_auto_v3_keeps_the_former_rule() -> None:
    x = np.random.default_rng(5).beta(2, 5, 20_000)
    new = estimate(x, bounds=(0, 1), eps=1.0, delta=1e-6, rng=1, method="auto_v4")
    old = estimate(x, bounds=(0, 1), eps=1.0, delta=1e-6, rng=1, method="auto_v3")
    assert new.method == "auto_v4" and old.method == "auto_v3"
    # at n*eps = 20000 the default (auto_plan_v6) keeps v4's depth-4 tree: the same release
    dflt = estimate(x, bounds=(0, 1), eps=1.0, delta=1e-6, rng=1)
    assert dflt.method == "auto" and dflt.info["plan"] == new.info["plan"]
    np.testing.assert_array_equal(dflt.grid_f, new.grid_f)
    assert new.info["shrink"] == TREE_SHRINK and new.info["layout"] == "centred"
    assert old.info["shrink"] == 0.0 and "layout" not in old.info
    assert new.release.extra["shrink"] == TREE_SHRINK
    assert "post-processing" in new.release.accounting
    for a in ("noise_scale", "sensitivity", "norm", "eps", "delta", "mechanism"):
        assert getattr(new.release, a) == getattr(old.release, a)
    assert new.release.values.size == old.release.values.size
    assert (new.eps, new.delta) == (old.eps, old.delta)
    f = new(np.linspace(-0.1, 1.1, 2001))
    assert np.all(np.diff(f) >= 0) and f[0] == 0.0 and f[-1] == 1.0
    assert "auto_v3" in cdf.ALL_METHODS and new.info["depth"] == 4
    assert TREE_BRANCHING ** new.info["depth"] == new.info["leaves"]


def test_shrinkage_helps_on_a_smooth_shape() -> None:
    """Measured claim (docs/cdf-results.md): smaller KS than plain least squares on a smooth
    density, averaged over seeds (same release, same noise)."""
    ks = {0.0: 0.0, TREE_SHRINK: 0.0}
    for seed in range(6):
        x = np.random.default_rng([seed, 1]).beta(2, 5, 100_000)
        ref = RefGrid(ecdf(x), 0.0, 1.0)
        for lam in ks:
            est = estimate(x, bounds=(0, 1), eps=1.0, delta=1e-6, method="tree",
                           leaves=4096, interpolation="pchip", shrink=lam, rng=seed)
            ks[lam] += ref.distances(est).ks
    assert ks[TREE_SHRINK] < 0.9 * ks[0.0]


@pytest.mark.parametrize(("opts", "err"), [({"shrink": -1.0}, DPError),
                                           ({"shrink": "x"}, DPError),
                                           ({"shrink": 1e3}, DPError),
                                           ({"layout": "middle"}, ValueError)])
def test_bad_options_are_refused(opts: dict[str, object], err: type[Exception]) -> None:
    with pytest.raises(err):
        estimate(np.linspace(0, 1, 50), bounds=(0, 1), eps=1.0, delta=1e-6, method="tree",
                 **opts)  # type: ignore[arg-type]


def test_centred_layout_keeps_clipped_mass_at_the_bounds() -> None:
    rng = np.random.default_rng(1)
    x = np.r_[rng.uniform(0, 100, 7000), np.full(3000, 150.0)]  # 30 % clipped to hi
    est = estimate(x, bounds=(0, 100), eps=8.0, delta=1e-6, method="tree", rng=2,
                   layout="centred", shrink=TREE_SHRINK, interpolation="pchip")
    assert est(np.nextafter(100.0, 0.0)) == pytest.approx(0.7, abs=0.01)
    assert est(100.0) == 1.0
    assert clip_data(x, (0, 100)).n_above == 3000
