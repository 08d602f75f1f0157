"""Composition and conversions in dpcore.accounting."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# ---- mixed ledgers: Step, compose, Composition.at_delta, parallel_worst, sequential -----------
def _calibrated(eps: float, delta: float, sens: float = 1.0) -> acc.Step:
    sigma = gaussian.calibrate_sigma(eps, delta, sens)
    return acc.Step.gaussian(sens, sigma, eps, delta)


def test_one_calibrated_gaussian_reads_back_its_own_eps() -> None:
    # sigma is calibrated for (eps, delta); mu-GDP read at delta gives eps back (conservatively).
    for eps, delta in [(1.0, 1e-6), (0.1, 1e-5), (5.0, 1e-12), (0.01, 0.05)]:
        g = acc.compose([_calibrated(eps, delta, 1e-4)]).at_delta(delta)
        assert g.eps <= eps * (1 + 1e-12)
        assert g.eps == pytest.approx(eps, rel=1e-9)
        assert g.delta == delta


def test_three_gaussian_releases_compose_exactly() -> None:
    # Three releases at (1, 1e-6): one Gaussian with sigma / sqrt(3).  Reference value made with
    # dpcore.gaussian.epsilon (exact Balle-Wang profile, itself checked against mpmath).
    s = [_calibrated(1.0, 1e-6, 1e-4) for _ in range(3)]
    c = acc.compose(s)
    sigma = gaussian.calibrate_sigma(1.0, 1e-6, 1e-4)
    assert c.mu == pytest.approx(math.sqrt(3) * 1e-4 / sigma, rel=1e-15)
    g = c.at_delta(1e-6)
    assert g.eps == pytest.approx(gaussian.epsilon(1e-6, 1e-4, sigma / math.sqrt(3)), rel=1e-12)
    assert 1.81 < g.eps < 1.82  # far below the basic 3
    assert (c.basic_eps, c.basic_delta) == (pytest.approx(3.0), pytest.approx(3e-6))
    assert c.count == c.gaussian_count == 3
    assert "GDP" in g.how


def test_mixed_and_pure_compositions() -> None:
    pure = [acc.Step(0.5, 0.0), acc.Step(0.25, 0.0)]
    c = acc.compose(pure)
    g = c.at_delta(1e-6)
    assert (g.eps, g.delta) == (0.75, 0.0) and "basic" in g.how
    mixed = acc.compose([*pure, _calibrated(1.0, 1e-6), acc.Step(0.1, 1e-7)])
    g = mixed.at_delta(1e-6)
    assert g.eps == pytest.approx(0.85 + 1.0, rel=1e-9)
    assert g.delta == pytest.approx(1e-6 + 1e-7)
    assert mixed.count == 4 and mixed.gaussian_count == 1
    empty = acc.compose([])
    g0 = empty.at_delta(1e-6)
    assert (g0.eps, g0.delta) == (0.0, 0.0)


def test_parallel_worst_and_sequential() -> None:
    a = acc.compose([_calibrated(1.0, 1e-6), acc.Step(1.0, 0.0)])
    b = acc.compose([acc.Step(1.0, 0.0), acc.Step(1.0, 0.0), acc.Step(1.0, 0.0)])
    w = acc.parallel_worst([a, b])
    assert w.mu == a.mu and w.eps_other == 3.0 and w.count == 3
    # the bound holds for every part
    for part in (a, b):
        assert part.at_delta(1e-6).eps <= w.at_delta(1e-6).eps
    seq = acc.sequential([a, b])
    assert seq.count == 5 and seq.eps_other == 4.0 and seq.mu == pytest.approx(a.mu)
    assert seq.at_delta(1e-6).eps == pytest.approx(acc.compose(
        [_calibrated(1.0, 1e-6), *[acc.Step(1.0, 0.0)] * 4]).at_delta(1e-6).eps, rel=1e-12)
    with pytest.raises(ValueError, match="at least one"):
        acc.parallel_worst([])


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: acc.Step(-1.0, 0.0), "eps"),
        (lambda: acc.Step(1.0, 2.0), "delta"),
        (lambda: acc.Step(1.0, 0.0, -0.1), "mu"),
        (lambda: acc.compose([acc.Step(1.0, 0.0)]).at_delta(0.0), "delta"),
        (lambda: acc.compose([acc.Step(1.0, 0.0)]).at_delta(1.0), "delta"),
    ],
)
def test_mixed_bad_input(make, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        make()


@given(st.lists(st.tuples(st.floats(0.05, 5.0), st.floats(-12.0, -2.0)), min_size=1,
                max_size=8))
@settings(max_examples=60, deadline=None)
def test_gdp_total_never_exceeds_basic(releases: list[tuple[float, float]]) -> None:
    # Exact composition of Gaussians is the tightest valid guarantee: read at delta = sum delta_i
    # it can never exceed basic composition's sum eps_i.
    steps = [_calibrated(e, 10.0**ld) for e, ld in releases]
    c = acc.compose(steps)
    total_delta = math.fsum(10.0**ld for _, ld in releases)
    if total_delta < 1.0:
        assert c.at_delta(total_delta).eps <= c.basic_eps * (1 + 1e-9)
