"""Streaming/multi-site merging, metrics and the experiment harness."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpcore.cdf import experiments
from dpcore.cdf.metrics import distances, ecdf
from dpcore.cdf.streaming import PPCombiner, aq_rerun


def test_merge_is_weighted_average_with_parallel_composition() -> None:
    rng = np.random.default_rng(0)
    parts = [rng.uniform(size=k) for k in (100, 300, 600)]
    comb = PPCombiner((0, 1), 1.0, 1e-6, k_max=16, noise="gaussian")
    rels = [comb.add_batch(p, rng) for p in parts]
    y, sd = comb.merged()
    w = np.array([100, 300, 600]) / 1000
    np.testing.assert_allclose(y, sum(wi * r.values for wi, r in zip(w, rels, strict=True)))
    # sigma_j = s / n_j  ->  merged variance = J s^2 / n^2 = J x (one release on all data)
    s = rels[0].noise_scale * 100
    np.testing.assert_allclose(sd, np.sqrt(3) * s / 1000, rtol=1e-12)
    est = comb.estimate()
    assert (est.eps, est.delta) == (1.0, 1e-6)
    assert est.release.n == 1000
    assert est.with_degree(3).degree == 3


def test_aq_rerun_composes() -> None:
    rng = np.random.default_rng(1)
    parts = [rng.uniform(size=200) for _ in range(4)]
    res = aq_rerun(parts, bounds=(0, 1), eps_per_run=0.5, delta=1e-6, rng=0)
    assert res.runs == 4 and res.eps_total == pytest.approx(2.0)
    assert res.estimate.release.n == 800


def test_metrics_known_values() -> None:
    a = 0.1
    f = lambda t: np.clip(t, 0, 1)  # noqa: E731
    g = lambda t: np.clip(t - a, 0, 1)  # noqa: E731
    d = distances(f, g, 0, 1)
    assert d.ks == pytest.approx(a, abs=1e-3)
    assert d.w1 == pytest.approx(a - a * a / 2, abs=1e-6)  # area between the two lines on [0,1]
    exact_e = np.sqrt(2 * (a * a * (1 - a) + a**3 / 3))
    assert d.energy == pytest.approx(exact_e, abs=1e-6)


def test_metrics_against_scipy_for_two_samples() -> None:
    rng = np.random.default_rng(2)
    u, v = rng.normal(size=300), rng.normal(0.3, 1.2, size=200)
    lo, hi = min(u.min(), v.min()), max(u.max(), v.max())
    d = distances(ecdf(u), ecdf(v), lo, hi, size=20_001)
    assert d.w1 == pytest.approx(stats.wasserstein_distance(u, v), rel=1e-3)
    assert d.energy == pytest.approx(stats.energy_distance(u, v), rel=1e-3)
    assert d.ks == pytest.approx(stats.ks_2samp(u, v).statistic, abs=1e-12)


def test_harness_renders_a_table() -> None:
    cells = experiments.run_grid(
        ["uniform"], [1.0], ["auto (default)", "hq (32 bins, Laplace)"], seeds=2, workers=1
    )
    text = experiments.render(cells, 2, [], "python -m dpcore.cdf.experiments --test", 0.0)
    assert "| 1 | auto (default) |" in text and "± " in text
    assert "not private" in text
