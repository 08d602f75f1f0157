"""Isotonic (monotone non-decreasing) least-squares regression: SciPy's pool-adjacent-violators.

``scipy.optimize.isotonic_regression`` (SciPy >= 1.12) replaces the vectorised PAV this module
used to hand-write: 4-8x faster in two runs here (1025-point CDF grid: 10-18 us vs 82-147 us;
10^5 points: 1.7-2.3 ms vs 5.7-8.2 ms) and equal to it within 7e-16
(docs/math.md#isotonic-regression).
This wrapper keeps dpcore's contract: input checks with clear messages and copies for n <= 1.

Reference: Barlow, Bartholomew, Bremner & Brunk, "Statistical Inference under Order
Restrictions" (1972); Best & Chakravarti, Math. Programming 47 (1990).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import isotonic_regression

FloatArray = NDArray[np.float64]


def isotonic(y: FloatArray, w: FloatArray | None = None) -> FloatArray:
    """Return argmin_{z non-decreasing} sum_i w_i (z_i - y_i)^2.

    Domain: y a finite 1-D array; w positive finite weights (default all 1).
    Edge cases: empty or length-1 input is returned as a copy.  Exact up to rounding of means.
    """
    y = np.asarray(y, dtype=np.float64).ravel()
    if y.size <= 1:
        return y.copy()
    if w is not None:
        w = np.asarray(w, dtype=np.float64).ravel()
        if w.shape != y.shape or not np.all(w > 0):
            raise ValueError("weights w must be positive and have the same length as y")
    return np.asarray(isotonic_regression(y, weights=w, increasing=True).x, dtype=np.float64)
