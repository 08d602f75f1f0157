"""Speed and accuracy of dpcore.gaussian, measured in one run against named baselines.

Baseline: the naive scipy formula norm.cdf(a) - exp(eps) * norm.cdf(c) (Balle & Wang 2018,
Thm 8 evaluated directly; fast but wrong in the tail). Prints:
  - log_delta vs naive on 10^6 classroom points, eps uniform in [0, 10] and h = Delta/sigma
    (a) uniform in [0.01, 10] and (b) log-uniform in [0.01, 10] (sigma larger than Delta, the
    usual classroom and mean-query case; about half the points take the integral path).
    The two are timed alternately, ``--repeats`` times each, in CPU time of this process
    (time.process_time: less sensitive to other work on a shared machine than wall time);
    printed: best of each and the ratio of the bests, plus the median of the per-round ratios;
  - calibrate_sigma: median and p95 time per scalar call over 2000 random targets (target
    <= 0.1 ms);
  - worst accuracy over tests/reference/gaussian_reference.json, ours and the naive formula's.
Run:  .venv/bin/python benchmarks/gaussian_speed.py [--repeats 15]
"""

from __future__ import annotations

import argparse
import json
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


def compare(eps: np.ndarray, h: np.ndarray, repeats: int) -> tuple[float, float, float]:
    """(best ours, best naive, median of per-round ratios), CPU seconds, alternating runs."""
    ours, base = [], []
    g.log_delta(eps, h, 1.0)  # warm up (imports, caches)
    for _ in range(repeats):
        t0 = time.process_time()
        naive(eps, h)
        base.append(time.process_time() - t0)
        t0 = time.process_time()
        g.log_delta(eps, h, 1.0)
        ours.append(time.process_time() - t0)
    ratios = np.array(ours) / np.array(base)
    return min(ours), min(base), float(np.median(ratios))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    n = 10**6
    eps = rng.uniform(0, 10, n)
    worst = 0.0
    for label, h in (("uniform h in [0.01, 10]", rng.uniform(0.01, 10, n)),
                     ("log-uniform h in [0.01, 10]", 10 ** rng.uniform(-2, 1, n))):
        t_ours, t_naive, med = compare(eps, h, args.repeats)
        worst = max(worst, t_ours / t_naive)
        print(f"log_delta, 1e6 points, eps uniform in [0, 10], {label}: ours {t_ours * 1e3:.0f} "
              f"ms, naive norm.cdf formula {t_naive * 1e3:.0f} ms (best of {args.repeats}, CPU "
              f"time); ratio of bests {t_ours / t_naive:.2f}x, median ratio {med:.2f}x")
    print(f"worse of the two ratios of bests: {worst:.2f}x (target <= 2x)")

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
