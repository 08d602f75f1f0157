"""Speed and accuracy of dpcore.gaussian, measured in one run against named baselines.

Baseline: the naive scipy formula norm.cdf(a) - exp(eps) * norm.cdf(c) (Balle & Wang 2018,
Thm 8 evaluated directly; fast but wrong in the tail). Prints:
  - log_delta vs naive on 10^6 classroom points (h in [0.01, 10], eps in [0, 10]): best of 5
    runs each, and the ratio (target <= 2x slower);
  - calibrate_sigma: median and p95 time per scalar call over 2000 random targets (target
    <= 0.1 ms);
  - worst accuracy over tests/reference/gaussian_reference.json, ours and the naive formula's.
Run:  .venv/bin/python benchmarks/gaussian_speed.py
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np
from scipy.stats import norm

from dpcore import gaussian as g

REF = Path(__file__).resolve().parents[1] / "tests" / "reference" / "gaussian_reference.json"


def naive(eps: np.ndarray, h: np.ndarray) -> np.ndarray:
    a = h / 2 - eps / h
    c = -h / 2 - eps / h
    return norm.cdf(a) - np.exp(eps) * norm.cdf(c)


def best_of(fn, *args, repeat: int = 5) -> float:
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    rng = np.random.default_rng(0)
    n = 10**6
    h = rng.uniform(0.01, 10, n)
    eps = rng.uniform(0, 10, n)
    t_naive = best_of(naive, eps, h)
    t_ours = best_of(g.log_delta, eps, h, 1.0)
    print(f"log_delta on 1e6 classroom points: {t_ours * 1e3:.1f} ms; "
          f"naive norm.cdf formula: {t_naive * 1e3:.1f} ms; ratio {t_ours / t_naive:.2f}x")

    times = []
    for _ in range(2000):
        e = float(10 ** rng.uniform(-3, 3))
        d = float(10 ** rng.uniform(-300, -0.5))
        t0 = time.perf_counter()
        g.calibrate_sigma(e, d, 1.0)
        times.append(time.perf_counter() - t0)
    times_ms = np.array(times) * 1e3
    print(f"calibrate_sigma per call: median {np.median(times_ms):.4f} ms, "
          f"p95 {np.percentile(times_ms, 95):.4f} ms")

    ref = json.loads(REF.read_text())["profile"]
    e = np.array([float(r["eps"]) for r in ref])
    hh = np.array([float(r["h"]) for r in ref])
    want = np.array([float(r["ln_delta"]) for r in ref])
    scale = np.maximum(1.0, np.abs(want))
    ours = np.abs(g.log_delta(e, hh, 1.0) - want) / scale
    with np.errstate(all="ignore"):
        nv = np.abs(np.log(naive(e, hh)) - want) / scale
    nv[~np.isfinite(nv)] = np.inf
    print(f"reference set ({len(ref)} points, mpmath 100 digits): worst "
          f"|ln d - ref|/max(1,|ref|) ours {ours.max():.2e}; naive formula: worst {nv.max():.2e}, "
          f"{np.mean(nv > 1e-12) * 100:.0f}% of points off by more than 1e-12 "
          f"({np.mean(~np.isfinite(nv)) * 100:.0f}% -inf or NaN)")


if __name__ == "__main__":
    main()
