"""Write tests/reference/conservative_reference.json: exact answers for the hardening tests.

Three random sets (seeded), each answered with mpmath at adaptive precision:

* ``profile``   (10,000 points): eps, h and the exact ln delta(eps; h) at 30 digits. The test
  checks |log_delta - ref| <= the evaluation's own error bound (gaussian._error_bound).
* ``calibrate`` (10,000 cases): eps, delta target, sensitivity d and h* = the largest h with
  delta(eps; h) <= target, written ROUNDED DOWN (to 22 significant digits after subtracting
  1e-21 relative), so "d / sigma <= h*" in exact rational arithmetic proves the returned sigma
  conservative.
* ``epsilon``   (10,000 cases): delta target, sensitivity, sigma and eps* = the smallest eps
  with delta(eps; sensitivity/sigma) <= target for the exact quotient, ROUNDED UP likewise;
  "eps >= eps*" proves the returned eps conservative. "0" when delta(0) <= target.

How ln delta is evaluated: ln(Phi(a) - e^eps Phi(c)) with a = h/2 - eps/h, c = -h/2 - eps/h
(Balle & Wang 2018, Thm 8), as log1p(-(Phi(-a) + e^eps Phi(c))) when a > 1 (delta near 1), from
the exact binary values of the doubles, at 40 digits plus
the digits the subtraction cancels (estimated as -log10(dl), dl = ln R(x) - ln R(x+h), from a
first evaluation); each value is cross-checked at 25 more digits and must agree to 1e-28
relative. Roots: Newton from our double answer, then the bracket [root (1 - 1e-21), root
(1 + 1e-21)] is checked to change sign at the higher precision.

It also prints (and stores under ``checks``) the measurements the code's constants rest on:
the worst relative error of scipy.special.erfcx and of the continued fraction for m(u) at the
depths of dpcore.gaussian._CF_DEPTHS, against mpmath.

Run:  nice .venv/bin/python tests/reference/make_conservative_reference.py   (~15 minutes)
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import mpmath as mp
import numpy as np
from scipy import special as sc

from dpcore import gaussian as g

OUT = Path(__file__).with_name("conservative_reference.json")
N = int(__import__("os").environ.get("DPLAB_REF_N", "10000"))


def _dps_for(eps: float, h: float) -> int:
    """40 digits plus those lost to cancellation, estimated from a double evaluation."""
    try:
        p = g._parts(eps, h) if h >= g._TINY_H else None
    except (ValueError, OverflowError, ZeroDivisionError):
        p = None
    dl = p.q if p is not None and p.path == "C" else 1.0
    if h < 1e-280:
        dl = min(dl, h)
    extra = max(0, int(-math.log10(max(dl, 1e-320)))) if dl < 1 else 0
    return 40 + extra


def ln_delta_mp(e: mp.mpf, h: mp.mpf) -> mp.mpf:
    a = h / 2 - e / h
    c = -h / 2 - e / h
    if a > 1:  # delta = 1 - (Phi(-a) + e^eps Phi(c)), a sum of positive terms below 0.32
        return mp.log1p(-(mp.ncdf(-a) + mp.exp(e) * mp.ncdf(c)))
    return mp.log(mp.ncdf(a) - mp.exp(e) * mp.ncdf(c))


def checked_ln_delta(eps: object, h_num: object, h_den: object = 1, dps: int = 40) -> mp.mpf:
    """ln delta at dps and dps + 25 digits; they must agree to 1e-28 relative."""
    vals = []
    for extra in (0, 25):
        with mp.workdps(dps + extra):
            e = mp.mpf(eps)
            h = mp.mpf(h_num) / mp.mpf(h_den)
            vals.append(ln_delta_mp(e, h))
    with mp.workdps(dps + 25):
        if abs(vals[0] - vals[1]) > mp.mpf(10) ** -28 * max(1, abs(vals[1])):
            raise RuntimeError(f"precision check failed: eps={eps!r}, h={h_num!r}/{h_den!r}")
    return vals[1]


def profile_points(rng: np.random.Generator) -> list[tuple[float, float]]:
    pts = []
    for k in range(N):
        kind = k % 10
        if kind == 0:
            e = 0.0
            h = 10 ** rng.uniform(-8, 3)
        elif kind == 1:  # a near 0: eps ~ h^2/2
            h = 10 ** rng.uniform(-3, 3)
            e = h * h / 2 * (1 + rng.uniform(-1e-2, 1e-2))
        elif kind == 2:  # classroom
            e, h = rng.uniform(0, 10), 10 ** rng.uniform(-2, 1)
        elif kind == 3:  # e^eps past the double range, the 1e2..1e4
            e, h = 10 ** rng.uniform(2, 4), 10 ** rng.uniform(-1, 2.5)
        elif kind == 4:  # tiny h with tiny eps, deep cancellation
            h = 10 ** rng.uniform(-12, -3)
            e = h * 10 ** rng.uniform(-6, 1)
        else:
            e, h = 10 ** rng.uniform(-12, 4), 10 ** rng.uniform(-6, 3)
        e, h = float(e), float(h)
        try:
            ld = g.log_delta(e, h, 1.0)
        except ValueError:
            continue
        if math.isfinite(ld):
            pts.append((e, h))
    return pts


def h_star(eps: float, log_t: mp.mpf, h0: float) -> mp.mpf:
    """The h with ln delta(eps; h) = log_t (mp), Newton from h0, bracket-checked."""
    dps = _dps_for(eps, h0) + 10
    with mp.workdps(dps):
        e = mp.mpf(eps)
        h = mp.mpf(h0)
        for _ in range(30):
            ld = ln_delta_mp(e, h)
            a = h / 2 - e / h
            slope = mp.npdf(a) / mp.exp(ld)  # d ln delta / dh
            step = (ld - log_t) / slope
            h -= step
            if abs(step) <= h * mp.mpf(10) ** -35:
                break
        lo, hi = h * (1 - mp.mpf("1e-21")), h * (1 + mp.mpf("1e-21"))
    if not (checked_ln_delta(eps, lo, 1, dps) <= log_t <= checked_ln_delta(eps, hi, 1, dps)):
        raise RuntimeError(f"no bracket for h*: eps={eps!r}")
    return h


def eps_star(t_log: mp.mpf, d: float, s: float, e0: float) -> mp.mpf:
    """The eps with ln delta(eps; d/s) = t_log (mp), Newton from e0, bracket-checked."""
    dps = _dps_for(e0, d / s) + 10
    with mp.workdps(dps):
        h = mp.mpf(d) / mp.mpf(s)
        e = mp.mpf(e0)
        for _ in range(40):
            ld = ln_delta_mp(e, h)
            c = -h / 2 - e / h
            slope = -mp.exp(e) * mp.ncdf(c) / mp.exp(ld)  # d ln delta / d eps
            step = (ld - t_log) / slope
            e -= step
            if e < 0:
                e = mp.mpf(0)
            if abs(step) <= max(e, mp.mpf(10) ** -300) * mp.mpf(10) ** -35:
                break
        lo, hi = e * (1 - mp.mpf("1e-21")), e * (1 + mp.mpf("1e-21"))
    if not (checked_ln_delta(lo, d, s, dps) >= t_log >= checked_ln_delta(hi, d, s, dps)):
        raise RuntimeError(f"no bracket for eps*: d={d!r}, s={s!r}")
    return e


def _down(x: mp.mpf) -> str:
    with mp.workdps(40):
        return mp.nstr(x * (1 - mp.mpf("1e-21")), 22, strip_zeros=False)


def _up(x: mp.mpf) -> str:
    with mp.workdps(40):
        return mp.nstr(x * (1 + mp.mpf("1e-21")), 22, strip_zeros=False)


def measured_checks() -> dict[str, float]:
    rng = np.random.default_rng(11)
    z = np.concatenate([rng.uniform(0, 1, 4000), rng.uniform(1, 10, 4000),
                        10 ** rng.uniform(1, 8, 4000)])
    with mp.workdps(40):
        ref = np.array([float(mp.erfc(mp.mpf(v)) * mp.exp(mp.mpf(v) ** 2)) for v in z])
    erfcx_ulps = float(np.max(np.abs(sc.erfcx(z) / ref - 1)) / 2**-53)
    us = np.concatenate([np.linspace(4, 60, 3000), 10 ** rng.uniform(np.log10(60), 6, 3000)])
    worst_cf = 0.0
    with mp.workdps(50):
        for u in us:
            exact = float(u * (mp.npdf(u) / mp.ncdf(-u) - u) - 1 + 2 / mp.mpf(u) ** 2)
            got = g._g_scalar(float(u), g._cf_depth(float(u)))
            scale = float(u * (mp.npdf(u) / mp.ncdf(-u) - u))  # relative to g itself
            worst_cf = max(worst_cf, abs(got - exact) / scale / 2**-53)
    return {"erfcx_worst_ulps": erfcx_ulps, "g_cf_worst_ulps": worst_cf}


def quadrature_checks() -> dict[str, float]:
    """Worst relative error of the Gauss-Legendre rule dpcore.gaussian picks for dl, exact m
    (mpmath at 50 digits), over random integral-path intervals of both kinds."""
    import numpy as _np

    with mp.workdps(50):
        def m(u: mp.mpf) -> mp.mpf:
            return mp.npdf(u) / mp.ncdf(-u) - u

        def ln_r(u: mp.mpf) -> mp.mpf:
            return mp.log(mp.ncdf(-u)) - mp.log(mp.npdf(u))

        rules = {}
        for n in (1, 2, 3, 4, 8):
            z0, _ = _np.polynomial.legendre.leggauss(n)
            if n == 1:
                rules[n] = ([mp.mpf(0)], [mp.mpf(2)])
                continue
            zs = [mp.findroot(lambda t, n=n: mp.legendre(n, t), mp.mpf(z)) for z in z0]
            ws = [2 / ((1 - z**2) * mp.diff(lambda t, n=n: mp.legendre(n, t), z) ** 2)
                  for z in zs]
            rules[n] = (zs, ws)
        rng = _np.random.default_rng(5)
        worst_u = worst_v = 0.0
        for _ in range(3000):
            eps, h = float(10 ** rng.uniform(-4, 3)), float(10 ** rng.uniform(-3, 1.3))
            p = g._parts(eps, h)
            if p.path != "C":
                continue
            x = -p.a
            exact = ln_r(mp.mpf(x)) - ln_r(mp.mpf(x) + mp.mpf(h))
            if x < g._CF_FROM:
                zs, ws = rules[g._rule_u(0.5 * h / g._pole_distance(x + 0.5 * h))]
                mid, half = mp.mpf(x) + mp.mpf(h) / 2, mp.mpf(h) / 2
                approx = half * sum(w * m(mid + half * z) for z, w in zip(zs, ws, strict=True))
                worst_u = max(worst_u, float(abs(approx / exact - 1)))
            else:
                # as dpcore does: 1/u - 2/u^3 exactly, the rule on u m(u) - 1 + 2/u^2 in ln u
                xs, hs = mp.mpf(x), mp.mpf(h)
                lv = mp.log1p(hs / xs)
                zs, ws = rules[g._rule_v(float(lv), x)]
                us = [xs * mp.exp(lv * (1 + z) / 2) for z in zs]
                approx = (lv - hs * (2 * xs + hs) / (xs**2 * (xs + hs) ** 2)
                          + lv / 2 * sum(w * (u * m(u) - 1 + 2 / u**2)
                                         for u, w in zip(us, ws, strict=True)))
                worst_v = max(worst_v, float(abs(approx / exact - 1)))
    return {"gl_u_worst_rel": worst_u, "gl_v_worst_rel": worst_v}


def main() -> None:
    t0 = time.time()
    checks = measured_checks()
    checks.update(quadrature_checks())
    print("checks:", checks, f"({time.time() - t0:.0f} s)")
    rng = np.random.default_rng(20261130)

    profile = []
    for e, h in profile_points(rng):
        ref = checked_ln_delta(e, h, 1, _dps_for(e, h))
        profile.append([repr(e), repr(h), mp.nstr(ref, 30)])
    print(f"profile: {len(profile)} points ({time.time() - t0:.0f} s)")

    calib = []
    while len(calib) < N:
        k = len(calib) % 10
        e = 0.0 if k == 0 else float(10 ** rng.uniform(2, 4) if k < 4 else
                                     10 ** rng.uniform(-6, 4))
        if k == 5:  # near delta = 1
            t = float(1.0 - 10 ** rng.uniform(-15.6, -1))
        elif k == 6:
            t = float(rng.uniform(0.5, 1.0))
        else:
            t = float(10 ** rng.uniform(-300, -0.3))
        d = float(10 ** rng.uniform(-3, 3))
        if not 0.0 < t < 1.0:
            continue
        h0 = g.calibrate_h(e, math.log(t))
        with mp.workdps(60):
            log_t = mp.log(mp.mpf(t))
        hs = h_star(e, log_t, h0)
        calib.append([repr(e), repr(t), repr(d), _down(hs)])
    print(f"calibrate: {len(calib)} cases ({time.time() - t0:.0f} s)")

    epsl = []
    while len(epsl) < N:
        t = float(10 ** rng.uniform(-300, -0.05))
        d = float(10 ** rng.uniform(-3, 3))
        h = float(10 ** rng.uniform(-4, 3))
        s = d / h
        e0 = g.epsilon(t, d, s)
        with mp.workdps(60):
            log_t = mp.log(mp.mpf(t))
            hh = mp.mpf(d) / mp.mpf(s)
            d0 = ln_delta_mp(mp.mpf(0), hh)
        if d0 <= log_t:
            epsl.append([repr(t), repr(d), repr(s), "0"])
            continue
        start = e0 if 0.0 < e0 < math.inf else g._solve_eps(g._ratio(0.0, d, s)[0], float(log_t),
                                                            1.0)
        es = eps_star(log_t, d, s, start)
        epsl.append([repr(t), repr(d), repr(s), _up(es)])
    print(f"epsilon: {len(epsl)} cases ({time.time() - t0:.0f} s)")
    OUT.write_text(json.dumps({
        "about": "made by tests/reference/make_conservative_reference.py (mpmath, see there)",
        "checks": checks,
        "profile_columns": ["eps", "h", "ln_delta"],
        "profile": profile,
        "calibrate_columns": ["eps", "delta", "sensitivity", "h_star_rounded_down"],
        "calibrate": calib,
        "epsilon_columns": ["delta", "sensitivity", "sigma", "eps_star_rounded_up"],
        "epsilon": epsl,
    }, separators=(",", ":")) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size / 1e6:.1f} MB, {time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
