"""The exact privacy profile of the Gaussian mechanism, computed without cancellation or underflow.

Setting: M(D) = f(D) + Z with Z ~ N(0, sigma^2) and global (L2) sensitivity Delta. With
h = Delta / sigma, a = h/2 - eps/h and c = -h/2 - eps/h the exact profile is (Balle & Wang 2018,
"Improving the Gaussian mechanism for differential privacy", Theorem 8)

    delta(eps) = Phi(a) - e^eps Phi(c).

Numerics (see ``shared/math.md``). With the Mills ratio R(z) = Phi(-z)/phi(z) and x = -a,

    Phi(a) = phi(a) R(x),   e^eps Phi(c) = phi(a) R(x + h)      (because phi(a) = e^eps phi(c)),

so delta = phi(a) (R(x) - R(x+h)) and, in logs, ln delta = ln Phi(a) + ln(1 - e^{-dl}) with
dl = ln R(x) - ln R(x+h) > 0. R is evaluated through ``scipy.special.erfcx`` (no underflow:
R(z) = sqrt(pi/2) erfcx(z/sqrt 2)). When dl is small the two Mills ratios nearly cancel; there dl
is computed instead as the integral of a positive function,

    dl = int_x^{x+h} m(u) du,   m(u) = 1/R(u) - u = -(ln R)'(u) > 0,

by 8-point Gauss-Legendre (the interval is short relative to m's distance to its complex
singularities, so the rule is accurate to rounding), with m(u) from its continued fraction
m(u) = 1/(u + 2/(u + 3/(u + ...))) for u >= 4 (DLMF 7.9.3) and directly for u < 4.
No path subtracts two nearly equal numbers, so ln delta is accurate to a few ulps of
max(1, |ln delta|) and delta = exp(ln delta) is accurate to ~1e-14 relative wherever it is a
normal double (checked against mpmath at 100 digits: tests/reference/).

Public functions take (eps, sensitivity, sigma) in the units of the query's output.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special as sc
from scipy.stats import norm

from dpcore import _validate as v

__all__ = [
    "ClassicBound",
    "NoiseErrors",
    "WorstEvent",
    "boundary",
    "calibrate_sigma",
    "classic_log_delta",
    "classic_sigma",
    "delta",
    "densities",
    "epsilon",
    "laplace_delta",
    "laplace_log_delta",
    "log_delta",
    "noise_errors",
    "privacy_loss",
    "worst_event",
]

FloatOrArray = float | NDArray[np.float64]

_SQRT2 = math.sqrt(2.0)
_LOG_HALF = math.log(0.5)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
Z95 = float(sc.ndtri(0.975))  # 1.959963984540054: 95 % of N(0, 1) lies within +-Z95

# The direct formulas are used while the subtracted part is at most _Q_DIRECT of the whole
# (at most ~1.5 digits lost, error < 3e-14); above it the integral of m is used.
_Q_DIRECT = 0.97
# Inverses aim 4 ulps (relative, in ln delta) below the target, so the result stays conservative
# whichever evaluation path (scalar or vectorised; they differ by ~1 ulp) checks it.
_SAFETY = 8.9e-16
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(8)
_CF_FROM = 4.0


# --------------------------------------------------------------------------------------------
# Building blocks (work on numpy arrays and on floats alike)
# --------------------------------------------------------------------------------------------
# Continued-fraction depth per range of u (upper limit, depth), reaching rounding level;
# checked against mpmath at 50 digits. Shared by the vector and scalar evaluations of m.
_CF_DEPTHS = ((8.0, 40), (16.0, 16), (25.0, 10), (50.0, 8), (math.inf, 6))


def _m(u: NDArray[np.float64]) -> NDArray[np.float64]:
    """m(u) = 1/R(u) - u = -(ln R)'(u) > 0, to ~2 ulps for every real u."""
    u = np.asarray(u, dtype=np.float64)
    out = np.empty_like(u)
    lo = u < _CF_FROM
    if np.any(lo):
        ul = u[lo]
        out[lo] = _SQRT_2_OVER_PI / sc.erfcx(ul / _SQRT2) - ul
    start = _CF_FROM
    for limit, depth in _CF_DEPTHS:
        sel = (u >= start) & (u < limit)
        start = limit
        if np.any(sel):
            us = u[sel]
            t = np.zeros_like(us)
            for k in range(depth, 1, -1):
                t = k / (us + t)
            out[sel] = 1.0 / (us + t)
    return out


