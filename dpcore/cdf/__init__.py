"""Private CDF estimation on public bounds (docs/math.md#dp-cdf).

Entry point: ``estimate(data, *, bounds, eps, delta, method="auto", rng=None, **options)``.

Methods (each module's docstring states its mechanism, sensitivity and accounting):
* "pp"   polynomial projection, one Gaussian release of shifted-Legendre coefficients
         (``dpcore.cdf.pp``); options k_max, degree ('auto' or int), noise.
* "mp"   matching pursuit over a Legendre / B-spline / normal-CDF dictionary, one Gaussian
         release of all inner products, pursuit as post-processing (``dpcore.cdf.mp``).
* "hq"   histogram baseline (``dpcore.cdf.hist``); options bins, noise.
* "aq"   adaptive-quantiles baseline, Kaplan-Schnapp-Stemmer 2022 (``dpcore.cdf.quantiles``).
* "auto" the default: when n*eps < 1500 (so much noise that a handful of bins beats any
         smooth basis) a Laplace histogram with auto_bins(n, eps) bins and monotone cubic
         (PCHIP) interpolation; otherwise PP with the noise mechanism, released degree and the
         degree/shrinkage chosen automatically. The choice of method and mechanism uses public
         quantities only (eps, delta, n), the degree choice only the released coefficients
         (``auto_plan`` documents the rule).

The default is "auto", the method held to the accuracy goal of docs/math.md#cdf-accuracy-goal;
the keyword arguments are the fixed interface of every method.  Every estimate is callable on
points in the original units, non-decreasing, in [0, 1], carries the certified ``eps`` and
``delta`` and a ``release`` record (noisy values, noise scale, sensitivity, n, bounds, clip
counts).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike

from dpcore import gaussian
from dpcore.cdf import pp
from dpcore.cdf.common import CDFEstimate, Release, check_privacy, clip_data, make_rng
from dpcore.cdf.hist import auto_bins, estimate_hq
from dpcore.cdf.mp import estimate_mp
from dpcore.cdf.quantiles import estimate_aq

__all__ = ["METHODS", "AutoPlan", "CDFEstimate", "Release", "auto_plan", "clip_data", "estimate"]

METHODS = ("auto", "pp", "mp", "hq", "aq")

# Released degree for the automatic method (the degree actually used is chosen from the noisy
# coefficients by pp.auto_degree, so K_max only needs to be large enough).
AUTO_K_MAX = 64
HIGH_NOISE = 0.002
HIGH_NOISE_K_MAX = 12
# Below this n*eps the PCHIP histogram beat every PP variant on the bimodal shape and matched it
# on the smooth ones (n = 10^4, eps = 0.1: KS 0.0176 vs 0.0283 bimodal; docs/cdf-results.md).
HISTOGRAM_EPS_N = 1500.0


@dataclass(frozen=True)
class AutoPlan:
    """What the automatic method will release, decided from public quantities only.

    ``method`` is "hq" (then ``k_max`` is the bin count) or "pp".
    """

    noise: str
    k_max: int
    noise_sd: float
    reason: str
    method: str = "pp"


def auto_plan(n: int, eps: float, delta: float) -> AutoPlan:
    """Choose the PP release from (n, eps, delta) only: no data, so no privacy cost.

    sigma = calibrate_sigma(eps, delta, 1/n) is the per-coefficient Gaussian noise (CDF units).
    * High-noise regime, sigma >= HIGH_NOISE (0.002): degrees above ~12 are then buried in
      noise for the shapes we measured, so the candidates release degrees 0..12 only:
      "gaussian_split" (sigma on c_0, sigma/sqrt(2) on c_1..) and "laplace_weighted" (pure
      eps-DP, c_0 scale 3b, others b, certified weighted L1 bound); the one with the smaller
      total noise variance over degrees 0..12 wins.
    * Otherwise degrees 0..64 with "gaussian_split" or plain "laplace" (certified L1 bound),
      again by the smaller total noise variance.  The L1 sensitivity grows only like log K
      (the indicator's coefficients decay like 1/k), so Laplace can win when delta is tiny.
    The released degrees are then cut by the automatic degree rule (``pp.auto_degree``).
    * Before all that, if n * eps < HISTOGRAM_EPS_N: "hq", a Laplace histogram (pure eps-DP)
      with hist.auto_bins(n, eps) bins and PCHIP interpolation of the monotone edge values.
    """
    eps_v, delta_v = check_privacy(eps, delta)
    if n * eps_v < HISTOGRAM_EPS_N:
        m = auto_bins(n, eps_v)
        return AutoPlan(
            "laplace",
            m,
            float(np.sqrt(2.0) * 2.0 / (n * eps_v)),
            f"n*eps < {HISTOGRAM_EPS_N:g}: {m}-bin Laplace histogram with PCHIP interpolation",
            method="hq",
        )
    sigma = gaussian.calibrate_sigma(eps_v, delta_v, 1.0 / n)
    if sigma >= HIGH_NOISE:
        k = HIGH_NOISE_K_MAX
        g_var = sigma**2 * (1.0 + k / 2.0)
        b = pp.l1_sensitivity(k, c0_scale=pp.LAPLACE_C0_SCALE) / (n * eps_v)
        l_var = 2.0 * b * b * (pp.LAPLACE_C0_SCALE**2 + k)
        if l_var < g_var:
            return AutoPlan(
                "laplace_weighted",
                k,
                float(np.sqrt(2.0) * b),
                "high noise: weighted Laplace has less noise variance on 0..12",
            )
        return AutoPlan(
            "gaussian_split",
            k,
            sigma,
            "high noise: split Gaussian has less noise variance on 0..12",
        )
    k = AUTO_K_MAX
    g_var = sigma**2 * (1.0 + k / 2.0)
    # A coarse-grid maximum (no margin) is a LOWER bound on Delta_1: if Laplace loses even with
    # it, the certified (slower to compute) upper bound is not needed.
    b_low = pp.l1_sensitivity_lower(k) / (n * eps_v)
    if 2.0 * b_low * b_low * (k + 1) >= g_var:
        return AutoPlan("gaussian_split", k, sigma, "split Gaussian has less noise variance")
    b = pp.l1_sensitivity(k) / (n * eps_v)
    l_var = 2.0 * b * b * (k + 1)
    if l_var < g_var:
        return AutoPlan("laplace", k, float(np.sqrt(2.0) * b), "Laplace has less noise variance")
    return AutoPlan("gaussian_split", k, sigma, "split Gaussian has less noise variance")


def _estimate_auto(
    data: ArrayLike, *, bounds: object, eps: float, delta: float, rng: object = None
) -> CDFEstimate:
    eps_v, delta_v = check_privacy(eps, delta)
    clipped = clip_data(data, bounds)
    plan = auto_plan(clipped.n, eps_v, delta_v)
    if plan.method == "hq":
        est = estimate_hq(data, bounds=bounds, eps=eps_v, delta=delta_v, rng=rng,
                          bins=plan.k_max, interpolation="pchip")
        return replace(est, method="auto", info={**est.info, "plan": plan})
    rel = pp.release(clipped, eps_v, delta_v, k_max=plan.k_max, noise=plan.noise, rng=make_rng(rng))
    est = pp.from_release(rel, "auto", method="auto")
    est.info["plan"] = plan
    return est


_DISPATCH: dict[str, Callable[..., CDFEstimate]] = {
    "auto": _estimate_auto,
    "pp": pp.estimate_pp,
    "mp": estimate_mp,
    "hq": estimate_hq,
    "aq": estimate_aq,
}

_OPTIONS = {
    "auto": (),
    "pp": ("k_max", "degree", "noise"),
    "mp": ("families", "k_max", "max_atoms", "noise"),
    "hq": ("bins", "noise", "interpolation"),
    "aq": ("quantiles",),
}


def estimate(
    data: ArrayLike,
    *,
    bounds: object,
    eps: float,
    delta: float,
    method: str = "auto",
    rng: object = None,
    **options: object,
) -> CDFEstimate:
    """Differentially private CDF of one-dimensional ``data`` on public ``bounds``.

    Parameters: ``data`` (1-D finite numbers, n >= 2; values outside bounds are clipped and
    counted in ``result.release.n_below / n_above``), ``bounds`` = (lo, hi) with lo < hi,
    ``eps`` > 0, ``delta`` in (0, 1), ``method`` in METHODS, ``rng`` (None, int seed or numpy
    Generator), method ``options`` (see each module).  Neighbours: replace one record, n public.
    Returns a CDFEstimate certifying (result.eps, result.delta) <= (eps, delta).
    Raises ValueError naming the parameter and its allowed range for bad input.
    """
    if not isinstance(method, str) or method not in _DISPATCH:
        raise ValueError(f"method must be one of {METHODS} (got {method!r})")
    unknown = sorted(set(options) - set(_OPTIONS[method]))
    if unknown:
        allowed = ", ".join(_OPTIONS[method]) or "none"
        raise ValueError(
            f"unknown option(s) {unknown} for method {method!r}; allowed options: {allowed}"
        )
    return _DISPATCH[method](data, bounds=bounds, eps=eps, delta=delta, rng=rng, **options)
