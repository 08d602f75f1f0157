"""Certification of one Gaussian release: is the claimed (eps, delta) true for this sigma?

The required delta is the exact profile delta(eps) of N(0, sigma^2) noise at the query's global
sensitivity (Balle & Wang 2018, Thm 8; see :mod:`dpcore.gaussian`). Everything is decided for
the exact inputs, never for rounded intermediates:

* h = sensitivity/sigma is formed from the exact rational B/(n sigma), so a mean whose B/n
  underflows as a double (B = 1e-300, n = 1e30) still has its true h = 1e-30;
* the claim is read from its text in log space (:class:`Claim`), so 1e-400 is 1e-400, not 0;
* the verdict is conservative: "pass" only when the claim is at least an upper bound of the
  exact delta that accounts for every rounding (:func:`certify` states the bound). When the
  double-precision interval cannot decide, the exact delta is computed with mpmath at 40+
  digits from the exact inputs; only if that cannot separate the two numbers either is the
  verdict "too_close" (not a pass), with both numbers shown.
"""

from __future__ import annotations

import functools
import math
from dataclasses import asdict, dataclass
from decimal import Decimal, InvalidOperation, localcontext
from fractions import Fraction
from typing import Any

from dpcore import gaussian, queries
from dpcore import validate as v
from dpcore.errors import DPError, fmt_value

__all__ = ["N_DELTA_LEVELS", "N_DELTA_SOFT", "REASONS", "VERDICTS", "Certification", "Claim",
           "certify", "classic_sigma", "exact_sigma", "n_delta_level", "sci_from_log10"]

#: Reason keys (the UI and CLI translate them through their message catalogues).
REASONS = ("zero_sensitivity", "claim_covers", "claim_too_small", "claim_zero_positive_delta",
           "too_close_to_call")
VERDICTS = ("pass", "fail", "too_close")
#: How the claimed delta compares with 1/n (``Certification.n_delta_level``): "small" below
#: n delta = N_DELTA_SOFT; "large" from there (delta should be far below 1/n: publishing each
#: record with probability delta is (0, delta)-DP and publishes n delta records on average);
#: "no_one" from n delta = 1 (delta >= 1/n: the claim protects no one even if it passes).
N_DELTA_LEVELS = ("small", "large", "no_one")
N_DELTA_SOFT = Decimal("0.01")

_LN10 = math.log(10.0)
_LOG10_E = 1.0 / _LN10
_U = 2.0**-53
_MIN_NORMAL = 2.2250738585072014e-308
_MAX = 1.7976931348623157e308
# Digits for the exact fallback (plus those the subtraction cancels); the two evaluations at
# this and 25 more digits must agree, and the claim must differ from delta by more than that.
_MP_DIGITS = 40


@dataclass(frozen=True)
class Claim:
    """A claimed delta in [0, 1], kept exactly: its text, log10 (-inf for 0) and nearest double.

    ``Claim.parse("1e-400")`` has log10 = -400 and value 0.0 (below the double range); the
    verdict uses the log. "-0" and "0.0" are the claim 0 (text "0").
    """

    text: str
    log10: float
    value: float

    @classmethod
    def parse(cls, text: object) -> Claim:
        """Parse a decimal text (or a number) in [0, 1]; DPError ``claim_text`` otherwise."""
        if isinstance(text, Claim):
            return text
        if isinstance(text, bool) or not isinstance(text, (str, int, float)):
            raise DPError("claim_text", value=fmt_value(text))
        if isinstance(text, float):
            if not 0.0 <= text <= 1.0:
                raise DPError("claim_text", value=fmt_value(text))
            return cls.of(text)
        s = str(text).strip().replace("\u2212", "-")
        try:
            d = Decimal(s)
        except (InvalidOperation, ValueError):
            raise DPError("claim_text", value=fmt_value(text)) from None
        if not d.is_finite() or d < 0 or d > 1:
            raise DPError("claim_text", value=fmt_value(text))
        if d == 0:
            return cls("0", -math.inf, 0.0)
        with localcontext() as ctx:
            ctx.prec = 40
            log10 = float(d.log10())
        return cls(s, log10, float(d))

    @classmethod
    def of(cls, value: float) -> Claim:
        """The claim equal to the double ``value`` (exactly)."""
        x = v.real_scalar("claimed delta", value, lo=0.0, hi=1.0)
        if x == 0.0:
            return cls("0", -math.inf, 0.0)
        return cls(repr(x), math.log10(x), x)

    def ln(self) -> tuple[float, float]:
        """(ln claim, bound on its rounding error)."""
        if self.log10 == -math.inf:
            return -math.inf, 0.0
        ln = self.log10 * _LN10
        return ln, 4.0 * _U * abs(ln) + 1e-300

    def mp(self) -> Any:
        import mpmath as mp

        return mp.mpf(self.text) if self.text != "0" else mp.mpf(0)


