"""Adaptive-quantiles (AQ) baseline: recursive private quantiles turned into a CDF.

Algorithm: ApproximateQuantiles of Kaplan, Schnapp & Stemmer, "Differentially Private
Approximate Quantiles", ICML 2022 (Alg. 1).  For probabilities p_1 < ... < p_m it releases the
middle quantile with the exponential mechanism, splits the data (and the probability list,
rescaled) at the released value, and recurses on both halves inside the new sub-intervals.

Single quantile (Smith 2011, as in KSS Sec. 2): sorted z_1..z_k in the public interval [a, b]
form the k+1 gaps I_i = [z_i, z_{i+1}] (z_0 = a, z_{k+1} = b); the gap I_i has utility
u_i = -|i - p k| and is chosen with probability proportional to |I_i| exp(eps_call u_i / 2); the
output is uniform in it.  u has sensitivity 1 under adding or removing a record (the count below
any output moves by at most 1 and p k by p <= 1, in opposite-compatible directions), so each
call is eps_call-DP for add/remove neighbours (McSherry & Talwar 2007).

Privacy split (stated, and computed below): the recursion has L = ceil(log2(m + 1)) levels; the
calls of one level act on disjoint records, so one added or removed record touches at most one
call per level and costs L * eps_call by adaptive composition (each level's split is fixed by the
already-released values).  A replace-one neighbour is a removal followed by an addition (group
privacy, distance 2), so the total is 2 L eps_call.  We set eps_call = eps / (2 L): pure eps-DP
for replace-one neighbours.  (KSS state L * eps_call for add/remove neighbours.)

The CDF is the piecewise-linear interpolation through (lo, 0), (q_j, j/(m+1)), (hi, 1), which is
monotone by construction (post-processing).  Streaming: AQ must re-run on all data for every
update, so each re-run composes (see ``streaming``).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from dpcore import validate as v
from dpcore.cdf.common import (
    GRID_SIZE,
    CDFEstimate,
    FloatArray,
    Release,
    check_privacy,
    clip_data,
    finish_grid,
    grid_in_units,
    make_rng,
)

QUANTILES_LIMIT = 1023


def levels(m: int) -> int:
    """Depth of the KSS recursion for m quantiles: ceil(log2(m + 1))."""
    return max(1, math.ceil(math.log2(m + 1)))


def private_quantile(
    z: FloatArray, p: float, a: float, b: float, eps_call: float, rng: np.random.Generator
) -> float:
    """One exponential-mechanism quantile of sorted ``z`` inside [a, b] (Smith 2011).

    Domain: z sorted, all in [a, b]; p in (0, 1); eps_call > 0.  If b == a the answer is a.
    """
    k = z.size
    edges = np.concatenate([[a], z, [b]])
    lengths = np.diff(edges)
    if not np.any(lengths > 0):
        return float(a)
    utility = -np.abs(np.arange(k + 1) - p * k)
    with np.errstate(divide="ignore"):
        logw = np.log(lengths) + 0.5 * eps_call * utility
    i = int(np.argmax(logw + rng.gumbel(size=logw.size)))
    return float(edges[i] + rng.random() * lengths[i])


def approximate_quantiles(
    z: FloatArray, probs: FloatArray, a: float, b: float, eps_call: float, rng: np.random.Generator
) -> FloatArray:
    """KSS Alg. 1 on sorted z in [a, b] for increasing probabilities ``probs`` in (0, 1)."""
    out = np.empty(probs.size)

    def rec(lo_i: int, hi_i: int, ps: FloatArray, a_: float, b_: float, slot: int) -> None:
        m = ps.size
        if m == 0:
            return
        mid = (m - 1) // 2
        p = float(ps[mid])
        sub = z[lo_i:hi_i]
        q = private_quantile(sub, p, a_, b_, eps_call, rng)
        out[slot + mid] = q
        split = lo_i + int(np.searchsorted(sub, q, side="left"))
        left = ps[:mid] / p
        right = (ps[mid + 1 :] - p) / (1.0 - p)
        rec(lo_i, split, left, a_, q, slot)
        rec(split, hi_i, right, q, b_, slot + mid + 1)

    rec(0, z.size, np.asarray(probs, dtype=np.float64), a, b, 0)
    return out


def estimate_aq(
    data: ArrayLike,
    *,
    bounds: object,
    eps: float,
    delta: float,
    rng: object = None,
    quantiles: int = 31,
) -> CDFEstimate:
    """Private CDF from m = ``quantiles`` KSS quantiles at probabilities j/(m+1).

    Options: ``quantiles`` (whole number in [1, 1023], default 31).  Certified guarantee:
    (eps, 0) (pure; delta is validated but not needed).
    """
    eps_v, _ = check_privacy(eps, delta)
    m = v.integer("quantiles", quantiles, lo=1)
    if m > QUANTILES_LIMIT:
        raise ValueError(f"quantiles must be a whole number in [1, {QUANTILES_LIMIT}] (got {m})")
    clipped = clip_data(data, bounds)
    gen = make_rng(rng)
    depth = levels(m)
    eps_call = eps_v / (2.0 * depth)
    probs = np.arange(1, m + 1) / (m + 1)
    z = np.sort(clipped.t)
    q = approximate_quantiles(z, probs, 0.0, 1.0, eps_call, gen)
    t, gx = grid_in_units(clipped.lo, clipped.hi, GRID_SIZE)
    xp = np.concatenate([[0.0], q, [1.0]])
    fp = np.concatenate([[0.0], probs, [1.0]])
    vals = finish_grid(np.interp(t, xp, fp))
    lo, hi = clipped.lo, clipped.hi
    rel = Release.of(
        clipped,
        method="aq",
        mechanism="exponential",
        values=lo + (hi - lo) * q,
        noise_scale=eps_call,
        sensitivity=1.0,
        norm="utility",
        eps=eps_v,
        delta=0.0,
        accounting=f"{m} exponential-mechanism calls in {depth} levels, eps per call "
        f"eps/(2*{depth}); composition over levels x2 for replace-one (see module doc)",
        extra={"quantiles": m, "probs": probs, "levels": depth, "eps_call": eps_call},
    )
    return CDFEstimate(gx, vals, eps_v, 0.0, "aq", rel, info={"quantiles": m})
