"""The exact privacy profile of the Gaussian mechanism, computed without cancellation or underflow.

Setting: M(D) = f(D) + Z with Z ~ N(0, sigma^2) and global (L2) sensitivity Delta. With
h = Delta / sigma, a = h/2 - eps/h and c = -h/2 - eps/h the exact profile is (Balle & Wang 2018,
"Improving the Gaussian mechanism for differential privacy", Theorem 8)

    delta(eps) = Phi(a) - e^eps Phi(c).

Numerics (docs/math.md#mills-ratio-form and the sections after it). With the Mills ratio
R(z) = Phi(-z)/phi(z) and x = -a,

    Phi(a) = phi(a) R(x),   e^eps Phi(c) = phi(a) R(x + h)      (because phi(a) = e^eps phi(c)),

so delta = phi(a) (R(x) - R(x+h)) and, in logs, ln delta = ln Phi(a) + ln(1 - e^{-dl}) with
dl = ln R(x) - ln R(x+h) > 0. R is evaluated through ``scipy.special.erfcx`` (no underflow:
R(z) = sqrt(pi/2) erfcx(z/sqrt 2)). Three paths, chosen so that cancellation costs at most a
factor 5 (x < 4) or 34 (x >= 4, where erfcx is not needed to decide):

A. a <= 0 and R(x+h)/R(x) <= 0.8 (x < 4) or h >= 0.034 x (x >= 4, then R(x+h)/R(x) <= 0.9704):
   ln delta = ln(0.5 (e1 - e2)) - a^2/2, e1 = erfcx(x/sqrt2), e2 = erfcx((x+h)/sqrt2);
B. a > 0 and 1 - delta <= 0.8: ln delta = log1p(-s), s = Phi(-a) + e^eps Phi(c) (a sum of
   positive terms);
C. otherwise dl is small and is computed as the integral of a positive function,

       dl = int_x^{x+h} m(u) du,   m(u) = 1/R(u) - u = -(ln R)'(u) > 0,

   by n-point Gauss-Legendre, n in {2, 3, 4, 8} chosen from tau = (h/2)/d, d a lower bound of
   the distance from the interval's midpoint to m's complex poles (the zeros of erfc(u/sqrt2):
   all in the second and third quadrants, nearest -1.916 +- 2.816i; Fettis, Caslin & Cramer,
   Math. Comp. 27 (1973)); the rule's relative error is below 1e-17 there (constants fitted
   against mpmath, tests/reference/). m(u) comes from its continued fraction
   m(u) = 1/(u + 2/(u + 3/(u + ...))) for u >= 4 (DLMF 7.9.3) and directly for u < 4. When dl
   itself would underflow (tiny h), ln(1 - e^{-dl}) = ln h + ln(mean of m) - dl/2 + O(dl^2).

Every scalar evaluation also returns a bound on its own rounding error (:func:`_error_bound`):
a first-order rounding analysis of the formulas above, with the library functions' accuracy
taken from measurements against mpmath (erfcx within 8 ulps, m within 4 ulps; bounds use twice
that). The verdicts of ``dpcore.certify`` and the inverses here use this bound, so they are
conservative for the true delta, not just for our own evaluation of it.

Public functions take (eps, sensitivity, sigma) in the units of the query's output.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special as sc

from dpcore import validate as v
from dpcore.errors import DPError

__all__ = [
    "CF_FROM",
    "H_OVER_X",
    "LOG_SQRT_2PI",
    "PATHS",
    "Q_DIRECT",
    "TINY_H",
    "Z95",
    "ClassicBound",
    "Evaluation",
    "NoiseErrors",
    "WorstEvent",
    "boundary",
    "calibrate_h",
    "calibrate_sigma",
    "calibrate_sigma_log",
    "check_log_delta",
    "classic_log_delta",
    "classic_sigma",
    "delta",
    "densities",
    "epsilon",
    "evaluate",
    "laplace_delta",
    "laplace_log_delta",
    "log_delta",
    "log_delta_bounds",
    "noise_errors",
    "privacy_loss",
    "worst_event",
]

FloatOrArray = float | NDArray[np.float64]

_U = 2.0**-53  # unit roundoff of a double
_SQRT2 = math.sqrt(2.0)
_INV_SQRT2 = 1.0 / _SQRT2
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
#: ln sqrt(2 pi): ln phi(z) = -z^2/2 - LOG_SQRT_2PI.
LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_LOG_SQRT_2PI = LOG_SQRT_2PI
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_LN2 = math.log(2.0)
_MIN_NORMAL = 2.2250738585072014e-308
_MAX = 1.7976931348623157e308
Z95 = float(sc.ndtri(0.975))  # 1.959963984540054: 95 % of N(0, 1) lies within +-Z95

#: Below this h the scalar path keeps ln h and eps/h exactly (h itself may be subnormal), and
#: the vectorised path hands such elements to it; a dl at or below it takes the series
#: ln(1 - e^-dl) = ln dl - dl/2 (docs/math.md#tiny-h).
TINY_H = 2.0**-1000
#: The direct formulas (paths A and B) are used while the subtracted part is at most Q_DIRECT of
#: the whole (rounding errors amplified at most 5x; the integral path is more accurate, and this
#: keeps the proven error bound, hence every margin, small; docs/math.md#three-paths).
Q_DIRECT = 0.8
#: For x >= CF_FROM the A/C split is made without erfcx: h >= H_OVER_X x gives
#: dl >= g(4) ln(1.034) = 0.0300, so q <= 0.9704 (amplification at most 34).
H_OVER_X = 0.034
#: Where m(u) switches from its direct formula to the continued fraction (DLMF 7.9.3), and where
#: the A/C split switches from q <= Q_DIRECT to h >= H_OVER_X x.
CF_FROM = 4.0
#: The paths of :func:`evaluate`: "A", "B", "C" and "out" (ln delta below the double range).
PATHS = ("A", "B", "C", "out")
_TINY_H = TINY_H
_Q_DIRECT = Q_DIRECT
_H_OVER_X = H_OVER_X
# Accuracy of the building blocks, relative, used by the error bound: twice the worst error
# measured against mpmath (tests/reference/make_conservative_reference.py prints both).
_THETA_ERFCX = 16 * _U
_THETA_CF = 8 * _U
_SUBNORMAL_SLACK = 1e-321  # where a probability is formed as a double it may be subnormal

# Gauss-Legendre rules for dl = int_x^{x+h} m(u) du (relative error below 1e-17, measured
# against mpmath at 60-80 digits with a factor 4 to spare; tests/reference/ keeps the script):
# * x < 4 (m evaluated directly): in u, n points while tau = (h/2)/d <= limit, d a lower bound
#   of the distance from the midpoint to m's poles; error ~ C_n tau^(2n), C = .096, .026, .016;
#   else 8 points (below 4e-22 up to tau = 0.113, the largest that occurs with _Q_DIRECT).
# * x >= 4 (m from its continued fraction): in v = ln u, where the integrand g = u m(u) =
#   1 - 2/u^2 + 10/u^4 - ... is nearly constant; its first two terms are integrated exactly,
#   P = Lv - h (2x + h) / (x^2 (x + h)^2) with Lv = ln(1 + h/x), and the rule only sees the
#   remainder ~10/u^4: 1 point while Lv <= 4.5e-10 x^2, 2 while Lv <= 3.5e-5 x, 3 while
#   Lv <= 0.0075, 4 while Lv <= 0.05 (h < 0.034 x keeps Lv below 0.034), else 8.
_GL = {n: tuple(np.polynomial.legendre.leggauss(n)) for n in (1, 2, 3, 4, 8)}
_GL_PAIRS = {n: tuple(zip(z.tolist(), w.tolist(), strict=True)) for n, (z, w) in _GL.items()}
_GL_TAU = (5e-5, 1.3e-3, 6e-3)
_RULES_U = (2, 3, 4, 8, 8)
_RULES_V = (1, 2, 3, 4, 8)
_NRULES = 5
_POLE_RE, _POLE_IM = -1.916, 2.816  # nearest pole of m, u = sqrt2 * (first zero of erfc)
_CF_FROM = CF_FROM
# Continued-fraction depth per range of u (upper limit, depth): the truncation error is below
# 1e-17 relative in each range (checked against mpmath at 50 digits on a fine grid:
# tests/reference/make_conservative_reference.py). Shared by the vector and scalar paths.
_CF_DEPTHS = ((5.0, 44), (6.0, 30), (7.0, 24), (9.0, 20), (13.0, 16), (17.0, 12), (26.0, 10),
              (36.0, 8), (56.0, 7), (100.0, 6), (240.0, 5), (1200.0, 4), (math.inf, 3))
_CF_LIMITS = np.array([_CF_FROM] + [lim for lim, _ in _CF_DEPTHS[:-1]])
_METHODS = (0, *(d for _, d in _CF_DEPTHS))  # index from searchsorted(_CF_LIMITS, x)
_LUT_TOP = float(_CF_LIMITS[-1])
_METHOD_LUT = np.searchsorted(_CF_LIMITS, np.arange(int(_LUT_TOP) + 1), side="right").astype(
    np.int8)


# --------------------------------------------------------------------------------------------
# Building blocks
# --------------------------------------------------------------------------------------------
def _pole_distance(mid: float) -> float:
    """A lower bound of the distance from the real point ``mid`` to the poles of m.

    The poles lie in the sector pi/2 < |arg u| < 3pi/4 (|Im| > |Re|) with |Im| >= 2.816, so for
    mid >= 0 the distance is at least sqrt(mid^2 + 2.816^2); for mid < 0 at least
    max(2.816, |mid|/sqrt2).
    """
    if mid >= 0.0:
        return math.sqrt(mid * mid + _POLE_IM * _POLE_IM)
    return max(_POLE_IM, -mid / _SQRT2)


def _rule_u(tau: float) -> int:
    return _RULES_U[(tau > _GL_TAU[0]) + (tau > _GL_TAU[1]) + (tau > _GL_TAU[2])]


_V_LIMITS = (4.5e-10, 3.5e-5, 0.0075, 0.05)  # times x^2, times x, constant, constant


def _rule_v(lv: float, x: float) -> int:
    return _RULES_V[(lv > _V_LIMITS[0] * x * x) + (lv > _V_LIMITS[1] * x) + (lv > _V_LIMITS[2])
                    + (lv > _V_LIMITS[3])]


def _cf_depth(x: float) -> int:
    """Continued-fraction depth for every u >= x >= _CF_FROM (the depth falls with u)."""
    for limit, d in _CF_DEPTHS:  # a plain loop: a generator costs more than m itself
        if x < limit:
            return d
    return 3


def _m_scalar(u: float) -> float:
    """m(u) = 1/R(u) - u = -(ln R)'(u) > 0, directly (used on intervals starting below 4)."""
    return _SQRT_2_OVER_PI / float(sc.erfcx(u * _INV_SQRT2)) - u