def _dl_integral(x: NDArray[np.float64], h: NDArray[np.float64]) -> NDArray[np.float64]:
    """ln R(x) - ln R(x + h) as the Gauss-Legendre integral of m over [x, x + h]."""
    half = 0.5 * h
    mid = x + half
    nodes = mid[..., None] + half[..., None] * _GL_NODES
    return half * (_m(nodes) @ _GL_WEIGHTS)


_GL_PAIRS = tuple(zip(_GL_NODES.tolist(), _GL_WEIGHTS.tolist(), strict=True))
def _m_scalar(u: float) -> float:
    """Scalar m(u): the same formulas and depths as :func:`_m`."""
    if u < _CF_FROM:
        return _SQRT_2_OVER_PI / float(sc.erfcx(u / _SQRT2)) - u
    depth = 6
    for limit, d in _CF_DEPTHS:  # a plain loop: a generator costs more than m itself
        if u < limit:
            depth = d
            break
    t = 0.0
    for k in range(depth, 1, -1):
        t = k / (u + t)
    return 1.0 / (u + t)


def _dl_scalar(x: float, h: float) -> float:
    """Scalar :func:`_dl_integral` (pure Python: numpy's per-call overhead dominates here)."""
    half = 0.5 * h
    mid = x + half
    return half * sum(w * _m_scalar(mid + half * z) for z, w in _GL_PAIRS)


def _log_p0(a: NDArray[np.float64]) -> NDArray[np.float64]:
    """ln Phi(a), through erfcx for a <= 0 (one rounding in a^2/2) and log_ndtr above."""
    out = np.empty_like(a)
    le = a <= 0.0
    out[le] = np.log(0.5 * sc.erfcx(-a[le] / _SQRT2)) - 0.5 * a[le] ** 2
    out[~le] = sc.log_ndtr(a[~le])
    return out


def _log_delta_vec(eps: NDArray[np.float64], h: NDArray[np.float64]) -> NDArray[np.float64]:
    """ln delta for 1-D arrays eps >= 0, h > 0 (the vectorised twin of _scalar_parts).

    With e1 = erfcx(|a|/sqrt2) and e2 = erfcx((x+h)/sqrt2), both never overflow:
    a <= 0: delta = phi(a) (R(x) - R(x + h)) = 0.5 e^{-a^2/2} (e1 - e2);
    a > 0:  delta = 1 - s, s = Phi(-a) + e^eps Phi(c) = 0.5 e^{-a^2/2} (e1 + e2), a sum of
    positive terms. Both are used while the subtracted part is <= _Q_DIRECT of the whole; the
    rest goes through the integral of m. Computing both branches everywhere and selecting
    costs less than gathering and scattering the two subsets.
    """
    r = eps / h
    hh = 0.5 * h
    a = hh - r
    e2 = sc.erfcx((r + hh) / _SQRT2)
    e1 = sc.erfcx(np.abs(a) / _SQRT2)
    half_a2 = 0.5 * a * a
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        pos = a <= 0.0
        s = 0.5 * np.exp(-half_a2) * (e1 + e2)
        out = np.where(pos, np.log(0.5 * (e1 - e2)) - half_a2, np.log1p(-s))
        careful = np.where(pos, e2 > _Q_DIRECT * e1, s > _Q_DIRECT)
    if np.any(careful):
        dl = _dl_integral(-a[careful], h[careful])
        out[careful] = _log_p0(a[careful]) + np.log(-np.expm1(-dl))
    return out


