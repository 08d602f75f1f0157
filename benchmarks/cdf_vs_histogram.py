"""dpcore.cdf's default against a plain private histogram, on the data it protects (issue 22).

Grid: shapes (dpcore.cdf.datasets.GRID_SHAPES) x n x eps, delta = 1e-6, ``--seeds`` draws per
cell (fresh data and fresh noise per seed).  Primary reference: the EMPIRICAL CDF of the drawn
data (what the release protects, what a non-private analysis would show); secondary: the
population CDF.  Neither reference is private.

Named baseline, measured in the same run: diffprivlib's ``tools.histogram`` (IBM, PyPI,
``pip install '.[bench]'``) with ``range=bounds`` and ``epsilon = eps / 2``: its sensitivity is
1 count for add/remove neighbours, and a replace-one neighbour (ours) moves two counts by one,
so eps/2 per count makes it eps-DP for replace-one neighbours.  Its counts are turned into a
CDF by the same post-processing as ``hq``: cumulative sum / n (n public), isotonic, clip,
F(hi) = 1, linear inside a bin.  Bin counts 8, 16, ..., 1024; "best hist" is the best of them
in hindsight for each cell and metric separately (an oracle no private method can use).
Without diffprivlib the script stops (``--no-peer`` uses dpcore's own Laplace histogram at the
same noise, hq with bins=m, instead, and says so in its output).

Second named peer, same run, same data and cells (issue 40): OpenDP's hierarchical tree
(``opendp`` 0.16 on PyPI, also in the ``[bench]`` extra), the strongest open CDF release:
exact counts of M leaves laid out as dplab's tree does (``dpcore.cdf.tree.leaf_index``: the
points 0 and 1 are leaves of their own and M - 2 equal cells of (0, 1), so clipped mass at a
bound is not smeared over a cell; with plain equal bins the peer lost e.g. the heavy shape's
1.3 % atom at 1 in KS whatever M -- this layout makes the peer stronger), then the
OpenDP pipeline ``make_b_ary_tree(vector_domain(atom_domain(i32)), l1_distance(i32), M, b)``
>> ``then_geometric(scale)`` (the measurement), then ``make_consistent_b_ary_tree(b)`` and
``make_cdf`` (post-processing, OpenDP's own), with b = ``choose_branching_factor(M)`` (QYL13's
rule, which depends on the tree's domain size, so the leaf count is passed as its size guess;
b = M, one flat level, for M <= 64).  Privacy: a replace-one neighbour moves one record from
one bin to another, so the count vector moves by 2 in L1 (symmetric distance 2 in OpenDP's
terms); the geometric scale is the smallest that OpenDP's own privacy map certifies at
``map(d_in=2) <= eps`` (``dp.binary_search_param``), i.e. pure eps-DP.  That meets both
dplab's (eps, delta) Gaussian tree and its pure-eps Laplace releases (the peer is held to the
stronger pure guarantee; at delta = 1e-6 dplab's tree is Laplace in most cells anyway, see
``--noise-study``).  The CDF at the leaf edges (``make_cdf``: cumulative sums over the
noisy total) is then finished as for diffprivlib (isotonic, clip, F(hi) = 1, linear inside a
cell).  Leaf counts M = 16, 64, ..., 65536: "best tree" is the
best in hindsight per cell and metric (an oracle), and "tree 1024" the fixed default.
Without opendp (or with ``--no-opendp``) those columns are left out and the output says so.

Prints a Markdown table (and writes it between the markers in ``--update FILE``): per cell the
mean KS and W1 of each method and of the best histogram, and the ratios; then geometric means,
worst cells and the cells above 1.1 (``--json FILE``: the cells, one JSON line each, for
``benchmarks/cdf_auto_rule.py --analyse-peers``).  The command printed with the figures carries
the process's real niceness.

``--noise-study LEAVES``: only Gaussian vs Laplace trees at delta = 1e-6, 1e-9, 1e-12
(b = 8, 16, 64, PCHIP; same data and seeds), every tree with exactly LEAVES leaves (a power of
8, 16 and 64, i.e. 4096; any other count is refused, since b^L >= LEAVES would give the
branchings different trees), relative to the 8-ary Gaussian tree; its own marked block.

Run (one process, the cores are shared): nice -n 19 .venv/bin/python
     benchmarks/cdf_vs_histogram.py --seeds 3 --workers 1 --update docs/cdf-results.md
     (the [bench] extra: diffprivlib and opendp)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from dpcore.cdf import estimate  # noqa: E402
from dpcore.cdf.common import finish_grid  # noqa: E402
from dpcore.cdf.datasets import (  # noqa: E402
    GRID_SHAPES,
    REAL,
    SHAPE_GRANULARITY,
    load_real,
    population_cdf,
    sample,
)
from dpcore.cdf.metrics import RefGrid, distances, ecdf  # noqa: E402
from dpcore.cdf.tree import leaf_index  # noqa: E402

DELTA = 1e-6
BINS = (8, 16, 32, 64, 128, 256, 512, 1024)
#: OpenDP tree leaf counts (the hindsight oracle) and its fixed default.
ODP_LEAVES = (16, 64, 256, 1024, 4096, 16384, 65536)
ODP_FIXED = 1024
NS = (1_000, 10_000, 100_000, 1_000_000)
EPS = (0.1, 0.5, 1.0, 2.0, 8.0)
BEGIN = "<!-- begin cdf_vs_histogram -->"
END = "<!-- end cdf_vs_histogram -->"
# The hold-out (--real): public granularity from each variable's meaning (ages in whole years);
# None where the meaning gives none.
REAL_GRANULARITY: dict[str, float | None] = {"anes96_age": 1.0, "diabetes_age": 1.0,
                                             "penguins_mass": None}


def _real(name: str) -> tuple[np.ndarray, float | None]:
    """A real data set rescaled to [0, 1] by its public bounds, and its granularity there."""
    r = load_real(name)
    lo, hi = r.bounds
    g = REAL_GRANULARITY[name]
    return (np.clip(np.asarray(r.values), lo, hi) - lo) / (hi - lo), (
        None if g is None else g / (hi - lo))


# label -> (method, options); "auto" is the default method (the rule auto_plan_v6 since
# 2026-12-06 evening; the runs in docs/cdf-results.md before that have v4 in their "auto" column)
METHODS: dict[str, tuple[str, dict[str, object]]] = {
    "auto": ("auto", {}),
}
EXTRA: dict[str, tuple[str, dict[str, object]]] = {
    "pp": ("pp", {}),
    "auto_v1": ("auto_v1", {}),
    "auto_v2": ("auto_v2", {}),
    "auto_v3": ("auto_v3", {}),
    "auto_v4": ("auto_v4", {}),
    "auto_v5": ("auto_v5", {}),
    "auto_v6": ("auto_v6", {}),
    "tree b=2": ("tree", {"branching": 2, "leaves": 4096}),
    "tree b=4": ("tree", {"branching": 4, "leaves": 4096}),
    "tree b=2 leaves=16384": ("tree", {"branching": 2, "leaves": 16384}),
    "tree b=2 leaves=1024": ("tree", {"branching": 2, "leaves": 1024}),
    "hq auto pchip": ("hq", {"bins": "auto", "interpolation": "pchip"}),
    "mpl": ("mpl", {}),
    # auto's tree at each depth (the rule's candidates, issue 40)
    **{f"t8d{d}": ("tree", {"branching": 8, "leaves": 8**d, "interpolation": "pchip"})
       for d in (2, 3, 4, 5, 6)},
    **{f"t8d{d}lin": ("tree", {"branching": 8, "leaves": 8**d}) for d in (3, 4, 5)},
    **{f"t4d{d}": ("tree", {"branching": 4, "leaves": 4**d, "interpolation": "pchip"})
       for d in (5, 6, 7, 8)},
    **{f"t16d{d}": ("tree", {"branching": 16, "leaves": 16**d, "interpolation": "pchip",
                             "noise": "laplace"}) for d in (2, 3, 4)},
    # the same 8-ary trees with the details' shrinkage (lam 1.5), "edges" and "centred" layout
    # (auto_plan_v4's candidates, 2026-12-05)
    **{f"t8d{d}s": ("tree", {"branching": 8, "leaves": 8**d, "interpolation": "pchip",
                             "shrink": 1.5}) for d in (3, 4, 5, 6)},
    **{f"t8d{d}sc": ("tree", {"branching": 8, "leaves": 8**d, "interpolation": "pchip",
                              "shrink": 1.5, "layout": "centred"}) for d in (3, 4, 5, 6)},
    # the histogram band (n*eps < 1500; issue 40, 2026-12-06): one flat level of M leaves
    # (the bounds as leaves of their own, least squares with the public total), PCHIP ...
    **{f"f{m}": ("tree", {"branching": m, "leaves": m, "interpolation": "pchip"})
       for m in (10, 18, 34, 66, 130, 258)},
    **{f"f{m}c": ("tree", {"branching": m, "leaves": m, "interpolation": "pchip",
                           "layout": "centred"}) for m in (34, 66, 130)},
    # ... and two-level trees with the details' shrinkage
    **{f"t{b}d2s{c}": ("tree", {"branching": b, "leaves": b * b, "interpolation": "pchip",
                                "shrink": 1.5, "layout": lay})
       for b in (8, 16, 32) for c, lay in (("", "edges"), ("c", "centred"))},
}


class PeerHistogram:
    """diffprivlib's histogram at eps/2 (or dpcore's hq at the same noise with --no-peer)."""

    def __init__(self, peer: bool) -> None:
        self.peer = peer
        if peer:
            import warnings

            from diffprivlib.tools import histogram

            warnings.filterwarnings("ignore", module="diffprivlib")
            self.histogram = histogram

    def cdf(self, x: np.ndarray, m: int, eps: float, seed: int) -> Callable[..., Any]:
        n = x.size
        if not self.peer:
            return estimate(x, bounds=(0.0, 1.0), eps=eps, delta=DELTA, method="hq", bins=m,
                            rng=seed)
        counts, _ = self.histogram(x, epsilon=eps / 2.0, bins=m, range=(0.0, 1.0),
                                   random_state=seed)
        edges_f = finish_grid(np.concatenate([[0.0], np.cumsum(counts) / n]))
        edges_t = np.linspace(0.0, 1.0, m + 1)

        def f(t: np.ndarray) -> np.ndarray:
            t = np.asarray(t, dtype=np.float64)
            out = np.interp(t, edges_t, edges_f, left=0.0, right=1.0)
            return np.where(t >= 1.0, 1.0, out)

        return f


class PeerTree:
    """OpenDP's b-ary tree with geometric noise and its consistency (see the module docstring)."""

    def __init__(self) -> None:
        import opendp.prelude as dp

        dp.enable_features("contrib")
        self.dp = dp
        self._meas: dict[tuple[int, float], tuple[object, int, float]] = {}

    def measurement(self, m: int, eps: float) -> tuple[object, int, float]:
        """(measurement, b, scale) for M = m leaves at pure eps, replace-one (d_in = 2)."""
        key = (m, eps)
        if key not in self._meas:
            dp = self.dp
            b = int(dp.t.choose_branching_factor(size_guess=m))
            tree = dp.t.make_b_ary_tree(dp.vector_domain(dp.atom_domain(T=dp.i32)),
                                        dp.l1_distance(T=dp.i32), leaf_count=m,
                                        branching_factor=b)
            scale = float(dp.binary_search_param(
                lambda s: tree >> dp.m.then_geometric(scale=s), d_in=2, d_out=eps))
            meas = tree >> dp.m.then_geometric(scale=scale)
            assert meas.map(2) <= eps  # OpenDP's own certificate
            self._meas[key] = (meas, b, scale)
        return self._meas[key]

    def cdf(self, x: np.ndarray, m: int, eps: float) -> Callable[..., Any]:
        dp = self.dp
        meas, b, _ = self.measurement(m, eps)
        # dplab's leaf layout: the points lo and hi are leaves of their own (clipped mass)
        counts = np.bincount(leaf_index(x, m), minlength=m).astype(np.int64).tolist()
        noisy = meas(counts)  # type: ignore[operator]
        leaves = dp.t.make_consistent_b_ary_tree(branching_factor=b, TIA=dp.i32,
                                                 TOA=dp.f64)(noisy)
        cum = np.asarray(dp.t.make_cdf(TA=dp.f64)(leaves), dtype=np.float64)
        # cum[k] = F after leaf k: F(0) = cum[0], F at inner edge j / (m - 2) = cum[j],
        # F just below 1 = cum[m - 2]; F(1) = 1
        edges_f = finish_grid(np.nan_to_num(cum))[: m - 1]
        edges_t = np.linspace(0.0, 1.0, m - 1)

        def f(t: np.ndarray) -> np.ndarray:
            t = np.asarray(t, dtype=np.float64)
            out = np.interp(t, edges_t, edges_f, left=0.0, right=1.0)
            return np.where(t >= 1.0, 1.0, out)

        return f


