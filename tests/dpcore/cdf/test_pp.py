"""PP mechanism: exact sensitivity, post-processing degrees, empirical privacy audit."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpcore import gaussian
from dpcore.cdf import estimate, legendre, pp
from dpcore.cdf.common import clip_data


def test_l2_sensitivity_is_exactly_one_over_n_at_worst_pair() -> None:
    n = 50
    rest = np.linspace(0.1, 0.9, n - 1)
    for k_max in (0, 1, 5, 64, 256):
        a = legendre.coefficients(np.concatenate([[0.0], rest]), k_max)
        b = legendre.coefficients(np.concatenate([[1.0], rest]), k_max)
        assert np.linalg.norm(a - b) == pytest.approx(1.0 / n, rel=1e-12)
        assert pp.l2_sensitivity(n) == 1.0 / n


def test_no_pair_exceeds_the_l2_sensitivity_and_split_bound() -> None:
    # All pairs on a grid: ||G(x) - G(x')|| <= sqrt(|x - x'|) <= 1, and the whitened split
    # norm d^2 + 2 sum_{k>=1} Delta_k^2 <= 1 (module docstring), max 1 only at d = 1.
    xs = np.linspace(0, 1, 401)
    g = legendre.g_matrix(xs, 64)
    diff = g[:, None, :] - g[None, :, :]
    d = np.abs(xs[:, None] - xs[None, :])
    l2 = np.sqrt((diff**2).sum(axis=2))
    assert np.all(l2 <= np.sqrt(d) + 1e-12)
    split = diff[..., 0] ** 2 + 2 * (diff[..., 1:] ** 2).sum(axis=2)
    assert split.max() == pytest.approx(1.0, abs=1e-12)
    assert np.all(split[d < 1] < 1.0)


def test_l1_bound_is_an_upper_bound() -> None:
    rng = np.random.default_rng(0)
    for k in (0, 4, 16):
        bound = pp.l1_sensitivity(k)
        pairs = rng.uniform(size=(20_000, 2))
        g1 = legendre.g_matrix(pairs[:, 0], k)
        g2 = legendre.g_matrix(pairs[:, 1], k)
        seen = np.abs(g1 - g2).sum(axis=1).max()
        assert seen <= bound
        assert bound < 1.05 * seen + 0.05  # and not absurdly loose


def test_weighted_l1_bound_is_an_upper_bound() -> None:
    rng = np.random.default_rng(4)
    k, scale = 12, pp.LAPLACE_C0_SCALE
    bound = pp.l1_sensitivity(k, c0_scale=scale)
    w = np.r_[1 / scale, np.ones(k)]
    xs = np.r_[0.0, 1.0, rng.uniform(size=(20_000,))]
    g = legendre.g_matrix(xs, k) * w
    seen = max(np.abs(g[i] - g).sum(axis=1).max() for i in rng.choice(xs.size, 300, replace=False))
    assert seen <= bound < 1.05 * seen + 0.05
    # the release uses exactly these scales
    d = clip_data(np.linspace(0, 1, 100), (0, 1))
    rel = pp.release(d, 0.5, 1e-6, k_max=k, noise="laplace_weighted", rng=np.random.default_rng(0))
    b = bound / (100 * 0.5)
    np.testing.assert_allclose(rel.extra["laplace_scales"], np.r_[scale * b, np.full(k, b)])
    assert rel.delta == 0.0


def test_degree_change_is_post_processing_of_one_release() -> None:
    x = np.random.default_rng(1).beta(2, 5, 2000)
    est = estimate(x, bounds=(0, 1), eps=1, delta=1e-6, method="pp", rng=7, degree=3)
    y = est.release.values
    for k in (0, 7, 64, "auto"):
        other = est.with_degree(k)
        assert other.release is est.release
        assert (other.eps, other.delta) == (est.eps, est.delta)
        if k != "auto":
            np.testing.assert_array_equal(other.info["coefficients"], y[: int(k) + 1])
    with pytest.raises(ValueError, match="degree"):
        est.with_degree(65)
    with pytest.raises(ValueError, match="degree"):
        est.with_degree(-1)


def test_sigma_comes_from_exact_calibration() -> None:
    x = np.linspace(0, 1, 1000)
    est = estimate(x, bounds=(0, 1), eps=0.5, delta=1e-5, method="pp", rng=0)
    rel = est.release
    assert rel.sensitivity == 1 / 1000
    assert rel.noise_scale == gaussian.calibrate_sigma(0.5, 1e-5, 1 / 1000)
    assert gaussian.delta(0.5, rel.sensitivity, rel.noise_scale) <= 1e-5


def test_auto_degree_uses_cp_rule() -> None:
    s = 0.01
    y = np.zeros(20)
    y[:3] = [0.5, 0.3, 0.2]
    k, c = pp.auto_degree(y, s)
    assert k == 2
    assert c[0] == 0.5 and 0 < c[1] <= 0.3
    # pure noise beyond degree 0 -> degree 0
    k0, _ = pp.auto_degree(np.r_[0.5, np.full(19, s / 10)], s)
    assert k0 == 0


# --- empirical privacy audit -------------------------------------------------------------
def _audit(release_many, eps: float, delta: float, trials: int) -> float:
    """Largest lower-confidence excess  P_D(S) - e^eps P_D'(S) - delta  over threshold events.

    S = {y_0 > t} (the likelihood-ratio test for a Gaussian shift of c_0) for t on a grid;
    one-sided Clopper-Pearson bounds at 1e-4 each (Bonferroni over the thresholds), so a
    correctly calibrated mechanism gives a value <= 0 except with probability ~1e-3.
    """
    y0_d, y0_dp = release_many(trials)
    qs = np.quantile(np.r_[y0_d, y0_dp], np.linspace(0.02, 0.98, 25))
    alpha = 1e-4
    worst = -np.inf
    for t in qs:
        k_p = int(np.sum(y0_d > t))
        k_q = int(np.sum(y0_dp > t))
        p_lo = stats.beta.ppf(alpha, k_p, trials - k_p + 1) if k_p > 0 else 0.0
        q_hi = stats.beta.ppf(1 - alpha, k_q + 1, trials - k_q) if k_q < trials else 1.0
        worst = max(worst, p_lo - math.exp(eps) * q_hi - delta)
    return float(worst)


def _pp_runner(noise: str, eps: float, delta: float):
    n = 20
    rest = np.linspace(0.2, 0.8, n - 1)
    d = clip_data(np.r_[0.0, rest], (0, 1))  # worst neighbouring pair: 0 <-> 1
    dp = clip_data(np.r_[1.0, rest], (0, 1))
    rng = np.random.default_rng(2024)

    def run(trials: int) -> tuple[np.ndarray, np.ndarray]:
        a = [
            pp.release(d, eps, delta, k_max=4, noise=noise, rng=rng).values[0]
            for _ in range(trials)
        ]
        b = [
            pp.release(dp, eps, delta, k_max=4, noise=noise, rng=rng).values[0]
            for _ in range(trials)
        ]
        return np.array(a), np.array(b)

    return run


@pytest.mark.parametrize("noise", ["gaussian", "gaussian_split"])
def test_audit_passes_for_calibrated_release(noise: str) -> None:
    assert _audit(_pp_runner(noise, 1.0, 1e-3), 1.0, 1e-3, trials=4000) <= 0.0


def test_audit_catches_under_noised_release(monkeypatch: pytest.MonkeyPatch) -> None:
    real = gaussian.calibrate_sigma
    monkeypatch.setattr(pp, "_sigma", lambda e, d, s: real(e, d, s) / 3.0)
    assert _audit(_pp_runner("gaussian", 1.0, 1e-3), 1.0, 1e-3, trials=4000) > 0.0