def _scalar_parts(eps: float, h: float) -> tuple[float, float, float, float]:
    """Scalar twin of :func:`_log_delta_vec` (same formulas, branches instead of masks).

    Returns (a, ln Phi(a), ln[e^eps Phi(c)], ln delta) for eps >= 0, h > 0.
    """
    a = 0.5 * h - eps / h
    x = -a
    half_a2 = 0.5 * a * a
    e2 = float(sc.erfcx((eps / h + 0.5 * h) / _SQRT2))
    log_p1s = math.log(0.5 * e2) - half_a2 if e2 > 0.0 else -math.inf
    if x >= 0.0:
        e1 = float(sc.erfcx(x / _SQRT2))
        log_p0 = math.log(0.5 * e1) - half_a2
        if e2 <= _Q_DIRECT * e1:
            return a, log_p0, log_p1s, math.log(0.5 * (e1 - e2)) - half_a2
    else:
        log_p0 = float(sc.log_ndtr(a))
        s = 0.5 * math.exp(-half_a2) * (float(sc.erfcx(a / _SQRT2)) + e2)
        if s <= _Q_DIRECT:
            return a, log_p0, log_p1s, math.log1p(-s)
    dl = _dl_scalar(x, h)
    return a, log_p0, log_p1s, log_p0 + math.log(-math.expm1(-dl))


def _check_finite_result(log_d: FloatOrArray) -> None:
    if np.any(np.isneginf(log_d)) or np.any(np.isnan(log_d)):
        raise ValueError(
            "ln(delta) is below -1.8e308, beyond what a double can hold: sensitivity/sigma is too "
            "small for this epsilon (choose a larger sensitivity/sigma ratio or a smaller epsilon)"
        )


_H_TOO_BIG = "sensitivity/sigma must be a finite number: sigma is too small for it"
_H_TOO_SMALL = "sensitivity/sigma underflows to 0: sigma is too large for this sensitivity"


def _h(sensitivity: NDArray[np.float64], sigma: NDArray[np.float64]) -> NDArray[np.float64]:
    with np.errstate(over="ignore", under="ignore"):
        h = sensitivity / sigma
    if np.any(np.isinf(h)):
        raise ValueError(_H_TOO_BIG)
    if np.any((h == 0.0) & (sensitivity > 0.0)):
        raise ValueError(_H_TOO_SMALL)
    return h


# --------------------------------------------------------------------------------------------
# The profile
# --------------------------------------------------------------------------------------------
def log_delta(eps: ArrayLike, sensitivity: ArrayLike, sigma: ArrayLike) -> FloatOrArray:
    """Natural log of the exact delta(eps) of the Gaussian mechanism (Balle & Wang 2018, Thm 8).

    Domain: eps >= 0, sensitivity >= 0, sigma > 0, all finite; numpy broadcasting.
    Edge cases: sensitivity == 0 gives -inf exactly (both outputs have the same law, delta = 0);
    eps == 0 gives ln(2 Phi(h/2) - 1) (total variation distance). For sensitivity > 0 the value
    is finite whenever it fits in a double, also when delta itself underflows (e.g.
    sensitivity = 1/32, sigma = 10, eps = 10 gives ln delta = -5.12e6); if ln delta would be
    below -1.8e308, ValueError.
    Accuracy: |error| <= ~1e-14 * max(1, |ln delta|) over h = sensitivity/sigma in [1e-6, 1e3] and
    eps in [0, 1e4] (tests/reference/ holds 100-digit mpmath values).
    Returns a float for scalar input, else an array of the broadcast shape.
    """
    args = (eps, sensitivity, sigma)
    if all(isinstance(z, (int, float)) and not isinstance(z, bool) for z in args):
        return _log_delta_scalar(eps, sensitivity, sigma)  # type: ignore[arg-type]
    e = v.real("epsilon", eps, lo=0.0)
    d = v.real("sensitivity", sensitivity, lo=0.0)
    s = v.real("sigma", sigma, lo=0.0, lo_open=True)
    e, d, s = np.broadcast_arrays(e, d, s)
    shape = e.shape
    e, d, s = e.ravel(), d.ravel(), s.ravel()
    out = np.full(e.shape, -np.inf)
    live = d > 0.0
    if np.any(live):
        h = _h(d[live], s[live])
        with np.errstate(over="ignore"):
            out[live] = _log_delta_vec(e[live], h)
        _check_finite_result(out[live])
    out = out.reshape(shape)
    return float(out) if out.ndim == 0 else out


