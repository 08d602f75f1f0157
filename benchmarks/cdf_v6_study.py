"""The two bands of auto_plan_v6 (issue 40, 2026-12-06): candidates against the peers' columns.

For the cells of ``benchmarks/cdf_vs_histogram.py --json`` runs on synthetic shapes, recompute
candidate releases on the same data and noise seeds as the benchmark (data ``[seed, n, 22]``,
noise ``[seed, 23]``) and print, per cell and in all, their KS ratio to the cell's best OpenDP
tree in hindsight and to OpenDP's 1,024-leaf tree (the peers' columns are read from the JSON,
so they are those of that run; OpenDP's sampler is not seeded) and the W1 ratio to the best tree:
* ``--low``: the cells with n*eps < 300: v4's histogram (the JSON's ``auto`` column) and the
  Chebyshev histogram of ``dpcore.cdf.auto_v6`` (``auto_bins`` cells, least squares with the
  public total, PCHIP) for each warp a in ``--warps`` (a = 0: equal cells);
* ``--mid``: the cells with 1500 <= n*eps < 15000: the depth-3 tree (centred layout, v4's
  shrinkage lam 1.5, PCHIP) for each branching in ``--branchings`` (8: v4's tree).
a = 0.9 and b = 9 (LOW_WARP_V6, MID_BRANCHING_V6) reproduce the ``auto_v6`` column exactly.
Used on synthetic cells only (the hold-out was not passed to it).

``--summary FILES``: the issue's targets for the columns ``--labels`` of full runs (KS and W1
against the best tree, the 1,024-leaf tree and the best histogram, by n*eps band; the cells
beyond), read from the JSON only.

Run: nice -n 19 .venv/bin/python benchmarks/cdf_v6_study.py --low a.jsonl,b.jsonl
     --mid c.jsonl [--warps 0,0.5,0.9,1] [--branchings 8,9,10] [--cells]   (a minute or two)
     nice -n 19 .venv/bin/python benchmarks/cdf_v6_study.py --summary grid.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.cdf_vs_histogram import BINS, DELTA, ODP_FIXED, ODP_LEAVES  # noqa: E402
from dpcore.cdf import estimate  # noqa: E402
from dpcore.cdf.auto_v6 import LOW_BAND_V6, _low_band, auto_plan_v6  # noqa: E402
from dpcore.cdf.common import CDFEstimate, clip_data  # noqa: E402
from dpcore.cdf.datasets import sample  # noqa: E402
from dpcore.cdf.metrics import RefGrid, ecdf  # noqa: E402

Candidate = Callable[[np.ndarray, float, np.random.Generator], CDFEstimate]


def _gm(x: Sequence[float] | np.ndarray) -> float:
    return math.exp(float(np.mean(np.log(np.asarray(x)))))


def _cells(paths: str, lo: float, hi: float) -> list[dict[str, object]]:
    out = []
    for p in paths.split(","):
        for c in map(json.loads, Path(p).read_text().splitlines()):
            if lo <= c["n"] * c["eps"] < hi and "o1024|ks" in c:
                out.append(c)
    return out


def _warp(a: float) -> Candidate:
    def f(x: np.ndarray, eps: float, gen: np.random.Generator) -> CDFEstimate:
        clipped = clip_data(x, (0.0, 1.0))
        return _low_band(clipped, eps, auto_plan_v6(clipped.n, eps, DELTA), gen, a)
    return f


def _tree(b: int) -> Candidate:
    def f(x: np.ndarray, eps: float, gen: np.random.Generator) -> CDFEstimate:
        return estimate(x, bounds=(0.0, 1.0), eps=eps, delta=DELTA, method="tree", branching=b,
                        leaves=b**3, interpolation="pchip", shrink=1.5, layout="centred",
                        rng=gen)
    return f


def study(cells: list[dict[str, object]], cands: dict[str, Candidate | None], seeds: int,
          show: bool) -> None:
    """Print the ratios (``None``: the JSON's ``auto`` column)."""
    rat: dict[str, list[tuple[float, float, float]]] = {k: [] for k in cands}
    for c in cells:
        n, eps = int(c["n"]), float(c["eps"])  # type: ignore[call-overload, arg-type]
        best = min(float(c[f"o{m}|ks"]) for m in ODP_LEAVES)  # type: ignore[arg-type]
        best_w = min(float(c[f"o{m}|w1"]) for m in ODP_LEAVES)  # type: ignore[arg-type]
        fixed = float(c[f"o{ODP_FIXED}|ks"])  # type: ignore[arg-type]
        row = f"| {c['shape']} | {n:,} | {eps:g} |"
        for k, f in cands.items():
            if f is None:
                ks, w1 = float(c["auto|ks"]), float(c["auto|w1"])  # type: ignore[arg-type]
            else:
                kss, w1s = [], []
                for seed in range(seeds):
                    x = sample(str(c["shape"]), n, np.random.default_rng([seed, n, 22]))
                    d = RefGrid(ecdf(x), 0.0, 1.0).distances(
                        f(x, eps, np.random.default_rng([seed, 23])))
                    kss.append(d.ks)
                    w1s.append(d.w1)
                ks, w1 = float(np.mean(kss)), float(np.mean(w1s))
            r = (ks / best, ks / fixed, w1 / best_w)
            rat[k].append(r)
            row += f" {r[0]:.2f} / {r[1]:.2f} |"
        if show:
            print(row, flush=True)
    print(f"\n{len(cells)} cells, {seeds} seeds: KS vs the best tree geo-mean / worst "
          "(cells > 1.5) | KS vs tree 1024 geo-mean / worst (cells > 1.1) | W1 vs the best "
          "tree geo-mean / worst")
    print("| candidate | KS vs best tree | KS vs tree 1024 | W1 vs best tree |\n|---|---|---|---|")
    for k, rs in rat.items():
        a = np.array(rs)
        print(f"| {k} | {_gm(a[:, 0]):.3f} / {a[:, 0].max():.2f} ({int((a[:, 0] > 1.5).sum())}) | "
              f"{_gm(a[:, 1]):.3f} / {a[:, 1].max():.2f} ({int((a[:, 1] > 1.1).sum())}) | "
              f"{_gm(a[:, 2]):.3f} / {a[:, 2].max():.2f} |", flush=True)


def summary(paths: str, labels: Sequence[str]) -> None:
    """Per label: KS geo-mean / worst (cells beyond the target) / W1 geo-mean / worst against
    the best OpenDP tree (target 1.5), OpenDP's 1,024-leaf tree (1.1) and the best diffprivlib
    histogram (1.1), on all the cells of the files and on n*eps bands; then the cells beyond."""
    cells = _cells(paths, 0.0, math.inf)
    bands = [("all", 0.0, math.inf), ("n*eps < 300", 0.0, 300.0),
             ("300 <= n*eps < 1500", 300.0, 1500.0), ("1500 <= n*eps < 15000", 1500.0, 15000.0),
             ("n*eps >= 15000", 15000.0, math.inf)]
    peers = (("best tree", 1.5, lambda c, k: min(float(c[f"o{m}|{k}"]) for m in ODP_LEAVES)),
             ("tree 1024", 1.1, lambda c, k: float(c[f"o{ODP_FIXED}|{k}"])),
             ("best histogram", 1.1, lambda c, k: min(float(c[f"h{m}|{k}"]) for m in BINS)))
    print(f"{len(cells)} cells; KS geo-mean / worst (cells beyond) / W1 geo-mean / worst W1")
    print("| vs | cells | " + " | ".join(labels) + " |\n|---|---|" + "---|" * len(labels))
    beyond: list[str] = []
    for peer, lim, ref in peers:
        for name, lo, hi in bands:
            sub = [c for c in cells if lo <= float(c["n"]) * float(c["eps"]) < hi]  # type: ignore[arg-type]
            if not sub:
                continue
            row = f"| {peer}, {name} | {len(sub)} |"
            for lab in labels:
                ks = np.array([float(c[f"{lab}|ks"]) / ref(c, "ks") for c in sub])  # type: ignore[arg-type]
                w1 = np.array([float(c[f"{lab}|w1"]) / ref(c, "w1") for c in sub])  # type: ignore[arg-type]
                row += (f" {_gm(ks):.3f} / {ks.max():.2f} ({int((ks > lim).sum())}) / "
                        f"{_gm(w1):.3f} / {w1.max():.2f} |")
                if name == "all" and peer != "best histogram":
                    beyond += [f"- {lab} vs {peer}: {c['shape']} n = {int(c['n']):,} "  # type: ignore[call-overload]
                               f"eps = {c['eps']:g}: KS {r:.2f}"
                               for c, r in zip(sub, ks, strict=True) if r > lim]
            print(row)
    print("\ncells beyond the targets:")
    print("\n".join(beyond) or "- none")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--low", default="", help="comma list of --json files (n*eps < 300 cells)")
    ap.add_argument("--mid", default="", help="comma list of --json files (1500 <= n*eps < 15000)")
    ap.add_argument("--warps", default="0,0.5,0.75,0.8,0.9,1")
    ap.add_argument("--branchings", default="8,9,10,11,12")
    ap.add_argument("--seeds", type=int, default=3, help="seeds of the runs")
    ap.add_argument("--cells", action="store_true", help="also print every cell")
    ap.add_argument("--summary", default="", help="comma list of --json files: the targets")
    ap.add_argument("--labels", default="auto,auto_v5,auto_v6", help="columns for --summary")
    a = ap.parse_args(argv)
    if a.summary:
        summary(a.summary, [s for s in a.labels.split(",") if s])
    if a.low:
        print(f"## n*eps < {LOW_BAND_V6:g}: Chebyshev histogram, warp a")
        low: dict[str, Candidate | None] = {"v4 (auto column)": None}
        low.update({f"a = {w}": _warp(float(w)) for w in a.warps.split(",")})
        study(_cells(a.low, 0.0, LOW_BAND_V6), low, a.seeds, a.cells)
    if a.mid:
        print("## 1500 <= n*eps < 15000: depth-3 tree, branching b")
        mid: dict[str, Candidate | None] = {f"b = {b}": _tree(int(b))
                                            for b in a.branchings.split(",")}
        study(_cells(a.mid, 1500.0, 15000.0), mid, a.seeds, a.cells)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
