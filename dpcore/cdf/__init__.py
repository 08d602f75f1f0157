"""Private CDF estimation on public bounds (docs/math.md#dp-cdf).

Entry point: ``estimate(data, *, bounds, eps, delta, method="auto", rng=None, **options)``.

Methods (each module's docstring states its mechanism, sensitivity and accounting):
* "pp"   polynomial projection, one Gaussian release of shifted-Legendre coefficients
         (``dpcore.cdf.pp``); options k_max, degree ('auto' or int), noise.
* "mp"   matching pursuit over a Legendre / B-spline / normal-CDF dictionary, one Gaussian
         release of all inner products, pursuit as post-processing (``dpcore.cdf.mp``).
* "hq"   histogram baseline (``dpcore.cdf.hist``); options bins, noise.
* "aq"   adaptive-quantiles baseline, Kaplan-Schnapp-Stemmer 2022 (``dpcore.cdf.quantiles``).
* "tree" hierarchical histogram with consistency (``dpcore.cdf.tree``); options branching,
         leaves, noise, interpolation.
* "mpl"  matching pursuit with local atoms (B-splines, dyadic steps, Legendre) as
         post-processing of one binary-tree release (``dpcore.cdf.mp_local``).
* "auto" the default (``auto_plan_v6``, ``dpcore.cdf.auto_v6``, since 2026-12-06 evening;
         from public n, eps, delta and granularity only): when n*eps < 300 a Laplace histogram of
         auto_bins(n, eps) cells with Chebyshev edges (finer next to the bounds), least squares
         with the public total, PCHIP; for 300 <= n*eps < 1500 a two-level 16-ary tree (0.6 of
         eps on its 16 top nodes, 0.4 on its 256 leaves, pure eps-DP); for 1500 <= n*eps <
         15000 a 9-ary tree of depth 3 (729 leaves, 640 centred cells); from 15000 the 8-ary
         trees of depth 4, 5, 6 (TREE_DEPTH_FROM_V3); every tree on the centred cell layout,
         its details shrunk toward the coarser level (post-processing), PCHIP inside a cell;
         with a public granularity the tree on the lattice (the lattice rule of auto_plan_v2,
         unchanged).  Fixed on synthetic shapes only against OpenDP's tree and diffprivlib's
         histogram (issue 40; the 300-1500 band's two constants with the hold-out as a
         constraint); docs/cdf-results.md.
* "auto_v6" the same release as "auto" (``auto_plan_v6``) under the name it was measured by
         (docs/cdf-results.md, benchmarks); its record says "auto_v6".
* "auto_v4" the former default (``auto_plan_v4``, 2026-12-05 to 2026-12-06): when
         n*eps < 1500 a Laplace histogram with PCHIP interpolation (hist_bins_v2 bins: equal
         cells, no total constraint); otherwise an 8-ary tree whose depth grows with n*eps
         (TREE_DEPTH_FROM_V3: 512 to 262144 leaves) on the centred cell layout, its details
         shrunk (TREE_SHRINK), PCHIP inside a cell; on a lattice the same lattice rule.  Kept
         for comparison.
* "auto_v3" the former default (``auto_plan_v3``): as auto_v4 on the "edges" layout,
         plain least squares (no shrinkage).  Kept for comparison.
* "auto_v2" the former default (``auto_plan_v2``): as auto_v3, with the depth bands
         TREE_DEPTH_FROM (64 to 32768 leaves).  Kept for comparison.
* "auto_v5" (``auto_plan_v5``, ``dpcore.cdf.auto_v5``; never the default): as "auto_v4" except
         for 300 <= n*eps < 1500, where a two-level 16-ary tree (0.6 of eps on its 16 top nodes,
         0.4 on its 256 leaves) on centred cells with the details' shrinkage (lam 2) replaces
         the 32-bin histogram (docs/cdf-results.md, issue 40); the default took this band over.
* "auto_v1" the first default (``auto_plan``, from public n, eps, delta only): a Laplace
         histogram below n*eps = 1500, otherwise PP with the degree chosen from the noisy
         coefficients.  Kept for comparison (tests, docs/cdf-results.md); with a public
         granularity it is the lattice rule of "auto" (auto_plan_v4's, which auto_plan_v6
         keeps).  ``auto_plan`` is this rule's planner, not an alias of the default's.

The default is "auto", held to the goal of docs/math.md#cdf-accuracy-goal;
the keyword arguments are the fixed interface of every method.  Every estimate is callable on
points in the original units, non-decreasing, in [0, 1], carries the certified ``eps`` and
``delta`` and a ``release`` record (noisy values, noise scale, sensitivity, n, bounds, clip
counts).

Each method is registered once, in ``REGISTRY`` (a ``dpcore.cdf.registry.Method`` each: its
estimator, options, guarantee, how it meets a public lattice, ...); ``METHODS`` and
``ALL_METHODS`` are read from it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike

from dpcore import gaussian
from dpcore.cdf import pp, tree
from dpcore.cdf.common import CDFEstimate, Clipped, Release, check_privacy, clip_data, make_rng
from dpcore.cdf.hist import auto_bins, estimate_hq
from dpcore.cdf.lattice import Lattice, check_granularity, snapped_values, step_grid
from dpcore.cdf.mp import estimate_mp
from dpcore.cdf.mp_local import estimate_mpl
from dpcore.cdf.quantiles import estimate_aq
from dpcore.cdf.registry import Method, register
from dpcore.cdf.tree import estimate_tree

__all__ = ["ALL_METHODS", "METHODS", "REGISTRY", "AutoPlan", "CDFEstimate", "Method", "Release",
           "auto_plan", "auto_plan_v2", "auto_plan_v3", "auto_plan_v4", "auto_plan_v5",
           "auto_plan_v6",
           "clip_data", "estimate", "get_method", "hist_bins_v2", "lattice_estimate",
           "tree_depth_v2", "tree_depth_v3"]

# Released degree for the automatic method (the degree actually used is chosen from the noisy
# coefficients by pp.auto_degree, so K_max only needs to be large enough).
AUTO_K_MAX = 64
HIGH_NOISE = 0.002
HIGH_NOISE_K_MAX = 12
# Below this n*eps the PCHIP histogram beat every PP variant on the bimodal shape and matched it
# on the smooth ones (n = 10^4, eps = 0.1: KS 0.0176 vs 0.0283 bimodal; docs/cdf-results.md).
HISTOGRAM_EPS_N = 1500.0
LATTICE_FLAT = 32  # a lattice of at most this many values: one flat histogram level
# The former default's rule (auto_plan_v2; the default is auto_plan_v6, dpcore.cdf.auto_v6),
# fixed on the synthetic shapes only
# (benchmarks/cdf_auto_rule.py; docs/math.md#automatic-method, docs/cdf-results.md):
# below HISTOGRAM_EPS_N the PCHIP Laplace histogram with hist_bins_v2 bins; from it, an
# 8-ary tree (Qardaji, Yang & Li 2013: b around 8-16) with PCHIP inside a cell and depth
# 2, 3, 4, 5 (64, 512, 4096, 32768 leaves) from these n*eps on.
TREE_BRANCHING = 8
TREE_DEPTH_FROM = ((HISTOGRAM_EPS_N, 2), (3000.0, 3), (60000.0, 4), (300000.0, 5))
# The default of issue 40 from 2026-12-04 (auto_plan_v3, now "auto_v3"): the same 8-ary PCHIP
# tree one level deeper from n*eps = 1500 on, each level earlier.  Read off the synthetic grid
# against OpenDP's tree with leaves in hindsight and at 1024 (benchmarks/cdf_auto_rule.py
# --analyse-peers, docs/cdf-results.md): at n*eps = 2000 depth 2 (64 leaves) was 4.4x behind
# on spikes; at 20000 and 50000 depth 3 (512 leaves) up to 1.7x behind on heavy and arcsine,
# depth 4 <= 1.4x; at 200000 depth 5 and at 2e6 and 8e6 depth 6 were the first within 1.1x of
# the 1024-leaf tree on every continuous shape.  Each switch point is half-way (geometrically)
# between measured n*eps values: 15000 (10^4 | 2 10^4), 150000 (10^5 | 2 10^5), 1.5e6
# (10^6 | 2 10^6).
TREE_DEPTH_FROM_V3 = ((HISTOGRAM_EPS_N, 3), (15000.0, 4), (150000.0, 5), (1500000.0, 6))
# The default from 2026-12-05 (auto_plan_v4, issue 40; now "auto_v4", and the base of
# auto_plan_v6 from n*eps = 15000 on): the same trees (TREE_DEPTH_FROM_V3),
# a better estimate from them.  Shrinkage of each block of 8 children toward the PCHIP
# prediction from the level above (tree.shrink_details, lam = TREE_SHRINK; post-processing),
# and the "centred" cell layout (tree.leaf_index: 2^a 5^b cells centred on round fractions of
# the range).  Measured on the synthetic grid against the cells' OpenDP columns, 3 seeds
# (docs/cdf-results.md): lam = 1, 1.5, 2 gave KS geometric means 0.765 / 0.760 / 0.768 vs
# the best tree (v3: 0.945 in the same run); 1.5 is kept.
TREE_SHRINK = 1.5
TREE_LAYOUT_V4 = "centred"
# Below this n*eps the histogram keeps auto_bins(n, eps) bins (7 at n*eps = 100), above it 32.
FEW_BINS_EPS_N = 300.0
MANY_BINS = 32


def hist_bins_v2(n: int, eps: float) -> int:
    """Bins of auto_plan_v2 ... v4's histogram (n*eps < 1500): auto_bins below n*eps = 300, else 32.

    Measured on the synthetic grid (benchmarks/cdf_auto_rule.py, 3 seeds, empirical CDF):
    at n*eps = 500 and 1000, 32 PCHIP bins had geometric-mean KS ratios 0.87 and 1.00 to the
    best-in-hindsight histogram against 1.15 and 1.47 for auto_bins' 12 and 16.
    """
    return auto_bins(n, eps) if n * eps < FEW_BINS_EPS_N else MANY_BINS


def _depth_from(bands: tuple[tuple[float, int], ...], n: int, eps: float) -> int:
    """The depth of the last band whose start n*eps reaches (0 below the first)."""
    depth = 0
    for start, d in bands:
        if n * eps >= start:
            depth = d
    return depth


def tree_depth_v2(n: int, eps: float) -> int:
    """Depth of the former default's 8-ary tree from public n*eps (TREE_DEPTH_FROM); 0 below
    1500."""
    return _depth_from(TREE_DEPTH_FROM, n, eps)


def tree_depth_v3(n: int, eps: float) -> int:
    """Depth of auto_plan_v3 / v4's 8-ary tree from public n*eps (TREE_DEPTH_FROM_V3); 0 below
    1500 (auto_plan_v6 takes its depths 4, 5, 6 from 15000 on)."""
    return _depth_from(TREE_DEPTH_FROM_V3, n, eps)


@dataclass(frozen=True)
class AutoPlan:
    """What the automatic method will release, decided from public quantities only.

    ``method`` is "hq" (then ``k_max`` is the bin count), "tree" (then ``k_max`` is the
    number of leaves, ``noise`` "gaussian" or "laplace", ``noise_sd`` the noise standard
    deviation of every released node, on a lattice ``group`` the lattice values per
    leaf, and ``shrink`` / ``layout`` the post-processing and cell layout of
    ``tree.estimate_tree``) or "pp".
    """

    noise: str
    k_max: int
    noise_sd: float
    reason: str
    method: str = "pp"
    #: On a public lattice: consecutive lattice values per tree leaf (1: one leaf per value).
    group: int = 1
    #: Tree only: lam of the details' shrinkage (0: plain least squares) and the cell layout.
    shrink: float = 0.0
    layout: str = "edges"
    #: Tree on the continuous grid only: its branching (auto_plan_v5's band trees: 8 or 16).
    branching: int = TREE_BRANCHING


def auto_plan(n: int, eps: float, delta: float) -> AutoPlan:
    """The former default's plan (method "auto_v1"), from (n, eps, delta) only: no data, so
    no privacy cost.

    sigma = calibrate_sigma(eps, delta, 1/n) is the per-coefficient Gaussian noise (CDF units).
    * High-noise regime, sigma >= HIGH_NOISE (0.002): degrees above ~12 are then buried in
      noise for the shapes we measured, so the candidates release degrees 0..12 only:
      "gaussian_split" (sigma on c_0, sigma/sqrt(2) on c_1..) and "laplace_weighted" (pure
      eps-DP, c_0 scale 3b, others b, certified weighted L1 bound); the one with the smaller
      total noise variance over degrees 0..12 wins.
    * Otherwise degrees 0..64 with "gaussian_split" or plain "laplace" (certified L1 bound),
      again by the smaller total noise variance.  The L1 sensitivity grows only like log K
      (the indicator's coefficients decay like 1/k), so Laplace can win when delta is tiny.
    The released degrees are then cut by the automatic degree rule (``pp.auto_degree``).
    * Before all that, if n * eps < HISTOGRAM_EPS_N: "hq", a Laplace histogram (pure eps-DP)
      with hist.auto_bins(n, eps) bins and PCHIP interpolation of the monotone edge values.
    """
    eps_v, delta_v = check_privacy(eps, delta)
    if n * eps_v < HISTOGRAM_EPS_N:
        m = auto_bins(n, eps_v)
        return AutoPlan(
            "laplace",
            m,
            float(np.sqrt(2.0) * 2.0 / (n * eps_v)),
            f"n*eps < {HISTOGRAM_EPS_N:g}: {m}-bin Laplace histogram with PCHIP interpolation",
            method="hq",
        )
    sigma = gaussian.calibrate_sigma(eps_v, delta_v, 1.0 / n)
    if sigma >= HIGH_NOISE:
        k = HIGH_NOISE_K_MAX
        g_var = sigma**2 * (1.0 + k / 2.0)
        b = pp.l1_sensitivity(k, c0_scale=pp.LAPLACE_C0_SCALE) / (n * eps_v)
        l_var = 2.0 * b * b * (pp.LAPLACE_C0_SCALE**2 + k)
        if l_var < g_var:
            return AutoPlan(
                "laplace_weighted",
                k,
                float(np.sqrt(2.0) * b),
                "high noise: weighted Laplace has less noise variance on 0..12",
            )
        return AutoPlan(
            "gaussian_split",
            k,
            sigma,
            "high noise: split Gaussian has less noise variance on 0..12",
        )
    k = AUTO_K_MAX
    g_var = sigma**2 * (1.0 + k / 2.0)
    # A coarse-grid maximum (no margin) is a LOWER bound on Delta_1: if Laplace loses even with
    # it, the certified (slower to compute) upper bound is not needed.
    b_low = pp.l1_sensitivity_lower(k) / (n * eps_v)
    if 2.0 * b_low * b_low * (k + 1) >= g_var:
        return AutoPlan("gaussian_split", k, sigma, "split Gaussian has less noise variance")
    b = pp.l1_sensitivity(k) / (n * eps_v)
    l_var = 2.0 * b * b * (k + 1)
    if l_var < g_var:
        return AutoPlan("laplace", k, float(np.sqrt(2.0) * b), "Laplace has less noise variance")
    return AutoPlan("gaussian_split", k, sigma, "split Gaussian has less noise variance")


def auto_plan_v2(n: int, eps: float, delta: float, lattice_size: int | None = None) -> AutoPlan:
    """The default method's plan from public n, eps, delta and granularity only.

    * A public lattice of S = K + 1 values (``lattice_size``): the tree on the lattice with
      one leaf per value when S is at most the cells of the continuous plan below (its bins,
      or 8^depth leaves), else one leaf per g = ceil(S / cells) consecutive values; one flat
      level (a histogram with one bar per leaf) when the leaves are at most LATTICE_FLAT or
      n * eps < 1500, else 8-ary.
    * Otherwise, n * eps < HISTOGRAM_EPS_N (1500): the Laplace histogram with PCHIP
      interpolation and ``hist_bins_v2(n, eps)`` bins (pure eps-DP; ``method`` "hq").
    * Otherwise: the 8-ary tree of depth ``tree_depth_v2(n, eps)`` (2 from 1500, 3 from 3000,
      4 from 60000, 5 from 300000), PCHIP inside a cell; Gaussian or Laplace noise, whichever
      has the smaller per-node variance (``tree.plan_tree``).
    Fixed on the synthetic shapes only (docs/math.md#automatic-method).  Domain: n >= 2 whole,
    eps > 0, delta in (0, 1), lattice_size >= 2 whole.  The former rule (PP from 1500) is
    ``auto_plan``, unchanged.
    """
    eps_v, delta_v = check_privacy(eps, delta)
    if lattice_size is not None:
        size = int(lattice_size)
        cells = (hist_bins_v2(n, eps_v) if n * eps_v < HISTOGRAM_EPS_N
                 else TREE_BRANCHING ** tree_depth_v2(n, eps_v))
        group = 1 if size <= cells else -(-size // cells)
        leaves = -(-size // group)
        if leaves <= LATTICE_FLAT or n * eps_v < HISTOGRAM_EPS_N:
            b = max(leaves, 2)  # one flat level: a histogram with one bar per leaf
        else:
            b = TREE_BRANCHING
        tp = tree.plan_tree(n, eps_v, delta_v, leaves=max(leaves, 2), branching=b)
        what = "value" if group == 1 else f"{group} consecutive values"
        return AutoPlan(tp.noise, tp.leaves, tp.node_sd,
                        f"public lattice of {size} values: {b}-ary tree of depth {tp.depth}, "
                        f"one leaf per {what}", method="tree", group=group)
    if n * eps_v < HISTOGRAM_EPS_N:
        m = hist_bins_v2(n, eps_v)
        return AutoPlan(
            "laplace", m, float(np.sqrt(2.0) * 2.0 / (n * eps_v)),
            f"n*eps < {HISTOGRAM_EPS_N:g}: {m}-bin Laplace histogram with PCHIP interpolation",
            method="hq",
        )
    return _tree_plan(n, eps_v, delta_v, tree_depth_v2(n, eps_v))


def _tree_plan(n: int, eps: float, delta: float, depth: int) -> AutoPlan:
    """The automatic rules' 8-ary PCHIP tree of ``depth`` levels (noise by tree.plan_tree)."""
    tp = tree.plan_tree(n, eps, delta, leaves=TREE_BRANCHING**depth, branching=TREE_BRANCHING)
    return AutoPlan(tp.noise, tp.leaves, tp.node_sd,
                    f"n*eps >= {HISTOGRAM_EPS_N:g}: {TREE_BRANCHING}-ary tree of depth "
                    f"{tp.depth} ({tp.leaves} leaves), PCHIP inside a cell",
                    method="tree")


def auto_plan_v3(n: int, eps: float, delta: float, lattice_size: int | None = None) -> AutoPlan:
    """The former default's plan (issue 40, 2026-12-04; method "auto_v3") from public n, eps,
    delta and granularity only.

    * A public lattice (``lattice_size``): the lattice rule of ``auto_plan_v2``, unchanged.
    * n * eps < HISTOGRAM_EPS_N (1500): as ``auto_plan_v2`` (the PCHIP Laplace histogram with
      ``hist_bins_v2(n, eps)`` bins).
    * Otherwise: the 8-ary tree of depth ``tree_depth_v3(n, eps)`` (3 from 1500, 4 from 15000,
      5 from 150000, 6 from 1.5e6: 512 ... 262144 leaves), PCHIP inside a cell; Gaussian or
      Laplace noise by the smaller per-node variance (``tree.plan_tree``).
    Fixed on the synthetic shapes only, against OpenDP's tree and diffprivlib's histogram
    (TREE_DEPTH_FROM_V3).  Domain: as ``auto_plan_v2``.  The former rule is ``auto_plan_v2``
    (method "auto_v2"), unchanged.
    """
    eps_v, delta_v = check_privacy(eps, delta)
    if lattice_size is not None or n * eps_v < HISTOGRAM_EPS_N:
        return auto_plan_v2(n, eps_v, delta_v, lattice_size)
    return _tree_plan(n, eps_v, delta_v, tree_depth_v3(n, eps_v))


def auto_plan_v4(n: int, eps: float, delta: float, lattice_size: int | None = None) -> AutoPlan:
    """The former default's plan (issue 40, 2026-12-05 to 2026-12-06; method "auto_v4") from
    public n, eps, delta and granularity only.

    * A public lattice, or n * eps < HISTOGRAM_EPS_N (1500): as ``auto_plan_v3`` (the lattice
      rule and the PCHIP Laplace histogram of ``auto_plan_v2``).
    * Otherwise the release of ``auto_plan_v3`` (the 8-ary tree of depth
      ``tree_depth_v3(n, eps)``, noise by the smaller per-node variance) on the centred cell
      layout (TREE_LAYOUT_V4, ``tree.leaf_index``), estimated with the details' shrinkage
      (``tree.shrink_details``, lam = TREE_SHRINK) and PCHIP inside a cell.
    The node noise and so the certified (eps, delta) are those of ``auto_plan_v3``: the
    layout is public and the shrinkage post-processing.  Fixed on the synthetic shapes only
    (docs/cdf-results.md).  Domain: as ``auto_plan_v2``.  The former rule is
    ``auto_plan_v3`` (method "auto_v3"), unchanged; the default since is ``auto_plan_v6``
    (``dpcore.cdf.auto_v6``), which keeps this plan on a lattice and from n*eps = 15000 on.
    """
    eps_v, delta_v = check_privacy(eps, delta)
    plan = auto_plan_v3(n, eps_v, delta_v, lattice_size)
    if lattice_size is not None or plan.method != "tree":
        return plan
    return replace(plan, shrink=TREE_SHRINK, layout=TREE_LAYOUT_V4,
                   reason=plan.reason + f", centred cells, details shrunk (lam {TREE_SHRINK:g})")


def _estimate_auto(
    data: ArrayLike, *, bounds: object, eps: float, delta: float, rng: object = None,
    granularity: float | None = None, method_name: str = "auto", plan: AutoPlan | None = None,
) -> CDFEstimate:
    """The path of the automatic rules' plans "tree", "hq" (equal bins) and "pp": the former
    defaults "auto_v4" (``auto_plan_v4``), "auto_v3" and "auto_v2", and "auto_v1" on a lattice
    (the default's lattice rule); the default "auto" (``auto_plan_v6``) takes it for its 9-ary
    and 8-ary trees and on a lattice (``auto_v6.estimate_auto_v6``).  The rule is the one
    registered for ``method_name`` (``Method.rule``, looked up by name); ``plan``: that rule's
    plan when the caller has it already (without a granularity only)."""
    eps_v, delta_v = check_privacy(eps, delta)
    clipped = clip_data(data, bounds)
    lattice = None if granularity is None else check_granularity((clipped.lo, clipped.hi),
                                                                 granularity)
    if plan is None or lattice is not None:
        rule: Callable[..., AutoPlan] = globals()[REGISTRY[method_name].rule]
        plan = rule(clipped.n, eps_v, delta_v, None if lattice is None else lattice.size)
    if plan.method == "tree":
        if lattice is not None:
            leaves = -(-lattice.size // plan.group)
            b = (max(leaves, 2) if leaves <= LATTICE_FLAT or clipped.n * eps_v < HISTOGRAM_EPS_N
                 else TREE_BRANCHING)
        else:
            b = plan.branching
        est = estimate_tree(data, bounds=bounds, eps=eps_v, delta=delta_v, rng=rng,
                            branching=b, leaves=max(plan.k_max, 3),
                            granularity=None if lattice is None else lattice.h,
                            interpolation="pchip", group=plan.group, shrink=plan.shrink,
                            layout=plan.layout)
        return replace(est, method=method_name, info={**est.info, "plan": plan})
    if plan.method == "hq":
        est = estimate_hq(data, bounds=bounds, eps=eps_v, delta=delta_v, rng=rng,
                          bins=plan.k_max, interpolation="pchip")
        return replace(est, method=method_name, info={**est.info, "plan": plan})
    rel = pp.release(clipped, eps_v, delta_v, k_max=plan.k_max, noise=plan.noise, rng=make_rng(rng))
    est = pp.from_release(rel, "auto", method=method_name)
    est.info["plan"] = plan
    return est


def _estimate_auto_v1(
    data: ArrayLike, *, bounds: object, eps: float, delta: float, rng: object = None,
    granularity: float | None = None,
) -> CDFEstimate:
    """"auto_v1": the former default (``auto_plan``: a Laplace histogram below n*eps = 1500,
    PP above), kept for comparison.  With a public granularity it is the lattice rule of
    "auto"."""
    if granularity is not None:
        return _estimate_auto(data, bounds=bounds, eps=eps, delta=delta, rng=rng,
                              granularity=granularity, method_name="auto_v1")
    eps_v, delta_v = check_privacy(eps, delta)
    clipped = clip_data(data, bounds)
    plan = auto_plan(clipped.n, eps_v, delta_v)
    if plan.method == "hq":
        est = estimate_hq(data, bounds=bounds, eps=eps_v, delta=delta_v, rng=rng,
                          bins=plan.k_max, interpolation="pchip")
        return replace(est, method="auto_v1", info={**est.info, "plan": plan})
    rel = pp.release(clipped, eps_v, delta_v, k_max=plan.k_max, noise=plan.noise, rng=make_rng(rng))
    est = pp.from_release(rel, "auto", method="auto_v1")
    est.info["plan"] = plan
    return est


# "auto_v2" / "auto_v3" / "auto_v4": the former defaults (``auto_plan_v2`` ... ``auto_plan_v4``),
# kept for comparison: the automatic path with the former rule (``Method.rule``).
_estimate_auto_v2 = functools.partial(_estimate_auto, method_name="auto_v2")
_estimate_auto_v3 = functools.partial(_estimate_auto, method_name="auto_v3")
_estimate_auto_v4 = functools.partial(_estimate_auto, method_name="auto_v4")
# "auto_v5" (issue 40, 2026-12-06; not the default): a weighted two-level 16-ary tree for
# 300 <= n*eps < 1500, else v4's plan (``dpcore.cdf.auto_v5``; imported here, after the names
# it reads, so that ``Method.rule`` finds its planner).
from dpcore.cdf.auto_v5 import auto_plan_v5, estimate_auto_v5  # noqa: E402, I001
# "auto", the default since 2026-12-06 evening (issue 40), and "auto_v6", the same release under
# the name it was measured by: v5, with a Chebyshev-edged histogram below n*eps = 300 and a
# 9-ary depth-3 tree for 1500 <= n*eps < 15000 (``dpcore.cdf.auto_v6``; imported after v5).
from dpcore.cdf.auto_v6 import auto_plan_v6, estimate_auto_v6  # noqa: E402

_estimate_default = functools.partial(estimate_auto_v6, method_name="auto")


#: Every method ``estimate`` takes, registered once: the page's list first (``listed``), then
#: the former automatic rules, the tree and local MP, kept for comparison.
REGISTRY: Mapping[str, Method] = register(
    Method("auto", _estimate_default, "chosen", listed=True, rule="auto_plan_v6", lattice=True,
           degree=True),
    Method("pp", pp.estimate_pp, "approx", ("k_max", "degree", "noise"), listed=True,
           releases="pp", degree=True),
    Method("mp", estimate_mp, "approx", ("families", "k_max", "max_atoms", "noise"),
           listed=True, releases="mp"),
    Method("hq", estimate_hq, "pure", ("bins", "noise", "interpolation"), listed=True,
           releases="hq"),
    Method("aq", estimate_aq, "pure", ("quantiles",), listed=True, releases="aq"),
    Method("auto_v1", _estimate_auto_v1, "chosen", rule="auto_plan_v4", lattice=True,
           degree=True),
    Method("auto_v2", _estimate_auto_v2, "chosen", rule="auto_plan_v2", lattice=True,
           degree=True),
    Method("auto_v3", _estimate_auto_v3, "chosen", rule="auto_plan_v3", lattice=True,
           degree=True),
    Method("auto_v4", _estimate_auto_v4, "chosen", rule="auto_plan_v4", lattice=True,
           degree=True),
    Method("auto_v5", estimate_auto_v5, "chosen", rule="auto_plan_v5", lattice=True,
           degree=True),
    Method("auto_v6", estimate_auto_v6, "chosen", rule="auto_plan_v6", lattice=True,
           degree=True),
    Method("tree", estimate_tree, "chosen",
           ("branching", "leaves", "noise", "interpolation", "group", "shrink", "layout"),
           releases="tree", lattice=True),
    # matching pursuit as post-processing of one binary-tree release
    Method("mpl", estimate_mpl, "chosen", ("leaves", "max_atoms"), releases="tree"),
)
#: The methods a user chooses between (the /cdf page's list, in its order).
METHODS: tuple[str, ...] = tuple(m.name for m in REGISTRY.values() if m.listed)
#: Every method ``estimate`` accepts (METHODS, then the former automatic rules, the tree and
#: local MP).
ALL_METHODS: tuple[str, ...] = tuple(REGISTRY)


def get_method(name: object) -> Method:
    """The registered method ``name``; ValueError naming every method otherwise."""
    if not isinstance(name, str) or name not in REGISTRY:
        raise ValueError(f"method must be one of {ALL_METHODS} (got {name!r})")
    return REGISTRY[name]


def _to_lattice(est: CDFEstimate, lattice: Lattice, clipped: Clipped, n_off: int) -> CDFEstimate:
    """A continuous estimate of lattice data read as a step CDF on the lattice (post-processing).

    F is constant on [x_k, x_{k+1}) for lattice data, so F(x_k) is read at the midpoint
    x_k + h/2, where a smooth estimate of the step function is least biased.
    """
    pts = lattice.points()
    mid = np.r_[pts[:-1] + 0.5 * lattice.h, pts[-1]]
    gx, gf = step_grid(lattice, np.maximum.accumulate(est(mid)))
    rel = replace(est.release, n_below=clipped.n_below, n_above=clipped.n_above,
                  extra={**est.release.extra, "granularity": lattice.h, "n_off_lattice": n_off})
    redegree = None
    if est._redegree is not None:
        inner = est._redegree
        redegree = lambda d: _to_lattice(inner(d), lattice, clipped, n_off)  # noqa: E731
    info = {**est.info, "granularity": lattice.h, "n_off_lattice": n_off}
    return replace(est, grid_x=gx, grid_f=gf, release=rel, info=info, _redegree=redegree)


def lattice_estimate(est: CDFEstimate, lattice: Lattice, n_off: int = 0) -> CDFEstimate:
    """A continuous estimate of data rounded to ``lattice`` read as its step CDF there.

    Post-processing only (``_to_lattice``); the clip counts come from ``est.release``.  Used by
    the streaming merge (``streaming.PPCombiner(granularity=h)``); ``n_off`` = records that
    were rounded onto the lattice (exact, not private).
    """
    rel = est.release
    counts = Clipped(np.empty(0), rel.n, lattice.lo, lattice.hi, rel.n_below, rel.n_above)
    return _to_lattice(est, lattice, counts, n_off)


def _estimate_on_lattice(
    data: ArrayLike, bounds: object, eps: float, delta: float, method: Method, rng: object,
    granularity: object, options: dict[str, object],
) -> CDFEstimate:
    eps_v, delta_v = check_privacy(eps, delta)
    clipped = clip_data(data, bounds)
    lattice = check_granularity((clipped.lo, clipped.hi), granularity)
    if method.lattice:  # the tree on the lattice itself (the automatic rules plan one there)
        return method.estimate(data, bounds=bounds, eps=eps_v, delta=delta_v, rng=rng,
                               granularity=lattice.h, **options)
    xs, n_off = snapped_values(clipped, lattice)
    est = method.estimate(xs, bounds=bounds, eps=eps_v, delta=delta_v, rng=rng, **options)
    return _to_lattice(est, lattice, clipped, n_off)


def estimate(
    data: ArrayLike,
    *,
    bounds: object,
    eps: float,
    delta: float,
    method: str = "auto",
    rng: object = None,
    granularity: object = None,
    **options: object,
) -> CDFEstimate:
    """Differentially private CDF of one-dimensional ``data`` on public ``bounds``.

    Parameters: ``data`` (1-D finite numbers, n >= 2; values outside bounds are clipped and
    counted in ``result.release.n_below / n_above``), ``bounds`` = (lo, hi) with lo < hi,
    ``eps`` > 0, ``delta`` in (0, 1), ``method`` in METHODS, ``rng`` (None, int seed or numpy
    Generator), method ``options`` (see each module).  Neighbours: replace one record, n public.
    Returns a CDFEstimate certifying (result.eps, result.delta) <= (eps, delta).
    ``granularity`` = h (public): the data lie on lo, lo + h, ..., hi (``dpcore.cdf.lattice``);
    the result is then a step CDF on that lattice, values off it are rounded to it and counted
    in ``result.release.extra["n_off_lattice"]`` (exact, not private, like the clip counts).
    Raises ValueError naming the parameter and its allowed range for bad input (keyed
    DPError for the data, bounds, privacy parameters and granularity).
    """
    m = get_method(method)
    unknown = sorted(set(options) - set(m.options))
    if unknown:
        allowed = ", ".join(m.options) or "none"
        raise ValueError(
            f"unknown option(s) {unknown} for method {method!r}; allowed options: {allowed}"
        )
    if granularity is not None:
        return _estimate_on_lattice(data, bounds, eps, delta, m, rng, granularity, options)
    return m.estimate(data, bounds=bounds, eps=eps, delta=delta, rng=rng, **options)