def _log_delta_scalar(eps: float, sensitivity: float, sigma: float) -> float:
    """Fast path of :func:`log_delta` for plain Python numbers (the UI's and solvers' case)."""
    e = v.real_scalar("epsilon", eps, lo=0.0)
    d = v.real_scalar("sensitivity", sensitivity, lo=0.0)
    s = v.real_scalar("sigma", sigma, lo=0.0, lo_open=True)
    if d == 0.0:
        return -math.inf
    h = d / s
    if math.isinf(h) or h == 0.0:
        raise ValueError(_H_TOO_BIG if h else _H_TOO_SMALL)
    try:
        ld = _scalar_parts(e, h)[3]
    except (OverflowError, ValueError):  # math.log(0.0) / overflow: ln delta beyond doubles
        ld = -math.inf
    _check_finite_result(ld)
    return ld


def delta(eps: ArrayLike, sensitivity: ArrayLike, sigma: ArrayLike) -> FloatOrArray:
    """Exact delta(eps) of the Gaussian mechanism as a double (Balle & Wang 2018, Thm 8).

    Same domain and broadcasting as :func:`log_delta`. Returns 0.0 only for sensitivity == 0
    (exactly zero) or when the positive value is below the smallest subnormal double (underflow);
    use :func:`log_delta` or ``dpcore.certify`` to tell those apart. Relative error ~1e-14 while
    delta >= 1e-300.
    """
    ld = log_delta(eps, sensitivity, sigma)
    with np.errstate(under="ignore"):
        out = np.exp(ld)
    return float(out) if np.ndim(out) == 0 else out


def _log_delta_h(eps: float, h: float) -> float:
    """Scalar ln delta for already validated eps >= 0 and h > 0."""
    return _scalar_parts(eps, h)[3]


# --------------------------------------------------------------------------------------------
# Inverses
# --------------------------------------------------------------------------------------------
def _h_for_delta(eps: float, log_target: float) -> float:
    """The h > 0 with ln delta(eps; h) = log_target (delta is increasing in h), to ~1 ulp."""
    # delta(0; h) = erf(h / (2 sqrt 2)) >= delta(eps; h), so its root is a lower bound; the tail
    # approximation delta ~ phi(a)/|a| suggests a ~ -sqrt(-2 ln target), h/2 - eps/h = a.
    h = 2.0 * _SQRT2 * float(sc.erfinv(math.exp(log_target)))
    if not (h > 0.0 and math.isfinite(h)):
        h = 1e-300
    if eps > 0.0:
        a0 = -math.sqrt(max(-2.0 * log_target, 0.0))
        h_tail = 2.0 * eps / (math.sqrt(a0 * a0 + 2.0 * eps) - a0)  # = a0 + sqrt(a0^2 + 2 eps)
        if math.isfinite(h_tail):
            h = max(h, h_tail)
    # Newton on ln h, carried out multiplicatively on h so the iterate keeps a relative
    # precision of one ulp even when |ln h| is large; [lo, hi] brackets the root.
    lo, hi = 0.0, math.inf
    for _ in range(200):
        a, _, _, ld = _scalar_parts(eps, h)
        g = ld - log_target
        if g > 0.0:
            hi = min(hi, h)
        else:
            lo = max(lo, h)
        if g == 0.0:
            break
        # d ln delta / d ln h = h phi(a) / delta
        slope = math.exp(min(math.log(h) - 0.5 * a * a - _LOG_SQRT_2PI - ld, 700.0))
        step = -g / slope if slope > 0.0 else -math.copysign(1.0, g)
        step = max(min(step, 20.0), -20.0)
        new = h * math.exp(step)
        if abs(new - h) <= 4e-16 * h:
            break
        if not (lo < new < hi):  # Newton left the bracket: bisect it (or expand it)
            if lo > 0.0 and math.isfinite(hi):
                new = math.sqrt(lo) * math.sqrt(hi)
            else:
                new = h * (math.e**2 if g < 0.0 else math.e**-2)
        h = new
    return h