@dataclass(frozen=True)
class Certification:
    """Everything the certification card shows, for one release.

    Units: ``sensitivity``, ``sigma``, ``mae``, ``half_width_95``, ``classic_sigma`` and
    ``exact_sigma`` are in the query's output units (``unit``: sum units, mean units, records);
    ``mse`` is in squared units. ``log_delta`` is natural, ``log10_delta`` decimal; both are
    -inf exactly when the sensitivity is 0 and finite otherwise. ``log_delta_lo`` /
    ``log_delta_hi`` bracket the exact ln delta. ``sensitivity`` is the nearest double; when
    the exact value is below the normal double range ``sensitivity_underflow`` is True and
    ``log10_sensitivity`` carries it (as_dict then writes the sensitivity as a decimal string).
    ``verdict`` is "pass", "fail" or "too_close" (``passes`` is True only for "pass");
    ``decided_by`` is "double" or "mpmath" (then ``required_text`` is the exact delta to 25
    significant digits, else ""). ``exact_sigma_status``: "ok", "not_needed",
    "no_finite_sigma" (delta = 0 claimed: exact_sigma = inf), "overflow" / "underflow" (the
    smallest sigma is not a normal double; exact_sigma is then inf / 0.0 and
    ``log10_exact_sigma`` gives it).
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
    verdict: str = "pass"
    decided_by: str = "double"
    claimed_text: str = ""
    claimed_log10: float = -math.inf
    log_delta_lo: float = -math.inf
    log_delta_hi: float = -math.inf
    log10_sensitivity: float = -math.inf
    sensitivity_underflow: bool = False
    h: float = 0.0
    exact_sigma_status: str = "ok"
    log10_exact_sigma: float = math.nan
    required_text: str = ""
    n_delta_level: str = "small"

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly dict (infinities become the strings "inf" / "-inf"; a sensitivity
        below the double range becomes its decimal string, e.g. "1.000000000e-330")."""
        out: dict[str, Any] = {}
        for k, val in asdict(self).items():
            if isinstance(val, float) and math.isinf(val):
                val = "inf" if val > 0 else "-inf"
            elif isinstance(val, float) and math.isnan(val):
                val = None
            out[k] = val
        if self.sensitivity_underflow:
            out["sensitivity"] = sci_from_log10(self.log10_sensitivity)
        return out


def n_delta_level(n: int, claim: Claim) -> str:
    """"small", "large" or "no_one" (:data:`N_DELTA_LEVELS`) for the claim's n delta, decided
    exactly from its decimal text (delta = 0.25 at n = 4 is n delta = 1, "no_one")."""
    if claim.log10 == -math.inf:
        return "small"
    try:
        d = Decimal(claim.text)
    except (InvalidOperation, ValueError):
        d = Decimal(claim.value)
    with localcontext() as ctx:
        ctx.prec = 60
        nd = d * Decimal(n)
    if nd >= 1:
        return "no_one"
    return "large" if nd >= N_DELTA_SOFT else "small"


