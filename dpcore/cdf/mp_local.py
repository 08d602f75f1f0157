"""Matching pursuit with local atoms, as post-processing of one tree release ("mpl").

Reference: Tao & Sarwate, arXiv 2501.06620, Sec. 5 (matching pursuit over Legendre, B-spline
and step dictionaries); Pati, Rezaiifar & Krishnaprasad 1993 (orthogonal matching pursuit);
Hay, Rastogi, Miklau & Suciu, PVLDB 3 (2010) (the tree release and its consistency);
docs/math.md#local-matching-pursuit.

Why on the tree: the Legendre-coefficient release of ``dpcore.cdf.mp`` can only carry atoms
projected onto polynomials of degree <= K_max, so a spike or an edge narrower than ~1/K_max is
lost before the pursuit starts.  The binary tree releases the mass of every dyadic cell, so any
atom that is a function of the leaf masses (a step over a dyadic cell, a B-spline's mass per
leaf, a Legendre polynomial's mass per leaf) has a correlation with the data that is a LINEAR
function of the released vector.

Mechanism (the only private step): exactly ``dpcore.cdf.tree``'s release, a binary tree with
M = 2^L leaves over the public grid, every node's frequency with Gaussian noise
sigma = calibrate_sigma(eps, delta, sqrt(2 L) / n) (L2 sensitivity sqrt(2 L) / n, exact) or
Laplace 2 L / (n eps) (L1 sensitivity 2 L / n, exact), whichever has the smaller variance.  One
release, no composition: the certified (eps, delta) is the tree's (release.accounting says it).
Post-processing (no privacy cost, Dwork & Roth 2014, Prop. 2.1): least-squares consistency
gives leaf masses x = C y (C public and linear); the correlation of every atom d_j with x,
r_j = <d_j, x>, has noise variance s_j^2 = v ||C^T d_j||^2 (v the node noise variance, public),
so report-noisy-max over |r_j| / s_j on the residual (Gaussian or Laplace report-noisy-max of
an already released vector is post-processing), then a least-squares refit of every chosen atom
(orthogonal matching pursuit), while the best score exceeds sqrt(2 log D) (D atoms; the
universal threshold, Donoho & Johnstone 1994), up to ``max_atoms``.  The pursuit starts from the
constant atom.  The fitted leaf masses are cumulated, made monotone (isotonic), clipped, F(hi) = 1.
Dictionary (public, fixed before any data): Legendre p_0..p_16 (mass per leaf), cubic B-splines
on 8, 32 and 128 uniform intervals (mass per leaf), and the indicator of every dyadic cell of
the tree (Haar-like steps of the CDF), each normalised to unit Euclidean norm.  Domain: leaves a
power of two in [16, 4096] (default 1024).  Accuracy: measured in docs/cdf-results.md (it does
not beat the plain tree against the empirical CDF; see there).
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike
from scipy import interpolate

from dpcore import validate as v
from dpcore.cdf import legendre, tree
from dpcore.cdf.common import CDFEstimate, FloatArray, check_privacy, clip_data, make_rng
from dpcore.errors import DPError

__all__ = ["atoms", "consistency_matrix", "correlation_noise", "estimate_mpl", "pursue_local"]

LEGENDRE_DEGREE = 16
SPLINE_INTERVALS = (8, 32, 128)
MAX_ATOMS_LIMIT = 500


@lru_cache(maxsize=8)
def consistency_matrix(depth: int) -> FloatArray:
    """C with leaves = C @ (noisy nodes of levels 1..L) - C @ 0, the linear part of consistency.

    ``tree.consistent`` is affine in the noisy nodes (the public root enters as a constant);
    its linear part is read off the unit vectors.  Public (no data).  Shape (2^L, 2^(L+1) - 2).
    """
    sizes = [2**lev for lev in range(1, depth + 1)]
    total = sum(sizes)
    base = tree.consistent([np.zeros(s) for s in sizes], 2, root=0.0)[-1]
    cols = np.empty((sizes[-1], total))
    eye = np.eye(total)
    for j in range(total):
        parts = np.split(eye[j], np.cumsum(sizes)[:-1])
        cols[:, j] = tree.consistent(parts, 2, root=0.0)[-1] - base
    cols.setflags(write=False)
    return cols


@lru_cache(maxsize=8)
def atoms(leaves: int) -> tuple[tuple[str, ...], FloatArray]:
    """The public dictionary as rows of leaf masses (unit norm), and the atom names."""
    inner = leaves - 2
    # cell edges of the tree's grid: leaf 0 = point 0, leaves 1..M-2 = cells, leaf M-1 = point 1
    edges = np.arange(inner + 1) / inner
    fine = np.linspace(0.0, 1.0, 16 * inner + 1)
    rows: list[FloatArray] = []
    names: list[str] = []

    def masses(values: FloatArray) -> FloatArray:
        # trapezoid mass of a density sampled on `fine`, per cell; 0 on the two point leaves
        cum = np.concatenate([[0.0], np.cumsum(0.5 * (values[1:] + values[:-1]) * np.diff(fine))])
        at_edges = np.interp(edges, fine, cum)
        return np.concatenate([[0.0], np.diff(at_edges), [0.0]])

    basis = legendre.basis(fine, LEGENDRE_DEGREE)
    for k in range(LEGENDRE_DEGREE + 1):
        rows.append(masses(basis[:, k]))
        names.append(f"legendre[{k}]")
    for m in SPLINE_INTERVALS:
        if m > inner:
            continue
        knots = np.concatenate([[0.0] * 3, np.linspace(0.0, 1.0, m + 1), [1.0] * 3])
        design = interpolate.BSpline.design_matrix(fine, knots, 3).toarray()
        for j in range(design.shape[1]):
            rows.append(masses(design[:, j]))
            names.append(f"bspline{m}[{j}]")
    depth = leaves.bit_length() - 1
    for lev in range(1, depth + 1):
        width = leaves >> lev
        for i in range(2**lev):
            r = np.zeros(leaves)
            r[i * width:(i + 1) * width] = 1.0
            rows.append(r)
            names.append(f"step{lev}[{i}]")
    d = np.array(rows)
    d /= np.linalg.norm(d, axis=1)[:, None]
    d.setflags(write=False)
    return tuple(names), d


@lru_cache(maxsize=8)
def correlation_noise(leaves: int) -> FloatArray:
    """||C^T d_j|| for every atom: the correlation noise sd per unit node sd (public)."""
    depth = leaves.bit_length() - 1
    out = np.linalg.norm(atoms(leaves)[1] @ consistency_matrix(depth), axis=1)
    out.setflags(write=False)
    return out


def pursue_local(x: FloatArray, d: FloatArray, sd: FloatArray,
                 max_atoms: int) -> tuple[list[int], FloatArray]:
    """OMP on leaf masses x: report-noisy-max of |residual correlation| / sd, LS refit.

    Starts from atom 0 (the constant, legendre[0]); stops when the best score is below
    sqrt(2 log D) or at ``max_atoms``.  Post-processing only (x is already released).
    """
    thr = math.sqrt(2.0 * math.log(max(d.shape[0], 2)))
    corr = d @ x
    chosen = [0]
    coef = np.array([corr[0]])
    r = x - d[chosen].T @ coef
    while len(chosen) < max_atoms:
        score = np.abs(d @ r) / sd
        score[chosen] = -np.inf
        j = int(np.argmax(score))
        if not score[j] >= thr:
            break
        chosen.append(j)
        coef = np.asarray(np.linalg.lstsq(d[chosen].T, x, rcond=None)[0], dtype=np.float64)
        r = x - d[chosen].T @ coef
    return chosen, coef


def estimate_mpl(
    data: ArrayLike,
    *,
    bounds: object,
    eps: float,
    delta: float,
    rng: object = None,
    leaves: int = 1024,
    max_atoms: int = 60,
) -> CDFEstimate:
    """Private CDF by local matching pursuit on one binary-tree release (see module docstring).

    Options: ``leaves`` (a power of two in [16, 4096]), ``max_atoms`` (1..500).  Certified
    guarantee: that of the tree release, (eps, delta) Gaussian or (eps, 0) Laplace.
    """
    eps_v, delta_v = check_privacy(eps, delta)
    m = v.integer("leaves", leaves, lo=16)
    if m > 4096 or m & (m - 1):
        raise DPError("out_of_range.interval", name="leaves", value=m, left="[", lo="16",
                      hi="4096", right="] (a power of two)")
    s_max = v.integer("max_atoms", max_atoms, lo=1)
    if s_max > MAX_ATOMS_LIMIT:
        raise DPError("out_of_range.interval", name="max_atoms", value=s_max, left="[",
                      lo="1", hi=str(MAX_ATOMS_LIMIT), right="]")
    clipped = clip_data(data, bounds)
    plan = tree.plan_tree(clipped.n, eps_v, delta_v, leaves=m, branching=2)
    gen = make_rng(rng)
    idx = tree.leaf_index(clipped.t, plan.leaves)
    noisy = tree.release_tree(idx, clipped.n, plan, gen)
    x = tree.consistent(noisy, 2)[-1]
    names, d = atoms(plan.leaves)
    sd = plan.node_sd * correlation_noise(plan.leaves)
    chosen, coef = pursue_local(x, d, sd, s_max)
    fit = d[chosen].T @ coef
    # the two point leaves (the bounds) keep their consistent masses: no atom covers them well
    fit[0], fit[-1] = x[0], x[-1]
    est = tree.from_leaves(clipped, eps_v, delta_v, plan, noisy, fit)
    info = {**est.info, "chosen": [names[j] for j in chosen], "atom_coefficients": coef,
            "dictionary_size": len(names)}
    return replace(est, method="mpl", info=info,
                   release=replace(est.release, method="mpl",
                                   extra={**est.release.extra, "dictionary_size": len(names)}))