def calibrate_sigma(eps: float, delta: float, sensitivity: float) -> float:
    """The smallest sigma whose exact Gaussian profile has delta(eps) <= ``delta``.

    Domain: eps >= 0, delta in [0, 1], sensitivity >= 0 (finite). Edge cases: sensitivity == 0
    or delta >= 1 give 0.0 (no noise needed); delta == 0 with sensitivity > 0 gives math.inf (no
    finite sigma achieves pure DP with Gaussian noise). Always conservative: the returned sigma is
    checked in log space to satisfy ln delta(eps; sensitivity/sigma) <= ln(delta) - 4 ulps
    (so both evaluation paths agree it is within target) and nudged up by ulps if rounding put
    it a hair too low. Accuracy: within ~1e-15 relative of the true
    minimum (tests compare to an mpmath bisection at 60 digits), for eps in [0, 1e4] and delta in
    [1e-300, 1). Reference: Balle & Wang 2018, Algorithm 1 (we solve in ln delta instead).
    """
    e = v.real_scalar("epsilon", eps, lo=0.0)
    t = v.real_scalar("delta", delta, lo=0.0, hi=1.0)
    d = v.real_scalar("sensitivity", sensitivity, lo=0.0)
    if d == 0.0 or t >= 1.0:
        return 0.0
    if t == 0.0:
        return math.inf
    log_t = math.log(t)
    goal = log_t - _SAFETY * max(1.0, -log_t)
    h = _h_for_delta(e, goal)
    sigma = d / h
    bump = 2.220446049250313e-16
    for _ in range(64):  # make it conservative in log space: grow sigma by 1, 2, 4, ... ulps
        hh = d / sigma
        if hh > 0.0 and _log_delta_h(e, hh) <= goal:
            break
        sigma *= 1.0 + bump
        bump *= 2.0
    return sigma


def epsilon(delta: float, sensitivity: float, sigma: float) -> float:
    """The smallest eps >= 0 with exact Gaussian delta(eps) <= ``delta``.

    Domain: delta in [0, 1], sensitivity >= 0, sigma > 0 (finite). Edge cases: sensitivity == 0
    gives 0.0; delta == 0 with sensitivity > 0 gives math.inf (no finite pure epsilon exists);
    if delta(0) <= delta already, 0.0. Conservative: the returned eps satisfies
    ln delta(eps) <= ln(delta), checked in log space. Accuracy ~1e-15 relative.
    """
    t = v.real_scalar("delta", delta, lo=0.0, hi=1.0)
    d = v.real_scalar("sensitivity", sensitivity, lo=0.0)
    s = v.real_scalar("sigma", sigma, lo=0.0, lo_open=True)
    if d == 0.0 or t >= 1.0:
        return 0.0
    if t == 0.0:
        return math.inf
    h = float(_h(np.array(d), np.array(s)))
    log_t = math.log(t)
    if _log_delta_h(0.0, h) <= log_t:
        return 0.0
    # Start from the tail approximation a ~ -sqrt(-2 ln target): eps = h (h/2 - a).
    e = max(h * (0.5 * h + math.sqrt(max(-2.0 * log_t, 0.0))), 1e-300)
    lo, hi = 0.0, math.inf
    for _ in range(200):
        _, _, log_p1s, ld = _scalar_parts(e, h)
        g = ld - log_t
        if g > 0.0:
            lo = max(lo, e)
        else:
            hi = min(hi, e)
        if g == 0.0:
            break
        # d ln delta / d eps = -e^eps Phi(c) / delta
        slope = -math.exp(min(log_p1s - ld, 700.0))
        new = e - g / slope if slope < 0.0 and math.isfinite(slope) else math.nan
        if abs(new - e) <= 4e-16 * e:
            break
        if not (lo < new < hi):
            new = 0.5 * (lo + hi) if math.isfinite(hi) else max(2.0 * e, e + 1.0)
        e = new
    goal = log_t - _SAFETY * max(1.0, -log_t)
    bump = 2.220446049250313e-16
    for _ in range(64):  # conservative in log space: grow eps by 1, 2, 4, ... ulps
        if _log_delta_h(e, h) <= goal:
            break
        e *= 1.0 + bump
        bump *= 2.0
    return e


