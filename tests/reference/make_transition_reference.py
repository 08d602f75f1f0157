"""Write tests/reference/transition_reference.json: ln delta just below, at and above every
point where dpcore.gaussian switches formula (docs/math.md#switch-points).

The switch points are restated here from docs/math.md (not read from dpcore), each as a
one-parameter family (eps(t), h(t)) with the switch at t0, and evaluated at t0 (1 - 1e-9), t0
and t0 (1 + 1e-9) (or t0 -+ 1e-9 when t0 = 0). The two outer points are far enough from the
switch (relative 1e-9, against rounding of ~1e-16) that the code must take different branches
there; tests/dpcore/test_gaussian_transitions.py checks that it does, that both values agree
with these references within the evaluation's proven error bound, and hence that the jump
across the switch is only the true change of delta.

Thresholds (x = eps/h - h/2 = -a; R the Mills ratio; m(u) = 1/R(u) - u):
* a = 0: path A (a <= 0) / path B (a > 0);
* q = R(x + h)/R(x) = 0.8 for x < 4: path A / path C (the integral);
* x = 4: m directly / its continued fraction, and the A/C rule q <= 0.8 / h >= 0.034 x;
* h = 0.034 x for x >= 4: path C / path A;
* s = 1 - delta = 0.8 for a > 0: path B / path C;
* tau = (h/2)/d = 5e-5, 1.3e-3, 6e-3 for x < 4 (d the distance bound to m's poles,
  sqrt(mid^2 + 2.816^2) at mid = x + h/2 >= 0): 2 / 3 / 4 / 8 Gauss-Legendre points;
* Lv = ln(1 + h/x) = 4.5e-10 x^2, 3.5e-5 x, 0.0075 for x >= 4: 1 / 2 / 3 / 4 points;
* x = 5, 6, 7, 9, 13, 17, 26, 36, 56, 100, 240, 1200: the continued fraction's depth;
* dl = ln R(x) - ln R(x + h) = 2^-1000 for x < 4: ln(1 - e^-dl) directly / by its series.

Values: mpmath, ln(Phi(a) - e^eps Phi(c)) from the exact doubles (eps, h) at 60 digits plus the
digits the subtraction cancels, and again at 30 more; a point is kept only if both agree to 40
significant digits. Switch points are found with mpmath.findroot at 50 digits and rounded to
doubles (t0 only has to be near the switch: the outer points carry the test).

Run:  .venv/bin/python tests/reference/make_transition_reference.py   (a few seconds)
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import mpmath as mp

OUT = Path(__file__).with_name("transition_reference.json")
STEP = 1e-9
POLE_IM = 2.816
TINY_DL = 2.0**-1000


def ln_delta(eps: float, h: float, dps: int) -> mp.mpf:
    with mp.workdps(dps):
        e, hh = mp.mpf(eps), mp.mpf(h)
        a = hh / 2 - e / hh
        c = -hh / 2 - e / hh
        if a > 1:
            return mp.log1p(-(mp.ncdf(-a) + mp.exp(e) * mp.ncdf(c)))
        return mp.log(mp.ncdf(a) - mp.exp(e) * mp.ncdf(c))


def mills(z: mp.mpf) -> mp.mpf:
    return mp.ncdf(-z) / mp.npdf(z)


def eps_for(x: float | mp.mpf, h: float) -> float:
    """The double eps with eps/h - h/2 = x (rounded once)."""
    with mp.workdps(50):
        return float(mp.mpf(h) * (mp.mpf(x) + mp.mpf(h) / 2))


Family = Callable[[float], tuple[float, float]]


def at_x(h: float) -> Family:
    """x varies, h fixed."""
    return lambda x: (eps_for(x, h), h)


def at_h(x: float) -> Family:
    """h varies, x fixed."""
    return lambda h: (eps_for(x, h), h)


def solve(f: Callable[[mp.mpf], mp.mpf], start: float) -> float:
    with mp.workdps(50):
        return float(mp.findroot(f, mp.mpf(start)))


def switches() -> list[tuple[str, Family, float, float]]:
    """(name, family, t0, step): the switch at t0 of the family's parameter."""
    out: list[tuple[str, Family, float, float]] = []
    # a = 0 with h = 1: eps = h^2/2 is the switch; a > 0 for smaller eps
    out.append(("a_zero", lambda e: (e, 1.0), 0.5, STEP))
    # q = R(x+h)/R(x) = 0.8 at x = 1 and x = 3
    for x in (1.0, 3.0):
        h0 = solve(lambda h, x=x: mills(x + h) / mills(mp.mpf(x)) - mp.mpf("0.8"), 0.5)
        out.append((f"q_0_8_x{x:g}", at_h(x), h0, STEP))
    # x = 4 with small h (both sides path C: m direct / continued fraction) and with h = 0.2
    # (path C by q > 0.8 / path A by h >= 0.034 x)
    out.append(("x_4_small_h", at_x(0.01), 4.0, STEP))
    out.append(("x_4_split_rule", at_x(0.2), 4.0, STEP))
    # h = 0.034 x at x = 10 and x = 1000
    for x in (10.0, 1000.0):
        out.append((f"h_0_034x_x{x:g}", at_h(x), 0.034 * x, STEP))

    # s = 1 - delta = Phi(-a) + e^eps Phi(c) = 0.8 with a > 0, h = 0.6
    def s_minus(e: mp.mpf) -> mp.mpf:
        hh = mp.mpf("0.6")
        a, c = hh / 2 - e / hh, -hh / 2 - e / hh
        return mp.ncdf(-a) + mp.exp(e) * mp.ncdf(c) - mp.mpf("0.8")

    out.append(("s_0_8", lambda e: (e, 0.6), solve(s_minus, 0.1), STEP))
    # Gauss-Legendre rule in u (x < 4): tau = (h/2)/sqrt((x + h/2)^2 + 2.816^2), x = 1
    for tau in ("5e-5", "1.3e-3", "6e-3"):
        def tau_minus(h: mp.mpf, tau: str = tau) -> mp.mpf:
            mid = 1 + h / 2
            return (h / 2) / mp.sqrt(mid * mid + mp.mpf(POLE_IM) ** 2) - mp.mpf(tau)

        out.append((f"tau_{tau}", at_h(1.0), solve(tau_minus, 2 * float(tau) * 3.2), STEP))
    # Gauss-Legendre rule in v = ln u (x >= 4), x = 10: Lv = ln(1 + h/x) at each limit
    x = 10.0
    for name, lv in (("lv_4_5e-10_x2", 4.5e-10 * x * x), ("lv_3_5e-5_x", 3.5e-5 * x),
                     ("lv_0_0075", 0.0075)):
        out.append((name, at_h(x), float(x * math.expm1(lv)), STEP))
    # continued-fraction depth: h = 0.01 x keeps path C
    for x in (5, 6, 7, 9, 13, 17, 26, 36, 56, 100, 240, 1200):
        out.append((f"cf_depth_x{x}", lambda t, x=x: (eps_for(t, 0.01 * x), 0.01 * x),
                    float(x), STEP))

    # dl = 2^-1000 at x = 1: dl = int_x^{x+h} m ~ h m(x + h/2), m(1) = 1/R(1) - 1
    def dl_minus(h: mp.mpf) -> mp.mpf:
        return mp.log(mills(mp.mpf(1))) - mp.log(mills(1 + h)) - mp.mpf(TINY_DL)

    with mp.workdps(400):
        m1 = 1 / mills(mp.mpf(1)) - 1
        h0 = float(mp.mpf(TINY_DL) / m1)
    with mp.workdps(400):
        h0 = float(mp.findroot(dl_minus, mp.mpf(h0)))
    out.append(("dl_2_pow_-1000", at_h(1.0), h0, STEP))
    return out


def main() -> None:
    rows = []
    for name, family, t0, step in switches():
        for side, t in (("below", t0 * (1 - step)), ("at", t0), ("above", t0 * (1 + step))):
            eps, h = family(t)
            lost = max(0.0, -math.log10(h)) if h < 1 else 0.0
            dps = 60 + int(2 * lost)
            v1, v2 = ln_delta(eps, h, dps), ln_delta(eps, h, dps + 30)
            with mp.workdps(dps + 30):
                if abs(v1 - v2) > mp.mpf(10) ** -40 * max(1, abs(v2)):
                    raise SystemExit(f"{name} {side}: no agreement ({v1} vs {v2})")
            rows.append({"switch": name, "side": side, "eps": eps.hex(), "h": h.hex(),
                         "ln_delta": mp.nstr(v2, 45)})
    OUT.write_text(json.dumps({
        "about": "made by tests/reference/make_transition_reference.py (mpmath, see there)",
        "step": STEP, "rows": rows}, indent=1) + "\n")
    print(f"wrote {len(rows)} rows to {OUT}")


if __name__ == "__main__":
    main()
