"""Composition and conversions in dpcore.accounting."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore import accounting as acc
from dpcore import gaussian


def test_gdp_composition_equals_one_gaussian() -> None:
    # Two Gaussian releases of the same statistic (sigma1, sigma2) = one with
    # 1/sigma^2 = 1/sigma1^2 + 1/sigma2^2 (inverse-variance merge): same mu.
    s1, s2, d = 2.0, 3.0, 1.0
    mu = acc.gdp_compose([acc.gaussian_mu(d, s1), acc.gaussian_mu(d, s2)])
    s = 1 / math.sqrt(1 / s1**2 + 1 / s2**2)
    assert mu == pytest.approx(d / s, rel=1e-15)
    assert acc.gdp_delta(1.0, mu) == pytest.approx(gaussian.delta(1.0, d, s), rel=1e-12)
    assert acc.gdp_epsilon(1e-5, mu) == pytest.approx(gaussian.epsilon(1e-5, d, s), rel=1e-12)
    assert acc.gdp_compose([]) == 0.0 and acc.gdp_delta(1.0, 0.0) == 0.0


def test_zcdp_rules() -> None:
    assert acc.pure_zcdp(0.5) == 0.125
    assert acc.gaussian_zcdp(1.0, 2.0) == 0.125
    assert acc.zcdp_compose([0.125, 0.125, 0.25]) == 0.5


def test_zcdp_conversion_is_valid_and_tighter_than_classic() -> None:
    rho, delta = 0.5, 1e-5
    eps = acc.zcdp_epsilon(rho, delta)
    classic = rho + 2 * math.sqrt(rho * math.log(1 / delta))
    assert eps <= classic
    # brute-force minimum over alpha of the CKS20 bound
    alphas = 1 + np.exp(np.linspace(-10, 10, 200_001))
    brute = np.min(
        alphas * rho
        + (math.log(1 / delta) + (alphas - 1) * np.log1p(-1 / alphas) - np.log(alphas))
        / (alphas - 1)
    )
    assert eps == pytest.approx(brute, rel=1e-6)
    # round trip: the delta at that eps is (about) the requested delta
    assert acc.zcdp_delta(rho, eps) == pytest.approx(delta, rel=1e-3)
    # a Gaussian's exact profile is never worse than its zCDP conversion
    sigma = 1.0
    exact = gaussian.epsilon(delta, 1.0, sigma)
    assert exact <= acc.zcdp_epsilon(acc.gaussian_zcdp(1.0, sigma), delta) + 1e-12


def test_basic_and_parallel() -> None:
    assert acc.basic_composition([0.1, 0.2, 0.3]) == pytest.approx(0.6)
    g = acc.parallel([acc.Guarantee(1.0, 1e-6, "a"), acc.Guarantee(0.5, 1e-5, "b")])
    assert (g.eps, g.delta) == (1.0, 1e-5)
    with pytest.raises(ValueError, match="guarantees"):
        acc.parallel([])


@pytest.mark.parametrize(
    ("fn", "args", "match"),
    [
        (acc.gaussian_mu, (-1.0, 1.0), "sensitivity"),
        (acc.gaussian_mu, (1.0, 0.0), "sigma"),
        (acc.gdp_compose, ([-1.0],), "mu"),
        (acc.zcdp_epsilon, (0.5, 0.0), "delta"),
        (acc.zcdp_epsilon, (-0.5, 0.1), "rho"),
        (acc.pure_zcdp, (math.nan,), "epsilon"),
    ],
)
def test_bad_input(fn, args, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        fn(*args)
