"""The top share w and lam of auto_v5's band tree (issue 40, 2026-12-06): KS against the peers.

For the cells with 300 <= n*eps < 1500 of ``benchmarks/cdf_vs_histogram.py --json`` runs (the
synthetic grid and, with ``--real``, the hold-out), recompute the band's weighted two-level
16-ary tree (``dpcore.cdf.auto_v5``: share w of eps on the 16 top nodes, 1 - w on the 256
leaves, weighted least squares, shrinkage lam, centred cells, PCHIP) on the same data and
noise seeds as the benchmark (data ``[seed, n, 22]``, noise ``[seed, 23]``; the real sets are
fixed), and print per (w, lam) the geometric mean and worst of its KS ratio to the cells' best
OpenDP tree in hindsight and to the best diffprivlib histogram (the peers' columns are read from
the JSON, so they are those of that run).  w = 0.6, lam = 2 (BAND_TOP_SHARE, BAND_SHRINK_V5)
reproduces the ``auto_v5`` column exactly.

Run: nice -n 19 .venv/bin/python benchmarks/cdf_band_share.py --cells grid.jsonl
     [--real holdout.jsonl] [--shares 0.5,0.6,0.75] [--lams 1.5,2]   (seconds)
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from dataclasses import replace  # noqa: E402

from benchmarks.cdf_vs_histogram import BINS, DELTA, ODP_LEAVES, _real  # noqa: E402
from dpcore.cdf.auto_v5 import BAND_FROM_V5, _band_tree, auto_plan_v5  # noqa: E402
from dpcore.cdf.common import clip_data  # noqa: E402
from dpcore.cdf.datasets import REAL, sample  # noqa: E402
from dpcore.cdf.metrics import RefGrid, ecdf  # noqa: E402


def _gm(x: Sequence[float]) -> float:
    return math.exp(float(np.mean(np.log(np.asarray(x)))))


def study(path: str, shares: Sequence[float], lams: Sequence[float], seeds: int) -> None:
    cells = [c for c in map(json.loads, Path(path).read_text().splitlines())
             if BAND_FROM_V5 <= c["n"] * c["eps"] < 1500]
    print(f"{path}: {len(cells)} cells with {BAND_FROM_V5:g} <= n*eps < 1500, {seeds} seeds")
    print("| w | lam | vs best tree: geo-mean | worst | vs best histogram: geo-mean | worst |")
    print("|---|---|---|---|---|---|")
    for w, lam in ((w, lam) for w in shares for lam in lams):
        r_tree, r_hist = [], []
        for c in cells:
            ks = []
            for seed in range(seeds):
                if c["shape"] in REAL:
                    x, _ = _real(c["shape"])
                else:
                    x = sample(c["shape"], c["n"], np.random.default_rng([seed, c["n"], 22]))
                clipped = clip_data(x, (0.0, 1.0))
                plan = replace(auto_plan_v5(clipped.n, c["eps"], DELTA), shrink=lam)
                est = _band_tree(clipped, c["eps"], DELTA, plan,
                                 np.random.default_rng([seed, 23]), w)
                ks.append(RefGrid(ecdf(x), 0.0, 1.0).distances(est).ks)
            k = float(np.mean(ks))
            r_tree.append(k / min(c[f"o{m}|ks"] for m in ODP_LEAVES))
            r_hist.append(k / min(c[f"h{m}|ks"] for m in BINS))
        print(f"| {w:g} | {lam:g} | {_gm(r_tree):.3f} | {max(r_tree):.2f} | {_gm(r_hist):.3f} | "
              f"{max(r_hist):.2f} |")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--cells", default="", help="cells of a synthetic-grid run (--json)")
    ap.add_argument("--real", default="", help="cells of a --real run (--json)")
    ap.add_argument("--shares", default="0.5,0.55,0.6,0.65,0.7,0.75,0.8")
    ap.add_argument("--lams", default="1.5,2,2.5,3")
    ap.add_argument("--seeds", type=int, default=3, help="seeds of the synthetic run")
    a = ap.parse_args(argv)
    shares = [float(s) for s in a.shares.split(",")]
    lams = [float(s) for s in a.lams.split(",")]
    if a.cells:
        study(a.cells, shares, lams, a.seeds)
    if a.real:
        study(a.real, shares, lams, 10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
