"""Tuning study for ``auto``: every candidate release against the best-in-hindsight histogram.

For each synthetic cell (dpcore.cdf.datasets.GRID_SHAPES, never the real data sets) x n x eps
x seed, the script measures, against the EMPIRICAL CDF of the drawn data, the KS and W1 of
* the peer: diffprivlib's histogram at eps/2 with m = 8 ... 1024 bins (``hist m``);
* dpcore's Laplace histogram with m bins and PCHIP interpolation (``pchip m``);
* dpcore's tree with branching b and at least M leaves, noise by the smaller node variance
  (``tree bB mM``);
* PP with the automatic degree (``pp``).
It writes one JSON line per cell (means over seeds) to ``--out``; ``--analyse FILE`` then prints,
per n*eps, the candidate with the smallest geometric-mean ratio to the best histogram (KS and
W1 together) over the shapes, and that candidate's worst ratio.  The rule in
``dpcore.cdf.auto_plan_v2`` was read off this output (docs/cdf-results.md, "How auto was fixed").

Run: nice -n 10 .venv/bin/python benchmarks/cdf_auto_rule.py --seeds 3 --out /tmp/rule.jsonl
     .venv/bin/python benchmarks/cdf_auto_rule.py --analyse /tmp/rule.jsonl

Issue 40 (``auto_plan_v3``): ``--analyse-peers FILE`` reads the cells that
``benchmarks/cdf_vs_histogram.py --json FILE --methods auto,t8d2,...`` wrote (the same run as
OpenDP's tree and diffprivlib's histogram) and prints, per n*eps band, every candidate's ratios
to the three peers (best tree in hindsight, tree with 1,024 leaves, best histogram).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.cdf_vs_histogram import BINS, DELTA, PeerHistogram  # noqa: E402
from dpcore.cdf import estimate  # noqa: E402
from dpcore.cdf.datasets import GRID_SHAPES, sample  # noqa: E402
from dpcore.cdf.metrics import RefGrid, ecdf  # noqa: E402

TREES = [(b, m) for b in (2, 4, 8, 16) for m in (64, 256, 1024, 4096, 16384, 65536)
         if not (b == 16 and m == 64)]


def candidates() -> dict[str, tuple[str, dict[str, object]]]:
    out: dict[str, tuple[str, dict[str, object]]] = {"pp": ("pp", {})}
    for m in BINS:
        out[f"pchip {m}"] = ("hq", {"bins": m, "interpolation": "pchip"})
    for b, m in TREES:
        out[f"tree b{b} m{m}"] = ("tree", {"branching": b, "leaves": m})
        if m <= 4096 and b in (4, 8, 16):
            out[f"ptree b{b} m{m}"] = ("tree", {"branching": b, "leaves": m,
                                                "interpolation": "pchip"})
    return out


def run_cell(job: tuple[str, int, float, int]) -> dict[str, object]:
    shape, n, eps, seeds = job
    hist = PeerHistogram(True)
    res: dict[str, list[float]] = {}
    for seed in range(seeds):
        x = sample(shape, n, np.random.default_rng([seed, n, 22]))
        ref = RefGrid(ecdf(x), 0.0, 1.0)
        for label, (method, opts) in candidates().items():
            est = estimate(x, bounds=(0.0, 1.0), eps=eps, delta=DELTA, method=method,
                           rng=np.random.default_rng([seed, 23]), **opts)
            d = ref.distances(est)
            res.setdefault(f"{label}|ks", []).append(d.ks)
            res.setdefault(f"{label}|w1", []).append(d.w1)
        for m in BINS:
            d = ref.distances(hist.cdf(x, m, eps, seed * 7919 + m))
            res.setdefault(f"hist {m}|ks", []).append(d.ks)
            res.setdefault(f"hist {m}|w1", []).append(d.w1)
    out: dict[str, object] = {k: float(np.mean(v)) for k, v in res.items()}
    out.update(shape=shape, n=n, eps=eps)
    return out


def analyse(path: str, shapes: Sequence[str]) -> None:
    cells = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    cells = [c for c in cells if c["shape"] in shapes]
    labels = sorted({k.split("|")[0] for c in cells for k in c if "|" in k})
    by_neps: dict[float, list[dict[str, object]]] = {}
    for c in cells:
        by_neps.setdefault(float(c["n"]) * float(c["eps"]), []).append(c)
    print("| n*eps | cells | best candidate | geo KS | geo W1 | worst KS | 2nd | 3rd |")
    print("|---|---|---|---|---|---|---|---|")
    for ne in sorted(by_neps):
        group = by_neps[ne]
        scores = []
        for lab in labels:
            lks, lw = [], []
            for c in group:
                bks = min(float(c[f"hist {m}|ks"]) for m in BINS)
                bw = min(float(c[f"hist {m}|w1"]) for m in BINS)
                lks.append(math.log(float(c[f"{lab}|ks"]) / bks))
                lw.append(math.log(float(c[f"{lab}|w1"]) / bw))
            scores.append((float(np.mean(lks) + np.mean(lw)), lab, math.exp(np.mean(lks)),
                           math.exp(np.mean(lw)), math.exp(max(lks))))
        scores.sort()
        s0 = scores[0]
        print(f"| {ne:g} | {len(group)} | {s0[1]} | {s0[2]:.3f} | {s0[3]:.3f} | {s0[4]:.2f} | "
              f"{scores[1][1]} ({scores[1][2]:.3f}/{scores[1][3]:.3f}) | "
              f"{scores[2][1]} ({scores[2][2]:.3f}/{scores[2][3]:.3f}) |")


def analyse_peers(path: str, shapes: Sequence[str]) -> None:
    """Issue 40: each candidate of a ``cdf_vs_histogram.py --json`` run against all three peers.

    Per n*eps band (cells where n*eps falls in [lo, hi)), for every candidate label of that run
    (``auto``, ``t8d3``, ...): the geometric-mean KS and W1 ratios to OpenDP's best tree in
    hindsight (``/best``), the worst KS or W1 ratio to it, the worst ratio to OpenDP's tree with
    1,024 leaves (``/1024``) and the geometric-mean KS ratio to the best diffprivlib histogram
    (``/hist``).  The synthetic cells only (the run's --shapes); a rule is read off the
    candidates that keep every worst ratio under the targets (1.5 and 1.1).
    """
    from benchmarks.cdf_vs_histogram import ODP_FIXED, ODP_LEAVES

    cells = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    cells = [c for c in cells if c["shape"] in shapes]
    skip = {"auto+granularity"}
    labels = sorted({k.split("|")[0] for c in cells for k in c if "|" in k
                     and k[0] not in "ho" and k.split("|")[0] not in skip})
    bands = (0, 1500, 3000, 6000, 12000, 25000, 50000, 100000, 200000, 400000, 1e9)
    print("| n*eps | cells | candidate | geo KS /best | geo W1 /best | worst /best | "
          "worst /1024 | geo KS /hist | geo W1 /hist |")
    print("|---|---|---|---|---|---|---|---|---|")
    for lo, hi in itertools.pairwise(bands):
        group = [c for c in cells if lo <= float(c["n"]) * float(c["eps"]) < hi]
        if not group:
            continue
        rows = []
        for lab in labels:
            r: dict[str, list[float]] = {}
            for c in group:
                for k in ("ks", "w1"):
                    v = float(c[f"{lab}|{k}"])
                    r.setdefault(f"best {k}", []).append(
                        v / min(float(c[f"o{m}|{k}"]) for m in ODP_LEAVES))
                    r.setdefault(f"fixed {k}", []).append(v / float(c[f"o{ODP_FIXED}|{k}"]))
                    r.setdefault(f"hist {k}", []).append(
                        v / min(float(c[f"h{m}|{k}"]) for m in BINS))

            def gm(x: list[float]) -> float:
                return math.exp(float(np.mean(np.log(x))))

            rows.append((gm(r["best ks"]) * gm(r["best w1"]), lab, gm(r["best ks"]),
                         gm(r["best w1"]), max(r["best ks"] + r["best w1"]),
                         max(r["fixed ks"] + r["fixed w1"]), gm(r["hist ks"]),
                         gm(r["hist w1"])))
        for row in sorted(rows):
            print(f"| {lo:g}-{hi:g} | {len(group)} | {row[1]} | {row[2]:.3f} | {row[3]:.3f} | "
                  f"{row[4]:.2f} | {row[5]:.2f} | {row[6]:.3f} | {row[7]:.3f} |")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--shapes", default=",".join(GRID_SHAPES))
    ap.add_argument("--n", default="1000,10000,100000")
    ap.add_argument("--eps", default="0.1,0.5,1,2,8")
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--out", default="")
    ap.add_argument("--analyse", default="")
    ap.add_argument("--analyse-peers", default="", metavar="JSONL",
                    help="the cells of a cdf_vs_histogram.py --json run against its three peers")
    a = ap.parse_args(argv)
    if a.analyse_peers:
        analyse_peers(a.analyse_peers, a.shapes.split(","))
        return 0
    if a.analyse:
        analyse(a.analyse, a.shapes.split(","))
        return 0
    jobs = [(s, int(n), float(e), a.seeds)
            for s in a.shapes.split(",") for n in a.n.split(",") for e in a.eps.split(",")]
    jobs.sort(key=lambda j: -j[1])
    with ProcessPoolExecutor(max_workers=a.workers) as ex, open(a.out, "w") as fh:
        for cell in ex.map(run_cell, jobs):
            fh.write(json.dumps(cell) + "\n")
            fh.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