def _g_scalar(u: float, depth: int) -> float:
    """g(u) - 1 + 2/u^2 with g(u) = u m(u) = u / (u + 2/(u + 3/(u + ...))) (u >= 4)."""
    t = depth / u
    for k in range(depth - 1, 1, -1):
        t = k / (u + t)
    return 2.0 / (u * u) - t / (u + t)


def _m_rows(u: NDArray[np.float64]) -> NDArray[np.float64]:
    """Vectorised :func:`_m_scalar`."""
    return _SQRT_2_OVER_PI / sc.erfcx(u * _INV_SQRT2) - u


def _g_rows(u: NDArray[np.float64], depth: int) -> NDArray[np.float64]:
    """Vectorised :func:`_g_scalar`."""
    t = depth / u
    for k in range(depth - 1, 1, -1):
        t = k / (u + t)
    return 2.0 / (u * u) - t / (u + t)


@overload
def _p_exact(x: float, h: float, lv: float) -> float: ...
@overload
def _p_exact(x: NDArray[np.float64], h: NDArray[np.float64], lv: NDArray[np.float64]
             ) -> NDArray[np.float64]: ...
def _p_exact(x: float | NDArray[np.float64], h: float | NDArray[np.float64],
             lv: float | NDArray[np.float64]) -> float | NDArray[np.float64]:
    """int_x^{x+h} (1/u - 2/u^3) du = Lv - h (2x + h) / (x^2 (x+h)^2) (both terms positive,
    the second at most 1/8 of the first for x >= 4)."""
    xh = x + h
    return lv - h * (2.0 * x + h) / ((x * x) * (xh * xh))


class _Parts(NamedTuple):
    """One scalar evaluation: a = h/2 - eps/h, ln Phi(a), ln[e^eps Phi(c)], ln delta and what
    the error bound needs (the path and its cancellation measure q)."""

    a: float
    log_p0: float
    log_p1s: float
    log_delta: float
    path: str  # "A", "B", "C" or "out" (ln delta below the double range)
    q: float  # A: e2/e1; B: s = 1 - delta; C: dl
    r: float  # eps / h
    h: float
    log_h: float


_OUT = float("-inf")


