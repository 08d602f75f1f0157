"""k-ary randomized response (dpcore/randomized_response.py): probabilities against mpmath at
50 digits (computed here, from the closed forms of the module's docstring), the privacy ratio,
unbiasedness and the variance, the domain's keyed errors."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore import randomized_response as rr
from dpcore.errors import DPError

EPS = st.floats(min_value=1e-15, max_value=700.0, allow_nan=False)
K = st.integers(min_value=2, max_value=50)


def exact(eps: float, k: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    with mpmath.workdps(50):
        e = mpmath.exp(mpmath.mpf(eps))
        return e / (e + k - 1), 1 / (e + k - 1)


@settings(max_examples=300, deadline=None)
@given(EPS, K)
def test_probabilities_match_mpmath(eps: float, k: int) -> None:
    p, q = exact(eps, k)
    assert rr.keep_probability(eps, k) == pytest.approx(float(p), rel=4e-16)
    assert rr.other_probability(eps, k) == pytest.approx(float(q), rel=4e-15)
    # p − q without cancellation: every digit, down to ε = 1e-15
    assert rr.spread(eps, k) == pytest.approx(float(p - q), rel=4e-15)


def test_the_subtraction_it_replaces_lost_the_digits() -> None:
    # (why spread exists: at ε = 1e-12, p − q by subtraction keeps ~4 correct digits)
    eps, k = 1e-12, 2
    p, q = exact(eps, k)
    naive = rr.keep_probability(eps, k) - rr.other_probability(eps, k)
    assert abs(naive / float(p - q) - 1) > 1e-6
    assert abs(rr.spread(eps, k) / float(p - q) - 1) < 1e-14


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=1e-6, max_value=50.0), K)
def test_the_ratio_is_e_to_the_eps_and_the_probabilities_sum_to_one(eps: float, k: int) -> None:
    p, q = rr.keep_probability(eps, k), rr.other_probability(eps, k)
    assert p / q == pytest.approx(math.exp(eps), rel=1e-13)
    assert rr.likelihood_ratio(eps, k) == pytest.approx(math.exp(eps), rel=1e-15)
    assert p + (k - 1) * q == pytest.approx(1.0, rel=1e-15)


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=0.01, max_value=10.0), st.integers(min_value=2, max_value=6),
       st.integers(min_value=0, max_value=10**6))
def test_the_estimate_is_unbiased(eps: float, k: int, seed: int) -> None:
    # E[π̂] = π: exactly, since π̂ is linear in the reported counts. With the expected counts
    # (n = 10^6 reports, whole-number shares of 1 per million) the estimate returns π.
    rng = np.random.default_rng(seed)
    truth = rng.multinomial(10**6, np.ones(k) / k)
    p, q = rr.keep_probability(eps, k), rr.other_probability(eps, k)
    expected = [t * p + (10**6 - t) * q for t in truth]
    d = rr.spread(eps, k)
    for t, e in zip(truth, expected, strict=True):
        assert (e / 10**6 - q) / d == pytest.approx(t / 10**6, abs=1e-9)


def test_the_variance_matches_a_simulation() -> None:
    # 20,000 classes of n = 400 students, 30 % say yes, ε = ln 3 (p = 3/4): sd of π̂
    eps, n, k, yes = math.log(3.0), 400, 2, 120
    rng = np.random.default_rng(7)
    p = rr.keep_probability(eps, k)
    keep = rng.random((20_000, n)) < p
    truth = np.arange(n) < yes
    reports = np.where(keep, truth, ~truth).sum(axis=1)
    est = [rr.estimate_shares([int(r), n - int(r)], eps)[0].estimate for r in reports[:2000]]
    assert np.mean(est) == pytest.approx(0.30, abs=0.01)
    sd_sim = float(np.std((reports / n - (1 - p)) / (2 * p - 1)))
    assert rr.share_sd(eps, n, k) == pytest.approx(sd_sim, rel=0.03)
    assert rr.share_sd(eps, n, k) == pytest.approx(math.sqrt(p * (1 - p) / n) / (2 * p - 1))


def test_shares_interval_and_the_clipped_value() -> None:
    (yes, no) = rr.estimate_shares([2, 8], math.log(3.0))  # π̂ = (0.2 − 0.25) / 0.5 = −0.1
    assert yes.estimate == pytest.approx(-0.1) and no.estimate == pytest.approx(1.1)
    assert yes.clipped and yes.lo == 0.0 and 0.0 <= yes.shown <= yes.hi
    assert yes.shown == 0.0 and no.shown == 1.0  # clipped into [0, 1]: biased, said so
    empty = rr.estimate_shares([0, 0, 0], 1.0)
    assert all(math.isnan(s.estimate) and (s.lo, s.hi) == (0.0, 1.0) for s in empty)


@pytest.mark.parametrize(("fn", "args", "key"), [
    (rr.keep_probability, (0.0,), "out_of_range.interval"),
    (rr.keep_probability, (-1.0,), "out_of_range.interval"),
    (rr.keep_probability, (800.0,), "out_of_range.interval"),
    (rr.keep_probability, (math.nan,), "out_of_range.interval"),
    (rr.keep_probability, (1.0, 1), "out_of_range.whole"),
    (rr.keep_probability, (True,), "bool.interval"),
    (rr.estimate_shares, ([3], 1.0), "out_of_range.whole"),
    (rr.estimate_shares, ([3, -1], 1.0), "out_of_range.whole"),
    (rr.share_sd, (1.0, 0), "out_of_range.whole"),
])
def test_outside_the_domain_a_keyed_error(fn: object, args: tuple[object, ...], key: str) -> None:
    with pytest.raises(DPError) as info:
        fn(*args)  # type: ignore[operator]
    assert info.value.key == key and isinstance(info.value, ValueError)
