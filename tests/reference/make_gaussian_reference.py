"""Write tests/reference/gaussian_reference.json: exact Gaussian privacy-profile values.

How the values are made: each input (eps, h) is a double; with mpmath at 100 significant digits
we evaluate ln delta = ln(Phi(a) - e^eps Phi(c)), a = h/2 - eps/h, c = -h/2 - eps/h (Balle & Wang
2018, Thm 8) directly from the exact decimal expansion of the doubles, and again at 140 digits;
a point is kept only if both agree to 40 significant digits (the worst cancellation here costs
~20 digits). mpmath has no exponent limit, so values far below the double underflow are exact.
calibrate_sigma references are found by bisection on h at 60 digits to a relative width of 1e-40.

Run:  .venv/bin/python tests/reference/make_gaussian_reference.py   (about a minute)
"""

from __future__ import annotations

import json
from pathlib import Path

import mpmath as mp
import numpy as np

OUT = Path(__file__).with_name("gaussian_reference.json")


def ln_delta(eps: float, h: float, dps: int) -> mp.mpf:
    with mp.workdps(dps):
        e, hh = mp.mpf(eps), mp.mpf(h)
        a = hh / 2 - e / hh
        c = -hh / 2 - e / hh
        return mp.log(mp.ncdf(a) - mp.exp(e) * mp.ncdf(c))


def points() -> list[tuple[str, float, float]]:
    rng = np.random.default_rng(20261129)
    pts: list[tuple[str, float, float]] = []

    def add(tag: str, eps: float, h: float) -> None:
        pts.append((tag, float(eps), float(h)))

    for _ in range(160):  # the whole rectangle, log-uniform
        add("broad", 10 ** rng.uniform(-12, 4), 10 ** rng.uniform(-6, 3))
    for _ in range(80):  # classroom range
        add("classroom", rng.uniform(0, 10), rng.uniform(0.01, 10))
    for h in np.logspace(-6, 3, 40):  # eps = 0: total variation distance
        add("eps0", 0.0, h)
    for _ in range(60):  # tiny h with tiny eps: the heaviest cancellation
        h = 10 ** rng.uniform(-6, -2)
        add("tiny", h * 10 ** rng.uniform(-6, 1), h)
    for _ in range(60):  # e^eps near or past double overflow
        add("overflow_eps", rng.uniform(700, 760), 10 ** rng.uniform(-1, 2))
    for _ in range(60):  # delta far below the smallest double
        add("underflow", 10 ** rng.uniform(1, 4), 10 ** rng.uniform(-3, -0.5))
    for _ in range(40):  # large h (delta near 1) and mid eps
        add("large_h", 10 ** rng.uniform(0, 4), 10 ** rng.uniform(1.5, 3))
    for _ in range(20):  # the boundary region x = eps/h - h/2 near 0
        h = 10 ** rng.uniform(-3, 1)
        add("a_near_0", max(h * h / 2 * (1 + rng.uniform(-1e-3, 1e-3)), 0.0), h)
    return pts


def main() -> None:
    rows = []
    for tag, eps, h in points():
        v100 = ln_delta(eps, h, 100)
        v140 = ln_delta(eps, h, 140)
        with mp.workdps(100):
            agree = abs(v100 - v140) <= mp.mpf(10) ** -40 * max(1, abs(v140))
        if not agree:
            raise SystemExit(f"precision check failed at eps={eps!r}, h={h!r}")
        rows.append({"range": tag, "eps": repr(eps), "h": repr(h),
                     "ln_delta": mp.nstr(v140, 30)})

    calib = []
    rng = np.random.default_rng(7)
    targets = [(1.0, 1e-5), (50.0, 1e-300), (0.0, 1e-6), (1e-3, 1e-12), (1e4, 1e-300),
               (10.0, 0.5), (0.1, 1e-300)]
    targets += [(float(10 ** rng.uniform(-3, 3)), float(10 ** rng.uniform(-300, -0.5)))
                for _ in range(25)]
    for eps, target in targets:
        with mp.workdps(60):
            lt = mp.log(mp.mpf(target))
            lo, hi = mp.mpf("1e-12"), mp.mpf("1e4")
            while hi / lo - 1 > mp.mpf("1e-40"):
                mid = mp.sqrt(lo * hi)
                if ln_delta(eps, mid, 60) > lt:
                    hi = mid
                else:
                    lo = mid
            calib.append({"eps": repr(eps), "delta": repr(target),
                          "sigma_for_unit_sensitivity": mp.nstr(1 / lo, 25)})
    OUT.write_text(json.dumps({"profile": rows, "calibrate": calib}, indent=1) + "\n")
    print(f"wrote {len(rows)} profile values and {len(calib)} calibrations to {OUT}")


if __name__ == "__main__":
    main()
