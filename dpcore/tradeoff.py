"""What the Gaussian mechanism allows an attacker: the hypothesis-testing view of privacy.

An attacker who sees one release M(D) = f(D) + N(0, σ²) and must decide between two neighbouring
data sets D and D′ is running a hypothesis test. With μ = Δ/σ (Δ the global L2 sensitivity) the
best test at false-positive rate (false alarm) α misses with probability

    β(α) = Φ(Φ⁻¹(1 − α) − μ)                      (the trade-off function G_μ)

and no test does better: the mechanism is μ-GDP (Dong, Roth & Su, "Gaussian differential
privacy", JRSS-B 84, 2022; arXiv:1905.02383: G_μ = T(N(0, 1), N(μ, 1)) in §2.2, the Gaussian
mechanism in Theorem 2.7). So

* the attacker's best true-positive rate (hits) at FPR α is TPR = 1 − β(α) = Φ(Φ⁻¹(α) + μ);
* G_μ is symmetric, β(β(α)) = α: the inverse of the trade-off function is itself;
* the largest advantage TPR − FPR over all tests is 2Φ(μ/2) − 1 = erf(μ/(2√2)), at
  α* = Φ(−μ/2): the total variation distance, δ(0) of the profile (docs/math.md#exact-profile);
* the privacy profile is the family of lines supporting the curve (DRS 2022, Proposition 2.12,
  primal–dual, and Corollary 2.13; Balle & Wang 2018, Theorem 8):
  δ(ε) = sup over α of (1 − e^ε α − β(α)), the supremum at α = Φ(−ε/μ − μ/2).

Numerics (docs/math.md#hypothesis-testing-and-the-trade-off-function). Rates go down to the
smallest double (FPR = 1e-300 is ordinary), so nothing is formed as a difference of nearly equal
numbers:

* q = Φ⁻¹(α) is carried as a double-double: ``scipy.special.ndtri`` (of the smaller tail,
  1 − α being exact for α ≥ 1/2), then one Newton step on ln Φ(q) = ln α, with ln α in
  double-double (exponent × ln 2 in two parts, plus log1p of the mantissa) and
  ln Φ(−x) = −x²/2 − ln 2 + ln erfcx(x/√2) with x² exact (Dekker's product);
* the smaller of TPR and β is computed as exp of that same lower-tail formula at
  s = q + μ (a double-double sum), the larger as 1 minus it (≥ 1/2: no cancellation);
* the gap TPR − FPR for μ ≤ 1 is Φ(w) expm1(∫ λ) with the inverse Mills ratio
  λ = φ/Φ integrated by Gauss–Legendre over [w, w + μ] (a positive integrand; λ's poles are
  the zeros of erfc, at distance ≥ 2.816 from the real line), never Φ(q + μ) − Φ(q);
* the calibration for a target TPR solves Φ⁻¹(TPR) − Φ⁻¹(α) = μ; when both quantiles lie on the
  same side and μ < 1 it solves ∫_q^{q+μ} λ = ln(TPR/α) by Newton instead of subtracting.

Accuracy, measured against mpmath at 50 digits (tests/reference/make_tradeoff_reference.py,
tests/test_tradeoff.py): TPR, β and TPR − FPR within 4e-15 relative for FPR in
[1e-300, 1 − 1e-16] and μ in [1e-6, 40] (tested to 1e-14; β below the double range is returned
as ln β); μ for a target TPR within 5e-16, the calibrated σ within 8e-15 above the exact one
(the 64-ulp margin below).

Conservative calibration: σ for a target TPR is rounded up so that the exact TPR of the σ
returned is at most the target (μ is lowered by CAL_MARGIN, far above the solver's error, then
σ = Δ/μ rounded up); ε at a claimed δ comes from :func:`dpcore.gaussian.epsilon` (conservative
by proof). σ for an accepted error is rounded down, so the promised 95 % half-width holds.

Domain: rates in [0, 1] (FPR in (0, 1) for a calibration), μ ≥ 0 finite, sensitivity ≥ 0,
σ > 0, δ in [0, 1]. Outside it a keyed :class:`dpcore.errors.DPError` (a ``ValueError``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special as sc

from dpcore import gaussian
from dpcore import validate as v
from dpcore.errors import DPError

__all__ = [
    "CAL_MARGIN",
    "MU_QUADRATURE",
    "Z95",
    "Attack",
    "Calibration",
    "advantage",
    "attack",
    "best_advantage",
    "best_advantage_fpr",
    "calibrate_sigma_error",
    "calibrate_sigma_tpr",
    "fpr_at_tpr",
    "log_tpr",
    "log_tradeoff",
    "mu_for_tpr",
    "tpr",
    "tpr_curve",
    "tradeoff",
    "tradeoff_inverse",
]

#: The 97.5 % point of N(0, 1): 95 % of the noise lies within ±Z95 σ (dpcore.gaussian.Z95).
Z95 = gaussian.Z95
#: Relative amount by which a calibrated μ is lowered before σ = Δ/μ is rounded up: 64 ulps,
#: against a measured solver error below 4 ulps
#: (docs/math.md#hypothesis-testing-and-the-trade-off-function).
CAL_MARGIN = 64 * 2.0**-53
#: Below this μ a calibration with both quantiles on one side solves ∫ λ = ln(TPR/FPR) instead
#: of subtracting the quantiles.
MU_QUADRATURE = 1.0

_U = 2.0**-53
_TINY_FPR = 1e-12  # tpr_curve: below this rate the scalar double-double path
_LN2 = math.log(2.0)
# ln 2 in two parts (fdlibm): e * _LN2_HI is exact for every binary exponent e of a double.
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_SQRT_HALF_PI = math.sqrt(0.5 * math.pi)
_SPLIT = 134217729.0  # 2^27 + 1 (Veltkamp)
_MIN_NORMAL = 2.2250738585072014e-308
_SQ_MAX = 1e150  # beyond, x^2 is formed plainly (ln Phi(-x) ~ -x^2/2 is all that is left)
# Gauss-Legendre, 8 points, on panels at most _PANEL wide: with the poles of lambda at distance
# >= 2.816 the Bernstein ellipse has rho >= 22, so the rule's error is ~rho^-16 < 1e-21.
_GL_Z, _GL_W = np.polynomial.legendre.leggauss(8)
_PANEL = 0.5
# Below this x, ndtri's own Φ⁻¹ (within ~3e-16 absolute, measured) is kept: the Newton step's
# ln Φ(−x) carries erfcx's error (up to 8 ulps for x/√2 in [0, 2]) and would not improve it.
_NEWTON_FROM = 1.0


# --------------------------------------------------------------------------------------------
# Double-double building blocks
# --------------------------------------------------------------------------------------------
def _two_sum(a: float, b: float) -> tuple[float, float]:
    """s + e = a + b exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_prod(a: float, b: float) -> tuple[float, float]:
    """p + e = a b exactly (Dekker; |a|, |b| below 1e150)."""
    p = a * b
    c = _SPLIT * a
    ah = c - (c - a)
    al = a - ah
    c = _SPLIT * b
    bh = c - (c - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _log_dd(p: float) -> tuple[float, float]:
    """ln p for 0 < p <= 1 as hi + lo, absolute error ~1e-16 (p may be subnormal)."""
    m, e = math.frexp(p)  # p = m 2^e, m in [1/2, 1)
    if m < _INV_SQRT2:
        m, e = 2.0 * m, e - 1
    hi = e * _LN2_HI  # exact
    lo = e * _LN2_LO + math.log1p(m - 1.0)  # m - 1 exact
    return _two_sum(hi, lo)


def _ln_lower_tail(x_hi: float, x_lo: float) -> tuple[float, float]:
    """ln Φ(−x) for x = x_hi + x_lo >= 0 as hi + lo, absolute error a few 1e-16.

    ln Φ(−x) = −x²/2 − ln 2 + ln erfcx(x/√2); x² is exact (Dekker), erfcx is well conditioned
    for a positive argument, and x_lo enters through d/dx ln Φ(−x) = −1/R(x)."""
    ex = float(sc.erfcx(x_hi * _INV_SQRT2))
    inv_r = _SQRT_2_OVER_PI / ex  # 1/R(x), R the Mills ratio
    if x_hi > _SQ_MAX:
        return -0.5 * x_hi * x_hi, 0.0
    p, e = _two_prod(x_hi, x_hi)
    rest = math.log(ex) - _LN2 - 0.5 * e - inv_r * x_lo
    return _two_sum(-0.5 * p, rest)


def _exp_dd(hi: float, lo: float) -> float:
    """e^(hi + lo) to a few ulps (0.0 below the double range)."""
    return math.exp(hi) * (1.0 + lo) if hi > -746.0 else 0.0


def _tail_quantile(p: float) -> tuple[float, float]:
    """x = x_hi + x_lo >= 0 with Φ(−x) = p, for 0 < p <= 1/2; error ~1e-16 / max(1, x)."""
    x_hi, x_lo = -float(sc.ndtri(p)), 0.0
    if x_hi < _NEWTON_FROM:  # ndtri alone is closer here (erfcx errs by up to 8 ulps)
        return max(x_hi, 0.0), 0.0
    lp_hi, lp_lo = _log_dd(p)
    for _ in range(2):  # Newton on g(x) = ln Φ(−x) − ln p, g′(x) = −1/R(x)
        f_hi, f_lo = _ln_lower_tail(x_hi, x_lo)
        g = (f_hi - lp_hi) + (f_lo - lp_lo)  # f_hi − lp_hi is exact (Sterbenz)
        r = _SQRT_HALF_PI * float(sc.erfcx(x_hi * _INV_SQRT2))
        x_hi, x_lo = _two_sum(x_hi, x_lo + g * r)
    return x_hi, x_lo


def _quantile(alpha: float) -> tuple[float, float]:
    """q = Φ⁻¹(α) as hi + lo, 0 < α < 1 (from the smaller tail; 1 − α is exact for α >= 1/2)."""
    if alpha <= 0.5:
        x_hi, x_lo = _tail_quantile(alpha)
        return -x_hi, -x_lo
    return _tail_quantile(1.0 - alpha)


def _lam(v_: np.ndarray) -> np.ndarray:
    """λ(v) = φ(v)/Φ(v) = √(2/π) / erfcx(−v/√2), to a few ulps for v <= 1."""
    return _SQRT_2_OVER_PI / sc.erfcx(-v_ * _INV_SQRT2)


def _log_ratio(w_hi: float, w_lo: float, mu: float) -> float:
    """∫_w^{w+μ} λ = ln Φ(w + μ) − ln Φ(w), w + μ <= 1, to a few ulps relative (no cancellation).

    Composite 8-point Gauss–Legendre on panels at most 0.5 wide; λ > 0."""
    n = max(1, math.ceil(mu / _PANEL))
    width = mu / n
    starts = np.arange(n) * width
    t = (starts[:, None] + 0.5 * width * (1.0 + _GL_Z)[None, :]).ravel()
    vals = _lam(w_hi + (w_lo + t))
    return float(0.5 * width * math.fsum((np.tile(_GL_W, n) * vals).tolist()))


@dataclass(frozen=True)
class _Rates:
    log_tpr: float
    log_fnr: float
    tpr: float
    fnr: float


def _rates(alpha: float, mu: float) -> _Rates:
    """TPR = Φ(q + μ) and β = 1 − TPR with q = Φ⁻¹(α): the smaller from the tail formula."""
    if alpha == 0.0:
        return _Rates(-math.inf, 0.0, 0.0, 1.0)
    if alpha == 1.0:
        return _Rates(0.0, -math.inf, 1.0, 0.0)
    if mu == 0.0:
        return _Rates(math.log(alpha), math.log1p(-alpha), alpha, 1.0 - alpha)
    q_hi, q_lo = _quantile(alpha)
    s_hi, s_lo = _two_sum(q_hi, mu)
    s_hi, s_lo = _two_sum(s_hi, s_lo + q_lo)
    if s_hi <= 0.0:  # TPR <= 1/2
        hi, lo = _ln_lower_tail(-s_hi, -s_lo)
        t = _exp_dd(hi, lo)
        return _Rates(hi + lo, math.log1p(-t), t, 1.0 - t)
    hi, lo = _ln_lower_tail(s_hi, s_lo)
    b = _exp_dd(hi, lo)
    return _Rates(math.log1p(-b), hi + lo, 1.0 - b, b)


# --------------------------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------------------------
def _rate(name: str, x: object) -> float:
    return v.real_scalar(name, x, lo=0.0, hi=1.0)


def _mu(mu: object) -> float:
    return v.real_scalar("mu", mu, lo=0.0)


def _mu_of(sensitivity: object, sigma: object) -> float:
    d = v.real_scalar("sensitivity", sensitivity, lo=0.0)
    s = v.real_scalar("sigma", sigma, lo=0.0, lo_open=True)
    with np.errstate(all="ignore"):
        m = d / s
    if math.isinf(m):
        raise DPError("h_too_big", log10=f"{math.log10(d) - math.log10(s):.4f}")
    return m


# --------------------------------------------------------------------------------------------
# The trade-off function and the attacker
# --------------------------------------------------------------------------------------------
def tradeoff(fpr: float, mu: float) -> float:
    """β(α) = Φ(Φ⁻¹(1 − α) − μ): the smallest miss rate of any test at false-positive rate α.

    Domain: α in [0, 1], μ >= 0 finite. β(0) = 1, β(1) = 0, μ = 0 gives 1 − α (no test beats
    guessing). May underflow to 0.0 (μ = 40, α = 1/2: β ≈ 3.7e-350): :func:`log_tradeoff` keeps
    it. Accuracy: a few ulps relative (1e-14 tested against mpmath at 50 digits for α in
    [1e-300, 1 − 1e-16], μ in [1e-6, 40]). Reference: Dong, Roth & Su 2022, §2.2 (G_μ).
    """
    return _rates(_rate("fpr", fpr), _mu(mu)).fnr


def log_tradeoff(fpr: float, mu: float) -> float:
    """ln β(α) (finite where β underflows; −inf only at α = 1). Same domain and accuracy (absolute
    error of ln β a few 1e-16 plus a few ulps of it)."""
    return _rates(_rate("fpr", fpr), _mu(mu)).log_fnr


def tradeoff_inverse(fnr: float, mu: float) -> float:
    """The false-positive rate α at which the best test misses with probability β = ``fnr``.

    G_μ is symmetric (β(β(α)) = α: swap the roles of N(0, 1) and N(μ, 1)), so this is
    :func:`tradeoff` evaluated at ``fnr``; it is kept separate so the code says which way it
    reads the curve. Domain: fnr in [0, 1], μ >= 0. Accuracy as :func:`tradeoff`.
    """
    return _rates(_rate("fnr", fnr), _mu(mu)).fnr


def tpr(fpr: float, mu: float) -> float:
    """The attacker's best true-positive rate at false-positive rate α: 1 − β(α) = Φ(Φ⁻¹(α) + μ).

    Domain: α in [0, 1], μ >= 0. TPR >= α always (guessing achieves it); μ = 0 gives α exactly.
    Accuracy: a few ulps relative, down to α = 1e-300 (e.g. α = 1e-300, μ = 1e-6: TPR is α times
    1.0000370..., every digit kept). Reference: Dong, Roth & Su 2022, §2.2.
    """
    return _rates(_rate("fpr", fpr), _mu(mu)).tpr


def tpr_curve(fprs: np.ndarray, mu: float) -> np.ndarray:
    """:func:`tpr` on an array of false-positive rates at once, for a picture of the curve.

    TPR = Φ(Φ⁻¹(α) + μ) with scipy's ``ndtri`` and ``ndtr`` in double precision: one rounding
    of q + μ, so the relative error grows with |q|: ~1e-15 at α = 1e-4, below 5e-14 for
    α >= 1e-12 (rates below 1e-12, where it would grow past that, come from :func:`tpr`);
    tests/dpcore/test_tradeoff.py checks it against :func:`tpr` and mpmath.
    :func:`tpr` keeps every digit (double-double); this is ~50× faster on the lab's 137-point
    grid (Dong, Roth & Su 2022, §2.2). Domain: every α in [0, 1], μ >= 0 finite; TPR(0) = 0,
    TPR(1) = 1, μ = 0 gives α exactly. The first rate outside [0, 1] raises :func:`tpr`'s keyed
    error (a ``ValueError``).
    """
    a = np.asarray(fprs, dtype=float)
    m = _mu(mu)
    bad = ~((a >= 0.0) & (a <= 1.0))
    if bad.any():
        _rate("fpr", float(a[bad.nonzero()][0]))  # raises the keyed error
    if m == 0.0:
        return a.copy()
    with np.errstate(all="ignore"):
        out = sc.ndtr(sc.ndtri(a) + m)
    out = np.where(a == 0.0, 0.0, np.where(a == 1.0, 1.0, out))
    # below 1e-12 one rounding of q + μ costs more digits (4.6e-13 at 1e-276): from tpr
    for i in np.flatnonzero((a > 0.0) & (a < _TINY_FPR)):
        out[i] = tpr(float(a[i]), m)
    return out


def log_tpr(fpr: float, mu: float) -> float:
    """ln TPR (finite for a subnormal α; −inf only at α = 0)."""
    return _rates(_rate("fpr", fpr), _mu(mu)).log_tpr


def fpr_at_tpr(target_tpr: float, mu: float) -> float:
    """The smallest false-positive rate at which the best test reaches TPR = ``target_tpr``:
    α = Φ(Φ⁻¹(TPR) − μ) = β(1 − TPR) (symmetry). Domain: TPR in [0, 1], μ >= 0. 1 − TPR is
    exact for TPR >= 1/2; below, it is rounded (relative error <= u of 1 − TPR)."""
    t = _rate("tpr", target_tpr)
    m = _mu(mu)
    if t >= 0.5 or t == 0.0:
        return _rates(1.0 - t, m).fnr
    if m == 0.0:
        return t
    # α = Φ(q_t − μ) with q_t = Φ⁻¹(t) < 0: the lower tail at x = −q_t + μ
    q_hi, q_lo = _quantile(t)
    x_hi, x_lo = _two_sum(-q_hi, m)
    x_hi, x_lo = _two_sum(x_hi, x_lo - q_lo)
    return _exp_dd(*_ln_lower_tail(x_hi, x_lo))


def advantage(fpr: float, mu: float) -> float:
    """TPR − FPR of the best test at false-positive rate α: how much better than guessing.

    Computed without cancellation: as a plain difference where TPR >= 2 FPR (α <= 1/2) or
    β <= (1 − α)/2 (α > 1/2; then TPR − α = (1 − α) − β), losing at most a factor 2; otherwise
    as Φ(w) expm1(∫_w^{w+μ} λ) with w = Φ⁻¹(α) (α <= 1/2) or w = Φ⁻¹(β) = −Φ⁻¹(α) − μ, the
    integral (< ln 2) by Gauss–Legendre. Domain: α in [0, 1], μ >= 0. Accuracy: a few ulps
    relative (e.g. μ = 1e-6 at α = 0.3 keeps every digit of ≈ 3.5e-7; the subtraction
    Φ(q + μ) − α keeps about 10).
    """
    a, m = _rate("fpr", fpr), _mu(mu)
    if a in (0.0, 1.0) or m == 0.0:
        return 0.0
    r = _rates(a, m)
    if a <= 0.5 and r.tpr >= 2.0 * a:
        return r.tpr - a
    if a > 0.5 and r.fnr <= 0.5 * (1.0 - a):
        return (1.0 - a) - r.fnr  # 1 − α is exact
    q_hi, q_lo = _quantile(a)
    if a <= 0.5:
        return a * math.expm1(_log_ratio(q_hi, q_lo, m))
    w_hi, w_lo = _two_sum(-q_hi, -m)
    return r.fnr * math.expm1(_log_ratio(w_hi, w_lo - q_lo, m))


def best_advantage(mu: float) -> float:
    """max over α of TPR − FPR = 2Φ(μ/2) − 1 = erf(μ/(2√2)): the total variation distance of
    N(0, 1) and N(μ, 1), which equals δ(0) of the exact profile (docs/math.md#reference-values).

    Computed with erf (no 1 − 1 cancellation at small μ): a few ulps relative for every μ >= 0.
    """
    return float(sc.erf(_mu(mu) * (0.5 * _INV_SQRT2)))


def best_advantage_fpr(mu: float) -> float:
    """The false-positive rate α* = Φ(−μ/2) where TPR − FPR is largest (TPR there = Φ(μ/2))."""
    return float(sc.ndtr(-0.5 * _mu(mu)))


@dataclass(frozen=True)
class Attack:
    """The best attacker against one Gaussian release at a chosen false-positive rate.

    ``tpr``/``log_tpr``: its true-positive rate; ``fnr``/``log_fnr``: its miss rate β(α);
    ``advantage``: TPR − FPR at this α; ``best_advantage`` (at ``best_fpr``): the largest
    TPR − FPR of any test, 2Φ(μ/2) − 1."""

    sensitivity: float
    sigma: float
    mu: float
    fpr: float
    tpr: float
    log_tpr: float
    fnr: float
    log_fnr: float
    advantage: float
    best_advantage: float
    best_fpr: float


def attack(fpr: float, sensitivity: float, sigma: float) -> Attack:
    """:class:`Attack` for the release f(D) + N(0, σ²) with global sensitivity Δ (μ = Δ/σ).

    Domain: α in [0, 1], Δ >= 0, σ > 0 (finite); DPError ``h_too_big`` when Δ/σ overflows."""
    a = _rate("fpr", fpr)
    m = _mu_of(sensitivity, sigma)
    r = _rates(a, m)
    return Attack(sensitivity=float(sensitivity), sigma=float(sigma), mu=m, fpr=a, tpr=r.tpr,
                  log_tpr=r.log_tpr, fnr=r.fnr, log_fnr=r.log_fnr, advantage=advantage(a, m),
                  best_advantage=best_advantage(m), best_fpr=best_advantage_fpr(m))


# --------------------------------------------------------------------------------------------
# Calibrations
# --------------------------------------------------------------------------------------------
def _ln_ratio_rates(t: float, a: float) -> float:
    """ln(t/a) for 0 < a < t <= 1/2, relative error a few ulps (t − a is exact when t <= 2a)."""
    if t <= 2.0 * a:
        return math.log1p((t - a) / a)
    t_hi, t_lo = _log_dd(t)
    a_hi, a_lo = _log_dd(a)
    return (t_hi - a_hi) + (t_lo - a_lo)


def _mu_same_side(a: float, t: float) -> float:
    """μ with Φ(Φ⁻¹(a) + μ) = t for 0 < a < t <= 1/2 (both quantiles <= 0)."""
    qa_hi, qa_lo = _quantile(a)
    qt_hi, qt_lo = _quantile(t)
    m = (qt_hi - qa_hi) + (qt_lo - qa_lo)  # qt_hi − qa_hi exact when close (Sterbenz)
    if m >= MU_QUADRATURE:
        return m  # absolute error ~1e-16, relative below 1e-16 here
    # μ < 1: the difference lost digits; solve ∫_q^{q+μ} λ = ln(t/a) (increasing, concave in μ)
    rho = _ln_ratio_rates(t, a)
    m = max(m, 0.0)
    if m == 0.0:
        m = rho / float(_lam(np.array(qa_hi)))
    for _ in range(20):
        g = _log_ratio(qa_hi, qa_lo, m) - rho
        step = g / float(_lam(np.array(qa_hi + (qa_lo + m))))
        m_new = m - step
        if m_new <= 0.0:
            m_new = 0.5 * m
        if abs(m_new - m) <= 2.0 * _U * m:
            return m_new
        m = m_new
    return m


def mu_for_tpr(target_tpr: float, fpr: float) -> float:
    """The μ = Δ/σ at which the best attacker's TPR at FPR α is exactly ``target_tpr``:
    μ = Φ⁻¹(TPR) − Φ⁻¹(α), computed without subtracting nearly equal quantiles.

    Domain: α in (0, 1), TPR in [α, 1]. TPR = α gives 0; TPR = 1 gives inf. Accuracy: a few ulps
    relative (within 5e-16 of mpmath measured, 1e-14 tested; μ from 1e-6 to 40, α from
    1e-300). The plain ndtri(TPR) − ndtri(α) errs by 2e-13 at α = 0.4, μ = 1e-6."""
    a = v.real_scalar("fpr", fpr, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    t = v.real_scalar("tpr", target_tpr, lo=a, hi=1.0)
    if t == a:
        return 0.0
    if t == 1.0:
        return math.inf
    if a >= 0.5:  # Φ⁻¹(t) − Φ⁻¹(a) = Φ⁻¹(1 − a) − Φ⁻¹(1 − t), both differences exact
        a, t = 1.0 - t, 1.0 - a
    if t <= 0.5:
        return _mu_same_side(a, t)
    # quantiles on opposite sides: a sum of two non-negative numbers
    xa_hi, xa_lo = _tail_quantile(a)
    xt_hi, xt_lo = _tail_quantile(1.0 - t)
    return (xa_hi + xt_hi) + (xa_lo + xt_lo)


@dataclass(frozen=True)
class Calibration:
    """A σ chosen from what people care about, and what it means.

    ``sigma``: the noise standard deviation (query units); ``mu`` = Δ/σ; ``half_width``: 95 % of
    the noise lies within ±half_width (= Z95 σ); ``fpr``/``tpr``: the best attacker's TPR at that
    FPR (None when no FPR was given); ``delta``/``eps``: ε at the claimed δ (None without δ);
    ``target``: "tpr" or "error"."""

    target: str
    sensitivity: float
    sigma: float
    mu: float
    half_width: float
    fpr: float | None
    tpr: float | None
    delta: float | None
    eps: float | None


def _eps_at(delta: float | None, d: float, sigma: float) -> float | None:
    if delta is None:
        return None
    t = v.real_scalar("delta", delta, lo=0.0, hi=1.0)
    if d == 0.0 or math.isinf(sigma):
        return 0.0
    if sigma == 0.0:
        return 0.0 if t >= 1.0 else math.inf
    return gaussian.epsilon(t, d, sigma)


def _sigma_up(d: float, m: float) -> float:
    """σ >= d/m exactly (rounded up); DPError when it is not a normal double."""
    with np.errstate(all="ignore"):
        sigma = d / m
    if math.isinf(sigma):
        raise DPError("sigma_overflow", log10=f"{math.log10(d) - math.log10(m):.4f}")
    sigma = math.nextafter(sigma, math.inf)
    if sigma < _MIN_NORMAL:
        raise DPError("sigma_underflow", log10=f"{math.log10(d) - math.log10(m):.4f}")
    return sigma


def calibrate_sigma_tpr(target_tpr: float, fpr: float, sensitivity: float,
                        delta: float | None = None) -> Calibration:
    """The smallest σ for which no attacker catches more than ``target_tpr`` at FPR α.

    Conservative: μ = :func:`mu_for_tpr` is lowered by CAL_MARGIN (64 ulps, the solver errs by
    less than 4) and σ = Δ/μ is rounded up, so the exact TPR of the σ returned is <= the target;
    σ is within ~1e-14 relative above the exact minimum. ``delta`` (optional) adds ε at that δ
    from :func:`dpcore.gaussian.epsilon` (conservative by proof).
    Domain: α in (0, 1), TPR in [α, 1], Δ >= 0, δ in [0, 1]. Edge cases: Δ = 0 or TPR = 1 give
    σ = 0 (no noise needed); TPR = α gives σ = inf (only infinite noise keeps every attacker at
    guessing); a σ outside the normal doubles is a DPError (``sigma_overflow``/``_underflow``).
    """
    a = v.real_scalar("fpr", fpr, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    t = v.real_scalar("tpr", target_tpr, lo=a, hi=1.0)
    d = v.real_scalar("sensitivity", sensitivity, lo=0.0)
    m = mu_for_tpr(t, a)
    if d == 0.0 or math.isinf(m):
        sigma = 0.0
    elif m == 0.0:
        sigma = math.inf
    else:
        sigma = _sigma_up(d, m * (1.0 - CAL_MARGIN))
    mu = 0.0 if d == 0.0 or math.isinf(sigma) else (math.inf if sigma == 0.0 else d / sigma)
    got = tpr(a, mu) if math.isfinite(mu) else 1.0
    return Calibration(target="tpr", sensitivity=d, sigma=sigma, mu=mu, half_width=Z95 * sigma,
                       fpr=a, tpr=got, delta=delta, eps=_eps_at(delta, d, sigma))


def calibrate_sigma_error(half_width: float, sensitivity: float, delta: float | None = None,
                          fpr: float | None = None) -> Calibration:
    """The largest σ whose noise stays within ±``half_width`` with probability 95 %:
    σ = half_width / Φ⁻¹(0.975) (query units), rounded down by 2 ulps so the promise holds for
    the exact Φ⁻¹(0.975) (Z95 is within half an ulp of it).

    ``delta`` (optional) adds ε at that δ (:func:`dpcore.gaussian.epsilon`, conservative);
    ``fpr`` (optional) adds the best attacker's TPR at that FPR. Domain: half_width > 0 finite,
    Δ >= 0, δ in [0, 1], FPR in [0, 1]. DPError ``sigma_underflow`` for a half-width so small
    that σ is not a normal double.
    """
    w = v.real_scalar("half_width", half_width, lo=0.0, lo_open=True)
    d = v.real_scalar("sensitivity", sensitivity, lo=0.0)
    a = None if fpr is None else _rate("fpr", fpr)
    sigma = math.nextafter(math.nextafter(w / Z95, 0.0), 0.0)
    if sigma < _MIN_NORMAL:
        raise DPError("sigma_underflow", log10=f"{math.log10(w) - math.log10(Z95):.4f}")
    mu = _mu_of(d, sigma)
    got = None if a is None else tpr(a, mu)
    return Calibration(target="error", sensitivity=d, sigma=sigma, mu=mu,
                       half_width=Z95 * sigma, fpr=a, tpr=got, delta=delta,
                       eps=_eps_at(delta, d, sigma))