def sci_from_log10(log10: float, digits: int = 10) -> str:
    """Scientific notation of 10**log10 without forming the double (works far below 1e-308)."""
    if log10 == -math.inf:
        return "0"
    e = math.floor(log10)
    m = 10.0 ** (log10 - e)
    if round(m, digits - 1) >= 10.0:
        m, e = m / 10.0, e + 1
    return f"{m:.{digits - 1}f}e{e:+d}"


def _ratio_parts(eps: float, hf: Fraction) -> tuple[float, float, float, float]:
    """(h, eps/h, ln h, theta) for the exact h = hf > 0: h the nearest double (maybe 0.0 or
    subnormal), eps/h and ln h each rounded once from the exact values, theta a bound on the
    relative difference between the double h and hf as it enters the evaluation."""
    log_h = math.log(hf.numerator) - math.log(hf.denominator)
    if log_h > 709.8:
        raise DPError("h_too_big", log10=f"{log_h / _LN10:.4f}")
    h = float(hf)
    try:
        r = float(Fraction(eps) / hf)
    except OverflowError:
        r = math.inf
    if h >= gaussian.TINY_H:
        theta = abs(float((hf - Fraction(h)) / hf))
        return h, r, math.log(h), theta
    # h is only used additively there (h/2 next to eps/h, the Gauss-Legendre nodes): its
    # rounding changes ln delta by far less than u; ln h and eps/h carry the exact values
    return h, r, log_h, 2.0 * _U


def _mp_ln_delta(eps: float, hf: Fraction, dps: int) -> Any:
    import mpmath as mp

    with mp.workdps(dps):
        e = mp.mpf(eps)
        h = mp.mpf(hf.numerator) / mp.mpf(hf.denominator)
        a = h / 2 - e / h
        c = -h / 2 - e / h
        if a > 1:
            return mp.log1p(-(mp.ncdf(-a) + mp.exp(e) * mp.ncdf(c)))
        return mp.log(mp.ncdf(a) - mp.exp(e) * mp.ncdf(c))


def _exact_verdict(eps: float, hf: Fraction, claim: Claim, lost10: float
                   ) -> tuple[str | None, str]:
    """Compare the claim with the exact delta at 40+ digits (mpmath, twice): ("pass" | "fail" |
    None when even that cannot separate them, the exact delta to 25 digits). ``lost10``:
    digits the subtraction Phi(a) - e^eps Phi(c) cancels (-log10 of delta/Phi(a))."""
    import mpmath as mp

    dps = _MP_DIGITS + min(int(max(lost10, 0.0)) + 2, 5000)
    v1 = _mp_ln_delta(eps, hf, dps)
    v2 = _mp_ln_delta(eps, hf, dps + 25)
    with mp.workdps(dps + 25):
        lc = mp.log(claim.mp())
        # both logs are computed to relative precision (log1p where delta is near 1)
        tol = abs(v1 - v2) * 4 + mp.mpf(10) ** (-(_MP_DIGITS - 5)) * abs(v2)
        text = mp.nstr(mp.exp(v2), 25)
        if lc - v2 > tol:
            return "pass", text
        if v2 - lc > tol:
            return "fail", text
    return None, text


