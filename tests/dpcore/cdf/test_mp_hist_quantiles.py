"""MP, HQ and AQ: dictionary, accounting, sensitivities, recovery at large eps."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore import gaussian
from dpcore.cdf import estimate, mp
from dpcore.cdf.datasets import population_cdf, sample
from dpcore.cdf.metrics import distances
from dpcore.cdf.quantiles import levels, private_quantile


def test_dictionary_atoms_are_normalised_and_documented() -> None:
    dic = mp.build_dictionary()
    np.testing.assert_allclose(np.diag(dic.gram), 1.0, atol=1e-12)
    assert len(dic.names) == dic.coef.shape[0] == 17 + (11 + 19 + 35) + 120
    assert dic.op_norm > 1  # why the per-round variant would need more noise


def test_mp_privacy_is_one_gaussian_release_accounted_exactly() -> None:
    x = sample("bimodal", 3000, np.random.default_rng(0))
    est = estimate(x, bounds=(0, 1), eps=0.7, delta=1e-6, method="mp", rng=0)
    rel = est.release
    assert rel.sensitivity == 1 / 3000
    assert rel.noise_scale == gaussian.calibrate_sigma(0.7, 1e-6, 1 / 3000)
    assert rel.extra["mu"] == pytest.approx(rel.sensitivity / rel.noise_scale)
    # the accountant's eps for this single release at the same delta is the requested eps
    assert rel.extra["eps_from_accountant"] == pytest.approx(0.7, rel=1e-9)
    assert est.info["chosen"]


def test_mp_beats_plain_pp_on_bimodal() -> None:
    ref = population_cdf("bimodal")
    ks_mp, ks_pp5 = [], []
    for seed in range(4):
        x = sample("bimodal", 10_000, np.random.default_rng(seed))
        ks_mp.append(
            distances(
                estimate(x, bounds=(0, 1), eps=1, delta=1e-6, method="mp", rng=seed), ref, 0, 1
            ).ks
        )
        ks_pp5.append(
            distances(
                estimate(x, bounds=(0, 1), eps=1, delta=1e-6, method="pp", rng=seed, degree=5),
                ref,
                0,
                1,
            ).ks
        )
    assert np.mean(ks_mp) < 0.5 * np.mean(ks_pp5)


def test_hq_sensitivity_by_brute_force() -> None:
    # Replace one record, all pairs of bins: the frequency vector moves by 2/n in L1.
    n, m = 10, 4
    base = np.full(n, 0.1)
    worst_l1 = worst_l2 = 0.0
    for a in np.linspace(0, 1, 9):
        for b in np.linspace(0, 1, 9):
            x, xp = base.copy(), base.copy()
            x[0], xp[0] = a, b
            h = np.histogram(np.minimum((x * m).astype(int), m - 1), bins=m, range=(0, m))[0] / n
            hp = np.histogram(np.minimum((xp * m).astype(int), m - 1), bins=m, range=(0, m))[0] / n
            worst_l1 = max(worst_l1, np.abs(h - hp).sum())
            worst_l2 = max(worst_l2, np.linalg.norm(h - hp))
    est_l = estimate(base, bounds=(0, 1), eps=1, delta=1e-6, method="hq", rng=0, bins=m)
    est_g = estimate(
        base, bounds=(0, 1), eps=1, delta=1e-6, method="hq", rng=0, bins=m, noise="gaussian"
    )
    assert est_l.release.sensitivity == pytest.approx(worst_l1) == 2 / n
    assert est_g.release.sensitivity == pytest.approx(worst_l2) == np.sqrt(2) / n
    assert est_l.delta == 0.0 and est_g.delta == 1e-6


def test_aq_budget_split_and_recovery() -> None:
    assert [levels(m) for m in (1, 2, 3, 7, 8, 31)] == [1, 2, 2, 3, 4, 5]
    x = np.random.default_rng(1).uniform(size=5000)
    est = estimate(x, bounds=(0, 1), eps=1e4, delta=1e-6, method="aq", rng=0, quantiles=7)
    rel = est.release
    assert rel.extra["eps_call"] == pytest.approx(1e4 / (2 * 3))
    np.testing.assert_allclose(rel.values, np.quantile(x, rel.extra["probs"]), atol=2e-3)
    assert np.all(np.diff(rel.values) >= 0)


def test_private_quantile_is_exponential_mechanism() -> None:
    # Two gaps of equal length: P(pick gap i) ∝ exp(eps u_i / 2), u = -|i - p k|.
    z = np.array([0.5])
    rng = np.random.default_rng(0)
    eps = 2.0
    draws = np.array([private_quantile(z, 0.0, 0.0, 1.0, eps, rng) for _ in range(20_000)])
    p_left = np.mean(draws < 0.5)
    expected = 1 / (1 + np.exp(-eps / 2))  # gap 0 has u = 0, gap 1 has u = -1
    assert p_left == pytest.approx(expected, abs=0.015)


def test_hq_pchip_is_a_monotone_cdf_and_auto_bins_follows_n_eps() -> None:
    from dpcore.cdf.hist import auto_bins

    assert auto_bins(10_000, 0.1) == 16 and auto_bins(10_000, 0.5) == 28
    assert auto_bins(10, 1e-3) == 4 and auto_bins(10**9, 10.0) == 256
    x = np.random.default_rng(3).beta(2, 5, 5000)
    est = estimate(x, bounds=(0, 1), eps=0.2, delta=1e-6, method="hq", bins="auto",
                   interpolation="pchip", rng=1)
    f = est(np.linspace(-0.1, 1.1, 2001))
    assert np.all(np.diff(f) >= 0) and f.min() == 0.0 and f.max() == 1.0
    assert est.info["bins"] == auto_bins(5000, 0.2) and est.delta == 0.0
    # same release, linear vs cubic interpolation: both pass through the same edge values
    lin = estimate(x, bounds=(0, 1), eps=0.2, delta=1e-6, method="hq", bins="auto", rng=1)
    np.testing.assert_array_equal(lin.release.values, est.release.values)
    edges = np.linspace(0, 1, est.info["bins"] + 1)[1:-1]
    np.testing.assert_allclose(est(edges), lin(edges), atol=2e-3)  # grid resolution 1/1024
    with pytest.raises(ValueError, match="interpolation"):
        estimate(x, bounds=(0, 1), eps=1, delta=1e-6, method="hq", interpolation="spline")