def _core(eps: float, h: float, r: float, log_h: float) -> _Parts:
    """ln delta for eps >= 0, h > 0, r = eps/h, log_h = ln h (exact inputs; h may be subnormal).

    Never raises: a value below the double range gives path "out" and -inf.
    """
    hh = 0.5 * h
    a = hh - r
    half_a2 = 0.5 * a * a
    if not half_a2 < _MAX:  # |a| > 1.9e154: ln delta < -a^2/2 < -1.8e308
        return _Parts(a, _OUT, _OUT, _OUT, "out", 0.0, r, h, log_h)
    e2 = float(sc.erfcx((r + hh) * _INV_SQRT2))
    log_p1s = math.log(0.5 * e2) - half_a2 if e2 > 0.0 else _OUT
    x = -a
    if x >= 0.0:
        e1 = float(sc.erfcx(x * _INV_SQRT2))
        log_p0 = math.log(0.5 * e1) - half_a2
        q = e2 / e1
        if (q <= _Q_DIRECT) if x < _CF_FROM else (h >= _H_OVER_X * x):
            return _Parts(a, log_p0, log_p1s, math.log(0.5 * (e1 - e2)) - half_a2, "A", q, r, h,
                          log_h)
    else:
        g = 0.5 * math.exp(-half_a2)
        e1 = float(sc.erfcx(a * _INV_SQRT2))
        log_p0 = math.log1p(-g * e1)
        s = g * (e1 + e2)
        if s <= _Q_DIRECT:
            return _Parts(a, log_p0, log_p1s, math.log1p(-s), "B", s, r, h, log_h)
    total = 0.0
    if x < _CF_FROM:  # in u, m directly
        mid = x + hh
        for z, w in _GL_PAIRS[_rule_u(hh / _pole_distance(mid))]:
            total += w * _m_scalar(mid + hh * z)
        dl = hh * total
        small = dl <= _TINY_H or h <= _TINY_H
        log_len = log_h
    else:  # in v = ln u, g = u m from the continued fraction
        t = h / x
        lv = math.log1p(t)
        n = _rule_v(lv, x)
        depth = _cf_depth(x)
        if n == 1:
            total = 2.0 * _g_scalar(x * math.exp(0.5 * lv), depth)
        else:
            for z, w in _GL_PAIRS[n]:
                total += w * _g_scalar(x * math.exp(lv * 0.5 * (1.0 + z)), depth)
        dl = _p_exact(x, h, lv) + 0.5 * lv * total
        small = dl <= _TINY_H
        if small:  # h/x underflows: dl = Lv (1 - 2/x^2 + total/2) to relative O(h/x)
            log_len = log_h - math.log(x) if lv <= _TINY_H else math.log(lv)
            total = 2.0 * (1.0 - 2.0 / (x * x)) + total
    if not small:
        tail = math.log(-math.expm1(-dl))
    else:  # ln(1 - e^-dl) = ln dl - dl/2 + O(dl^2), ln dl = ln(length) + ln(total/2)
        tail = log_len + math.log(0.5 * total) - 0.5 * dl
    return _Parts(a, log_p0, log_p1s, log_p0 + tail, "C", dl, r, h, log_h)


def _parts(eps: float, h: float) -> _Parts:
    """:func:`_core` for a double h (r and ln h from it)."""
    return _core(eps, h, eps / h, math.log(h))


def _scalar_parts(eps: float, h: float) -> tuple[float, float, float, float]:
    """(a, ln Phi(a), ln[e^eps Phi(c)], ln delta) for eps >= 0, h > 0."""
    p = _parts(eps, h)
    return p.a, p.log_p0, p.log_p1s, p.log_delta


def _error_bound(p: _Parts) -> float:
    """See :func:`_error_bound_first_order`; twice it."""
    return 2.0 * _error_bound_first_order(p)


def _error_bound_first_order(p: _Parts) -> float:
    """Upper bound on |computed ln delta - exact ln delta| for the exact inputs (eps, h).

    First-order rounding analysis (u = 2^-53; every +, -, *, /, exp, log, log1p, expm1 within
    one rounding, erfcx within _THETA_ERFCX and m within _THETA_CF relative):
      a = h/2 - eps/h carries at most da = u (eps/h + |a|); a^2/2 at most |a| da + u a^2/2;
      e1 = erfcx(|a|/sqrt2) is off by eps1 <= theta + min(2/sqrt(pi), sqrt2/|a|) (da/sqrt2) + 3u
      relative (|d ln erfcx(z)/dz| <= min(2/sqrt(pi), 1/z) for z >= 0), e2 by eps2 <= theta + 4u;
      A: ln(0.5 (e1 - e2)) amplifies them by 1/(1 - q): (eps1 + q eps2)/(1 - q);
      B: log1p(-s) turns the relative error of s into s/(1 - s) times it;
      C: the whole interval moves with a, which changes ln delta by |d ln delta/d(eps/h)| da =
         h e^{ln p1s - ln delta} da; dl is off by theta_m (m, or (1 + u/m) (theta + 3u) on the
         direct branch) + 2u(|mid| + h/2) |m'/m| + (n + 2) u, and ln(1 - e^-dl) by
         dl/(e^dl - 1) times that.
    Plus one rounding of each logarithm of size up to |ln delta|. :func:`_error_bound` doubles
    the sum for second-order terms and alignments the first-order count misses. Checked against
    mpmath on 10,000 points (tests/dpcore/test_conservative_verdicts.py): the measured error
    reaches 1.05
    times this first-order sum at worst (a = -1.2e9, where four errors of a^2/2 line up), so
    at most 0.53 of the doubled bound.
    """
    if p.path == "out":
        return 0.0
    u = _U
    a, ld, r = p.a, p.log_delta, p.r
    aa = abs(a)
    da = u * (r + aa) + 4.9e-324
    d_a2 = aa * da + u * 0.5 * a * a
    z1 = aa / _SQRT2
    slope1 = 1.1284 if z1 < 0.8862 else 1.0 / z1
    eps1 = _THETA_ERFCX + slope1 * (da / _SQRT2 + 2.0 * u * z1) + 3.0 * u
    eps2 = _THETA_ERFCX + 4.0 * u
    if p.path == "A":
        q = p.q
        return ((eps1 + q * eps2) / (1.0 - q) + 3.0 * u + d_a2
                + u * (abs(ld + 0.5 * a * a) + 2.0 * abs(ld)))
    if p.path == "B":
        s = p.q
        eps_s = d_a2 + max(eps1, eps2) + 5.0 * u
        # + a few subnormal units: s = 0.5 e^{-a^2/2} (e1 + e2) may be subnormal or 0
        return s * eps_s / (1.0 - s) + 3.0 * u * abs(ld) + _SUBNORMAL_SLACK
    # path C
    dl, h = p.q, p.h
    shift = h * math.exp(min(p.log_p1s - ld, 700.0)) * da
    if a <= 0.0:
        e_p0 = _THETA_ERFCX + 3.0 * u + u * 0.5 * a * a + u * abs(p.log_p0) + 2.0 * u * z1
    else:
        q0 = -math.expm1(p.log_p0)  # Phi(-a)
        e_p0 = (q0 / (1.0 - q0) * (_THETA_ERFCX + u * 0.5 * a * a + 5.0 * u) + u * abs(p.log_p0)
                + _SUBNORMAL_SLACK)
    x = -a
    if x < _CF_FROM:  # direct m: 1/R - u cancels by the factor (1/R)/m = 1 + u/m, largest at x+h
        top = max(x + h, 0.0)
        theta_m = (1.0 + top / _m_scalar(top)) * (_THETA_ERFCX + 3.0 * u)
    else:
        theta_m = _THETA_CF
    mid = x + 0.5 * h
    near = abs(mid) - 0.5 * h
    arg = 2.0 * u * (abs(mid) + 0.5 * h) * (1.0 if near < 1.2 else 1.2 / near)
    eps_dl = theta_m + arg + 10.0 * u
    damp = 1.0 if dl < 1e-8 else dl / math.expm1(dl)
    tail = ld - p.log_p0
    # ln(1 - e^-dl): one log (+ expm1); where dl or h is tiny, ln(length) + ln(total/2): three
    tail_err = (u if dl > _TINY_H and h > _TINY_H else 3.0 * u) * (abs(tail) + 1.0)
    return e_p0 + shift + damp * eps_dl + tail_err + u * abs(ld)


