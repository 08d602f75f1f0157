"""Pure functions from the lab state to what the views draw (no Panel, no Bokeh).

Every number comes from ``dpcore``; this module only samples curves on a grid, chooses plot
windows and summarises the simulation, so it is unit-tested without a browser.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcore import gaussian

LN10 = math.log(10.0)
DENSITY_POINTS = 401
CURVE_POINTS = 400
Z95 = 1.959963984540054
# What depends on sigma (not on eps) is shared by every session in the process: slider
# positions are discrete (0.01 in log10 sigma), so a class exploring the same range keeps
# hitting the same entries, and an eps move recomputes only the eps-dependent parts.
CURVE_CACHE = 512
# A CurveView shares its arrays with _curve_arrays' entry (per sigma): an entry per (sigma, eps)
# slider position is ~1 kB, so the views of many positions are kept.
CURVE_VIEW_CACHE = 4096
SIM_CACHE = 64
# The draws depend on sigma, not eps: one entry per sigma slider position (131 at one
# sensitivity) kept, so a class moving sigma does not redraw them. An entry is 16 bytes per
# draw: 80 kB at the default 5,000, at most 320 kB (51 MB if a whole cache were at the cap).
SIM_DRAWS_CACHE = 160
SIM_CACHE_MAX_N = 20_000  # larger simulations are recomputed (two float arrays of n each)


def _frozen(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    # Cached arrays are shared between sessions: make accidental writes fail loudly.
    out = []
    for a in arrays:
        a = np.asarray(a, dtype=float)
        if a.base is not None:  # (a view: its own copy, so that nothing can change it)
            a = a.copy()
        a.setflags(write=False)
        out.append(a)
    return tuple(out)


@functools.lru_cache(maxsize=CURVE_CACHE)
def _density_curves(d: float, sigma: float, points: int) -> tuple[np.ndarray, ...]:
    lo, hi = -4.0 * sigma, d + 4.0 * sigma
    x = np.linspace(lo, hi, points)
    p, q = gaussian.densities(x, d, sigma)
    return _frozen(x, p, q)


@dataclass(frozen=True)
class DensityView:
    """Worst-neighbour densities N(0, s^2), N(d, s^2) on a finite window, with the worst event."""

    x: np.ndarray
    p: np.ndarray
    q: np.ndarray
    lo: float
    hi: float
    t: float  # -inf when the sensitivity is 0
    t_outside: str | None  # "left", "right" or None
    p0: float
    p1_scaled: float
    log_p0: float
    log_p1_scaled: float
    peak: float
    d: float
    sigma: float

    @property
    def event(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The part of the window with y < t (may be empty) and both densities there, ending
        exactly at t so that a picture matches the number. (Made on request: the browser
        shades the event from t, assets/dplab-density.js; no move needs these arrays.)"""
        x, t = self.x, self.t
        if self.d == 0 or self.t_outside is not None:
            mask = np.zeros_like(x, dtype=bool) if self.d == 0 else x < t
            return x[mask], self.p[mask], self.q[mask]
        xe = np.append(x[x < t], t)
        pe, qe = gaussian.densities(xe, self.d, self.sigma)
        return xe, np.asarray(pe, dtype=float), np.asarray(qe, dtype=float)


# The views themselves are shared too (a live class: every follower of a process gets the same
# state, so the same objects; their arrays are read-only).
@functools.lru_cache(maxsize=CURVE_CACHE)
def density_view(sensitivity: float, sigma: float, eps: float,
                 points: int = DENSITY_POINTS) -> DensityView:
    d = float(sensitivity)
    lo, hi = -4.0 * sigma, d + 4.0 * sigma
    x, p, q = _density_curves(d, float(sigma), points)
    w = gaussian.worst_event(eps, d, sigma)
    t = float(w.t)
    t_outside = None if d == 0 else ("left" if t < lo else ("right" if t > hi else None))
    return DensityView(x, p, q, lo, hi, t, t_outside, w.p0, w.p1_scaled, w.log_p0,
                       w.log_p1_scaled, float(np.max(p)), d, float(sigma))


