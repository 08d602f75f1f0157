"""k-ary randomized response: the local model of a private poll.

Each respondent keeps their true option with probability ``p`` and otherwise reports one of
the ``k − 1`` other options uniformly at random (probability ``q`` each)::

    p = e^ε / (e^ε + k − 1),    q = 1 / (e^ε + k − 1),    p / q = e^ε

so for any two true options a, b and any report r, P[r | a] / P[r | b] ≤ e^ε: each report is
ε-locally differentially private (Warner 1965 for k = 2; Kairouz, Oh & Viswanath, "Extremal
mechanisms for local differential privacy", JMLR 17, 2016, §2, for k-ary RR). A respondent's
loss over several polls is the sum of their ε (basic composition).

From the reported share ``ȳ_j = c_j / n`` of option j the class's true share is estimated by

    π̂_j = (ȳ_j − q) / (p − q),        p − q = (e^ε − 1) / (e^ε + k − 1)

unbiased for the class's own share (the true answers are fixed, only the coins are random).
Its variance (a sum of n independent Bernoulli reports)::

    Var π̂_j = (π_j p(1 − p) + (1 − π_j) q(1 − q)) / (n (p − q)²)

which for k = 2 (q = 1 − p) is ``p(1 − p) / (n (2p − 1)²)`` whatever the truths. π̂ can fall
outside [0, 1]; clipping it to [0, 1] (as a display does) makes it biased towards the middle.

Accuracy: ``p``, ``q`` and ``p − q`` are computed from ``e^{−ε}`` and ``expm1(ε)`` without
subtracting nearly equal numbers, to a few ulps for every ε in the domain (checked against
mpmath at 50 digits in tests/dpcore/test_randomized_response.py); a small ε no longer loses
the digits of ``p − q`` (ε = 1e-12: the subtraction kept 4 correct digits, this keeps all).

Domain: ε in (0, 700] (e^ε finite), k ≥ 2 options, counts ≥ 0 with n = Σ counts ≥ 1 for an
estimate. Outside it a keyed :class:`dpcore.errors.DPError` (a ``ValueError``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from dpcore import validate

__all__ = ["EPS_MAX", "Z95", "RRShare", "estimate_shares", "keep_probability",
           "likelihood_ratio", "other_probability", "share_sd", "spread"]

#: The largest ε accepted (e^ε stays a finite double).
EPS_MAX = 700.0
#: The 97.5 % point of the standard normal (two-sided 95 % intervals).
Z95 = 1.959963984540054


def _eps(eps: object) -> float:
    return validate.real_scalar("eps", eps, lo=0.0, hi=EPS_MAX, lo_open=True)


def _k(k: object) -> int:
    return validate.integer("k", k, lo=2)


def keep_probability(eps: float, k: int = 2) -> float:
    """p = e^ε / (e^ε + k − 1): the probability that the true option is reported.

    Computed as 1 / (1 + (k − 1) e^{−ε}) (no overflow, no cancellation)."""
    e, kk = _eps(eps), _k(k)
    return 1.0 / (1.0 + (kk - 1) * math.exp(-e))


def other_probability(eps: float, k: int = 2) -> float:
    """q = 1 / (e^ε + k − 1): the probability of each given other option."""
    e, kk = _eps(eps), _k(k)
    return math.exp(-e) / (1.0 + (kk - 1) * math.exp(-e))


def spread(eps: float, k: int = 2) -> float:
    """p − q = (e^ε − 1) / (e^ε + k − 1), from expm1 (exact to a few ulps at tiny ε)."""
    e, kk = _eps(eps), _k(k)
    return -math.expm1(-e) / (1.0 + (kk - 1) * math.exp(-e))


def likelihood_ratio(eps: float, k: int = 2) -> float:
    """max over reports r and truths a ≠ b of P[r | a] / P[r | b]: e^ε exactly (any k)."""
    _k(k)
    return math.exp(_eps(eps))


@dataclass(frozen=True)
class RRShare:
    """One option's estimated share of the class (local model), with its 95 % interval.

    ``estimate`` is the unbiased π̂ (may lie outside [0, 1]); ``lo``/``hi`` is π̂ ± 1.96·sd
    clipped to [0, 1] (``clipped`` says whether it was); ``shown`` is π̂ clipped into [lo, hi]
    (biased when clipped: what a display may show, said so)."""

    reported: int
    raw_share: float
    estimate: float
    sd: float
    lo: float
    hi: float
    clipped: bool

    @property
    def shown(self) -> float:
        return min(self.hi, max(self.lo, self.estimate))


def share_sd(eps: float, n: int, k: int = 2, share: float | None = None) -> float:
    """sd of π̂ for n reports: exact for k = 2 (any truths); for k > 2 at the true share
    ``share`` (None: 1/2, close to the widest; the caller may pass π̂ clipped to [0, 1])."""
    e, kk = _eps(eps), _k(k)
    nn = validate.integer("n", n, lo=1)
    p, q, d = keep_probability(e, kk), other_probability(e, kk), spread(e, kk)
    if kk == 2:
        var = p * (1.0 - p)
    else:
        pi = 0.5 if share is None else min(1.0, max(0.0, float(share)))
        var = pi * p * (1.0 - p) + (1.0 - pi) * q * (1.0 - q)
    return math.sqrt(var / nn) / d


def estimate_shares(counts: Sequence[int], eps: float) -> list[RRShare]:
    """Per option (k = len(counts) ≥ 2): the unbiased share π̂ from the reported counts and its
    95 % interval (normal approximation). With no report at all, NaN estimates and the whole
    interval [0, 1]."""
    e = _eps(eps)
    cs = [validate.integer("counts", c, lo=0) for c in counts]
    k = _k(len(cs))
    n = sum(cs)
    if n == 0:
        return [RRShare(0, 0.0, math.nan, math.nan, 0.0, 1.0, True) for _ in cs]
    q, d = other_probability(e, k), spread(e, k)
    out = []
    for c in cs:
        y = c / n
        est = (y - q) / d
        sd = share_sd(e, n, k, share=est)
        lo, hi = est - Z95 * sd, est + Z95 * sd
        clipped = lo < 0.0 or hi > 1.0
        out.append(RRShare(c, y, est, sd, max(0.0, min(1.0, lo)), max(0.0, min(1.0, hi)),
                           clipped))
    return out