def certify(
    query: str, n: int, B: float, sigma: float, eps: float, claimed_delta: float | str | Claim
) -> Certification:
    """Certify the release f(D) + N(0, sigma^2) of ``query`` against the claim (eps, delta).

    Domain: query in sum/mean/count/const, n >= 1 whole (a Python int of any size), B > 0,
    sigma > 0, eps >= 0, all finite doubles; the claimed delta in [0, 1] as a double, a decimal
    text (read exactly, in log space: "1e-400" is 1e-400) or a :class:`Claim`. Otherwise
    DPError (a ValueError) naming the parameter.

    Verdict (conservative): with ld the double evaluation of ln delta for the exact
    h = sensitivity/sigma and E the error bound of :func:`dpcore.gaussian.evaluate` (widened
    by |d ln delta/d ln h| theta, theta the rounding of h as a double), the exact ln delta lies
    in [ld - E, ld + E]; with lc the claim's ln and e_c its rounding bound, "pass" iff
    lc - e_c >= ld + E, "fail" iff lc + e_c < ld - E.
    E is ~1e-15 to 1e-14 times max(1, |ln delta|), so a claim 1e-12 above the exact delta
    passes. In between, the exact delta is computed at 40+ digits (mpmath) and compared; if the
    two still agree to that precision the verdict is "too_close" (passes = False). A claim of 0
    passes only when the sensitivity is 0. Flags: ``mathematically_positive`` (sensitivity > 0,
    hence delta > 0 for every finite eps), ``underflow`` (positive, but 0.0 as a double),
    ``pure_dp_possible`` (only when the sensitivity is 0: the privacy loss of two different
    Gaussians is unbounded). ``n_delta_level`` compares the claim with 1/n
    (:func:`n_delta_level`); it never changes the verdict.
    """
    q = queries.check_query(query)
    nn = v.integer("n", n, lo=1)
    b = v.real_scalar("B", B, lo=0.0, lo_open=True)
    s = v.real_scalar("sigma", sigma, lo=0.0, lo_open=True)
    e = v.real_scalar("epsilon", eps, lo=0.0)
    claim = Claim.parse(claimed_delta)

    sens_f = queries.sensitivity_exact(q, nn, b)
    positive = sens_f > 0
    sens = float(sens_f)
    log10_sens = queries.log10_sensitivity(q, nn, b)
    decided_by = "double"
    required_text = ""
    if not positive:
        ld = lo_b = hi_b = -math.inf
        h = 0.0
        verdict, reason = "pass", "zero_sensitivity"
    else:
        hf = sens_f / Fraction(s)
        h, r, log_h, theta = _ratio_parts(e, hf)
        ev = gaussian.evaluate(e, h, eps_over_h=r, log_h=log_h, theta_h=theta)
        gaussian.check_log_delta(ev.log_delta)
        ld = ev.log_delta
        lo_b, hi_b = ev.lo, ev.hi
        if claim.log10 == -math.inf:
            verdict, reason = "fail", "claim_zero_positive_delta"
        elif claim.log10 >= 0.0:  # delta <= 1 for every mechanism
            verdict, reason = "pass", "claim_covers"
        else:
            lc, ec = claim.ln()
            if lc - ec >= hi_b:
                verdict = "pass"
            elif lc + ec < lo_b:
                verdict = "fail"
            else:
                decided_by = "mpmath"
                lost10 = (ev.log_p0 - ev.log_delta) * _LOG10_E if ev.path == "C" else 2.0
                exact, required_text = _exact_verdict(e, hf, claim, lost10)
                verdict = exact if exact is not None else "too_close"
            reason = {"pass": "claim_covers", "fail": "claim_too_small",
                      "too_close": "too_close_to_call"}[verdict]
    required = math.exp(ld) if positive else 0.0
    err_fig = gaussian.noise_errors(s)
    classic_s, classic_ok = classic_sigma(e, claim, sens_f)
    exact_s, status, log10_sigma = exact_sigma(e, claim, sens_f)
    return Certification(
        query=q,
        n=nn,
        B=b,
        sigma=s,
        eps=e,
        claimed_delta=claim.value,
        sensitivity=sens,
        log_delta=ld,
        log10_delta=ld * _LOG10_E,
        required_delta=required,
        passes=verdict == "pass",
        reason=reason,
        mathematically_positive=positive,
        underflow=positive and required == 0.0,
        pure_dp_possible=not positive,
        mse=err_fig.mse,
        mae=err_fig.mae,
        half_width_95=err_fig.half_width_95,
        unit=queries.unit_key(q),
        classic_sigma=classic_s,
        classic_proven=classic_ok,
        exact_sigma=exact_s,
        verdict=verdict,
        decided_by=decided_by,
        claimed_text=claim.text,
        claimed_log10=claim.log10,
        log_delta_lo=lo_b,
        log_delta_hi=hi_b,
        log10_sensitivity=log10_sens,
        sensitivity_underflow=positive and sens < _MIN_NORMAL,
        h=h,
        exact_sigma_status=status,
        log10_exact_sigma=log10_sigma,
        required_text=required_text,
        n_delta_level=n_delta_level(nn, claim),
    )