def run_cell(job: tuple[str, int, float, int, tuple[str, ...], bool, bool]) -> dict[str, object]:
    shape, n, eps, seeds, labels, peer, with_odp = job
    hist = PeerHistogram(peer)
    odp = PeerTree() if with_odp else None
    real = shape in REAL
    pop = None if real else population_cdf(shape)
    res: dict[str, list[float]] = {}
    t_auto = []
    for seed in range(seeds):
        if real:  # fixed data, the seed changes only the noise
            x, g = _real(shape)
        else:
            x, g = sample(shape, n, np.random.default_rng([seed, n, 22])), SHAPE_GRANULARITY[shape]
        ref = RefGrid(ecdf(x), 0.0, 1.0)
        for label in labels:
            method, opts = {**METHODS, **EXTRA}[label]
            t0 = time.perf_counter()
            est = estimate(x, bounds=(0.0, 1.0), eps=eps, delta=DELTA, method=method,
                           rng=np.random.default_rng([seed, 23]), **opts)
            if label == "auto":
                t_auto.append(time.perf_counter() - t0)
            d = ref.distances(est)
            res.setdefault(f"{label}|ks", []).append(d.ks)
            res.setdefault(f"{label}|w1", []).append(d.w1)
            if pop is not None:
                res.setdefault(f"{label}|pks", []).append(distances(est, pop, 0.0, 1.0).ks)
        if g is not None:
            est = estimate(x, bounds=(0.0, 1.0), eps=eps, delta=DELTA, granularity=g,
                           rng=np.random.default_rng([seed, 23]))
            d = ref.distances(est)
            res.setdefault("auto+granularity|ks", []).append(d.ks)
            res.setdefault("auto+granularity|w1", []).append(d.w1)
        for m in BINS:
            f = hist.cdf(x, m, eps, seed * 7919 + m)
            d = ref.distances(f)
            res.setdefault(f"h{m}|ks", []).append(d.ks)
            res.setdefault(f"h{m}|w1", []).append(d.w1)
        if odp is not None:
            for m in ODP_LEAVES:
                # the peer's noise is OpenDP's own sampler (its own entropy, not seeded)
                d = ref.distances(odp.cdf(x, m, eps))
                res.setdefault(f"o{m}|ks", []).append(d.ks)
                res.setdefault(f"o{m}|w1", []).append(d.w1)
    out: dict[str, object] = {k: float(np.mean(v)) for k, v in res.items()}
    out.update(shape=shape, n=int(x.size), eps=eps, auto_s=float(np.median(t_auto)))
    return out