def check_log_delta(log_d: FloatOrArray) -> None:
    """Raise DPError ``ln_delta_below_range`` when ``log_d`` (a float or an array of them) holds
    -inf or NaN, i.e. a ln delta below -1.8e308 (path "out" of :func:`evaluate`)."""
    if isinstance(log_d, float):  # (a Python float: two comparisons, not four numpy calls)
        if log_d == -math.inf or log_d != log_d:
            raise DPError("ln_delta_below_range")
        return
    if np.any(np.isneginf(log_d)) or np.any(np.isnan(log_d)):
        raise DPError("ln_delta_below_range")


_check_finite_result = check_log_delta


def _ratio(eps: float, d: float, s: float) -> tuple[float, float, float]:
    """(h, eps/h, ln h) for h = d/s with d > 0, s > 0, each to ~1 ulp even where h is subnormal
    or below the double range (then eps/h and ln h come from the exact binary exponents)."""
    md, ed = math.frexp(d)
    ms, es = math.frexp(s)
    hm, e = md / ms, ed - es  # h = hm 2^e exactly up to one rounding of hm
    if e > 1000:
        h = math.ldexp(hm, e) if e < 1024 else math.inf
        if math.isinf(h):
            raise DPError("h_too_big", log10=f"{(math.log(hm) + e * _LN2) / math.log(10):.4f}")
        return h, eps / h, math.log(h)
    h = math.ldexp(hm, e)
    if h >= _TINY_H:
        return h, eps / h, math.log(h)
    try:
        r = math.ldexp(eps / hm, -e)
    except OverflowError:
        r = math.inf
    return h, r, math.log(hm) + e * _LN2