# The calibration depends on eps and the claim, not on sigma: a sigma move certifies with the
# same eps and claim again. A pure function of two doubles; 1024 entries are ~100 kB.
_calibrate_h = functools.lru_cache(maxsize=1024)(gaussian.calibrate_h)


def classic_sigma(eps: float, claim: Claim, sens_f: Fraction) -> tuple[float, bool]:
    """(sigma, proven): the classic sigma = sqrt(2 ln(1.25/delta)) Delta/eps (Dwork & Roth 2014,
    Thm A.1; docs/math.md#classic-bound) from the claim's log (so 1e-400 works) and the exact
    Delta ``sens_f`` >= 0; proven only for 0 < eps < 1. Delta = 0 gives 0.0; eps = 0 or a claim
    of 0 (with Delta > 0) gives inf, as does a sigma beyond the double range. ``eps`` >= 0 is
    taken as validated (certify and the CLI check it first)."""
    proven = 0.0 < eps < 1.0
    if sens_f == 0:
        return 0.0, proven
    if eps == 0.0 or claim.log10 == -math.inf:
        return math.inf, proven
    ln_c, _ = claim.ln()
    factor = math.sqrt(2.0 * (math.log(1.25) - ln_c))
    try:
        return float(sens_f / Fraction(eps)) * factor, proven
    except OverflowError:
        return math.inf, proven


def exact_sigma(eps: float, claim: Claim, sens_f: Fraction) -> tuple[float, str, float]:
    """(smallest sigma meeting the claim, status, its log10) for the exact Delta ``sens_f``;
    conservative: sigma >= Delta / h* exactly, h* from :func:`dpcore.gaussian.calibrate_h`.

    Status (as :attr:`Certification.exact_sigma_status`): "ok"; "not_needed" (Delta = 0 or a
    claim >= 1: sigma 0.0); "no_finite_sigma" (a claim of 0: inf); "overflow" / "underflow" (the
    smallest sigma is not a normal double: inf / 0.0, and the log10 says where it is).
    ``eps`` >= 0 is taken as validated (certify and the CLI check it first)."""
    if sens_f == 0 or claim.log10 >= 0.0:
        return 0.0, "not_needed", -math.inf
    if claim.log10 == -math.inf:
        return math.inf, "no_finite_sigma", math.inf
    lc, ec = claim.ln()
    try:
        h = _calibrate_h(float(eps), float(lc - ec))
    except DPError:  # even the smallest double h is too large: sigma beyond any double
        log10 = (math.log(sens_f.numerator) - math.log(sens_f.denominator)
                 - (lc + gaussian.LOG_SQRT_2PI)) / _LN10
        return (math.inf, "overflow", log10)
    sf = sens_f / Fraction(h)
    log10 = (math.log(sf.numerator) - math.log(sf.denominator)) / _LN10
    try:
        sigma = float(sf)
    except OverflowError:
        return math.inf, "overflow", log10
    if Fraction(sigma) < sf:
        sigma = math.nextafter(sigma, math.inf)
    if sigma > _MAX:
        return math.inf, "overflow", log10
    if sigma < _MIN_NORMAL:
        return 0.0, "underflow", log10
    return sigma, "ok", log10