def _best(cell: dict[str, object], metric: str) -> tuple[float, int]:
    vals = {m: float(cell[f"h{m}|{metric}"]) for m in BINS}  # type: ignore[arg-type]
    m = min(vals, key=vals.__getitem__)
    return vals[m], m


def _best_odp(cell: dict[str, object], metric: str) -> tuple[float, int]:
    vals = {m: float(cell[f"o{m}|{metric}"]) for m in ODP_LEAVES}  # type: ignore[arg-type]
    m = min(vals, key=vals.__getitem__)
    return vals[m], m


def _gm(x: Any) -> float:
    return math.exp(float(np.mean(np.log(np.asarray(x)))))


def render_odp(cells: list[dict[str, object]], labels: Sequence[str]) -> list[str]:
    """The block against OpenDP's tree: per cell, then geometric means and worst cells."""
    if not cells or f"o{ODP_FIXED}|ks" not in cells[0]:
        return ["", "OpenDP's tree: not measured (opendp not installed or --no-opendp)."]
    lines = ["", "### Against OpenDP's tree (geometric noise at pure eps, consistency, make_cdf)",
             "", f"Same cells and data. \"best tree\" = the best of {len(ODP_LEAVES)} leaf counts "
             f"{ODP_LEAVES[0]} ... {ODP_LEAVES[-1]} in hindsight per cell and metric (an oracle); "
             f"\"tree {ODP_FIXED}\" = {ODP_FIXED} leaves. Ratio = method / peer.", "",
             "| shape | n | eps | best tree KS (leaves) | tree 1024 KS |"
             + "".join(f" {lab} KS ratio best / 1024 |" for lab in labels)
             + " best tree W1 (leaves) |" + "".join(f" {lab} W1 ratio best / 1024 |"
                                                   for lab in labels),
             "|---|---|---|---|---|" + "---|" * (2 * len(labels) + 1)]
    rat: dict[tuple[str, str, str], list[float]] = {}
    where: list[str] = []
    for c in cells:
        bks, mks = _best_odp(c, "ks")
        bw, mw = _best_odp(c, "w1")
        fks, fw = float(c[f"o{ODP_FIXED}|ks"]), float(c[f"o{ODP_FIXED}|w1"])  # type: ignore[arg-type]
        where.append(f"{c['shape']} n={c['n']:,} eps={c['eps']:g}")
        row = f"| {c['shape']} | {c['n']:,} | {c['eps']:g} | {bks:.3g} ({mks}) | {fks:.3g} |"
        for lab in labels:
            v = float(c[f"{lab}|ks"])  # type: ignore[arg-type]
            rat.setdefault((lab, "ks", "best"), []).append(v / bks)
            rat.setdefault((lab, "ks", "fixed"), []).append(v / fks)
            row += f" {v / bks:.3g} / {v / fks:.3g} |"
        row += f" {bw:.3g} ({mw}) |"
        for lab in labels:
            v = float(c[f"{lab}|w1"])  # type: ignore[arg-type]
            rat.setdefault((lab, "w1", "best"), []).append(v / bw)
            rat.setdefault((lab, "w1", "fixed"), []).append(v / fw)
            row += f" {v / bw:.3g} / {v / fw:.3g} |"
        lines.append(row)
    lines += ["", "| method | peer | cells | geo-mean KS | worst KS | KS > 1.1 | KS > 1.5 | "
              "geo-mean W1 | worst W1 | W1 > 1.1 | W1 > 1.5 |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    subsets: list[tuple[str, list[int]]] = [("all", list(range(len(cells))))]
    for n in sorted({int(c["n"]) for c in cells}):  # type: ignore[call-overload]
        subsets.append((f"n = {n:,}", [i for i, c in enumerate(cells) if c["n"] == n]))
    for lab in labels:
        for peer in ("best", "fixed"):
            for name, idx in subsets if len(subsets) > 2 else subsets[:1]:
                ks = np.array(rat[(lab, "ks", peer)])[idx]
                w1 = np.array(rat[(lab, "w1", peer)])[idx]
                lines.append(
                    f"| {lab} ({name}) | {'best tree' if peer == 'best' else 'tree 1024'} | "
                    f"{ks.size} | {_gm(ks):.3f} | {ks.max():.2f} | {int(np.sum(ks > 1.1))} | "
                    f"{int(np.sum(ks > 1.5))} | {_gm(w1):.3f} | {w1.max():.2f} | "
                    f"{int(np.sum(w1 > 1.1))} | {int(np.sum(w1 > 1.5))} |")
    if "auto" in labels:
        for peer, lim, title in (("best", 1.5, "the best tree"), ("fixed", 1.1, "tree 1024")):
            for metric in ("ks", "w1"):
                r = rat[("auto", metric, peer)]
                bad = sorted(zip(r, where, strict=True))[::-1]
                over = [(x, w) for x, w in bad if x > lim]
                lines += ["", f"`auto` against {title}, {metric.upper()}: "
                          f"{len(over)} cells above {lim}; worst:"]
                lines += [f"- {w}: {x:.2f}" for x, w in (over or bad[:3])[:8]]
    return lines


def render(cells: list[dict[str, object]], labels: Sequence[str], seeds: int, peer: bool,
           command: str, seconds: float) -> str:
    name = ("diffprivlib histogram (eps/2)" if peer
            else "dpcore hq Laplace histogram (diffprivlib NOT installed)")
    real = any(str(c["shape"]) in REAL for c in cells)
    lines = [
        BEGIN,
        "## The hold-out: the real data sets against a plain histogram, on the empirical CDF"
        if real else
        "## The default (`auto`) against a plain histogram, on the empirical CDF (issue 22)",
        "",
        f"Command: `{command}` ({seconds:.0f} s on {os.cpu_count()} cores, {seeds} seeds per "
        + ("cell: fixed data, fresh noise)." if real else "cell: fresh data and noise)."),
        f"Reference: the empirical CDF of each {'' if real else 'drawn '}data set (not private). "
        f"Baseline: {name},",
        "bins 8 ... 1024, the best in hindsight per cell and metric (an oracle). Ratio = method /",
        "best histogram (< 1: the method is ahead). delta = 1e-6, replace-one neighbours.",
        "",
    ]
    head = "| shape | n | eps | best hist KS (bins) |"
    sep = "|---|---|---|---|"
    for lab in labels:
        head += f" {lab} KS (ratio) |"
        sep += "---|"
    head += " best hist W1 (bins) |" + "".join(f" {lab} W1 ratio |" for lab in labels)
    sep += "---|" + "---|" * len(labels)
    lines += [head, sep]
    ratios: dict[str, dict[str, list[float]]] = {lab: {"ks": [], "w1": []} for lab in labels}
    worst: dict[str, list[tuple[float, str]]] = {lab: [] for lab in labels}
    for c in cells:
        bks, mks = _best(c, "ks")
        bw, mw = _best(c, "w1")
        row = f"| {c['shape']} | {c['n']:,} | {c['eps']:g} | {bks:.3g} ({mks}) |"
        for lab in labels:
            r = float(c[f"{lab}|ks"]) / bks  # type: ignore[arg-type]
            ratios[lab]["ks"].append(r)
            worst[lab].append((r, f"{c['shape']} n={c['n']:,} eps={c['eps']:g}"))
            row += f" {float(c[f'{lab}|ks']):.3g} ({r:.3g}) |"  # type: ignore[arg-type]
        row += f" {bw:.3g} ({mw}) |"
        for lab in labels:
            r = float(c[f"{lab}|w1"]) / bw  # type: ignore[arg-type]
            ratios[lab]["w1"].append(r)
            row += f" {r:.3g} |"
        lines.append(row)
    lines += ["", "| method | cells | geo-mean KS ratio | worst KS ratio | cells KS > 1.1 | "
              "geo-mean W1 ratio | worst W1 ratio | cells W1 > 1.1 |",
              "|---|---|---|---|---|---|---|---|"]
    subsets: list[tuple[str, list[int]]] = [("all", list(range(len(cells))))]
    for n in sorted({int(c["n"]) for c in cells}):  # type: ignore[call-overload]
        subsets.append((f"n = {n:,}", [i for i, c in enumerate(cells) if c["n"] == n]))
    for shape in dict.fromkeys(str(c["shape"]) for c in cells):
        subsets.append((shape, [i for i, c in enumerate(cells) if c["shape"] == shape]))
    for lab in labels:
        ks_all = np.array(ratios[lab]["ks"])
        w1_all = np.array(ratios[lab]["w1"])
        for name, idx in subsets if len(cells) > 1 else subsets[:1]:
            ks, w1 = ks_all[idx], w1_all[idx]
            lines.append(
                f"| {lab} ({name}) | {ks.size} | {math.exp(np.mean(np.log(ks))):.3f} | "
                f"{ks.max():.2f} | {int(np.sum(ks > 1.1))} | "
                f"{math.exp(np.mean(np.log(w1))):.3f} | {w1.max():.2f} | "
                f"{int(np.sum(w1 > 1.1))} |"
            )
    lines.append("")
    lines.append("Cells where `auto`'s KS ratio exceeds 1.1:" if "auto" in labels else "")
    if "auto" in labels:
        bad = sorted((r, w) for r, w in worst["auto"] if r > 1.1)[::-1]
        lines += [f"- {w}: {r:.2f}" for r, w in bad] or ["- none"]
        badw = sorted((r, w) for r, w in zip(ratios["auto"]["w1"], (w for _, w in worst["auto"]),
                                             strict=True) if r > 1.1)[::-1]
        lines += ["", "Cells where `auto`'s W1 ratio exceeds 1.1:"]
        lines += [f"- {w}: {r:.2f}" for r, w in badw] or ["- none"]
    gran = [c for c in cells if "auto+granularity|ks" in c]
    if gran:
        lines += ["", "With the public granularity (`estimate(..., granularity=h)`; the lattice "
                  "shape: h = 0.1, 11 values; ages: whole years):", "",
                  "| shape | n | eps | KS | W1 | best hist KS | KS ratio |",
                  "|---|---|---|---|---|---|---|"]
        for c in gran:
            gks = float(c["auto+granularity|ks"])  # type: ignore[arg-type]
            lines.append(f"| {c['shape']} | {c['n']:,} | {c['eps']:g} | {gks:.5f} |"
                         f" {float(c['auto+granularity|w1']):.5f} |"  # type: ignore[arg-type]
                         f" {_best(c, 'ks')[0]:.5f} | {gks / _best(c, 'ks')[0]:.2f} |")
    lines += render_odp(cells, labels)
    t = [float(c["auto_s"]) for c in cells if c["n"] == 1_000_000]  # type: ignore[arg-type]
    if t:
        lines += ["", f"`auto` wall time at n = 10^6 (median per cell, then max over cells): "
                  f"{max(t):.3f} s"]
    lines += [END, ""]
    return "\n".join(lines)


NOISE_DELTAS = (1e-6, 1e-9, 1e-12)
NOISE_TREES = ((8, "gaussian"), (8, "laplace"), (16, "gaussian"), (16, "laplace"),
               (64, "gaussian"), (64, "laplace"))
NOISE_BEGIN = "<!-- begin cdf_noise_study -->"
NOISE_END = "<!-- end cdf_noise_study -->"


def noise_leaves(leaves: int) -> dict[int, int]:
    """The leaves each branching of the study actually gets for ``leaves`` (b^L >= leaves)."""
    from dpcore.cdf.tree import plan_tree

    return {b: plan_tree(10_000, 1.0, DELTA, leaves=leaves, branching=b).leaves
            for b in dict.fromkeys(b for b, _ in NOISE_TREES)}


def noise_cell(job: tuple[str, int, float, int, int]) -> dict[str, object]:
    """Gaussian vs Laplace trees (b = 8, 16, 64; ``leaves`` leaves, PCHIP) at small delta.

    Same data and seeds as ``run_cell`` (the synthetic shapes only); every tree has exactly
    ``leaves`` leaves (``main`` refuses a count that is not a power of every b).
    """
    shape, n, eps, seeds, leaves = job
    out: dict[str, object] = {"shape": shape, "n": n, "eps": eps}
    for seed in range(seeds):
        x = sample(shape, n, np.random.default_rng([seed, n, 22]))
        ref = RefGrid(ecdf(x), 0.0, 1.0)
        for delta in NOISE_DELTAS:
            for b, noise in NOISE_TREES:
                est = estimate(x, bounds=(0.0, 1.0), eps=eps, delta=delta, method="tree",
                               branching=b, leaves=leaves, noise=noise,
                               interpolation="pchip", rng=np.random.default_rng([seed, 23]))
                assert est.info["leaves"] == leaves, (b, est.info["leaves"])
                d = ref.distances(est)
                for k, val in (("ks", d.ks), ("w1", d.w1)):
                    key = f"{delta:g}|{b}|{noise}|{k}"
                    out[key] = float(out.get(key, 0.0)) + val / seeds  # type: ignore[arg-type]
    return out


def render_noise(cells: list[dict[str, object]], leaves: int, seeds: int, command: str,
                 seconds: float) -> str:
    """Geometric means over the cells of each tree's KS and W1 relative to b = 8 Gaussian."""
    from dpcore.cdf.tree import plan_tree

    lines = [NOISE_BEGIN, "## Gaussian vs Laplace trees at small delta (issue 40)", "",
             f"Command: `{command}` ({seconds:.0f} s on {os.cpu_count()} cores, {seeds} seeds "
             f"per cell: fresh data and noise; {len(cells)} cells: shapes "
             f"{', '.join(dict.fromkeys(str(c['shape']) for c in cells))}, n "
             f"{', '.join(f'{x:,}' for x in sorted({int(c['n']) for c in cells}))}, eps "  # type: ignore[call-overload]
             f"{', '.join(f'{x:g}' for x in sorted({float(c['eps']) for c in cells}))}).",  # type: ignore[arg-type]
             f"Every tree has exactly {leaves} leaves (depth log_b {leaves}), PCHIP inside a "
             "cell, least-squares consistency; reference: the empirical CDF. Ratio = geometric "
             "mean over the cells of the tree's KS (W1) / the 8-ary Gaussian tree's at the same "
             "delta (< 1: better). Node sd: the noise sd of every released node (CDF units) at "
             "n eps = 10^4.", "",
             "| delta | tree | depth | KS ratio | W1 ratio | node sd at n eps = 1e4 |",
             "|---|---|---|---|---|---|"]
    for delta in NOISE_DELTAS:
        for b, noise in NOISE_TREES:
            r = {k: _gm([float(c[f"{delta:g}|{b}|{noise}|{k}"])  # type: ignore[arg-type]
                         / float(c[f"{delta:g}|8|gaussian|{k}"])  # type: ignore[arg-type]
                         for c in cells]) for k in ("ks", "w1")}
            tp = plan_tree(10_000, 1.0, delta, leaves=leaves, branching=b, noise=noise)
            lines.append(f"| {delta:g} | b = {b}, {noise} | {tp.depth} | {r['ks']:.3f} | "
                         f"{r['w1']:.3f} | {tp.node_sd:.2e} |")
    lines += [NOISE_END, ""]
    return "\n".join(lines)


def _command(argv: Sequence[str] | None) -> str:
    """The command line as run, with this process's real niceness."""
    return (f"nice -n {os.nice(0)} .venv/bin/python benchmarks/cdf_vs_histogram.py " + " ".join(
        argv if argv is not None else sys.argv[1:])).strip()


def _update(path: str, text: str, begin: str, end: str) -> None:
    """Replace the block between ``begin`` and ``end`` in ``path`` (append it if absent)."""
    p = Path(path)
    old = p.read_text(encoding="utf-8")
    if begin in old and end in old:
        new = old[: old.index(begin)] + text.rstrip("\n") + old[old.index(end) + len(end):]
    else:
        new = old.rstrip("\n") + "\n\n" + text
    p.write_text(new, encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--shapes", default=",".join(GRID_SHAPES))
    ap.add_argument("--n", default=",".join(str(n) for n in NS))
    ap.add_argument("--eps", default=",".join(f"{e:g}" for e in EPS))
    ap.add_argument("--methods", default="auto",
                    help="comma list of labels from " + ", ".join([*METHODS, *EXTRA]))
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--no-peer", action="store_true", help="use dpcore's hq instead")
    ap.add_argument("--no-opendp", action="store_true", help="leave out OpenDP's tree")
    ap.add_argument("--update", default="", help="replace the marked block in this file")
    ap.add_argument("--real", action="store_true",
                    help="the hold-out: the real data sets (fixed data, seeds vary the noise)")
    ap.add_argument("--noise-study", type=int, default=0, metavar="LEAVES",
                    help="only the Gaussian vs Laplace tree study, every tree with exactly "
                         "this many leaves (a power of 8, 16 and 64: 4096)")
    ap.add_argument("--json", default="", help="also write the cells (one JSON line each)")
    a = ap.parse_args(argv)
    if a.noise_study:
        got = noise_leaves(a.noise_study)
        if set(got.values()) != {a.noise_study}:
            ap.error(f"--noise-study {a.noise_study}: the trees would get different leaf counts "
                     f"({', '.join(f'b = {b}: {m}' for b, m in got.items())}); pass a power of "
                     "every branching, e.g. 4096")
        njobs = [(s, int(n), float(e), a.seeds, a.noise_study) for s in a.shapes.split(",")
                 for n in a.n.split(",") for e in a.eps.split(",")]
        t0 = time.perf_counter()
        if a.workers <= 1:
            ncells = [noise_cell(j) for j in njobs]
        else:
            with ProcessPoolExecutor(max_workers=a.workers) as ex:
                ncells = list(ex.map(noise_cell, njobs))
        text = render_noise(ncells, a.noise_study, a.seeds, _command(argv),
                            time.perf_counter() - t0)
        print(text)
        if a.update:
            _update(a.update, text, NOISE_BEGIN, NOISE_END)
        return 0
    global BEGIN, END
    if a.real:
        a.shapes, a.n = ",".join(REAL), "0"
        BEGIN, END = BEGIN.replace("histogram", "histogram_real"), END.replace(
            "histogram", "histogram_real")
    labels = tuple(s for s in a.methods.split(",") if s)
    peer = not a.no_peer
    if peer:
        try:
            import diffprivlib  # noqa: F401
        except ImportError:
            ap.error("diffprivlib is not installed: pip install '.[bench]' (or pass --no-peer)")
    with_odp = not a.no_opendp
    if with_odp:
        try:
            import opendp  # noqa: F401
        except ImportError:
            with_odp = False
    jobs = [(s, int(n), float(e), a.seeds, labels, peer, with_odp)
            for s in a.shapes.split(",") for n in a.n.split(",") for e in a.eps.split(",")]
    jobs.sort(key=lambda j: -j[1])  # big cells first, for the pool
    t0 = time.perf_counter()
    if a.workers <= 1:
        cells = [run_cell(j) for j in jobs]
    else:
        with ProcessPoolExecutor(max_workers=a.workers) as ex:
            cells = list(ex.map(run_cell, jobs))
    order = {s: i for i, s in enumerate(a.shapes.split(","))}
    cells.sort(key=lambda c: (order[str(c["shape"])], c["n"], c["eps"]))
    text = render(cells, labels, a.seeds, peer, _command(argv), time.perf_counter() - t0)
    print(text)
    if a.json:
        Path(a.json).write_text("".join(json.dumps(c) + "\n" for c in cells), encoding="utf-8")
    if a.update:
        _update(a.update, text, BEGIN, END)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