# --------------------------------------------------------------------------------------------
# The picture behind the profile
# --------------------------------------------------------------------------------------------
def boundary(eps: float, sensitivity: float, sigma: float) -> float:
    """The worst event is y < t with t = d/2 - eps sigma^2 / d (reference centre at 0).

    Domain: eps >= 0, sensitivity >= 0, sigma > 0. Edge case: sensitivity == 0 gives -inf (the
    event where p - e^eps q > 0 is empty). Reference: Balle & Wang 2018, proof of Thm 8.
    """
    e = v.real_scalar("epsilon", eps, lo=0.0)
    d = v.real_scalar("sensitivity", sensitivity, lo=0.0)
    s = v.real_scalar("sigma", sigma, lo=0.0, lo_open=True)
    if d == 0.0:
        return -math.inf
    return 0.5 * d - e * s * s / d


def densities(
    y: ArrayLike, sensitivity: float, sigma: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The worst-neighbour output densities p = N(0, sigma^2) and q = N(sensitivity, sigma^2) at y.

    Units: inverse output units (heights exceed 1 when sigma < 1/sqrt(2 pi)).
    """
    d = v.real_scalar("sensitivity", sensitivity, lo=0.0)
    s = v.real_scalar("sigma", sigma, lo=0.0, lo_open=True)
    yy = np.asarray(y, dtype=np.float64)
    return norm.pdf(yy, 0.0, s), norm.pdf(yy, d, s)


def privacy_loss(y: ArrayLike, sensitivity: float, sigma: float) -> NDArray[np.float64]:
    """L(y) = ln p(y)/q(y) = d (d - 2y) / (2 sigma^2): linear in y, unbounded as y -> -inf."""
    d = v.real_scalar("sensitivity", sensitivity, lo=0.0)
    s = v.real_scalar("sigma", sigma, lo=0.0, lo_open=True)
    yy = np.asarray(y, dtype=np.float64)
    return d * (d - 2.0 * yy) / (2.0 * s * s)


@dataclass(frozen=True)
class WorstEvent:
    """The worst event y < t and its two probabilities; delta = p0 - p1_scaled.

    p0 = P[N(0, sigma^2) < t] = Phi(a); p1_scaled = e^eps P[N(d, sigma^2) < t] = e^eps Phi(c).
    The log fields stay finite where the doubles underflow (-inf only when d = 0).
    """

    t: float
    p0: float
    p1_scaled: float
    log_p0: float
    log_p1_scaled: float
    log_delta: float


def worst_event(eps: float, sensitivity: float, sigma: float) -> WorstEvent:
    """Boundary and the two probabilities of the worst event (Balle & Wang 2018, Thm 8)."""
    e = v.real_scalar("epsilon", eps, lo=0.0)
    d = v.real_scalar("sensitivity", sensitivity, lo=0.0)
    s = v.real_scalar("sigma", sigma, lo=0.0, lo_open=True)
    t = boundary(e, d, s)
    if d == 0.0:
        return WorstEvent(t, 0.0, 0.0, -math.inf, -math.inf, -math.inf)
    h = float(_h(np.array(d), np.array(s)))
    _, lp0, lp1, ld = _scalar_parts(e, h)
    _check_finite_result(ld)
    return WorstEvent(t, math.exp(lp0), math.exp(lp1), lp0, lp1, ld)


# --------------------------------------------------------------------------------------------
# Error figures and comparisons
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class NoiseErrors:
    """Error of N(0, sigma^2) noise, in the query's output units (MSE in squared units)."""

    mse: float
    mae: float
    half_width_95: float


def noise_errors(sigma: float) -> NoiseErrors:
    """MSE sigma^2, mean absolute error sigma sqrt(2/pi), 95 % half-width 1.95996 sigma.

    sigma >= 0 (0 allowed: no noise). The 5 % outside the 95 % interval is an accuracy
    statement, not the delta of differential privacy.
    """
    s = v.real_scalar("sigma", sigma, lo=0.0)
    return NoiseErrors(s * s, s * _SQRT_2_OVER_PI, Z95 * s)


@dataclass(frozen=True)
class ClassicBound:
    """The classic sufficient sigma = sqrt(2 ln(1.25/delta)) Delta / eps (Dwork & Roth 2014,
    Thm A.1); ``proven`` is False when eps >= 1, outside the theorem's hypothesis."""

    sigma: float
    proven: bool


def classic_sigma(eps: float, delta: float, sensitivity: float) -> ClassicBound:
    """Classic Gaussian-mechanism sigma, flagged when eps >= 1 (outside its proof).

    Domain: eps >= 0, delta in [0, 1], sensitivity >= 0. Edge cases: sensitivity == 0 gives 0;
    eps == 0 or delta == 0 (with sensitivity > 0) gives math.inf.
    """
    e = v.real_scalar("epsilon", eps, lo=0.0)
    t = v.real_scalar("delta", delta, lo=0.0, hi=1.0)
    d = v.real_scalar("sensitivity", sensitivity, lo=0.0)
    proven = 0.0 < e < 1.0
    if d == 0.0:
        return ClassicBound(0.0, proven)
    if e == 0.0 or t == 0.0:
        return ClassicBound(math.inf, proven)
    return ClassicBound(math.sqrt(2.0 * math.log(1.25 / t)) * d / e, proven)


def classic_log_delta(eps: ArrayLike, sensitivity: float, sigma: float) -> FloatOrArray:
    """ln of the delta the classic bound certifies for a given sigma: the classic formula
    sigma = sqrt(2 ln(1.25/delta)) Delta / eps solved for delta,

        ln delta_classic(eps) = ln 1.25 - (eps sigma / Delta)^2 / 2,  capped at ln 1 = 0.

    Only eps < 1 is inside the classic proof (Dwork & Roth 2014, Thm A.1); outside it the value is
    a formula, not a guarantee (it can be below the exact delta). -inf for Delta == 0.
    """
    e = v.real("epsilon", eps, lo=0.0)
    d = v.real_scalar("sensitivity", sensitivity, lo=0.0)
    s = v.real_scalar("sigma", sigma, lo=0.0, lo_open=True)
    if d == 0.0:
        out = np.full(e.shape, -np.inf)
    else:
        out = np.minimum(math.log(1.25) - 0.5 * (e * s / d) ** 2, 0.0)
    return float(out) if out.ndim == 0 else out


def laplace_log_delta(eps: ArrayLike, sensitivity: float, sigma: float) -> FloatOrArray:
    """ln delta(eps) of the Laplace mechanism with the same MSE as N(0, sigma^2).

    Scale b = sigma / sqrt(2) (MSE 2 b^2 = sigma^2), eps0 = Delta / b and
    delta_Lap(eps) = max(0, 1 - exp((eps - eps0) / 2)); -inf where it is exactly 0 (eps >= eps0)
    or Delta == 0. Reference: e.g. Balle, Barthe & Gaboardi 2018 (privacy profile of Laplace).
    """
    e = v.real("epsilon", eps, lo=0.0)
    d = v.real_scalar("sensitivity", sensitivity, lo=0.0)
    s = v.real_scalar("sigma", sigma, lo=0.0, lo_open=True)
    eps0 = d * _SQRT2 / s
    with np.errstate(divide="ignore"):
        out = np.where(e < eps0, np.log(-np.expm1(np.minimum(e - eps0, 0.0) / 2.0)), -np.inf)
    return float(out) if out.ndim == 0 else out


def laplace_delta(eps: ArrayLike, sensitivity: float, sigma: float) -> FloatOrArray:
    """delta(eps) of the Laplace mechanism at equal MSE (see :func:`laplace_log_delta`)."""
    out = np.exp(laplace_log_delta(eps, sensitivity, sigma))
    return float(out) if np.ndim(out) == 0 else out