@dataclass(frozen=True)
class CurveView:
    """The eps-delta profile on [lo, hi] in the chosen scale (NaN where a value cannot be drawn)."""

    eps: np.ndarray
    y: np.ndarray
    laplace: np.ndarray
    classic_in: np.ndarray  # classic bound where eps < 1 (inside its proof), NaN elsewhere
    classic_out: np.ndarray  # classic bound where eps >= 1 (outside its proof), NaN elsewhere
    claimed_y: float  # NaN when it cannot be drawn (claimed 0 on the log scale)
    current_eps: float
    current_y: float
    current_log10: float
    scale: str
    all_zero: bool  # sensitivity 0: delta is exactly 0 for every eps
    min_log10: float
    table_eps: np.ndarray  # 6 evenly spaced eps values for the text equivalent
    table_y: np.ndarray  # their values in the chosen scale, straight from dpcore


def to_scale(log_delta: np.ndarray | float, scale: str) -> np.ndarray:
    """log10 delta (finite, far below underflow) or delta itself; -inf -> NaN / 0."""
    ld = np.asarray(log_delta, dtype=float)
    if scale == "log10":
        out = ld / LN10
        return np.where(np.isfinite(out), out, np.nan)
    return np.exp(ld)


@functools.lru_cache(maxsize=CURVE_VIEW_CACHE)
def curve_view(sensitivity: float, sigma: float, eps: float, claimed: float, lo: float,
               hi: float, scale: str, points: int = CURVE_POINTS,
               claimed_log10: float | None = None) -> CurveView:
    """The ε–δ curve. ``claimed_log10``: the claim's exact log10 (from its text), so a claim
    below the double range (1e-400) still gets its line on the log10 scale."""
    d = float(sensitivity)
    grid, y, lap_s, cl_in_s, cl_out_s, table_eps, table_y, min_log10 = _curve_arrays(
        d, float(sigma), float(lo), float(hi), scale, points)
    cur_ld = float(gaussian.log_delta(eps, d, sigma))
    if scale == "log10":
        if claimed_log10 is not None:
            claimed_y = claimed_log10 if math.isfinite(claimed_log10) else math.nan
        else:
            claimed_y = math.log10(claimed) if claimed > 0 else math.nan
    else:
        claimed_y = claimed
    return CurveView(
        eps=grid, y=y, laplace=lap_s, classic_in=cl_in_s, classic_out=cl_out_s,
        claimed_y=claimed_y, current_eps=float(eps),
        current_y=float(to_scale(np.array(cur_ld), scale)), current_log10=cur_ld / LN10,
        scale=scale, all_zero=d == 0, min_log10=min_log10, table_eps=table_eps,
        table_y=table_y,
    )