# --------------------------------------------------------------------------------------------
# Vectorised evaluation
# --------------------------------------------------------------------------------------------
def _careful_vec(x: NDArray[np.float64], h: NDArray[np.float64]) -> NDArray[np.float64]:
    """ln(1 - e^{-dl}), dl = int_x^{x+h} m, with the rule and m method :func:`_core` picks."""
    # m's method from the left end x (every limit in _CF_LIMITS is a whole number, so a table
    # indexed by floor(x) gives it): 0 = directly, else the continued-fraction depth
    method = _METHOD_LUT[np.clip(x, 0.0, _LUT_TOP).astype(np.int16)]
    direct = np.flatnonzero(method == 0)
    with np.errstate(divide="ignore", invalid="ignore", under="ignore", over="ignore"):
        lv = np.log1p(h / x)
        x2 = x * x
        rule = ((lv > _V_LIMITS[0] * x2).view(np.int8) + (lv > _V_LIMITS[1] * x)
                + (lv > _V_LIMITS[2]) + (lv > _V_LIMITS[3]))
        if direct.size:
            hd = 0.5 * h[direct]
            mid = x[direct] + hd
            dist = np.where(mid >= 0.0, np.sqrt(mid * mid + _POLE_IM * _POLE_IM),
                            np.maximum(_POLE_IM, -mid / _SQRT2))
            tau = hd / dist
            rule[direct] = ((tau > _GL_TAU[0]).view(np.int8) + (tau > _GL_TAU[1])
                            + (tau > _GL_TAU[2]))
    key = method * np.int8(_NRULES) + rule
    order = np.argsort(key, kind="stable")  # radix sort of small integers
    counts = np.bincount(key, minlength=len(_METHODS) * _NRULES).tolist()
    xs, lvs = x[order], lv[order]
    sum_s = np.empty_like(x)  # sum of weights * integrand, rule by rule
    start = 0
    for k, c in enumerate(counts):
        if not c:
            continue
        sl = slice(start, start + c)
        start += c
        depth = _METHODS[k // _NRULES]
        if depth == 0:
            zs, ws = _GL[_RULES_U[k % _NRULES]]
            half = 0.5 * h[order[sl], None]
            sum_s[sl] = _m_rows((xs[sl, None] + half) + half * zs) @ ws
        else:
            n = _RULES_V[k % _NRULES]
            xk = xs[sl]
            if n == 1:
                sum_s[sl] = 2.0 * _g_rows(xk * np.exp(0.5 * lvs[sl]), depth)
            else:
                zs, ws = _GL[n]
                nodes = xk[:, None] * np.exp(lvs[sl, None] * (0.5 * (1.0 + zs)))
                sum_s[sl] = _g_rows(nodes, depth) @ ws
    total = np.empty_like(x)
    total[order] = sum_s
    with np.errstate(divide="ignore", invalid="ignore", under="ignore", over="ignore"):
        dl = _p_exact(x, h, lv) + 0.5 * lv * total
        if direct.size:
            dl[direct] = 0.5 * h[direct] * total[direct]
        out = np.log(-np.expm1(-dl))
        small = ~(dl > _TINY_H)
        if np.any(small):  # ln(1 - e^-dl) = ln dl - dl/2 + O(dl^2), ln dl from ln(length)
            i = np.flatnonzero(small)
            cf = method[i] > 0
            xi, hi_, li = x[i], h[i], lv[i]
            log_len = np.where(cf, np.where(li > _TINY_H, np.log(li), np.log(hi_) - np.log(xi)),
                               np.log(hi_))
            mean = np.where(cf, 2.0 * (1.0 - 2.0 / (xi * xi)) + total[i], total[i])
            out[i] = log_len + np.log(0.5 * mean) - 0.5 * dl[i]
    return out


# Arrays are processed in blocks that stay in the CPU cache: every step is a pass over memory,
# and a 64k-element block (512 kB per array) made the whole evaluation ~1.3x faster here.
_CHUNK = 65536


def _log_delta_chunked(eps: NDArray[np.float64], h: NDArray[np.float64]
                       ) -> NDArray[np.float64]:
    if h.size <= _CHUNK:
        return _log_delta_vec(eps, h)
    out = np.empty_like(h)
    for i in range(0, h.size, _CHUNK):
        out[i:i + _CHUNK] = _log_delta_vec(eps[i:i + _CHUNK], h[i:i + _CHUNK])
    return out


def _log_delta_vec(eps: NDArray[np.float64], h: NDArray[np.float64]) -> NDArray[np.float64]:
    """ln delta for 1-D arrays eps >= 0, h >= _TINY_H (the vectorised twin of :func:`_core`).

    With e1 = erfcx(|a|/sqrt2) and e2 = erfcx((x+h)/sqrt2), both never overflow:
    a <= 0: delta = phi(a) (R(x) - R(x + h)) = 0.5 e^{-a^2/2} (e1 - e2);
    a > 0:  delta = 1 - s, s = Phi(-a) + e^eps Phi(c) = 0.5 e^{-a^2/2} (e1 + e2).
    For x >= 4 the split between path A and the integral is h >= 0.034 x (no e2 needed for the
    integral points); elsewhere it is made as in :func:`_core`.
    """
    r = eps / h
    hh = 0.5 * h
    a = hh - r
    half_a2 = 0.5 * a * a
    e1 = sc.erfcx(np.abs(a) * _INV_SQRT2)
    out = np.empty_like(a)
    with np.errstate(divide="ignore", invalid="ignore", under="ignore", over="ignore"):
        # x = -a >= 4 with h < 0.034 x: the integral path, decided without e2
        tail = np.flatnonzero((a <= -_CF_FROM) & (h < _H_OVER_X * -a) & (half_a2 < _MAX))
        if a.size > tail.size and tail.size * 4 >= a.size:
            keep = np.ones(a.shape, dtype=bool)
            keep[tail] = False
            rest = np.flatnonzero(keep)
        if tail.size * 4 < a.size:  # few: compute the rest on everything, then overwrite
            out = _log_delta_rest(e1, r, a, h, tail)
        elif tail.size < a.size:
            out[rest] = _log_delta_rest(e1[rest], r[rest], a[rest], h[rest])
        if tail.size:
            at = a[tail]
            out[tail] = (np.log(0.5 * e1[tail]) - 0.5 * at * at) + _careful_vec(-at, h[tail])
    return out


def _log_delta_rest(e1: NDArray[np.float64], r: NDArray[np.float64], a: NDArray[np.float64],
                    h: NDArray[np.float64], skip: NDArray[np.intp] | None = None
                    ) -> NDArray[np.float64]:
    """Paths A and B, and path C for x < 4 (see :func:`_core`); for x >= 4 this is path A
    (the caller sends h < 0.034 x to the integral). ``skip``: indices the caller overwrites."""
    half_a2 = 0.5 * a * a
    e2 = sc.erfcx((r + 0.5 * h) * _INV_SQRT2)
    pos = a <= 0.0
    out = np.empty_like(a)
    np.log(0.5 * (e1 - e2), out=out, where=pos)
    out -= half_a2
    careful = e2 > _Q_DIRECT * e1
    neg = np.flatnonzero(~pos)
    g = None
    if neg.size:
        g = 0.5 * np.exp(-half_a2[neg])
        s = g * (e1[neg] + e2[neg])
        out[neg] = np.log1p(-s)
        careful[neg] = s > _Q_DIRECT
    careful &= (half_a2 < _MAX) & (a > -_CF_FROM)
    if skip is not None:
        careful[skip] = False
    if np.any(careful):
        idx = np.flatnonzero(careful)
        ai = a[idx]
        log_p0 = np.log(0.5 * e1[idx]) - half_a2[idx]
        if g is not None:
            ni = np.flatnonzero(careful[neg])  # positions among neg that are careful
            if ni.size:
                log_p0[ai > 0.0] = np.log1p(-g[ni] * e1[neg[ni]])
        out[idx] = log_p0 + _careful_vec(-ai, h[idx])
    out[~(half_a2 < _MAX)] = -np.inf
    return out


def _slope_h(p: _Parts) -> float:
    """d ln delta / d ln h = h phi(a) / delta (Balle & Wang: d delta / dh = phi(a))."""
    return math.exp(min(p.log_h - 0.5 * p.a * p.a - _LOG_SQRT_2PI - p.log_delta, 700.0))


def _bounded(p: _Parts, theta_h: float) -> float:
    """Error bound of p.log_delta for an exact h that differs from p.h by theta_h relative."""
    return _error_bound(p) + _slope_h(p) * theta_h * 1.01


# --------------------------------------------------------------------------------------------
# One evaluation with its proven error interval (the interface dpcore.certify uses)
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Evaluation:
    """One scalar evaluation of ln delta(eps; h) and a proven interval around it.

    ``h`` is the double the arithmetic used (it may be subnormal, or 0.0 when the exact h is
    below the double range: ``log_h`` and ``eps_over_h`` then carry the exact values);
    ``a`` = h/2 - eps/h; ``log_p0`` = ln Phi(a); ``log_p1_scaled`` = ln(e^eps Phi(c)),
    c = -h/2 - eps/h; ``log_delta`` = ln(Phi(a) - e^eps Phi(c)), -inf on path "out".
    ``path`` is the formula used (docs/math.md#three-paths): "A" (a <= 0, direct difference),
    "B" (a > 0, 1 - delta as a sum), "C" (the integral of m) or "out" (ln delta below -1.8e308).
    ``q`` is the path's cancellation measure: A the ratio R(x+h)/R(x), B s = 1 - delta, C
    dl = ln R(x) - ln R(x+h). ``nodes`` is the Gauss-Legendre rule's number of points and
    ``cf_depth`` the continued fraction's depth (0 when m is evaluated directly), both 0 off
    path C. ``error`` is a proven bound of |log_delta - exact ln delta| for the exact inputs
    (docs/math.md#error-bound), widened by ``theta_h`` (see :func:`evaluate`); 0.0 on "out".
    """

    eps: float
    h: float
    eps_over_h: float
    log_h: float
    a: float
    log_p0: float
    log_p1_scaled: float
    log_delta: float
    path: str
    q: float
    nodes: int
    cf_depth: int
    error: float

    @property
    def lo(self) -> float:
        """Lower end of the interval that contains the exact ln delta."""
        return self.log_delta - self.error

    @property
    def hi(self) -> float:
        """Upper end of the interval that contains the exact ln delta."""
        return self.log_delta + self.error


def _rule_taken(x: float, h: float) -> tuple[int, int]:
    """(Gauss-Legendre points, continued-fraction depth) that path C of :func:`_core` uses."""
    hh = 0.5 * h
    if x < _CF_FROM:
        return _rule_u(hh / _pole_distance(x + hh)), 0
    return _rule_v(math.log1p(h / x), x), _cf_depth(x)


def evaluate(eps: float, h: float, *, eps_over_h: float | None = None,
             log_h: float | None = None, theta_h: float = 0.0) -> Evaluation:
    """ln delta(eps; h) of the Gaussian mechanism, h = sensitivity/sigma, with its proven error
    interval and the path taken (Balle & Wang 2018, Thm 8; docs/math.md#three-paths).

    Domain: eps >= 0 finite, h >= 0 finite. ``eps_over_h`` and ``log_h`` default to eps/h and
    ln h from the double h (then h > 0); a caller that knows h exactly (as a rational, say)
    passes them rounded once from the exact value, which keeps the result right where h is
    subnormal or below the double range (h = 0.0 is then allowed); eps_over_h may be +inf (the
    result is then path "out"). ``theta_h`` >= 0: a bound on the relative difference between
    the double h and the exact h; the error bound is widened by |d ln delta/d ln h| theta_h
    (times 1.01). Bad input: DPError naming the parameter.
    Never raises for a value below the double range: that is path "out" with log_delta = -inf
    (:func:`check_log_delta` turns it into the keyed error). Accuracy: error is typically 1e-15
    to 1e-14 of max(1, |ln delta|) and is at least twice the measured error (10,000 points
    against mpmath, tests/dpcore/test_gaussian_transitions.py and
    tests/dpcore/test_conservative_verdicts.py).
    """
    e = v.real_scalar("epsilon", eps, lo=0.0)
    hd = v.real_scalar("h", h, lo=0.0)
    th = v.real_scalar("theta_h", theta_h, lo=0.0)
    if eps_over_h is None or log_h is None:
        hd = v.real_scalar("h", hd, lo=0.0, lo_open=True)
    if eps_over_h is None:
        r = e / hd
    else:
        r = float(eps_over_h)
        if not r >= 0.0:  # NaN or negative (+inf is allowed)
            v.real_scalar("eps/h", r, lo=0.0)
    lh = math.log(hd) if log_h is None else v.real_scalar("ln h", log_h)
    p = _core(e, hd, r, lh)
    if p.path == "out":
        return Evaluation(e, hd, r, lh, p.a, p.log_p0, p.log_p1s, p.log_delta, p.path, p.q, 0, 0,
                          0.0)
    nodes, depth = _rule_taken(-p.a, hd) if p.path == "C" else (0, 0)
    return Evaluation(e, hd, r, lh, p.a, p.log_p0, p.log_p1s, p.log_delta, p.path, p.q, nodes,
                      depth, _bounded(p, th))


# --------------------------------------------------------------------------------------------
# The profile
# --------------------------------------------------------------------------------------------
def log_delta(eps: ArrayLike, sensitivity: ArrayLike, sigma: ArrayLike) -> FloatOrArray:
    """Natural log of the exact delta(eps) of the Gaussian mechanism (Balle & Wang 2018, Thm 8).

    Domain: eps >= 0, sensitivity >= 0, sigma > 0, all finite doubles; numpy broadcasting.
    Edge cases: sensitivity == 0 gives -inf exactly (both outputs have the same law, delta = 0);
    eps == 0 gives ln(2 Phi(h/2) - 1) (total variation distance). For sensitivity > 0 the value
    is finite whenever it fits in a double, also when delta itself underflows (e.g.
    sensitivity = 1/32, sigma = 10, eps = 10 gives ln delta = -5.12e6) and when h =
    sensitivity/sigma is subnormal or below the double range (ln h is then taken from the
    operands' exponents: log_delta(0, 5e-324, 1) = -745.3590). If ln delta would be below
    -1.8e308, or h above 1.8e308: DPError (a ValueError).
    Accuracy: |error| <= ~1e-14 * max(1, |ln delta|) over h in [1e-6, 1e3] and eps in [0, 1e4]
    (tests/reference/ holds 100-digit mpmath values); :func:`log_delta_bounds` returns a proven
    interval. Returns a float for scalar input, else an array of the broadcast shape.
    """
    args = (eps, sensitivity, sigma)
    if all(type(z) is float or type(z) is int for z in args):
        return _log_delta_scalar(eps, sensitivity, sigma)  # type: ignore[arg-type]
    e = v.real("epsilon", eps, lo=0.0)
    d = v.real("sensitivity", sensitivity, lo=0.0)
    s = v.real("sigma", sigma, lo=0.0, lo_open=True)
    with np.errstate(over="ignore", under="ignore"):
        h = np.divide(d, s)
    e, d, s, h = np.broadcast_arrays(e, d, s, h)
    shape = h.shape
    e, d, s, h = e.ravel(), d.ravel(), s.ravel(), h.ravel()
    if h.size == 0:
        return np.empty(shape)
    if h.max() == math.inf:
        k = int(np.argmax(h))
        _ratio(0.0, float(d[k]), float(s[k]))  # raises h_too_big
    if h.min() >= _TINY_H:  # the common case: every element through the vectorised path
        out = _log_delta_chunked(np.ascontiguousarray(e), np.ascontiguousarray(h))
    else:
        out = np.full(h.shape, -np.inf)
        live = np.flatnonzero(d > 0.0)
        hl = h[live]
        tiny = hl < _TINY_H
        for k in np.flatnonzero(tiny).tolist():  # subnormal or underflowing h: the scalar path
            i = int(live[k])
            out[i] = _core(float(e[i]), *_ratio(float(e[i]), float(d[i]), float(s[i]))
                           ).log_delta
        keep = live[~tiny]
        out[keep] = _log_delta_chunked(e[keep], h[keep])
        out[d == 0.0] = 0.0  # checked below; set back to -inf after
    if not out.min() > -math.inf:  # also catches NaN
        _check_finite_result(out)
    if h.min() < _TINY_H:
        out[d == 0.0] = -math.inf
    out = out.reshape(shape)
    return float(out) if out.ndim == 0 else out


def _log_delta_scalar(eps: float, sensitivity: float, sigma: float) -> float:
    """Fast path of :func:`log_delta` for plain Python numbers (the UI's and solvers' case)."""
    e = v.real_scalar("epsilon", eps, lo=0.0)
    d = v.real_scalar("sensitivity", sensitivity, lo=0.0)
    s = v.real_scalar("sigma", sigma, lo=0.0, lo_open=True)
    if d == 0.0:
        return -math.inf
    ld = _core(e, *_ratio(e, d, s)).log_delta
    _check_finite_result(ld)
    return ld


def log_delta_bounds(eps: float, sensitivity: float, sigma: float) -> tuple[float, float, float]:
    """(ln delta, lower, upper): the evaluation and an interval that contains the exact
    ln delta(eps) of sensitivity/sigma (the exact quotient of the two doubles).

    The half-width is :func:`_error_bound` (a first-order rounding analysis of the formula that
    was used, see there) plus |d ln delta/d ln h| u for the rounding of h = sensitivity/sigma.
    Typical half-widths: 1e-15 to 1e-14 times max(1, |ln delta|). Same domain as
    :func:`log_delta`; sensitivity == 0 gives (-inf, -inf, -inf).
    """
    e = v.real_scalar("epsilon", eps, lo=0.0)
    d = v.real_scalar("sensitivity", sensitivity, lo=0.0)
    s = v.real_scalar("sigma", sigma, lo=0.0, lo_open=True)
    if d == 0.0:
        return -math.inf, -math.inf, -math.inf
    p = _core(e, *_ratio(e, d, s))
    _check_finite_result(p.log_delta)
    err = _bounded(p, _U)
    return p.log_delta, p.log_delta - err, p.log_delta + err


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


# --------------------------------------------------------------------------------------------
# Inverses
# --------------------------------------------------------------------------------------------
_SMALLEST = 5e-324


def _solve_h(eps: float, log_target: float, h: float | None = None) -> float:
    """The h > 0 with ln delta(eps; h) = log_target (delta is increasing in h), to ~1 ulp."""
    if h is None:
        # delta(0; h) = erf(h / (2 sqrt 2)) >= delta(eps; h), so its root is a lower bound; the
        # tail approximation delta ~ phi(a)/|a| suggests a ~ -sqrt(-2 ln target).
        h = 2.0 * _SQRT2 * float(sc.erfinv(math.exp(log_target)))
        if not (h > 0.0 and math.isfinite(h)):
            h = 1e-300
        if eps > 0.0:
            a0 = -math.sqrt(max(-2.0 * log_target, 0.0))
            h_tail = 2.0 * eps / (math.sqrt(a0 * a0 + 2.0 * eps) - a0)
            if math.isfinite(h_tail) and h_tail > 0.0:
                h = max(h, h_tail)
    # Newton on ln h, carried out multiplicatively on h so the iterate keeps a relative
    # precision of one ulp even when |ln h| is large; [lo, hi] brackets the root.
    lo, hi = 0.0, math.inf
    for _ in range(200):
        p = _parts(eps, h)
        g = p.log_delta - log_target
        if g > 0.0:
            hi = min(hi, h)
        else:
            lo = max(lo, h)
        if g == 0.0:
            break
        slope = _slope_h(p) if p.path != "out" else 0.0
        step = -g / slope if slope > 0.0 and math.isfinite(g) else -math.copysign(1.0, g)
        step = max(min(step, 20.0), -20.0)
        new = max(h * math.exp(step), _SMALLEST)
        if abs(new - h) <= 4e-16 * h:
            break
        if not (lo < new < hi):  # Newton left the bracket: bisect it (or expand it)
            if lo > 0.0 and math.isfinite(hi):
                new = math.sqrt(lo) * math.sqrt(hi)
            else:
                new = max(h * (math.e**2 if g < 0.0 else math.e**-2), _SMALLEST)
            if new == h:
                break
        h = new
    return h


def calibrate_h(eps: float, log_delta_target: float) -> float:
    """The largest double h = sensitivity/sigma (to within the margin below) whose exact
    profile satisfies ln delta(eps; h) <= ``log_delta_target``.

    Conservative by proof: the returned h satisfies  computed ln delta + error bound
    <= log_delta_target, with the bound of :func:`_error_bound`, so the exact delta(eps; h) is
    within the target. The margin is that bound (a few ulps of max(|ln delta|, cancellation));
    it is relative to the result, so targets near delta = 1 stay tight. Domain: eps >= 0, a
    finite target <= 0. DPError if the h needed is below the smallest double.
    """
    e = v.real_scalar("epsilon", eps, lo=0.0)
    lt = v.real_scalar("ln delta target", log_delta_target, hi=0.0)
    if lt == 0.0:
        return math.inf
    if lt < -745.0 and e * math.exp(min(-lt, 700.0)) < 1.0:
        # delta(eps; h) <= h / sqrt(2 pi) and h < 5e-324 would be needed
        h_max_log = lt + _LOG_SQRT_2PI
        if h_max_log < math.log(_SMALLEST):
            raise DPError("h_underflow", log10=f"{h_max_log / math.log(10.0):.4f}")
    h = _solve_h(e, lt)
    want = lt
    for _ in range(8):
        p = _parts(e, h)
        err = _error_bound(p)
        if p.log_delta + err <= lt:
            break
        want = min(want, lt - 1.25 * err - 2.0 * _U * abs(lt)) if want == lt else \
            want - (p.log_delta + err - lt) - 2.0 * _U * abs(want)
        h = _solve_h(e, want, h)
    bump = _U
    for _ in range(200):  # last resort: shrink h by 1, 2, 4, ... ulps
        p = _parts(e, h)
        if p.log_delta + _error_bound(p) <= lt:
            return h
        h = max(h * (1.0 - bump), _SMALLEST) if h * bump > _SMALLEST else math.nextafter(h, 0.0)
        bump = min(2.0 * bump, 0.5)
        if h <= _SMALLEST:
            break
    raise DPError("h_underflow", log10=f"{math.log10(_SMALLEST):.4f}")


def _sigma_from_h(d: float, h: float) -> float:
    """sigma >= d / h exactly (rounded up), or DPError when it is not a normal double."""
    with np.errstate(all="ignore"):
        sigma = d / h
    if math.isinf(sigma):
        raise DPError("sigma_overflow", log10=f"{math.log10(d) - math.log10(h):.4f}")
    sigma = math.nextafter(sigma, math.inf)  # d/h was rounded to nearest: one ulp up is safe
    if sigma < _MIN_NORMAL:
        raise DPError("sigma_underflow", log10=f"{math.log10(d) - math.log10(h):.4f}")
    return sigma


def calibrate_sigma(eps: float, delta: float, sensitivity: float) -> float:
    """The smallest sigma whose exact Gaussian profile has delta(eps) <= ``delta``.

    Domain: eps >= 0, delta in [0, 1], sensitivity >= 0 (finite). Edge cases: sensitivity == 0
    or delta >= 1 give 0.0 (no noise needed); delta == 0 with sensitivity > 0 gives math.inf (no
    finite sigma achieves pure DP with Gaussian noise). If the smallest sigma is not a normal
    double (e.g. eps = 0, delta = 1e-310, sensitivity = 1 needs sigma ~ 4e309): DPError with key
    ``sigma_overflow`` / ``sigma_underflow``.
    Conservative by proof: sigma = sensitivity / h rounded up, with h from :func:`calibrate_h`,
    so the exact delta(eps; sensitivity/sigma) <= delta. The margin is relative to the result
    (the evaluation's error bound, ~1e-15 of max(|ln delta|, ...)), so it stays tight near
    delta = 1. Accuracy: within ~1e-14 relative of the true minimum (tests compare with mpmath),
    for eps in [0, 1e4] and delta in [1e-300, 1). Reference: Balle & Wang 2018, Algorithm 1
    (we solve in ln delta instead).
    """
    e = v.real_scalar("epsilon", eps, lo=0.0)
    t = v.real_scalar("delta", delta, lo=0.0, hi=1.0)
    d = v.real_scalar("sensitivity", sensitivity, lo=0.0)
    if d == 0.0 or t >= 1.0:
        return 0.0
    if t == 0.0:
        return math.inf
    log_t = math.log(t)
    # math.log is within 1 ulp; aim below by 2 ulps of |ln t| so the exact ln t is covered
    return _sigma_from_h(d, calibrate_h(e, log_t - 2.0 * _U * abs(log_t)))


def calibrate_sigma_log(eps: float, log_delta_target: float, sensitivity: float) -> float:
    """:func:`calibrate_sigma` for a target given as ln delta (e.g. delta = 1e-400)."""
    e = v.real_scalar("epsilon", eps, lo=0.0)
    lt = v.real_scalar("ln delta target", log_delta_target, hi=0.0)
    d = v.real_scalar("sensitivity", sensitivity, lo=0.0)
    if d == 0.0 or lt == 0.0:
        return 0.0
    return _sigma_from_h(d, calibrate_h(e, lt))


def epsilon(delta: float, sensitivity: float, sigma: float) -> float:
    """The smallest eps >= 0 with exact Gaussian delta(eps) <= ``delta``.

    Domain: delta in [0, 1], sensitivity >= 0, sigma > 0 (finite). Edge cases: sensitivity == 0
    gives 0.0; delta == 0 with sensitivity > 0 gives math.inf (no finite pure epsilon exists);
    if delta(0) <= delta already, 0.0.
    Conservative by proof: h = sensitivity/sigma is rounded up (delta grows with h), and the
    returned eps satisfies computed ln delta(eps) + error bound <= ln delta - 2 ulps, so the
    exact delta(eps) <= delta. Accuracy ~1e-14 relative where delta changes with eps.
    """
    t = v.real_scalar("delta", delta, lo=0.0, hi=1.0)
    d = v.real_scalar("sensitivity", sensitivity, lo=0.0)
    s = v.real_scalar("sigma", sigma, lo=0.0, lo_open=True)
    if d == 0.0 or t >= 1.0:
        return 0.0
    if t == 0.0:
        return math.inf
    h, _, _ = _ratio(0.0, d, s)
    h = math.nextafter(h, math.inf)  # above the exact d/s: eps for it is an upper bound
    if math.isinf(h):
        raise DPError("h_too_big", log10=f"{math.log10(d) - math.log10(s):.4f}")
    log_t = math.log(t)
    goal = log_t - 2.0 * _U * abs(log_t)
    p = _parts(0.0, h)
    if p.log_delta + _error_bound(p) <= goal:
        return 0.0
    e = _solve_eps(h, goal, max(h * (0.5 * h + math.sqrt(max(-2.0 * log_t, 0.0))), 1e-300))
    want = goal
    for _ in range(8):
        p = _parts(e, h)
        err = _error_bound(p)
        if p.log_delta + err <= goal:
            return e
        want = want - (p.log_delta + err - goal) - 1.25 * err - 2.0 * _U * abs(want)
        e = _solve_eps(h, want, e)
    bump = _U
    for _ in range(200):  # last resort: grow eps by 1, 2, 4, ... ulps
        p = _parts(e, h)
        if p.log_delta + _error_bound(p) <= goal:
            return e
        e = max(e * (1.0 + bump), _SMALLEST)
        bump *= 2.0
    return math.inf


def _solve_eps(h: float, log_target: float, e: float) -> float:
    """The eps with ln delta(eps; h) = log_target (Newton, bracketed; delta falls with eps)."""
    lo, hi = 0.0, math.inf
    for _ in range(200):
        p = _parts(e, h)
        g = p.log_delta - log_target
        if g > 0.0:
            lo = max(lo, e)
        else:
            hi = min(hi, e)
        if g == 0.0:
            break
        # d ln delta / d eps = -e^eps Phi(c) / delta
        slope = -math.exp(min(p.log_p1s - p.log_delta, 700.0)) if p.path != "out" else 0.0
        new = e - g / slope if slope < 0.0 and math.isfinite(g) else math.nan
        if abs(new - e) <= 4e-16 * e:
            break
        if not (lo < new < hi):
            new = 0.5 * (lo + hi) if math.isfinite(hi) else max(2.0 * e, e + 1.0)
            if new == e:
                break
        e = new
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
    Computed as exp(-z^2 / 2) / (sigma sqrt(2 pi)) with z = (y - mean) / sigma, the formula
    scipy.stats.norm.pdf evaluates, without its per-call argument handling (~40 us, on every
    move of the lab), giving the same doubles (tests/dpcore/test_gaussian.py): relative error
    ~ (1 + z^2) ulp; subnormal, then 0.0, beyond |z| ~ 37.5 (underflow).
    """
    d = v.real_scalar("sensitivity", sensitivity, lo=0.0)
    s = v.real_scalar("sigma", sigma, lo=0.0, lo_open=True)
    yy = np.asarray(y, dtype=np.float64)
    z0, z1 = yy / s, (yy - d) / s  # the operations in scipy's order: the same doubles
    with np.errstate(over="ignore"):  # z**2 = inf far out: exp(-inf) = 0, the right value
        return (np.exp(-z0**2 / 2.0) / _SQRT_2PI / s, np.exp(-z1**2 / 2.0) / _SQRT_2PI / s)


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
    p = _core(e, *_ratio(e, d, s))
    _check_finite_result(p.log_delta)
    return WorstEvent(t, math.exp(p.log_p0), math.exp(p.log_p1s), p.log_p0, p.log_p1s,
                      p.log_delta)


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
