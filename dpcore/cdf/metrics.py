"""Distances between an estimated CDF and a reference CDF on [lo, hi] (original units).

* KS = sup_t |F_hat(t) - F(t)| (Kolmogorov-Smirnov distance, no unit).
* W1 = int |F_hat - F| dt (Wasserstein-1 / earth mover's distance; unit of the data).
* energy = sqrt(2 int (F_hat - F)^2 dt) (energy distance in one dimension, Szekely & Rizzo
  2013, eq. (4); the same definition as scipy.stats.energy_distance; unit sqrt(data unit)).

The reference is the population CDF for synthetic data and the empirical CDF of the (clipped)
data for real data: neither is private, and results label it so.

Numerics: both functions are evaluated on a uniform grid of ``size`` points plus, for a step
reference, each jump point and its left limit, so the KS supremum of piecewise-linear-vs-step
is exact up to the grid; integrals use the trapezoid rule on the merged points (error
O(h^2) for smooth parts and O(h / n) per jump).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]
CDF = Callable[[FloatArray], FloatArray]


@dataclass(frozen=True)
class Distances:
    ks: float
    w1: float
    energy: float


def ecdf(sample: ArrayLike) -> CDF:
    """The empirical CDF t -> #{x_i <= t} / n of a sample (NOT private)."""
    s = np.sort(np.asarray(sample, dtype=np.float64))

    def f(t: FloatArray) -> FloatArray:
        return np.searchsorted(s, np.asarray(t, dtype=np.float64), side="right") / s.size

    f.jumps = np.unique(s)  # type: ignore[attr-defined]
    return f


def distances(estimate: CDF, reference: CDF, lo: float, hi: float, size: int = 4097) -> Distances:
    """KS, W1 and energy distance between two CDFs on [lo, hi] (see module docstring)."""
    if not lo < hi:
        raise ValueError(f"lo must be < hi (got lo={lo:g}, hi={hi:g})")
    pts = np.linspace(lo, hi, size)
    jumps = getattr(reference, "jumps", None)
    if jumps is not None:
        j = np.asarray(jumps, dtype=np.float64)
        j = j[(j >= lo) & (j <= hi)]
        left = np.nextafter(j, -np.inf)
        pts = np.unique(np.concatenate([pts, j, left[left >= lo]]))
    diff = np.asarray(estimate(pts), dtype=np.float64) - np.asarray(
        reference(pts), dtype=np.float64
    )
    ks = float(np.max(np.abs(diff)))
    w1 = float(np.trapezoid(np.abs(diff), pts))
    energy = float(np.sqrt(2.0 * np.trapezoid(diff * diff, pts)))
    return Distances(ks, w1, energy)
