"""Hierarchical (tree) histogram: noisy counts of a b-ary tree over a fine public grid.

Reference: Hay, Rastogi, Miklau & Suciu, "Boosting the accuracy of differentially private
histograms through consistency", PVLDB 3 (2010), Sec. 4 (the tree H_b and its least-squares
consistency, Theorem 3); Qardaji, Yang & Li, "Understanding hierarchical methods for
differentially private histograms", PVLDB 6 (2013) (branching factor; b around 16 is best for
range queries with consistency).  docs/math.md#tree-histogram.

Mechanism (replace-one neighbours, public n, public bounds; the only private step):
  The public grid has M = b^L leaves: the point lo, M - 2 equal cells of (lo, hi) and the
  point hi (``leaf_index``; clipped records sit at the bounds, so the CDF may jump there),
  or, with a public granularity h, one leaf per lattice value lo + k h (k = 0..K), or with
  ``group`` g one leaf per g consecutive values (value k in leaf floor(k / g)), followed
  by leaves that are empty for every data set.  Level l = 1..L has b^l nodes,
  node i of level l covering leaves [i b^(L-l), (i+1) b^(L-l)).  The frequency of every node
  of levels 1..L (count / n) is released once with independent noise;
  the root (frequency 1) is public and not released.
  Sensitivity: replacing one record moves it from one leaf to another; at each level it leaves
  at most one node and enters at most one other, each by 1/n.  So the released vector moves by
  at most sqrt(2 L) / n in L2 and 2 L / n in L1, with equality when the two leaves lie under
  different level-1 nodes (always possible: L is the least depth with b^L >= the leaves
  needed, so leaves under two level-1 nodes are in use; e.g. the two bounds).  Exact.
  * noise="gaussian": N(0, sigma^2) on every node, sigma = calibrate_sigma(eps, delta,
    sqrt(2 L) / n) (Balle & Wang 2018, exact analytic calibration): (eps, delta)-DP, one
    Gaussian release, mu-GDP with mu = sqrt(2 L) / (n sigma).
  * noise="laplace": Laplace(2 L / (n eps)) on every node: pure eps-DP (Dwork et al. 2006).
  * noise="auto": the one with the smaller per-node noise variance (public numbers only).
  One release, so no composition: the certified pair is that of the single mechanism.
Post-processing (no privacy cost, Dwork & Roth 2014, Prop. 2.1):
  1. Least-squares consistency with the public root (Hay et al. 2010, Theorem 3, with
     h_root := 1): the bottom-up pass z_v = a_h y_v + (1 - a_h) sum_children z_u with
     a_h = (b^h - b^(h-1)) / (b^h - 1) for a node of height h (leaves h = 1, z = y), then the
     top-down pass x_v = z_v + (x_parent - sum_siblings z_u) / b.  With the root fixed this is
     the exact minimiser of sum_v (x_v - y_v)^2 over consistent trees with x_root = 1
     (tests/dpcore/cdf/test_tree.py checks it against a direct KKT solve).
  2. Cumulative sums of the leaves -> CDF at the leaf edges; isotonic regression; clip to
     [0, 1]; F(hi) = 1.  Inside a cell the CDF is linear (a uniform spread); on a lattice it
     is a step function (the values between lattice points are known to have no mass).
  3. Optional (``shrink`` = lam > 0): level-by-level shrinkage of the consistent tree's details
     toward a smooth prediction (``shrink_details``): top-down, the children of each node are
     predicted by PCHIP through the CDF of the level above (already smoothed), and the part
     of the least-squares children that departs from the prediction is multiplied by the
     block James-Stein factor max(0, 1 - lam (b - 1) V / ||R||^2), V the noise variance of a
     child's bottom-up estimate (known from the noise, public).  Where the data are smooth
     the noisy details are dropped (the CDF follows the coarser level's curve); where a spike
     or an edge stands out of the noise it is kept.  Post-processing, so the guarantee is
     the release's (references: James & Stein 1961; Cai, "Adaptive wavelet estimation: a block
     thresholding and oracle inequality approach", Ann. Statist. 27 (1999); the prediction
     from the coarser level is that of interpolating wavelets / lifting, Donoho 1992,
     Sweldens 1996).  docs/math.md#tree-shrinkage.
Accuracy: the CDF at a leaf edge is a sum of at most (b - 1) L node values, so its noise
standard deviation is at most sqrt((b - 1) L) times the node's, whatever the shape; consistency
reduces it further (Hay et al. 2010, Theorem 4).  Shrinkage trades that noise for the
prediction's bias block by block; measured, not bounded (docs/cdf-results.md, issue 40).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.interpolate import PchipInterpolator

from dpcore import gaussian
from dpcore import validate as v
from dpcore.cdf.common import (
    CDFEstimate,
    Clipped,
    FloatArray,
    Release,
    check_privacy,
    clip_data,
    make_rng,
)
from dpcore.cdf.isotonic import isotonic
from dpcore.cdf.lattice import Lattice, check_granularity, snap, step_grid
from dpcore.errors import DPError

__all__ = [
    "BRANCHING_LIMIT",
    "LAYOUTS",
    "LEAVES_LIMIT",
    "NOISES",
    "TreePlan",
    "centred_cells",
    "consistent",
    "estimate_tree",
    "from_leaves",
    "inner_edges",
    "leaf_frequencies",
    "leaf_index",
    "plan_tree",
    "release_tree",
    "shrink_details",
    "tree_cdf",
    "zvariances",
]

NOISES = ("auto", "gaussian", "laplace")
INTERPOLATIONS = ("linear", "pchip")
#: Cell layouts of the continuous grid (``leaf_index``).
LAYOUTS = ("edges", "centred")
#: With interpolation="pchip", the CDF is tabulated at this many points per cell (then linear).
PCHIP_POINTS_PER_CELL = 8
#: ... but on at most this many points in all (fewer per cell for very fine trees).
PCHIP_GRID_LIMIT = 1 << 15
BRANCHING_LIMIT = 1024
LEAVES_LIMIT = 1 << 20
DEFAULT_BRANCHING = 8
DEFAULT_LEAVES = 4096
#: Largest ``shrink`` (lam) accepted: beyond it every detail within ~10 noise sd is dropped.
SHRINK_LIMIT = 100.0


@dataclass(frozen=True)
class TreePlan:
    """Shape and noise of a tree release, from public numbers only.

    ``branching`` b, ``depth`` L (levels released), ``leaves`` = b^L, ``noise`` ("gaussian" or
    "laplace"), ``node_sd`` the noise standard deviation of every released node (frequency
    units), ``sensitivity`` the exact L2 (Gaussian) or L1 (Laplace) sensitivity.
    """

    branching: int
    depth: int
    noise: str
    node_sd: float
    sensitivity: float
    noise_scale: float

    @property
    def leaves(self) -> int:
        return int(self.branching**self.depth)


@lru_cache(maxsize=256)
def _sigma(eps: float, delta: float, sens: float) -> float:
    return gaussian.calibrate_sigma(eps, delta, sens)


def plan_tree(n: int, eps: float, delta: float, *, leaves: int, branching: int,
              noise: str = "auto") -> TreePlan:
    """The tree for at least ``leaves`` leaves: depth L = ceil(log_b leaves), and its noise.

    Domain: n >= 1 whole; eps > 0, delta in (0, 1); leaves in [2, LEAVES_LIMIT]; branching in
    [2, BRANCHING_LIMIT]; noise in NOISES.  Keyed DPError outside.  Gaussian sigma is exact
    (``gaussian.calibrate_sigma``, conservative); Laplace b = 2 L / (n eps).  "auto" takes the
    smaller per-node variance (sigma^2 vs 2 b^2).  Reference: module docstring.
    """
    n = v.integer("n", n, lo=1)
    eps_v, delta_v = check_privacy(eps, delta)
    m = v.integer("leaves", leaves, lo=2)
    if m > LEAVES_LIMIT:
        raise DPError("out_of_range.interval", name="leaves", value=m, left="[", lo="2",
                      hi=str(LEAVES_LIMIT), right="]")
    b = v.integer("branching", branching, lo=2)
    if b > BRANCHING_LIMIT:
        raise DPError("out_of_range.interval", name="branching", value=b, left="[", lo="2",
                      hi=str(BRANCHING_LIMIT), right="]")
    if noise not in NOISES:
        raise ValueError(f"noise must be one of {NOISES} (got {noise!r})")
    depth = 1
    while b**depth < m:
        depth += 1
    l2 = math.sqrt(2.0 * depth) / n
    l1 = 2.0 * depth / n
    sigma = _sigma(eps_v, delta_v, l2)
    lap_b = l1 / eps_v
    if noise == "gaussian" or (noise == "auto" and sigma**2 < 2.0 * lap_b**2):
        return TreePlan(b, depth, "gaussian", sigma, l2, sigma)
    return TreePlan(b, depth, "laplace", math.sqrt(2.0) * lap_b, l1, lap_b)


def leaf_frequencies(index: NDArray[np.int64], leaves: int, n: int) -> FloatArray:
    """Exact leaf frequencies count / n (NOT private; the input of the release)."""
    return np.bincount(index, minlength=leaves).astype(np.float64) / n


def _levels(leaf: FloatArray, b: int, depth: int) -> list[FloatArray]:
    """Node frequencies of levels 1..depth (level depth = the leaves)."""
    out = [leaf]
    for _ in range(depth - 1):
        out.append(out[-1].reshape(-1, b).sum(axis=1))
    return out[::-1]


def release_tree(index: NDArray[np.int64], n: int, plan: TreePlan,
                 rng: np.random.Generator) -> list[FloatArray]:
    """Noisy frequencies of every node of levels 1..L (the only private step; see module)."""
    exact = _levels(leaf_frequencies(index, plan.leaves, n), plan.branching, plan.depth)
    noisy = []
    for lev in exact:
        if plan.noise == "gaussian":
            z = rng.normal(0.0, plan.noise_scale, size=lev.size)
        else:
            z = rng.laplace(0.0, plan.noise_scale, size=lev.size)
        noisy.append(lev + z)
    return noisy


def consistent(noisy: list[FloatArray], b: int, root: float = 1.0) -> list[FloatArray]:
    """Least-squares consistent node values given a public root (Hay et al. 2010, Thm 3).

    Domain: ``noisy[l-1]`` holds the b^l values of level l = 1..L (equal noise variances).
    Returns the consistent levels (each node = sum of its children; level 1 sums to ``root``).
    Exact up to rounding (two linear passes).
    """
    depth = len(noisy)
    z: list[FloatArray] = [np.empty(0)] * depth
    z[depth - 1] = np.asarray(noisy[depth - 1], dtype=np.float64)
    for lev in range(depth - 2, -1, -1):
        h = depth - lev  # height: leaves have height 1
        a = (b**h - b ** (h - 1)) / (b**h - 1)
        child = z[lev + 1].reshape(-1, b).sum(axis=1)
        z[lev] = a * noisy[lev] + (1.0 - a) * child
    out: list[FloatArray] = []
    parent = np.array([float(root)])
    for lev in range(depth):
        zs = z[lev].reshape(-1, b)
        x = (zs + ((parent - zs.sum(axis=1)) / b)[:, None]).ravel()
        out.append(x)
        parent = x
    return out


def zvariances(b: int, depth: int, node_var: float) -> list[float]:
    """Noise variance of the bottom-up estimate z of a node of each level 1..L (Hay et al.).

    Equal node variance s^2 = ``node_var``: z = y at the leaves (V = s^2); a node of height h
    combines its own y (s^2) with the sum of its b children's z (b V_child) by inverse
    variances, so V = 1 / (1 / s^2 + 1 / (b V_child)) (the a_h of ``consistent``).  Exact.
    Domain: b >= 2, depth >= 1, node_var > 0.
    """
    out = [float(node_var)]
    for _ in range(depth - 1):
        out.append(1.0 / (1.0 / node_var + 1.0 / (b * out[-1])))
    return out[::-1]


def shrink_details(cons: list[FloatArray], b: int, node_var: float,
                   lam: float, used: int | None = None) -> list[FloatArray]:
    """Block James-Stein shrinkage of the consistent tree's details (post-processing).

    ``cons[l-1]`` = the least-squares consistent values of level l (``consistent``), every
    released node with noise variance ``node_var``; ``lam`` >= 0 (0: ``cons`` unchanged).
    Top-down from level 2: with x~ the already smoothed parents, F the cumulative sums of x~
    at the parents' edges and p the increments over the children's edges of the PCHIP
    through F (leaf-index coordinates, equal spacing), the child estimate is
        x~_child = x~_parent / b + P + f R,   P = p - x~_parent / b,
        R = (x_child - x_parent / b) - P,      f = max(0, 1 - lam (b - 1) V / ||R||^2)
    per parent (block of b children), V = ``zvariances`` of the children's level: the noise
    of x_child - x_parent / b = z_child - mean(z_siblings) has variance V (1 - 1/b) per child,
    (b - 1) V per block.  Each block keeps the sum of its parent (sum P = sum R = 0), so the
    result is again a consistent tree with the same root.  Level 1 is kept.  ``used``: only
    leaves 0..used-1 can hold data (public, e.g. the centred layout); the prediction of a
    child is then scaled by the share of its leaves in use and the block renormalised to its
    parent, so no predicted mass lands on leaves that are empty for every data set.  Exact up to
    rounding; its accuracy is measured (docs/cdf-results.md).  References: module docstring.
    """
    depth = len(cons)
    lam_v = float(lam)
    if lam_v <= 0.0 or depth < 2:
        return [np.asarray(c, dtype=np.float64) for c in cons]
    var = zvariances(b, depth, node_var)
    leaves = cons[-1].size
    out = [np.asarray(cons[0], dtype=np.float64)]
    for lev in range(1, depth):
        par = out[lev - 1]
        k = par.size
        edges = np.concatenate([[0.0], np.cumsum(par)])
        pred = PchipInterpolator(np.arange(k + 1.0), edges)(np.arange(k * b + 1.0) / b)
        pm = np.diff(pred).reshape(k, b)
        if used is not None and used < leaves:
            width = leaves // (k * b)
            cover = (np.clip(used - width * np.arange(k * b), 0, width) / width).reshape(k, b)
            part = cover.min(axis=1) < 1.0
            sub = pm[part] * cover[part]
            tot = sub.sum(axis=1)
            csum = cover[part].sum(axis=1)
            ok = np.abs(tot) > 0.0
            sub[ok] *= (par[part][ok] / tot[ok])[:, None]
            fill = ~ok & (csum > 0.0)
            sub[fill] = cover[part][fill] * (par[part][fill] / csum[fill])[:, None]
            empty = csum <= 0.0
            sub[empty] = (par[part][empty] / b)[:, None]
            pm[part] = sub
        p_det = pm - (par / b)[:, None]
        d_gls = cons[lev].reshape(k, b) - (cons[lev - 1] / b)[:, None]
        resid = d_gls - p_det
        ss = np.einsum("ij,ij->i", resid, resid)
        noise = lam_v * (b - 1) * var[lev]
        f = np.where(ss > noise, 1.0 - noise / np.where(ss > 0.0, ss, 1.0), 0.0)
        out.append(((par / b)[:, None] + p_det + f[:, None] * resid).ravel())
    return out


def tree_cdf(leaf: FloatArray) -> FloatArray:
    """CDF at the leaf edges 0..M from (consistent) leaf frequencies: cumsum, isotonic, clip."""
    edges = np.concatenate([[0.0], np.cumsum(leaf)])
    out = np.clip(isotonic(edges), 0.0, 1.0)
    out[0] = max(out[0], 0.0)
    out[-1] = 1.0
    return out


def centred_cells(leaves: int) -> int:
    """C of the "centred" layout: the largest 2^a 5^b <= leaves - 3 (500 for 512 leaves,
    4000 for 4096, 32000 for 32768, 256000 for 262144).  Domain: leaves >= 4.  Exact."""
    top = int(leaves) - 3
    best = 1
    p5 = 1
    while p5 <= top:
        c = p5
        while c * 2 <= top:
            c *= 2
        best = max(best, c)
        p5 *= 5
    return best


def inner_edges(leaves: int, layout: str = "edges") -> FloatArray:
    """Positions t in [0, 1] of the inner cells' edges (K + 1 of them for K inner cells).

    "edges": K = M - 2 equal cells of (0, 1), edges k / K.  "centred": C =
    ``centred_cells(M)``, cells of width 1 / C centred on the multiples j / C (j = 1..C-1),
    two half cells at the ends: edges 0, 1/(2C), 3/(2C), ..., (2C-1)/(2C), 1 (K = C + 1).
    """
    if layout == "centred":
        c = centred_cells(leaves)
        return np.concatenate([[0.0], (np.arange(c) + 0.5) / c, [1.0]])
    k = leaves - 2
    return np.arange(k + 1) / k


def leaf_index(t: FloatArray, leaves: int, layout: str = "edges") -> NDArray[np.int64]:
    """Leaf of each rescaled value t in [0, 1] on the continuous grid (no granularity).

    Leaf 0 is the point t = 0 (lo): clipped records sit exactly there, so the CDF may jump.
    ``layout`` "edges" (the default): leaves 1..M-2 are the M - 2 equal cells of (0, 1), t in
    (0, 1) goes to leaf 1 + floor(t (M - 2)), capped at M - 2, and leaf M - 1 is the point
    t = 1 (hi).  "centred": with C = ``centred_cells(M)``, t in (0, 1) goes to leaf
    1 + floor(t C + 1/2) (1..C+1: every multiple j / C is the centre of its cell), leaf C + 2
    is the point hi and leaves C + 3..M-1 are empty for every data set (public).  Why: data
    recorded to a fixed precision on round public bounds sit at round fractions k / q of
    the range (q of 2s and 5s); when q divides C each such atom is at a cell's centre,
    where the linear spread inside the cell misses it by half its mass in KS (at an edge:
    all of it).  Domain: leaves >= 3 ("centred": >= 4), t in [0, 1].
    """
    if layout == "centred":
        c = centred_cells(leaves)
        idx = np.minimum(1 + np.floor(t * c + 0.5).astype(np.int64), c + 1)
        idx[t <= 0.0] = 0
        idx[t >= 1.0] = c + 2
        return idx
    inner = leaves - 2
    idx = np.minimum(1 + (t * inner).astype(np.int64), leaves - 2)
    idx[t <= 0.0] = 0
    idx[t >= 1.0] = leaves - 1
    return idx


def _pchip_grid(lo: float, hi: float, edges_f: FloatArray,
                t_e: FloatArray | None = None) -> tuple[FloatArray, FloatArray]:
    """Monotone cubic (PCHIP, Fritsch & Carlson 1980) between the inner cell edges.

    ``edges_f`` = F at the inner edges ``t_e`` (default t_k = k / C, k = 0..C; C cells);
    returns points of [lo, hi) in original units and F there (post-processing of the edge
    values, which are already monotone, so the interpolant is monotone too).
    """
    cells = edges_f.size - 1
    per = max(1, min(PCHIP_POINTS_PER_CELL, PCHIP_GRID_LIMIT // cells))
    if t_e is None:
        t_e = np.arange(cells + 1) / cells
        t = np.arange(cells * per + 1) / (cells * per)
    else:
        step = np.arange(per) / per
        t = np.concatenate([(t_e[:-1, None] + np.diff(t_e)[:, None] * step).ravel(),
                            t_e[-1:]])
    f = np.clip(PchipInterpolator(t_e, edges_f)(t), 0.0, 1.0)
    f = np.maximum.accumulate(f)
    return lo + (hi - lo) * t, f


def _estimate_from(clipped: Clipped, eps: float, delta: float, rng: np.random.Generator,
                   plan: TreePlan, lattice: Lattice | None,
                   interpolation: str = "linear", group: int = 1,
                   shrink: float = 0.0, layout: str = "edges") -> CDFEstimate:
    used = None
    if lattice is None:
        idx = leaf_index(clipped.t, plan.leaves, layout)
        n_off = 0
        used = inner_edges(plan.leaves, layout).size + 1
    else:
        idx, n_off = snap(clipped, lattice)
        idx = idx // group
    noisy = release_tree(idx, clipped.n, plan, rng)
    cons = consistent(noisy, plan.branching)
    if shrink > 0.0:
        cons = shrink_details(cons, plan.branching, plan.node_sd**2, shrink, used)
    return from_leaves(clipped, eps, delta, plan, noisy, cons[-1], lattice, n_off,
                       interpolation, group, shrink, layout)


def from_leaves(clipped: Clipped, eps: float, delta: float, plan: TreePlan,
                noisy: list[FloatArray], leaf: FloatArray, lattice: Lattice | None = None,
                n_off: int = 0, interpolation: str = "linear", group: int = 1,
                shrink: float = 0.0, layout: str = "edges") -> CDFEstimate:
    """The CDF estimate from post-processed leaf masses ``leaf`` of the release ``noisy``.

    Post-processing only: cumulative sums, isotonic, clip (``tree_cdf``), then the grid
    (linear or PCHIP inside a cell, a step CDF on a lattice); the record holds ``noisy``
    and ``shrink`` (the lam of ``shrink_details`` that made ``leaf``; 0: none); ``layout``
    places the continuous grid's cells (``leaf_index``).
    On a lattice with ``group`` g > 1 (leaf j holds the lattice values jg .. jg + g - 1), F at
    lattice value k is the leaf-edge CDF read at (k + 1) / g leaves, linearly or by PCHIP.
    """
    m = plan.leaves
    edge_f = tree_cdf(leaf)
    cert_delta = delta if plan.noise == "gaussian" else 0.0
    how = (
        f"one {'Gaussian' if plan.noise == 'gaussian' else 'Laplace'} release of the "
        f"frequencies of all {sum(x.size for x in noisy)} nodes of a {plan.branching}-ary tree "
        f"of depth {plan.depth} (root public); {'L2' if plan.noise == 'gaussian' else 'L1'} "
        f"sensitivity {'sqrt(2L)/n' if plan.noise == 'gaussian' else '2L/n'} exactly, "
        + ("exact analytic calibration (Balle & Wang 2018)" if plan.noise == "gaussian"
           else "pure eps-DP")
        + ("" if shrink <= 0.0 else
           f"; details shrunk toward the coarser level (block James-Stein, lam {shrink:g}: "
           "post-processing)")
    )
    extra: dict[str, object] = {
        "branching": plan.branching, "depth": plan.depth, "leaves": m,
        "node_sd": plan.node_sd,
    }
    if shrink > 0.0:
        extra["shrink"] = float(shrink)
    rel = Release.of(
        clipped, method="tree", mechanism=plan.noise, values=np.concatenate(noisy),
        noise_scale=plan.noise_scale, sensitivity=plan.sensitivity,
        norm="L2" if plan.noise == "gaussian" else "L1", eps=eps, delta=cert_delta,
        accounting=how, extra=extra,
    )
    if plan.noise == "gaussian":
        rel.extra["mu"] = plan.sensitivity / plan.noise_scale
    info: dict[str, object] = {"leaves": m, "branching": plan.branching, "depth": plan.depth,
                               "shrink": float(shrink)}
    lo, hi = clipped.lo, clipped.hi
    if lattice is None:
        # edge_f[j] = F after leaves 0..j-1; F(lo) = leaf 0, F at the inner edge t_j (of K
        # inner cells, ``inner_edges``) = leaves 0..j, F just below hi = leaves 0..K (all but
        # the point hi and, in the centred layout, the empty leaves after it)
        t_e = inner_edges(m, layout)
        inner = t_e.size - 1
        gx = np.empty(inner + 2)
        gx[: inner] = lo + (hi - lo) * t_e[:inner]
        gx[0] = lo
        gx[inner] = np.nextafter(hi, -np.inf)
        gx[inner + 1] = hi
        gf = np.concatenate([edge_f[1 : inner + 1], edge_f[inner + 1 : inner + 2], [1.0]])
        if interpolation == "pchip":
            px, pf = _pchip_grid(lo, hi, edge_f[1 : inner + 2],
                                 None if layout == "edges" else t_e)
            gx = np.concatenate([px[:-1], [np.nextafter(hi, -np.inf), hi]])
            gf = np.concatenate([pf[:-1], [pf[-1], 1.0]])
        info["interpolation"] = interpolation
        if layout != "edges":
            info["layout"] = layout
            rel.extra["layout"] = layout
    else:
        rel.extra.update({"granularity": lattice.h, "n_off_lattice": n_off, "group": group})
        info.update({"granularity": lattice.h, "n_off_lattice": n_off, "group": group})
        if group == 1:
            at_points = edge_f[1 : lattice.size + 1]
        else:
            used = -(-lattice.size // group)
            pos = (np.arange(lattice.size) + 1.0) / group
            ef = edge_f[: used + 1]
            if interpolation == "pchip":
                at_points = np.clip(PchipInterpolator(np.arange(used + 1.0), ef)(pos), 0.0, 1.0)
            else:
                at_points = np.interp(pos, np.arange(used + 1.0), ef)
            at_points = np.maximum.accumulate(at_points)
            at_points[-1] = 1.0
        gx, gf = step_grid(lattice, at_points)
    return CDFEstimate(gx, gf, eps, cert_delta, "tree", rel, info=info)


def estimate_tree(
    data: ArrayLike,
    *,
    bounds: object,
    eps: float,
    delta: float,
    rng: object = None,
    branching: int = DEFAULT_BRANCHING,
    leaves: int = DEFAULT_LEAVES,
    noise: str = "auto",
    granularity: float | None = None,
    interpolation: str = "linear",
    group: int = 1,
    shrink: float = 0.0,
    layout: str = "edges",
) -> CDFEstimate:
    """Private CDF from a hierarchical histogram with consistency (see module docstring).

    Options: ``branching`` b (2..1024, default 8), ``leaves`` (at least this many leaves,
    2..2^20, default 4096; ignored with a granularity, where the lattice fixes them), ``noise``
    ('auto', 'gaussian', 'laplace'), ``granularity`` (public lattice step h, see
    ``dpcore.cdf.lattice``), ``interpolation`` inside a cell ('linear', a uniform spread, or
    'pchip', the monotone cubic through the cell edges), ``group`` (on a lattice: g
    consecutive lattice values per leaf, 1..lattice size, default 1; the CDF at each value is
    then interpolated between the leaf edges), ``shrink`` (lam >= 0, at most SHRINK_LIMIT:
    block James-Stein shrinkage of the details toward the coarser level, ``shrink_details``;
    0, the default: plain least squares), ``layout`` of the continuous grid's cells
    ('edges', the default, or 'centred': ``leaf_index``; ignored with a granularity).
    Certified guarantee: (eps, delta) for Gaussian noise, (eps, 0) for Laplace; the record
    holds the tree's shape, the node noise and the exact sensitivity.
    """
    eps_v, delta_v = check_privacy(eps, delta)
    clipped = clip_data(data, bounds)
    lattice = None if granularity is None else check_granularity(
        (clipped.lo, clipped.hi), granularity)
    g = v.integer("group", group, lo=1)
    if lattice is not None and g > lattice.size:
        raise DPError("out_of_range.interval", name="group", value=g, left="[", lo="1",
                      hi=str(lattice.size), right="]")
    if lattice is not None:
        m = max(-(-lattice.size // g), 2)
    else:
        m = max(v.integer("leaves", leaves, lo=2), 3)
    if interpolation not in INTERPOLATIONS:
        raise ValueError(f"interpolation must be one of {INTERPOLATIONS} (got {interpolation!r})")
    lam = v.real_scalar("shrink", shrink, lo=0.0, hi=SHRINK_LIMIT)
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS} (got {layout!r})")
    if layout == "centred" and lattice is None:
        m = max(m, 4)
    plan = plan_tree(clipped.n, eps_v, delta_v, leaves=m, branching=branching, noise=noise)
    return _estimate_from(clipped, eps_v, delta_v, make_rng(rng), plan, lattice, interpolation,
                          g if lattice is not None else 1, lam,
                          layout if lattice is None else "edges")
