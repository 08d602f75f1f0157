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
Accuracy: the CDF at a leaf edge is a sum of at most (b - 1) L node values, so its noise
standard deviation is at most sqrt((b - 1) L) times the node's, whatever the shape; consistency
reduces it further (Hay et al. 2010, Theorem 4).
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
    "LEAVES_LIMIT",
    "NOISES",
    "TreePlan",
    "consistent",
    "estimate_tree",
    "from_leaves",
    "leaf_frequencies",
    "plan_tree",
    "release_tree",
    "tree_cdf",
]

NOISES = ("auto", "gaussian", "laplace")
INTERPOLATIONS = ("linear", "pchip")
#: With interpolation="pchip", the CDF is tabulated at this many points per cell (then linear).
PCHIP_POINTS_PER_CELL = 8
#: ... but on at most this many points in all (fewer per cell for very fine trees).
PCHIP_GRID_LIMIT = 1 << 15
BRANCHING_LIMIT = 1024
LEAVES_LIMIT = 1 << 20
DEFAULT_BRANCHING = 8
DEFAULT_LEAVES = 4096


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


def tree_cdf(leaf: FloatArray) -> FloatArray:
    """CDF at the leaf edges 0..M from (consistent) leaf frequencies: cumsum, isotonic, clip."""
    edges = np.concatenate([[0.0], np.cumsum(leaf)])
    out = np.clip(isotonic(edges), 0.0, 1.0)
    out[0] = max(out[0], 0.0)
    out[-1] = 1.0
    return out


def leaf_index(t: FloatArray, leaves: int) -> NDArray[np.int64]:
    """Leaf of each rescaled value t in [0, 1] on the continuous grid (no granularity).

    Leaf 0 is the point t = 0 (lo) and leaf M - 1 the point t = 1 (hi): clipped records sit
    exactly there, so the CDF may jump at both bounds.  Leaves 1..M-2 are the M - 2 equal
    cells of (0, 1): t in (0, 1) goes to leaf
    1 + floor(t (M - 2)), capped at M - 2.  Domain: leaves >= 3, t in [0, 1].
    """
    inner = leaves - 2
    idx = np.minimum(1 + (t * inner).astype(np.int64), leaves - 2)
    idx[t <= 0.0] = 0
    idx[t >= 1.0] = leaves - 1
    return idx


def _pchip_grid(lo: float, hi: float, edges_f: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Monotone cubic (PCHIP, Fritsch & Carlson 1980) between the inner cell edges.

    ``edges_f`` = F at the inner edges t_k = k / C, k = 0..C (C cells); returns points of
    [lo, hi) in original units and F there (post-processing of the edge values, which are
    already monotone, so the interpolant is monotone too).
    """
    cells = edges_f.size - 1
    per = max(1, min(PCHIP_POINTS_PER_CELL, PCHIP_GRID_LIMIT // cells))
    t_e = np.arange(cells + 1) / cells
    t = np.arange(cells * per + 1) / (cells * per)
    f = np.clip(PchipInterpolator(t_e, edges_f)(t), 0.0, 1.0)
    f = np.maximum.accumulate(f)
    return lo + (hi - lo) * t, f


def _estimate_from(clipped: Clipped, eps: float, delta: float, rng: np.random.Generator,
                   plan: TreePlan, lattice: Lattice | None,
                   interpolation: str = "linear", group: int = 1) -> CDFEstimate:
    if lattice is None:
        idx = leaf_index(clipped.t, plan.leaves)
        n_off = 0
    else:
        idx, n_off = snap(clipped, lattice)
        idx = idx // group
    noisy = release_tree(idx, clipped.n, plan, rng)
    cons = consistent(noisy, plan.branching)
    return from_leaves(clipped, eps, delta, plan, noisy, cons[-1], lattice, n_off,
                       interpolation, group)


def from_leaves(clipped: Clipped, eps: float, delta: float, plan: TreePlan,
                noisy: list[FloatArray], leaf: FloatArray, lattice: Lattice | None = None,
                n_off: int = 0, interpolation: str = "linear", group: int = 1) -> CDFEstimate:
    """The CDF estimate from post-processed leaf masses ``leaf`` of the release ``noisy``.

    Post-processing only: cumulative sums, isotonic, clip (``tree_cdf``), then the grid
    (linear or PCHIP inside a cell, a step CDF on a lattice); the record holds ``noisy``.
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
    )
    extra: dict[str, object] = {
        "branching": plan.branching, "depth": plan.depth, "leaves": m,
        "node_sd": plan.node_sd,
    }
    rel = Release.of(
        clipped, method="tree", mechanism=plan.noise, values=np.concatenate(noisy),
        noise_scale=plan.noise_scale, sensitivity=plan.sensitivity,
        norm="L2" if plan.noise == "gaussian" else "L1", eps=eps, delta=cert_delta,
        accounting=how, extra=extra,
    )
    if plan.noise == "gaussian":
        rel.extra["mu"] = plan.sensitivity / plan.noise_scale
    info: dict[str, object] = {"leaves": m, "branching": plan.branching, "depth": plan.depth}
    lo, hi = clipped.lo, clipped.hi
    if lattice is None:
        # edge_f[j] = F after leaves 0..j-1; F(lo) = leaf 0, F at the inner edge t = j / (M - 2)
        # = leaves 0..j, F just below hi = leaves 0..M-2 (all but the point hi)
        inner = m - 2
        gx = np.empty(inner + 2)
        gx[: inner] = lo + (hi - lo) * (np.arange(inner) / inner)
        gx[0] = lo
        gx[inner] = np.nextafter(hi, -np.inf)
        gx[inner + 1] = hi
        gf = np.concatenate([edge_f[1 : inner + 1], edge_f[inner + 1 : inner + 2], [1.0]])
        if interpolation == "pchip":
            px, pf = _pchip_grid(lo, hi, edge_f[1 : inner + 2])
            gx = np.concatenate([px[:-1], [np.nextafter(hi, -np.inf), hi]])
            gf = np.concatenate([pf[:-1], [pf[-1], 1.0]])
        info["interpolation"] = interpolation
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
) -> CDFEstimate:
    """Private CDF from a hierarchical histogram with consistency (see module docstring).

    Options: ``branching`` b (2..1024, default 8), ``leaves`` (at least this many leaves,
    2..2^20, default 4096; ignored with a granularity, where the lattice fixes them), ``noise``
    ('auto', 'gaussian', 'laplace'), ``granularity`` (public lattice step h, see
    ``dpcore.cdf.lattice``), ``interpolation`` inside a cell ('linear', a uniform spread, or
    'pchip', the monotone cubic through the cell edges), ``group`` (on a lattice: g
    consecutive lattice values per leaf, 1..lattice size, default 1; the CDF at each value is
    then interpolated between the leaf edges).
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
    plan = plan_tree(clipped.n, eps_v, delta_v, leaves=m, branching=branching, noise=noise)
    return _estimate_from(clipped, eps_v, delta_v, make_rng(rng), plan, lattice, interpolation,
                          g if lattice is not None else 1)
