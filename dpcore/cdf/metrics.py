"""Distances between an estimated CDF and a reference CDF on [lo, hi] (original units).

* KS = sup_t |F_hat(t) - F(t)| (Kolmogorov-Smirnov distance, no unit).
* W1 = int |F_hat - F| dt (Wasserstein-1 / earth mover's distance; unit of the data).
* energy = sqrt(2 int (F_hat - F)^2 dt) (energy distance in one dimension, Szekely & Rizzo
  2013, eq. (4); the same definition as scipy.stats.energy_distance; unit sqrt(data unit)).
  See docs/math.md#cdf-metrics.

The reference is the population CDF for synthetic data and the empirical CDF of the (clipped)
data for real data: neither is private, and results label it so.

Numerics: both functions are evaluated on a uniform grid of ``size`` points plus, for a step
reference, each jump point and its left limit (:func:`evaluation_points`), so the KS supremum
of piecewise-linear-vs-step is exact up to the grid; integrals use the trapezoid rule on the
merged points (error O(h^2) for smooth parts and O(h / n) per jump). :class:`RefGrid` keeps
those points and the reference's values, for many estimates against one reference.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import validate as v
from dpcore.errors import DPError

__all__ = ["CDF", "METRIC_POINTS", "Distances", "RefGrid", "distances", "ecdf",
           "evaluation_points"]

FloatArray = NDArray[np.float64]
CDF = Callable[[FloatArray], FloatArray]

#: Uniform points of the metric grid on [lo, hi] (before the jump points are merged in).
METRIC_POINTS = 4097


@dataclass(frozen=True)
class Distances:
    ks: float
    w1: float
    energy: float


def ecdf(sample: ArrayLike) -> CDF:
    """The empirical CDF t -> #{x_i <= t} / n of a sample (NOT private).

    The returned function carries ``jumps`` (the distinct sample values, sorted), which
    :func:`evaluation_points` merges into the metric grid.
    """
    s = np.sort(np.asarray(sample, dtype=np.float64))

    def f(t: FloatArray) -> FloatArray:
        out: FloatArray = np.searchsorted(s, np.asarray(t, dtype=np.float64), side="right") / s.size
        return out

    f.jumps = np.unique(s)  # type: ignore[attr-defined]
    return f


def evaluation_points(reference: CDF, lo: float, hi: float,
                      size: int = METRIC_POINTS) -> FloatArray:
    """The points the metrics use on [lo, hi]: ``size`` uniform points, plus, when the
    reference has ``jumps`` (a step function, e.g. :func:`ecdf`), every jump in [lo, hi] and
    the double just below it that is still >= lo; sorted, without repeats.

    Domain: lo < hi finite, size >= 1 whole; otherwise DPError (``bounds_order`` or the
    parameter's range key).
    """
    a = v.real_scalar("lo", lo)
    b = v.real_scalar("hi", hi)
    if not a < b:
        raise DPError("bounds_order", lo=f"{a:g}", hi=f"{b:g}")
    n = v.integer("size", size, lo=1)
    pts = np.linspace(a, b, n)
    jumps = getattr(reference, "jumps", None)
    if jumps is not None:
        j = np.asarray(jumps, dtype=np.float64)
        j = j[(j >= a) & (j <= b)]
        left = np.nextafter(j, -np.inf)
        pts = np.unique(np.concatenate([pts, j, left[left >= a]]))
    return pts


def _from_difference(diff: FloatArray, pts: FloatArray) -> Distances:
    ks = float(np.max(np.abs(diff)))
    w1 = float(np.trapezoid(np.abs(diff), pts))
    energy = float(np.sqrt(2.0 * np.trapezoid(diff * diff, pts)))
    return Distances(ks, w1, energy)


def distances(estimate: CDF, reference: CDF, lo: float, hi: float,
              size: int = METRIC_POINTS) -> Distances:
    """KS, W1 and energy distance between two CDFs on [lo, hi] (see module docstring)."""
    if not lo < hi:
        raise ValueError(f"lo must be < hi (got lo={lo:g}, hi={hi:g})")
    pts = evaluation_points(reference, lo, hi, size)
    diff = np.asarray(estimate(pts), dtype=np.float64) - np.asarray(
        reference(pts), dtype=np.float64
    )
    return _from_difference(diff, pts)


class RefGrid:
    """A reference CDF with its evaluation points precomputed (NOT private).

    ``distances(est)`` equals :func:`distances` ``(est, reference, lo, hi, size)`` exactly (the
    same points from :func:`evaluation_points`, the same operations), but the points and the
    reference's values are computed once, so each new estimate costs one evaluation of it.
    Attributes: ``reference``, ``lo``, ``hi``, ``pts`` (the points) and ``ref`` (the reference
    there). Domain as :func:`evaluation_points`; the reference must return finite values.
    """

    def __init__(self, reference: CDF, lo: float, hi: float, size: int = METRIC_POINTS) -> None:
        self.pts = evaluation_points(reference, lo, hi, size)
        self.reference, self.lo, self.hi = reference, lo, hi
        self.ref = np.asarray(reference(self.pts), dtype=np.float64)
        if not np.all(np.isfinite(self.ref)):
            raise DPError("data_not_finite", count=int(np.count_nonzero(~np.isfinite(self.ref))))

    def distances(self, est: CDF) -> Distances:
        """KS, W1 and energy distance of ``est`` from the reference (see the module)."""
        diff = np.asarray(est(self.pts), dtype=np.float64) - self.ref
        return _from_difference(diff, self.pts)


