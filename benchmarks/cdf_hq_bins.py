"""How many histogram bins? KS of the Laplace histogram with PCHIP vs linear interpolation.

Baseline: the classic 32-bin histogram with linear interpolation (diffprivlib-style, with the
replace-one L1 sensitivity 2/n). For n = 10,000 and eps in {0.05, 0.1, 0.2, 0.5} prints the mean
KS over 20 seeds for m in {8, 12, 16, 20, 24, 32, 48} with PCHIP interpolation, the ratio of the
best to the 32-bin linear baseline, and what ``hist.auto_bins`` picks.
Run:  .venv/bin/python benchmarks/cdf_hq_bins.py   (about 20 s)
"""

from __future__ import annotations

import numpy as np

from dpcore.cdf import estimate
from dpcore.cdf.datasets import SYNTHETIC, population_cdf, sample
from dpcore.cdf.hist import auto_bins
from dpcore.cdf.metrics import distances

N = 10_000
SEEDS = 20


def mean_ks(shape: str, eps: float, **opts: object) -> float:
    ref = population_cdf(shape)
    out = []
    for seed in range(SEEDS):
        x = sample(shape, N, np.random.default_rng(seed))
        est = estimate(x, bounds=(0.0, 1.0), eps=eps, delta=1e-6, method="hq", rng=seed + 99,
                       **opts)
        out.append(distances(est, ref, 0.0, 1.0).ks)
    return float(np.mean(out))


def main() -> None:
    for eps in (0.05, 0.1, 0.2, 0.5):
        print(f"eps = {eps:g}: auto_bins picks m = {auto_bins(N, eps)}")
        for shape in SYNTHETIC:
            base = mean_ks(shape, eps, bins=32, interpolation="linear")
            row = {m: mean_ks(shape, eps, bins=m, interpolation="pchip")
                   for m in (8, 12, 16, 20, 24, 32, 48)}
            best = min(row, key=row.__getitem__)
            cells = "  ".join(f"m={m}:{k:.4f}" for m, k in row.items())
            print(f"  {shape:8s} baseline(32, linear) {base:.4f} | pchip {cells} | best m={best} "
                  f"ratio best/baseline {row[best] / base:.2f}")


if __name__ == "__main__":
    main()
