"""Public granularity: data known to lie on the lattice lo, lo + h, ..., hi (ages, cents, Likert).

``estimate(..., granularity=h)`` declares, as a public fact, that every value is a multiple of
h from the lower bound.  Then the CDF is a step function that jumps only at the K + 1 lattice
points x_k = lo + k h, K = (hi - lo) / h, and the release is that step CDF
(docs/math.md#granularity).

Domain and checks (keyed ``DPError``, before any release):
* h a finite number > 0 (``out_of_range.lo``, name "granularity");
* (hi - lo) / h a whole number (relative tolerance 1e-9; ``out_of_range.whole`` naming
  "(hi - lo) / granularity" and its value);
* at most LATTICE_LIMIT lattice points (``out_of_range.interval`` on the same name).
Data off the lattice (after clipping to the bounds) are rounded to the nearest lattice point
and counted in ``n_off_lattice``, exactly like clipped values: an exact count for the data
holder, not privatised and not part of the release.  Rounding is part of the mechanism (like
clipping), so every sensitivity still holds for any input.  A value counts as off the lattice
when it is farther than 1e-6 h from its nearest lattice point (so 12.34 with h = 0.01 is on it
despite binary rounding).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dpcore import validate as v
from dpcore.cdf.common import Clipped, FloatArray
from dpcore.errors import DPError

__all__ = ["LATTICE_LIMIT", "Lattice", "check_granularity", "snap", "step_grid",
           "whole_number_spacing"]

LATTICE_LIMIT = 1 << 20
_NAME = "(hi - lo) / granularity"
ON_LATTICE_TOL = 1e-6


@dataclass(frozen=True)
class Lattice:
    """The public lattice lo + k h, k = 0..size-1 (so hi = lo + (size - 1) h)."""

    lo: float
    hi: float
    h: float
    size: int

    def points(self) -> FloatArray:
        """x_k = lo + ((hi - lo) k) / K: for integer-valued or decimal data (ages, k/10, cents
        from 0) this is the same double as the data's own value, so the steps sit exactly at
        the data's jumps."""
        k = self.size - 1
        pts = self.lo + (self.hi - self.lo) * np.arange(self.size, dtype=np.float64) / k
        pts[-1] = self.hi
        return pts


def check_granularity(bounds: tuple[float, float], granularity: object) -> Lattice:
    """The lattice of ``granularity`` on checked ``bounds`` = (lo, hi), or a keyed DPError."""
    lo, hi = bounds
    h = v.real_scalar("granularity", granularity, lo=0.0, lo_open=True)
    ratio = (hi - lo) / h
    if not math.isfinite(ratio) or ratio > LATTICE_LIMIT:
        raise DPError("out_of_range.interval", name=_NAME, value=f"{ratio:.6g}", left="[",
                      lo="1", hi=str(LATTICE_LIMIT), right="]")
    k = round(ratio)
    if k < 1 or abs(ratio - k) > 1e-9 * max(1.0, ratio):
        raise DPError("out_of_range.whole", name=_NAME, value=f"{ratio:.10g}", lo="1")
    return Lattice(lo, hi, h, int(k) + 1)


def snap(clipped: Clipped, lattice: Lattice) -> tuple[NDArray[np.int64], int]:
    """Lattice index of every (clipped) record and the number that were off the lattice."""
    pos = clipped.t * (lattice.size - 1)
    idx = np.rint(pos)
    off = int(np.count_nonzero(np.abs(pos - idx) > ON_LATTICE_TOL))
    return np.clip(idx, 0, lattice.size - 1).astype(np.int64), off


def snapped_values(clipped: Clipped, lattice: Lattice) -> tuple[FloatArray, int]:
    """The clipped data rounded to the lattice, in original units, and the off-lattice count."""
    idx, off = snap(clipped, lattice)
    return lattice.points()[idx], off


def step_grid(lattice: Lattice, values: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(grid_x, grid_f) of the step CDF equal to values[k] on [x_k, x_{k+1}) and 1 at hi.

    ``values`` (size K + 1, non-decreasing in [0, 1]) are the CDF at the lattice points; the
    last is replaced by 1 (F(hi) = 1 is public).  Each jump is drawn between the double just
    below x_k and x_k, so ``CDFEstimate.__call__`` (linear interpolation) is the step function.
    """
    pts = lattice.points()
    f = np.asarray(values, dtype=np.float64).copy()
    f[-1] = 1.0
    left = np.nextafter(pts[1:], -np.inf)
    gx = np.empty(2 * pts.size - 1)
    gf = np.empty_like(gx)
    gx[0], gf[0] = pts[0], f[0]
    gx[1::2], gf[1::2] = left, f[:-1]
    gx[2::2], gf[2::2] = pts[1:], f[1:]
    return gx, gf


def whole_number_spacing(values: object, bounds: tuple[float, float]) -> float | None:
    """1.0 when a column holds whole numbers and whole-number ``bounds`` admit spacing 1, else None.

    "Whole numbers" is a property of the column's schema: an integer (or boolean) dtype, or
    floats that are all whole (a CSV column of ages parsed as floats).  This reads the data,
    so it is only a SUGGESTION for the user interface: the spacing becomes part of a release
    only when the user declares it, a public choice like the bounds (docs/math.md#granularity;
    the release then records it).  None also when (hi - lo) + 1 exceeds LATTICE_LIMIT or the
    column is empty or not numeric.
    """
    lo, hi = float(bounds[0]), float(bounds[1])
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        return None
    if lo != math.floor(lo) or hi != math.floor(hi) or hi - lo + 1 > LATTICE_LIMIT:
        return None
    x = np.asarray(values)
    if x.size == 0 or x.dtype.kind not in "biuf":
        return None
    if x.dtype.kind == "f":
        xf = x[np.isfinite(x)]
        if xf.size == 0 or not bool(np.all(xf == np.floor(xf))):
            return None
    return 1.0
