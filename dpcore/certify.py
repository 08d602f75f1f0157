"""Certification of one Gaussian release: is the claimed (eps, delta) true for this sigma?

The required delta is the exact profile delta(eps) of N(0, sigma^2) noise at the query's global
sensitivity (Balle & Wang 2018, Thm 8; see :mod:`dpcore.gaussian`). The verdict compares the
claim with it in log space, so a claim of 0 against a positive delta that underflows as a double
still fails, and two tiny positive deltas are compared exactly.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from dpcore import _validate as v
from dpcore import gaussian, queries

__all__ = ["REASONS", "Certification", "certify"]

#: Reason keys (the UI and CLI translate them through their message catalogues).
REASONS = ("zero_sensitivity", "claim_covers", "claim_too_small", "claim_zero_positive_delta")

_LOG10_E = 1.0 / math.log(10.0)


@dataclass(frozen=True)
class Certification:
    """Everything the certification card shows, for one release.

    Units: ``sensitivity``, ``sigma``, ``mae``, ``half_width_95``, ``classic_sigma`` and
    ``exact_sigma`` are in the query's output units (``unit``: sum units, mean units, records);
    ``mse`` is in squared units. ``log_delta`` is natural, ``log10_delta`` decimal; both are
    -inf exactly when the sensitivity is 0 and finite otherwise.
    """

    query: str
    n: int
    B: float
    sigma: float
    eps: float
    claimed_delta: float
    sensitivity: float
    log_delta: float
    log10_delta: float
    required_delta: float
    passes: bool
    reason: str
    mathematically_positive: bool
    underflow: bool
    pure_dp_possible: bool
    mse: float
    mae: float
    half_width_95: float
    unit: str
    classic_sigma: float
    classic_proven: bool
    exact_sigma: float

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly dict (infinities become the strings "inf" / "-inf")."""
        out: dict[str, Any] = {}
        for k, val in asdict(self).items():
            if isinstance(val, float) and math.isinf(val):
                val = "inf" if val > 0 else "-inf"
            out[k] = val
        return out


def certify(
    query: str, n: int, B: float, sigma: float, eps: float, claimed_delta: float
) -> Certification:
    """Certify the release f(D) + N(0, sigma^2) of ``query`` against the claim (eps, delta).

    Domain: query in sum/mean/count/const, n >= 1 whole, B > 0, sigma > 0, eps >= 0, claimed
    delta in [0, 1], all finite; otherwise ValueError naming the parameter.
    Verdict: passes iff ln(required delta) <= ln(claimed delta) (a claim of 0 passes only when the
    sensitivity is 0). Flags: ``mathematically_positive`` (sensitivity > 0, hence delta > 0 for
    every finite eps), ``underflow`` (positive, but 0.0 as a double), ``pure_dp_possible`` (only
    when the sensitivity is 0: the privacy loss of two different Gaussians is unbounded).
    """
    q = queries._query(query)
    nn = v.integer("n", n, lo=1)
    b = v.real_scalar("B (upper input bound)", B, lo=0.0, lo_open=True)
    s = v.real_scalar("sigma", sigma, lo=0.0, lo_open=True)
    e = v.real_scalar("epsilon", eps, lo=0.0)
    claim = v.real_scalar("claimed delta", claimed_delta, lo=0.0, hi=1.0)

    sens = queries.sensitivity(q, nn, b)
    ld = gaussian.log_delta(e, sens, s)
    positive = sens > 0.0
    required = math.exp(ld) if positive else 0.0
    if not positive:
        passes, reason = True, "zero_sensitivity"
    elif claim == 0.0:
        passes, reason = False, "claim_zero_positive_delta"
    else:
        passes = ld <= math.log(claim)
        reason = "claim_covers" if passes else "claim_too_small"
    err = gaussian.noise_errors(s)
    classic = gaussian.classic_sigma(e, claim, sens)
    return Certification(
        query=q,
        n=nn,
        B=b,
        sigma=s,
        eps=e,
        claimed_delta=claim,
        sensitivity=sens,
        log_delta=ld,
        log10_delta=ld * _LOG10_E,
        required_delta=required,
        passes=passes,
        reason=reason,
        mathematically_positive=positive,
        underflow=positive and required == 0.0,
        pure_dp_possible=not positive,
        mse=err.mse,
        mae=err.mae,
        half_width_95=err.half_width_95,
        unit=queries.unit_key(q),
        classic_sigma=classic.sigma,
        classic_proven=classic.proven,
        exact_sigma=gaussian.calibrate_sigma(e, claim, sens),
    )
