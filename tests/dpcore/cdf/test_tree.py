"""Tree baseline, granularity and the new auto: accounting, consistency, privacy audit, inputs."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from privacy_audit import worst_excess

import dpcore.cdf as cdf
from dpcore import gaussian
from dpcore.cdf import estimate, tree
from dpcore.cdf.common import clip_data
from dpcore.cdf.metrics import distances, ecdf
from dpcore.errors import DPError


# --- consistency: Hay et al.'s two passes vs a direct KKT solve ------------------------------
@pytest.mark.parametrize(("b", "depth"), [(2, 1), (2, 3), (3, 2), (4, 2), (2, 4)])
def test_consistency_is_the_least_squares_solution_with_public_root(b: int, depth: int) -> None:
    rng = np.random.default_rng(b * 10 + depth)
    m = b**depth
    noisy = [rng.normal(size=b**lev) for lev in range(1, depth + 1)]
    rows = []
    for lev in range(1, depth + 1):
        w = b ** (depth - lev)
        a = np.zeros((b**lev, m))
        for i in range(b**lev):
            a[i, i * w:(i + 1) * w] = 1.0
        rows.append(a)
    a = np.vstack(rows)
    kkt = np.block([[a.T @ a, np.ones((m, 1))], [np.ones((1, m)), np.zeros((1, 1))]])
    leaves = np.linalg.solve(kkt, np.r_[a.T @ np.concatenate(noisy), 1.0])[:m]
    got = tree.consistent(noisy, b)
    np.testing.assert_allclose(got[-1], leaves, atol=1e-12)
    for lev in range(depth - 1):  # each node is the sum of its children; level 1 sums to 1
        np.testing.assert_allclose(got[lev], got[lev + 1].reshape(-1, b).sum(axis=1), atol=1e-12)
    assert got[0].sum() == pytest.approx(1.0, abs=1e-12)


# --- accounting: the exact sensitivity by brute force over every pair of leaves ---------------
@pytest.mark.parametrize(("b", "leaves"), [(2, 8), (3, 9), (4, 16), (2, 5)])
def test_sensitivity_is_exact_over_all_neighbouring_pairs(b: int, leaves: int) -> None:
    n = 7
    plan = tree.plan_tree(n, 1.0, 1e-6, leaves=leaves, branching=b, noise="gaussian")
    m = plan.leaves
    rest = np.zeros(n - 1, dtype=np.int64)
    worst_l1 = worst_l2 = 0.0
    for i, j in itertools.product(range(m), repeat=2):
        u = np.concatenate(tree._levels(tree.leaf_frequencies(np.r_[i, rest], m, n), b,
                                        plan.depth))
        w = np.concatenate(tree._levels(tree.leaf_frequencies(np.r_[j, rest], m, n), b,
                                        plan.depth))
        worst_l1 = max(worst_l1, float(np.abs(u - w).sum()))
        worst_l2 = max(worst_l2, float(np.linalg.norm(u - w)))
    assert worst_l2 == pytest.approx(math.sqrt(2 * plan.depth) / n, rel=1e-12)
    assert plan.sensitivity == pytest.approx(worst_l2, rel=1e-12)
    assert plan.noise_scale == gaussian.calibrate_sigma(1.0, 1e-6, plan.sensitivity)
    lap = tree.plan_tree(n, 1.0, 1e-6, leaves=leaves, branching=b, noise="laplace")
    assert lap.sensitivity == pytest.approx(worst_l1, rel=1e-12) == 2 * plan.depth / n
    assert lap.noise_scale == pytest.approx(worst_l1 / 1.0)


def test_release_record_states_the_accounting() -> None:
    x = np.random.default_rng(0).uniform(size=3000)
    est = estimate(x, bounds=(0, 1), eps=1.0, delta=1e-6, method="tree", rng=0, branching=2,
                   leaves=1024, noise="gaussian")
    rel = est.release
    assert rel.method == "tree" and rel.mechanism == "gaussian" and rel.norm == "L2"
    assert rel.extra["depth"] == 10 and rel.values.size == sum(2**k for k in range(1, 11))
    assert rel.sensitivity == pytest.approx(math.sqrt(20) / 3000)
    assert rel.extra["mu"] == pytest.approx(rel.sensitivity / rel.noise_scale)
    assert est.eps == 1.0 and est.delta == 1e-6
    lap = estimate(x, bounds=(0, 1), eps=1.0, delta=1e-6, method="tree", rng=0, noise="laplace")
    assert lap.delta == 0.0 and lap.release.norm == "L1"


def test_tree_cdf_is_monotone_and_keeps_atoms_at_the_bounds() -> None:
    rng = np.random.default_rng(1)
    x = np.r_[rng.uniform(0, 100, 7000), np.full(3000, 150.0)]  # 30 % clipped to hi
    est = estimate(x, bounds=(0, 100), eps=8.0, delta=1e-6, method="tree", rng=2)
    f = est(np.linspace(-10, 110, 5001))
    assert np.all(np.diff(f) >= 0) and f.min() == 0.0 and f.max() == 1.0
    assert est(np.nextafter(100.0, 0.0)) == pytest.approx(0.7, abs=0.01)
    assert est(100.0) == 1.0 and est.release.n_above == 3000


# --- empirical privacy audit: neighbouring data sets, many draws ------------------------------
def _tree_draws(noise: str, eps: float, delta: float, trials: int) -> tuple[np.ndarray, ...]:
    n = 20
    rest = np.linspace(0.2, 0.8, n - 1)
    d = clip_data(np.r_[0.0, rest], (0, 1))  # the record at lo vs at hi: every level moves
    dp = clip_data(np.r_[1.0, rest], (0, 1))
    plan = tree.plan_tree(n, eps, delta, leaves=8, branching=2, noise=noise)
    rng = np.random.default_rng(2025)
    idx_d, idx_dp = tree.leaf_index(d.t, plan.leaves), tree.leaf_index(dp.t, plan.leaves)
    diff = np.concatenate(tree._levels(tree.leaf_frequencies(idx_d, plan.leaves, n), 2,
                                       plan.depth)) - np.concatenate(
        tree._levels(tree.leaf_frequencies(idx_dp, plan.leaves, n), 2, plan.depth))
    u = diff / np.linalg.norm(diff)
    a = np.array([np.concatenate(tree.release_tree(idx_d, n, plan, rng)) @ u
                  for _ in range(trials)])
    b = np.array([np.concatenate(tree.release_tree(idx_dp, n, plan, rng)) @ u
                  for _ in range(trials)])
    return a, b


@pytest.mark.parametrize(("noise", "delta"), [("gaussian", 1e-3), ("laplace", 1e-6)])
def test_audit_passes_for_the_tree_release(noise: str, delta: float) -> None:
    a, b = _tree_draws(noise, 1.0, delta, 4000)
    assert worst_excess(a, b, 1.0, delta) <= 0.0
    assert worst_excess(b, a, 1.0, delta) <= 0.0


def test_audit_catches_an_under_noised_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    real = gaussian.calibrate_sigma
    tree._sigma.cache_clear()
    monkeypatch.setattr(tree, "_sigma", lambda e, d, s: real(e, d, s) / 3.0)
    a, b = _tree_draws("gaussian", 1.0, 1e-3, 4000)
    assert worst_excess(a, b, 1.0, 1e-3) > 0.0


# --- granularity -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("h", "key"),
    [(0, "out_of_range.lo"), (-1, "out_of_range.lo"), (math.nan, "out_of_range.lo"),
     ("a", "not_number.lo"), (True, "bool.lo"), (0.3, "out_of_range.whole"),
     (1e-9, "out_of_range.interval")],
)
def test_granularity_bad_values_have_keyed_messages(h: object, key: str) -> None:
    with pytest.raises(DPError) as exc:
        estimate([0.0, 0.5, 1.0], bounds=(0, 1), eps=1, delta=1e-6, granularity=h)  # type: ignore[arg-type]
    assert exc.value.key == key
    assert "granularity" in str(exc.value)


def test_granularity_rounds_and_counts_off_lattice_values() -> None:
    x = np.r_[np.arange(18, 101, dtype=float), 30.4, 45.6, 200.0]
    est = estimate(x, bounds=(18, 100), eps=1, delta=1e-6, method="tree", granularity=1, rng=0)
    assert est.release.extra["n_off_lattice"] == 2 and est.release.n_above == 1
    assert est.info["granularity"] == 1.0
    # a step CDF on the lattice: constant between whole years
    assert est(30.0) == est(30.999) and est(29.999) == est(29.0)
    assert est(100.0) == 1.0 and est(17.9) == 0.0


@pytest.mark.parametrize("method", ["auto", "auto_v1", "pp", "hq", "aq", "tree"])
def test_granularity_gives_a_step_cdf_for_every_method(method: str) -> None:
    x = np.random.default_rng(3).binomial(10, 0.3, 4000) / 10.0
    est = estimate(x, bounds=(0, 1), eps=2.0, delta=1e-6, method=method, granularity=0.1, rng=4)
    pts = np.linspace(0, 1, 11)
    f = est(np.linspace(-0.05, 1.05, 2001))
    assert np.all(np.diff(f) >= 0) and f.min() == 0.0 and f.max() == 1.0
    np.testing.assert_array_equal(est(pts[:-1] + 0.05), est(pts[:-1]))
    assert est.release.extra["n_off_lattice"] == 0


def test_granularity_target_lattice_of_eleven_values() -> None:
    # the lattice target: n = 10^4, eps = 2, the right granularity -> KS <= 0.01 (empirical CDF)
    x = np.random.default_rng(5).binomial(10, 0.3, 10_000) / 10.0
    est = estimate(x, bounds=(0, 1), eps=2.0, delta=1e-6, granularity=0.1, rng=6)
    assert est.info["plan"].method == "tree" and est.info["depth"] == 1  # one flat level
    assert distances(est, ecdf(x), 0, 1).ks <= 0.01


def test_pp_on_a_lattice_keeps_its_free_degree_slider() -> None:
    x = np.random.default_rng(7).integers(18, 101, 3000).astype(float)
    est = estimate(x, bounds=(18, 100), eps=1, delta=1e-6, method="pp", granularity=1, rng=1)
    other = est.with_degree(5)
    np.testing.assert_array_equal(other.release.values, est.release.values)
    assert other(40.5) == other(40.0) and other.info["granularity"] == 1.0


# --- auto: public quantities only ------------------------------------------------------------
def test_auto_plan_reads_only_public_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[object, ...]] = []
    real = cdf.auto_plan_v6  # the default's rule (issue 40, 2026-12-06)

    def spy(*args: object) -> cdf.AutoPlan:
        seen.append(args)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(cdf, "auto_plan_v6", spy)
    rng = np.random.default_rng(8)
    plans = []
    for x in (rng.uniform(size=5000), np.full(5000, 0.25)):
        est = estimate(x, bounds=(0, 1), eps=8.0, delta=1e-6, rng=0)  # the default
        plans.append(est.info["plan"])
    assert len(seen) == 2 and all(
        isinstance(a, (int, float)) or a is None for args in seen for a in args
    )
    assert seen[0] == seen[1] == (5000, 8.0, 1e-6, None)
    assert plans[0] == plans[1] and plans[0].method == "tree"
    # below n*eps = 1500 a histogram (as the former rule), from it the 8-ary tree
    assert cdf.auto_plan_v2(1000, 1.0, 1e-6).method == cdf.auto_plan(1000, 1.0, 1e-6).method
    assert cdf.auto_plan_v2(10_000, 1.0, 1e-6).method == "tree"
    assert cdf.auto_plan_v3(1000, 1.0, 1e-6) == cdf.auto_plan_v2(1000, 1.0, 1e-6)
    assert cdf.auto_plan(10_000, 1.0, 1e-6).method == "pp"  # the former rule (auto_v1)
