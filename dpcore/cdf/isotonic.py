"""Isotonic (monotone non-decreasing) least-squares regression by pool-adjacent-violators.

Vectorised PAV: every pass merges each maximal run of strictly decreasing adjacent block means
into one block.  This is safe because two adjacent blocks whose means violate the order always
lie in the same block of the solution (Barlow et al. 1972, Thm 1.4 / the PAV invariant), so each
pass only makes merges that PAV itself would make; passes repeat until the block means are
non-decreasing.  Each pass is a handful of numpy calls.

Reference: Barlow, Bartholomew, Bremner & Brunk, "Statistical Inference under Order
Restrictions" (1972); Best & Chakravarti, Math. Programming 47 (1990).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]


def isotonic(y: FloatArray, w: FloatArray | None = None) -> FloatArray:
    """Return argmin_{z non-decreasing} sum_i w_i (z_i - y_i)^2.

    Domain: y a finite 1-D array; w positive finite weights (default all 1).
    Edge cases: empty or length-1 input is returned as a copy.  Exact up to rounding of means.
    """
    y = np.asarray(y, dtype=np.float64).ravel()
    n = y.size
    if n <= 1:
        return y.copy()
    if w is None:
        w = np.ones(n)
    else:
        w = np.asarray(w, dtype=np.float64).ravel()
        if w.shape != y.shape or not np.all(w > 0):
            raise ValueError("weights w must be positive and have the same length as y")
    starts = np.arange(n)  # block start indices
    sw = w.copy()  # block weights
    swy = w * y  # block weighted sums
    while True:
        means = swy / sw
        viol = means[:-1] > means[1:]
        if not viol.any():
            break
        # a block starts a new merged block unless the previous block's mean exceeds its own
        keep = np.ones(means.size, dtype=bool)
        keep[1:] = ~viol
        idx = np.flatnonzero(keep)
        starts = starts[idx]
        sw = np.add.reduceat(sw, idx)
        swy = np.add.reduceat(swy, idx)
    lengths = np.diff(np.append(starts, n))
    return np.repeat(swy / sw, lengths)
