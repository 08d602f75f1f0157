"""Tuning study for auto on a public lattice: one leaf per value against grouped values.

Synthetic lattice shapes only (lattice: 11 values; wide_lattice: 81 values), n = 10^3..10^5,
eps = 0.1..8, 3 seeds, with the shape's public granularity; KS / W1 to the empirical CDF as
ratios to the best-in-hindsight diffprivlib histogram (continuous, 8..1024 bins), as in
benchmarks/cdf_vs_histogram.py.  Variants: one leaf per value (flat when <= 32 values, else a
binary or an 8-ary tree) and grouping ceil(S / C) or ceil(S / 2C) values per leaf (C = the
cells of the continuous plan), linear or PCHIP at the values.  Prints per cell, then the
geometric means per shape.  docs/cdf-results.md ("Wide lattices").

Run: nice -n 10 .venv/bin/python benchmarks/cdf_lattice_rule.py
"""

from __future__ import annotations

import math
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import dpcore.cdf as cdf  # noqa: E402
from benchmarks.cdf_vs_histogram import BINS, DELTA, PeerHistogram  # noqa: E402
from dpcore.cdf.datasets import SHAPE_GRANULARITY, sample  # noqa: E402
from dpcore.cdf.metrics import RefGrid, ecdf  # noqa: E402

SHAPES = ("lattice", "wide_lattice")


def variants(n: int, eps: float, size: int) -> dict[str, dict[str, object]]:
    small = n * eps < cdf.HISTOGRAM_EPS_N
    cells = cdf.hist_bins_v2(n, eps) if small else cdf.TREE_BRANCHING ** cdf.tree_depth_v2(n, eps)

    def flat_or_8(leaves: int) -> int:
        return max(leaves, 2) if (leaves <= cdf.LATTICE_FLAT or small) else 8

    out: dict[str, dict[str, object]] = {
        "per-value b2": {"branching": size if size <= 32 else 2, "group": 1},
        "per-value b8": {"branching": size if size <= 32 else 8, "group": 1},
    }
    for k in (1, 2):
        g = 1 if size <= k * cells else -(-size // (k * cells))
        leaves = -(-size // g)
        for ip in ("pchip", "linear"):
            out[f"group x{k} {ip}"] = {"branching": flat_or_8(leaves), "group": g,
                                       "interpolation": ip}
    return out


def cell(job: tuple[str, int, float]) -> tuple[str, int, float, dict[str, tuple[float, float]]]:
    shape, n, eps = job
    hist = PeerHistogram(True)
    g = SHAPE_GRANULARITY[shape]
    assert g is not None
    size = round(1 / g) + 1
    res: dict[str, list[float]] = {}
    for seed in range(3):
        x = sample(shape, n, np.random.default_rng([seed, n, 22]))
        ref = RefGrid(ecdf(x), 0, 1)
        hd = [ref.distances(hist.cdf(x, m, eps, seed * 7919 + m)) for m in BINS]
        res.setdefault("bk", []).append(min(d.ks for d in hd))
        res.setdefault("bw", []).append(min(d.w1 for d in hd))
        for lab, opts in variants(n, eps, size).items():
            est = cdf.estimate(x, bounds=(0, 1), eps=eps, delta=DELTA, method="tree",
                               granularity=g, rng=np.random.default_rng([seed, 23]), **opts)
            d = ref.distances(est)
            res.setdefault(lab + "|ks", []).append(d.ks)
            res.setdefault(lab + "|w1", []).append(d.w1)
    bk, bw = float(np.mean(res["bk"])), float(np.mean(res["bw"]))
    return shape, n, eps, {lab: (float(np.mean(res[lab + "|ks"])) / bk,
                                 float(np.mean(res[lab + "|w1"])) / bw)
                           for lab in variants(n, eps, size)}


def main() -> int:
    jobs = [(s, n, e) for s in SHAPES for n in (1000, 10_000, 100_000)
            for e in (0.1, 0.5, 1.0, 2.0, 8.0)]
    with ProcessPoolExecutor(2) as ex:
        rows = list(ex.map(cell, jobs))
    labels = list(rows[0][3])
    for shape, n, eps, r in rows:
        print(shape, n, eps, " ".join(f"{lab} {r[lab][0]:.2f}/{r[lab][1]:.2f}" for lab in labels))
    for s in SHAPES:
        parts = []
        for lab in labels:
            ks = math.exp(np.mean([math.log(r[lab][0]) for sh, _, _, r in rows if sh == s]))
            w1 = math.exp(np.mean([math.log(r[lab][1]) for sh, _, _, r in rows if sh == s]))
            parts.append(f"{lab} {ks:.3f}/{w1:.3f}")
        print(s, " ".join(parts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
