"""Write tests/reference/tradeoff_reference.json: the Gaussian trade-off function against mpmath.

How the values are made: every input (α, μ, target TPR, ε) is a double, read exactly by mpmath.
At 60 significant digits, q = Φ⁻¹(α) is found by Newton (mpmath.findroot) on the smaller tail,
ln Φ(−x) = ln min(α, 1 − α), started at scipy's ndtri; then TPR = Φ(q + μ) and β = Φ(−q − μ)
(Dong, Roth & Su 2022, §2.2: β(α) = Φ(Φ⁻¹(1 − α) − μ)). Everything is done again at 90 digits and
a row is kept only if both agree to 45 significant digits (mpmath has no exponent limit, so a β
far below the double range is exact too). Values are written with 30 digits.

* "rates": α log-uniform in [1e-300, 1/2] and uniform in (1/2, 1 − 1e-16], μ log-uniform in
  [1e-6, 40], plus the corners (α = 1e-300 and 1/2 against μ = 1e-6 and 40): TPR, ln TPR, β, ln β
  and the gap TPR − α.
* "calibrate": targets t = the double nearest TPR(α, μ) on the same kind of grid; the exact
  μ* = Φ⁻¹(t) − Φ⁻¹(α) (from the 60/90-digit quantiles, no cancellation at that precision) and
  σ* = 1/μ* for Δ = 1.
* "duality": (μ, ε) pairs. δ(ε) of Balle & Wang 2018, Thm 8, Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ),
  and sup over α of 1 − e^ε α − β(α) (Dong, Roth & Su 2022, Prop. 2.12), the supremum found
  numerically: z = Φ⁻¹(1 − α) solves d/dz (1 − e^ε Φ(−z) − Φ(z − μ)) = e^ε φ(z) − φ(z − μ) = 0
  by bisection on the sign of the slope (bracket [−40, ε/μ + μ + 40], to a width of 1e-50; the
  closed form z = ε/μ + μ/2 is not used), and the objective is evaluated there.

Run:  .venv/bin/python tests/reference/make_tradeoff_reference.py   (about half a minute)
"""

from __future__ import annotations

import json
from pathlib import Path

import mpmath as mp
import numpy as np
from scipy import special as sc

OUT = Path(__file__).with_name("tradeoff_reference.json")
AGREE = 45  # digits the 60- and 90-digit evaluations must share


def quantile(alpha: float, dps: int) -> mp.mpf:
    """Φ⁻¹(α) at ``dps`` digits, from the smaller tail (ln Φ(−x) = ln p by Newton)."""
    with mp.workdps(dps):
        a = mp.mpf(alpha)
        p = a if a <= mp.mpf(0.5) else 1 - a
        if p == mp.mpf(0.5):
            return mp.mpf(0)
        lp = mp.log(p)
        x0 = -float(sc.ndtri(float(p)))
        x = mp.findroot(lambda x: mp.log(mp.ncdf(-x)) - lp, mp.mpf(x0),
                        tol=mp.mpf(10) ** (-dps + 5))
        return -x if a <= mp.mpf(0.5) else x


def rates(alpha: float, mu: float, dps: int) -> dict[str, mp.mpf]:
    with mp.workdps(dps):
        q = quantile(alpha, dps)
        m = mp.mpf(mu)
        s = q + m
        if s <= 0:  # the smaller of TPR and β from the tail, the larger as 1 minus it
            t = mp.ncdf(s)
            b = 1 - t
            ln_t, ln_b = mp.log(t), mp.log1p(-t)
        else:
            b = mp.ncdf(-s)
            t = 1 - b
            ln_t, ln_b = mp.log1p(-b), mp.log(b)
        return {"tpr": t, "ln_tpr": ln_t, "fnr": b, "ln_fnr": ln_b, "gap": t - mp.mpf(alpha)}


def agree(x: mp.mpf, y: mp.mpf) -> bool:
    with mp.workdps(100):
        return bool(abs(x - y) <= mp.mpf(10) ** -AGREE * max(abs(x), abs(y), mp.mpf(10) ** -400))


def s30(x: mp.mpf) -> str:
    return mp.nstr(x, 30, min_fixed=1, max_fixed=0)