@functools.lru_cache(maxsize=CURVE_CACHE)
def _curve_arrays(d: float, sigma: float, lo: float, hi: float, scale: str,
                  points: int) -> tuple[Any, ...]:
    """Everything on the curve that does not depend on eps or the claim (shared, read-only)."""
    grid = np.linspace(lo, hi, points)
    ld = np.asarray(gaussian.log_delta(grid, d, sigma), dtype=float)
    if d > 0:
        lap = np.asarray(gaussian.laplace_log_delta(grid, d, sigma), dtype=float)
        cl = np.asarray(gaussian.classic_log_delta(grid, d, sigma), dtype=float)
    else:
        lap = np.full_like(grid, -np.inf)
        cl = np.full_like(grid, -np.inf)
    cl_in = np.where(grid < 1.0, cl, -np.inf)
    cl_out = np.where(grid >= 1.0, cl, -np.inf)
    # On the linear scale a NaN gap is better than a line at 0 for "not drawn" overlays.
    cl_in_s, cl_out_s = to_scale(cl_in, scale), to_scale(cl_out, scale)
    if scale != "log10":
        cl_in_s = np.where(grid < 1.0, cl_in_s, np.nan)
        cl_out_s = np.where(grid >= 1.0, cl_out_s, np.nan)
    finite = ld[np.isfinite(ld)]
    table_eps = np.linspace(lo, hi, 6)
    table_y = to_scale(np.asarray(gaussian.log_delta(table_eps, d, sigma), dtype=float), scale)
    min_log10 = float(finite.min() / LN10) if finite.size else -math.inf
    return (*_frozen(grid, to_scale(ld, scale), to_scale(lap, scale), cl_in_s, cl_out_s,
                     table_eps, table_y), min_log10)


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion k/n (95 % by default)."""
    if n <= 0:
        raise ValueError("n must be >= 1")
    ph = k / n
    den = 1 + z * z / n
    centre = (ph + z * z / (2 * n)) / den
    half = z * math.sqrt(ph * (1 - ph) / n + z * z / (4 * n * n)) / den
    # The exact endpoints at k = 0 and k = n are 0 and 1 (avoid a 1e-18 rounding residue).
    lo = 0.0 if k == 0 else max(0.0, centre - half)
    hi = 1.0 if k == n else min(1.0, centre + half)
    return lo, hi


@dataclass(frozen=True)
class SimulationView:
    """N releases of the worst pair (centres 0 and d) and the worst-event frequencies."""

    edges: np.ndarray
    hist0: np.ndarray  # density-normalised (1/output units), like the exact curves
    hist1: np.ndarray
    n: int
    k0: int
    k1: int
    f0: float
    f1: float
    ci0: tuple[float, float]
    ci1: tuple[float, float]
    p0: float  # exact P0 = Pr[N(0, s^2) < t]
    p1: float  # exact P1 = Pr[N(d, s^2) < t]
    log_p0: float
    log_p1: float
    t: float


@functools.lru_cache(maxsize=SIM_CACHE)
def simulation(sensitivity: float, sigma: float, eps: float, n: int, seed: int,
               lo: float, hi: float, bins: int = 40) -> SimulationView:
    """Simulated releases; synthetic noise only, so nothing private is released here."""
    d = float(sensitivity)
    if n <= SIM_CACHE_MAX_N:
        edges, h0, h1, y0, y1 = _sim_draws(d, float(sigma), n, seed, float(lo), float(hi), bins)
    else:
        edges, h0, h1, y0, y1 = _sim_draws.__wrapped__(d, sigma, n, seed, lo, hi, bins)
    w = gaussian.worst_event(eps, d, sigma)
    t = float(w.t)
    # y0, y1 are sorted: the number of draws below t is a binary search.
    k0 = int(np.searchsorted(y0, t, side="left"))
    k1 = int(np.searchsorted(y1, t, side="left"))
    log_p1 = float(w.log_p1_scaled) - eps if math.isfinite(w.log_p1_scaled) else -math.inf
    return SimulationView(
        edges=edges, hist0=h0, hist1=h1, n=n, k0=k0, k1=k1, f0=k0 / n, f1=k1 / n,
        ci0=wilson(k0, n), ci1=wilson(k1, n), p0=float(w.p0),
        p1=math.exp(log_p1), log_p0=float(w.log_p0), log_p1=log_p1, t=t,
    )


@functools.lru_cache(maxsize=SIM_DRAWS_CACHE)
def _sim_draws(d: float, sigma: float, n: int, seed: int, lo: float, hi: float,
               bins: int) -> tuple[np.ndarray, ...]:
    """The simulated releases (sorted) and their histograms; they do not depend on eps.

    The draws are numpy's ``normal(0, sigma)`` of the seed, i.e. ``0 + sigma * z`` with z its
    standard normals: the sorted z of a seed are shared by every sigma (a positive factor keeps
    the order, so no sort per sigma), and the counts per bin come from binary searches in the
    sorted draws (what ``np.histogram`` counts: [a, b) bins, the last one closed)."""
    normals = (_sorted_standard_normals if n <= SIM_CACHE_MAX_N
               else _sorted_standard_normals.__wrapped__)  # (larger ones are not kept)
    z0, z1 = normals(n, seed)
    y0 = 0.0 + sigma * z0
    y1 = d + (0.0 + sigma * z1)
    edges = np.linspace(lo, hi, bins + 1)
    width = edges[1] - edges[0]
    h0 = _bin_counts(y0, edges) / (n * width)
    h1 = _bin_counts(y1, edges) / (n * width)
    return _frozen(edges, h0, h1, y0, y1)


# One entry per (n, seed) a class uses: 16 bytes per draw, 160 kB at the default 5,000.
@functools.lru_cache(maxsize=8)
def _sorted_standard_normals(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    z0, z1 = _frozen(np.sort(rng.standard_normal(n)), np.sort(rng.standard_normal(n)))
    return z0, z1


def _bin_counts(y_sorted: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """np.histogram(y, edges)[0] for sorted y: bins [e_i, e_i+1), the last one [e_-2, e_-1]."""
    at = np.searchsorted(y_sorted, edges, side="left")
    at[-1] = np.searchsorted(y_sorted, edges[-1], side="right")
    return np.diff(at)


# ---- the attacker's view (issue 41): the trade-off curve beside the claimed (ε, δ) ---------
TRADEOFF_POINTS = 121


@functools.cache
def _alpha_grid(points: int) -> np.ndarray:
    # Even steps of FPR, and a few small ones near 0 where a strict attacker lives (made once:
    # read only, shared by every view).
    small = np.geomspace(1e-4, 0.02, 12)
    return _frozen(np.unique(np.concatenate([[0.0], small, np.linspace(0.0, 1.0, points)])))[0]


def cap_tpr(alpha: np.ndarray | float, eps: float, delta: float) -> np.ndarray:
    """The largest TPR at FPR ``alpha`` that an (ε, δ)-DP release allows any test:
    min(1, δ + e^ε·α, 1 − e^−ε·(1 − δ − α)) (Kairouz, Oh & Viswanath 2015, Thm 2.1;
    Dong, Roth & Su 2022, Prop. 2.5, f_ε,δ). ``eps`` ≥ 0 and ``delta`` in [0, 1]."""
    a = np.asarray(alpha, dtype=float)
    grow = math.exp(min(eps, 700.0))
    shrink = math.exp(-eps)
    return np.minimum(1.0, np.minimum(delta + grow * a, 1.0 - shrink * (1.0 - delta - a)))


def cap_at(alpha: float, eps: float, delta: float) -> float:
    """:func:`cap_tpr` at one FPR, in floats (the same operations, without numpy's arrays)."""
    grow = math.exp(min(eps, 700.0))
    shrink = math.exp(-eps)
    return min(1.0, delta + grow * alpha, 1.0 - shrink * (1.0 - delta - alpha))


@dataclass(frozen=True)
class TradeoffView:
    """What the attacker's view draws and says (every rate from dpcore.tradeoff)."""

    mu: float  # Δ/σ
    alpha: np.ndarray  # FPR grid
    tpr: np.ndarray  # the Gaussian's best TPR on the grid (1 − β(α))
    eps: float  # the claim
    claimed: float
    fpr: float  # the attacker the student picks
    tpr_at: float
    adv_at: float  # TPR − FPR there
    cap_at: float
    best_adv: float  # max over FPR of TPR − FPR (2Φ(μ/2) − 1)
    best_fpr: float

    # (made on request: the browser draws the curve and the cap from μ, ε and δ,
    # assets/dplab-svgplot.js; no move needs these arrays)
    @property
    def cap(self) -> np.ndarray:
        """What the claimed (ε, δ) allows on the grid."""
        return cap_tpr(self.alpha, self.eps, self.claimed)

    @property
    def above_cap(self) -> bool:
        """The curve rises above the claim's cap: the claim does not hold. (A margin of 1e-12:
        the grid's rates and the closed-form cap round differently.)"""
        return bool(np.any(self.tpr > self.cap + 1e-12))


@functools.lru_cache(maxsize=CURVE_CACHE)
def _tpr_grid(mu: float) -> np.ndarray:
    """The best test's TPR on the FPR grid for μ (one per σ: an ε move keeps it)."""
    from dpcore import tradeoff

    return _frozen(tradeoff.tpr_curve(_alpha_grid(TRADEOFF_POINTS), mu))[0]


@functools.lru_cache(maxsize=CURVE_CACHE)
def tpr_at(fprs: tuple[float, ...], mu: float) -> tuple[float, ...]:
    """dpcore.tradeoff.tpr at each FPR of ``fprs`` for μ (the attacker's table: one per σ)."""
    from dpcore import tradeoff

    return tuple(float(tradeoff.tpr(a, mu)) for a in fprs)


@functools.lru_cache(maxsize=CURVE_CACHE)
def tradeoff_view(sensitivity: float, sigma: float, eps: float, claimed: float,
                  fpr: float) -> TradeoffView:
    """The attacker's trade-off for a release of sensitivity Δ with noise σ at FPR ``fpr``
    (0 < fpr < 1), beside the cap of the claim (ε, ``claimed`` δ)."""
    from dpcore import tradeoff

    mu = float(sensitivity) / float(sigma)
    alpha = _alpha_grid(TRADEOFF_POINTS)
    at = tradeoff.attack(fpr, float(sensitivity), float(sigma))
    return TradeoffView(mu=mu, alpha=alpha, tpr=_tpr_grid(mu), eps=float(eps),
                        claimed=float(claimed), fpr=float(fpr), tpr_at=at.tpr,
                        adv_at=at.advantage, cap_at=cap_at(fpr, eps, claimed),
                        best_adv=at.best_advantage, best_fpr=at.best_fpr)
