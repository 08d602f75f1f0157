"""The automatic rule ``auto_plan_v6`` (issue 40, 2026-12-06): the default, method "auto" (and
"auto_v6", the same release under the name it was measured by).  The former default,
``auto_plan_v4``, is method "auto_v4".

``auto_plan_v5`` from n*eps = 300 to 1500 and from 15000 on, and on a public lattice, unchanged.
Two bands change (docs/cdf-results.md, "Issue 40, the rule auto_plan_v6"):

* n*eps < LOW_BAND_V6 (300): a flat Laplace histogram with ``auto_bins(n, eps)`` cells, as in
  v4, but on the "Chebyshev" layout (``warped_edges``: edges t_k = (1 - a) k/M +
  a (1 - cos(pi k / M)) / 2, a = LOW_WARP_V6, finer next to the two bounds and coarser in the
  middle), least squares with the public total (every cell's noisy frequency minus the mean
  excess of their sum over 1) and PCHIP through the edge values.  Why: v4's uniform 7 bins at
  n*eps = 100 put 91 % of the heavy shape's mass (0.02 |Cauchy|, piled at 0) in its first
  bin, 2.6-2.7x OpenDP's best tree in KS; narrow cells next to the bounds resolve such a pile
  at no cost in noise (the same M cells, the same scale), and the coarser middle cells cost
  the smooth shapes little at this noise level (measured on 48 synthetic cells with
  n*eps = 50 ... 200: KS geometric mean 0.495 against v4's 0.639, as ratios to OpenDP's best
  tree, worst cell 1.28 against 2.72; a single cell can lose where an edge falls next to a
  narrow spike).  The total constraint is free (n is public) and was worth ~8 % alone.
* 1500 <= n*eps < 15000 (v4's 8-ary tree of depth 3, 512 leaves, 500 centred cells): a
  MID_BRANCHING_V6-ary tree of depth 3 (9^3 = 729 leaves, 640 = 2^7 5 centred cells; the same
  depth, so the same sensitivity and node noise as v4's tree) with v4's shrinkage (lam
  TREE_SHRINK) and PCHIP.  Why: 500 = 2^2 5^3 cells put values recorded to multiples of 1/8,
  1/16 or 1/80 of the range on cell edges or quarter points (1/80 = 6.25/500), where the spread
  inside a cell misses an atom by up to all of its mass; 640 cells centre every k/q with q
  dividing 640 (2, 4, 5, 8, 10, 16, 20, 32, 40, 64, 80, ...), and are 22 % narrower.  The 81-value
  ``wide_lattice`` at n = 1000, eps = 8 was 1.11-1.18x OpenDP's 1,024-leaf tree with v4's 512
  leaves.  Of b = 8, 9, 10, 11, 12 at depth 3 (the same noise), b = 9 had the best KS on the
  band's 32 synthetic cells (docs/cdf-results.md).

Privacy (docs/math.md#automatic-method, "The rule auto_plan_v6"): replace-one neighbours, n
public, public bounds.  The Chebyshev histogram: a record moved from one cell to another
changes two cell frequencies by 1/n each, L1 sensitivity 2/n exactly (attained by the two end
cells), Laplace(2 / (n eps)) per cell: pure eps-DP (Dwork, McSherry, Nissim & Smith 2006); the
layout is a function of (M, a) only, public.  The trees: ``dpcore.cdf.tree`` (L1 2 L / n, L2
sqrt(2 L) / n, exact for any branching).  Everything after the noise is post-processing
(Dwork & Roth 2014, Prop. 2.1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.interpolate import PchipInterpolator

from dpcore import validate as v
from dpcore.cdf import (
    HISTOGRAM_EPS_N,
    TREE_BRANCHING,
    TREE_DEPTH_FROM_V3,
    TREE_LAYOUT_V4,
    TREE_SHRINK,
    AutoPlan,
    auto_plan_v4,
    tree,
)
from dpcore.cdf.auto_v5 import auto_plan_v5
from dpcore.cdf.common import (
    CDFEstimate,
    Clipped,
    FloatArray,
    Release,
    check_privacy,
    clip_data,
    finish_grid,
    make_rng,
)
from dpcore.cdf.hist import auto_bins

__all__ = ["BANDS_V6", "LOW_BAND_V6", "LOW_WARP_V6", "MID_BRANCHING_V6", "Band",
           "auto_plan_v6", "band_of", "estimate_auto_v6", "low_band_scale", "warped_cell_index",
           "warped_edges"]

#: Below this n*eps the Chebyshev histogram (v4's auto_bins histogram before).
LOW_BAND_V6 = 300.0
#: Weight a of the Chebyshev points in the edges (0: equal cells, v4's; 1: Chebyshev).  Of
#: a = 0, 0.5, 0.75, 0.8, 0.9, 1 on 48 synthetic cells with n*eps < 300 (benchmarks/
#: cdf_v6_study.py --low), the best KS geometric mean with no cell above 1.5x OpenDP's best tree.
LOW_WARP_V6 = 0.9
#: The depth-3 tree's branching from HISTOGRAM_EPS_N (1500) to the depth-4 band (15000); of
#: b = 8 ... 12 the best KS geometric mean on the band's 32 synthetic cells (--mid).
MID_BRANCHING_V6 = 9
#: The histogram's CDF is tabulated at this many equal steps of [lo, hi], plus every edge.
LOW_GRID = 1024


def warped_edges(m: int, warp: float = LOW_WARP_V6) -> FloatArray:
    """The m + 1 cell edges 0 = t_0 < ... < t_m = 1 of the low band's layout (rescaled units).

    t_k = (1 - a) k/m + a (1 - cos(pi k / m)) / 2 with a = ``warp``: equal cells for a = 0,
    the Chebyshev-Lobatto points (cells of width ~ (pi/m) sqrt(t (1 - t)) in the middle and
    ~ pi^2 / (4 m^2) at a bound) for a = 1.  Domain: m >= 1 whole, warp in [0, 1] (keyed
    ValueError, ``dpcore.errors.DPError``, outside).  Edge cases: m = 1 gives [0, 1]; the
    edges are symmetric (t_{m-k} = 1 - t_k up to rounding) and strictly increasing (each term
    is non-decreasing in k and the first increasing for a < 1, the second for a > 0).
    Accuracy: to rounding (|error| <= a few ulp), t_0 = 0 and t_m = 1 exactly.  Reference:
    Trefethen, Approximation Theory and Approximation Practice (SIAM 2013), ch. 2 (the points).
    """
    m_v = v.integer("m", m, lo=1)
    a = v.real_scalar("warp", warp, lo=0.0, hi=1.0)
    k = np.arange(m_v + 1, dtype=np.float64)
    t = (1.0 - a) * k / m_v + a * 0.5 * (1.0 - np.cos(np.pi * k / m_v))
    t[0], t[-1] = 0.0, 1.0
    return np.maximum.accumulate(t)


def warped_cell_index(t: FloatArray, edges: FloatArray) -> NDArray[np.int64]:
    """The cell of each rescaled value t in [0, 1] among the cells [t_k, t_{k+1}) of ``edges``.

    ``edges`` = ``warped_edges(m, a)`` (m + 1 increasing values from 0 to 1); the last cell is
    closed ([t_{m-1}, 1]), so every t in [0, 1] lies in exactly one of the cells 0..m-1 (t = 0
    in cell 0, t = 1 in cell m - 1).  Domain: t in [0, 1] (values outside go to the end cells),
    edges as above.  Exact (a binary search, no rounding).  Used by the release: a record's cell
    depends on its own value only, so a replacement changes at most two cell counts.
    """
    m = edges.size - 1
    idx: NDArray[np.int64] = np.clip(np.searchsorted(edges, t, side="right") - 1, 0,
                                     m - 1).astype(np.int64)
    return idx


def low_band_scale(n: int, eps: float) -> float:
    """Laplace scale of the low band's cell frequencies: 2 / (n eps), pure eps-DP.

    Domain: n >= 2 whole, eps > 0 finite (keyed ValueError outside).  Exact (one rounding):
    replace-one neighbours move one record between two cells, L1 sensitivity 2/n, attained.
    Reference: Dwork, McSherry, Nissim & Smith 2006 (the Laplace mechanism).
    """
    n_v = v.integer("n", n, lo=2)
    eps_v, _ = check_privacy(eps, 0.5)
    return 2.0 / (n_v * eps_v)


def auto_plan_v6(n: int, eps: float, delta: float, lattice_size: int | None = None) -> AutoPlan:
    """The plan of method "auto_v6" from public n, eps, delta and granularity only.

    * A public lattice (``lattice_size`` = number of lattice values): ``auto_plan_v4``'s
      lattice rule, unchanged.
    * n * eps < LOW_BAND_V6 (300): the Laplace histogram with ``auto_bins(n, eps)`` cells on
      the Chebyshev layout (``warped_edges``, a = LOW_WARP_V6), least squares with the public
      total, PCHIP; ``method`` "hq", ``layout`` "chebyshev", ``noise_sd`` sqrt(2) 2/(n eps).
    * 300 <= n * eps < 1500: ``auto_plan_v5`` (the weighted 16-ary band tree).
    * 1500 <= n * eps < 15000: the MID_BRANCHING_V6-ary (9) tree of depth 3 (729 leaves),
      noise by ``tree.plan_tree`` (Laplace or Gaussian, the smaller per-node variance; the
      same as v4's depth-3 tree), centred cells, details shrunk (lam TREE_SHRINK), PCHIP.
    * n * eps >= 15000: ``auto_plan_v4`` (8-ary trees of depth 4 to 6).
    Domain: n >= 2 whole, eps > 0, delta in (0, 1), lattice_size None or >= 2 whole; keyed
    ValueError (``dpcore.errors.DPError``) outside.  Edge cases: n*eps = 300 is v5's band tree,
    just below it the Chebyshev histogram; 1500 the 9-ary tree, 15000 v4's depth-4 tree.
    Accuracy: measured, not bounded (docs/cdf-results.md).  Reference: module docstring.
    """
    n_v = v.integer("n", n, lo=2)
    eps_v, delta_v = check_privacy(eps, delta)
    size = None if lattice_size is None else v.integer("lattice_size", lattice_size, lo=2)
    ne = n_v * eps_v
    if size is not None:
        return auto_plan_v4(n_v, eps_v, delta_v, size)
    if ne < LOW_BAND_V6:
        m = auto_bins(n_v, eps_v)
        return AutoPlan("laplace", m, math.sqrt(2.0) * low_band_scale(n_v, eps_v),
                        f"n*eps < {LOW_BAND_V6:g}: {m}-cell Laplace histogram on Chebyshev "
                        f"edges (warp {LOW_WARP_V6:g}), least squares with the public total, "
                        "PCHIP interpolation", method="hq", layout="chebyshev")
    if ne < HISTOGRAM_EPS_N:
        return auto_plan_v5(n_v, eps_v, delta_v)
    if ne < TREE_DEPTH_FROM_V3[1][0]:
        b = MID_BRANCHING_V6
        tp = tree.plan_tree(n_v, eps_v, delta_v, leaves=b**3, branching=b)
        return AutoPlan(tp.noise, tp.leaves, tp.node_sd,
                        f"{HISTOGRAM_EPS_N:g} <= n*eps < {TREE_DEPTH_FROM_V3[1][0]:g}: {b}-ary "
                        f"tree of depth {tp.depth} ({tp.leaves} leaves), centred cells, details "
                        f"shrunk (lam {TREE_SHRINK:g}), PCHIP inside a cell", method="tree",
                        shrink=TREE_SHRINK, layout=TREE_LAYOUT_V4, branching=b)
    return auto_plan_v4(n_v, eps_v, delta_v)


@dataclass(frozen=True)
class Band:
    """One band of ``auto_plan_v6`` on the continuous scale (no lattice): the release it plans
    for start <= n*eps < end.  ``kind`` "hq" (the Chebyshev histogram, ``auto_bins(n, eps)``
    cells: branching, depth and leaves 0) or "tree" (``branching``-ary, ``depth`` levels,
    ``leaves`` = branching^depth); ``top_share`` the share of eps on the top level (0: equal
    noise on every level)."""

    start: float
    end: float
    kind: str
    branching: int = 0
    depth: int = 0
    leaves: int = 0
    top_share: float = 0.0


def _bands() -> tuple[Band, ...]:
    from dpcore.cdf.auto_v5 import BAND_BRANCHING_V5, BAND_DEPTH_V5, BAND_TOP_SHARE

    b5, d5, b9, b8 = BAND_BRANCHING_V5, BAND_DEPTH_V5, MID_BRANCHING_V6, TREE_BRANCHING
    deep = TREE_DEPTH_FROM_V3[1:]
    out = [Band(0.0, LOW_BAND_V6, "hq"),
           Band(LOW_BAND_V6, HISTOGRAM_EPS_N, "tree", b5, d5, b5**d5, BAND_TOP_SHARE),
           Band(HISTOGRAM_EPS_N, deep[0][0], "tree", b9, 3, b9**3)]
    for i, (start, depth) in enumerate(deep):
        end = deep[i + 1][0] if i + 1 < len(deep) else math.inf
        out.append(Band(start, end, "tree", b8, depth, b8**depth))
    return tuple(out)


#: The bands of ``auto_plan_v6`` in order (what the /cdf page and the CDF lesson print; a test
#: checks each against ``auto_plan_v6``): the Chebyshev histogram below 300, the weighted 16-ary
#: tree to 1500, the 9-ary tree of depth 3 to 15000, then the 8-ary trees of depth 4, 5, 6.
BANDS_V6: tuple[Band, ...] = _bands()


def band_of(n: int, eps: float) -> Band:
    """The band of ``BANDS_V6`` that public n*eps falls in.  Domain: n >= 2 whole, eps > 0
    finite (keyed ValueError outside).  Exact (comparisons of the double n*eps)."""
    n_v = v.integer("n", n, lo=2)
    eps_v, _ = check_privacy(eps, 0.5)
    ne = n_v * eps_v
    return next(b for b in BANDS_V6 if b.start <= ne < b.end)


def estimate_auto_v6(
    data: ArrayLike, *, bounds: object, eps: float, delta: float, rng: object = None,
    granularity: float | None = None, method_name: str = "auto_v6",
) -> CDFEstimate:
    """Methods "auto" (the default) and "auto_v6": ``auto_plan_v6``'s release (see the module
    docstring), its record named ``method_name``.

    Below n*eps = 300 without a granularity, the Chebyshev histogram (certified (eps, 0));
    from 300 to 1500 ``auto_v5``'s band tree (certified (eps, 0)); otherwise the automatic
    path (``dpcore.cdf._estimate_auto``) with the same rule.  The rule is the one registered
    for ``method_name`` (``Method.rule``, looked up by name in ``dpcore.cdf``, so a test may
    replace it).  Domain and errors: as ``dpcore.cdf.estimate``.
    """
    import dpcore.cdf as cdf  # the registry and the automatic path (imported late: a cycle)
    from dpcore.cdf.auto_v5 import BAND_BRANCHING_V5, _band_tree

    eps_v, delta_v = check_privacy(eps, delta)
    clipped = clip_data(data, bounds)
    rule = getattr(cdf, cdf.REGISTRY[method_name].rule)
    plan = rule(clipped.n, eps_v, delta_v, None)
    if granularity is None and plan.method == "hq":
        return _low_band(clipped, eps_v, plan, make_rng(rng), method=method_name)
    if (granularity is None and plan.method == "tree" and plan.branching == BAND_BRANCHING_V5
            and plan.k_max == BAND_BRANCHING_V5**2):
        est = _band_tree(clipped, eps_v, delta_v, plan, make_rng(rng))
        return replace(est, method=method_name)
    return cdf._estimate_auto(data, bounds=bounds, eps=eps_v, delta=delta_v, rng=rng,
                              granularity=granularity, method_name=method_name,
                              plan=None if granularity is not None else plan)


def _low_band(clipped: Clipped, eps_v: float, plan: AutoPlan, gen: np.random.Generator,
              warp: float = LOW_WARP_V6, method: str = "auto_v6") -> CDFEstimate:
    """The Chebyshev histogram: the release (Laplace per cell) and its post-processing (the
    study benchmarks/cdf_v6_study.py varies ``warp``, the method uses LOW_WARP_V6)."""
    m, n = plan.k_max, clipped.n
    edges = warped_edges(m, warp)
    idx = warped_cell_index(clipped.t, edges)
    scale = low_band_scale(n, eps_v)
    noisy = np.bincount(idx, minlength=m) / n + gen.laplace(0.0, scale, m)  # the release
    # post-processing: least squares with the public total 1, cumulative sums, isotonic, clip
    fit = noisy - (math.fsum(noisy) - 1.0) / m
    edge_f = finish_grid(np.concatenate([[0.0], np.cumsum(fit)]))
    t = np.union1d(np.arange(LOW_GRID + 1) / LOW_GRID, edges)
    f = np.maximum.accumulate(np.clip(PchipInterpolator(edges, edge_f)(t), 0.0, 1.0))
    f[-1] = 1.0
    lo, hi = clipped.lo, clipped.hi
    rel = Release.of(
        clipped, method="hq", mechanism="laplace", values=noisy, noise_scale=scale,
        sensitivity=2.0 / n, norm="L1", eps=eps_v, delta=0.0,
        accounting=(f"one Laplace release of the frequencies of {m} cells with Chebyshev edges "
                    f"(warp {warp:g}; public); L1 sensitivity 2/n exactly, pure eps-DP; "
                    "least squares with the public total, isotonic, PCHIP: post-processing"),
        extra={"bins": m, "interpolation": "pchip", "layout": "chebyshev",
               "warp": warp, "edges": edges},
    )
    info = {"bins": m, "interpolation": "pchip", "layout": "chebyshev", "plan": plan}
    return CDFEstimate(lo + (hi - lo) * t, f, eps_v, 0.0, method, rel, info=info)