def rate_points(rng: np.random.Generator) -> list[tuple[str, float, float]]:
    pts: list[tuple[str, float, float]] = []
    for _ in range(300):
        pts.append(("tail", float(10 ** rng.uniform(-300, np.log10(0.5))),
                    float(10 ** rng.uniform(-6, np.log10(40)))))
    for _ in range(60):
        pts.append(("upper", float(rng.uniform(0.5, 1 - 1e-16)),
                    float(10 ** rng.uniform(-6, np.log10(40)))))
    for _ in range(40):  # classroom: α in [0.001, 0.2], μ in [0.1, 5]
        pts.append(("classroom", float(10 ** rng.uniform(-3, np.log10(0.2))),
                    float(rng.uniform(0.1, 5.0))))
    for a in (1e-300, 1e-100, 1e-10, 0.05, 0.5):
        for m in (1e-6, 1e-3, 1.0, 37.0, 40.0):
            pts.append(("corner", a, m))
    return pts


def main() -> None:
    rng = np.random.default_rng(20261205)
    rows = []
    for tag, a, m in rate_points(rng):
        lo, hi = rates(a, m, 60), rates(a, m, 90)
        for k in lo:
            if not agree(lo[k], hi[k]):
                raise SystemExit(f"precision check failed: {k} at alpha={a!r}, mu={m!r}")
        rows.append({"range": tag, "fpr": repr(a), "mu": repr(m),
                     **{k: s30(val) for k, val in hi.items()}})

    calib = []
    for i in range(160):
        if i < 120:
            a = float(10 ** rng.uniform(-300, np.log10(0.5)))
        else:
            a = float(rng.uniform(0.5, 0.999))
        m = float(10 ** rng.uniform(-6, np.log10(40)))
        t = float(rates(a, m, 60)["tpr"])
        if not a < t < 1.0:
            continue
        vals = []
        for dps in (60, 90):
            with mp.workdps(dps):
                vals.append(quantile(t, dps) - quantile(a, dps))
        if not agree(*vals):
            raise SystemExit(f"precision check failed: calibration at alpha={a!r}, tpr={t!r}")
        with mp.workdps(90):
            calib.append({"fpr": repr(a), "tpr": repr(t), "mu": s30(vals[1]),
                          "sigma_for_unit_sensitivity": s30(1 / vals[1])})

    dual = []
    for m in (0.05, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0):
        for e in (0.0, 0.1, 0.5, 1.0, 2.0, 4.0):
            with mp.workdps(80):
                mm, ee = mp.mpf(m), mp.mpf(e)
                bw = mp.ncdf(mm / 2 - ee / mm) - mp.exp(ee) * mp.ncdf(-mm / 2 - ee / mm)

                def objective(z: mp.mpf, mm: mp.mpf = mm, ee: mp.mpf = ee) -> mp.mpf:
                    # 1 − e^ε α − β(α) at α = Φ(−z), 1 − β = Φ(μ − z) (no 1 − (1 − x))
                    return mp.ncdf(mm - z) - mp.exp(ee) * mp.ncdf(-z)

                def slope(z: mp.mpf, mm: mp.mpf = mm, ee: mp.mpf = ee) -> mp.mpf:
                    return mp.exp(ee) * mp.npdf(z) - mp.npdf(z - mm)  # d objective / dz

                lo_z, hi_z = mp.mpf(-40), ee / mm + mm + 40  # slope > 0 at lo_z, < 0 at hi_z
                while hi_z - lo_z > mp.mpf(10) ** -50:
                    mid = (lo_z + hi_z) / 2
                    if slope(mid) > 0:
                        lo_z = mid
                    else:
                        hi_z = mid
                z = (lo_z + hi_z) / 2
                sup = objective(z)
                if abs(sup - bw) > mp.mpf(10) ** -40 * bw:
                    raise SystemExit(f"duality failed at mu={m}, eps={e}")
                dual.append({"mu": repr(m), "eps": repr(e), "delta": s30(bw),
                             "sup": s30(sup), "fpr_at_sup": s30(mp.ncdf(-z))})

    OUT.write_text(json.dumps({"rates": rows, "calibrate": calib, "duality": dual}, indent=1)
                   + "\n")
    print(f"wrote {len(rows)} rates, {len(calib)} calibrations, {len(dual)} duality points "
          f"to {OUT}")


if __name__ == "__main__":
    main()
