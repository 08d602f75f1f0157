"""Squared L2 error of a polynomial-projection release against its degree (NOT private parts
are labelled).

Setting (docs/math.md#degree-errors): on the rescaled axis [0, 1] the data's empirical CDF
F_n has orthonormal shifted-Legendre coefficients c_k; a PP release is y_k = c_k + Z_k,
k = 0..K_max, with independent noise of public variances s_k^2 (``dpcore.cdf.pp``). The
estimate of degree K keeps y_0..y_K. By Parseval its squared L2 error is

    int (F_hat_K - F_n)^2 = sum_{k<=K} (y_k - c_k)^2 + sum_{k>K} c_k^2,

and sum_{k>K} c_k^2 = int F_n^2 - sum_{k<=K} c_k^2. Its expectation is truncation + noise,
sum_{k>K} c_k^2 + sum_{k<=K} s_k^2; y_k^2 - s_k^2 is an unbiased estimate of c_k^2, so the
truncation part can be estimated from the release alone (post-processing, no privacy cost).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import validate as v
from dpcore.errors import DPError

__all__ = ["DegreeErrors", "degree_errors", "integral_sq_ecdf"]

FloatArray = NDArray[np.float64]


def integral_sq_ecdf(t: ArrayLike) -> float:
    """int_0^1 F_n(u)^2 du, exactly up to rounding, for points t in [0, 1] (NOT private).

    F_n = i/n on [t_(i), t_(i+1)) (t_(n+1) = 1), so the integral is sum_i (i/n)^2 (t_(i+1) - t_(i)).
    Domain: t one-dimensional with n >= 2 finite values in [0, 1] (as ``clip_data(...).t``);
    otherwise DPError (``data_1d``, ``data_too_few`` or the range key naming "t"). Edge cases:
    all points at 1 give 0.0; all at 0 give 1.0. Accuracy: a sum of n non-negative terms, so
    the relative error is at most about (n + 2) u (u = 2^-53); in practice ~1e-16.
    """
    arr = v.real("t", t, lo=0.0, hi=1.0)
    if arr.ndim != 1:
        raise DPError("data_1d", shape=str(arr.shape))
    if arr.size < 2:
        raise DPError("data_too_few", count=int(arr.size))
    s = np.sort(arr)
    n = s.size
    widths = np.diff(np.append(s, 1.0))
    return float(np.dot((np.arange(1, n + 1) / n) ** 2, widths))


@dataclass(frozen=True)
class DegreeErrors:
    """Squared L2 error against degree K = 0..K_max on the rescaled axis [0, 1] (no unit).

    trunc_est: sum_{K<k<=K_max} (y_k^2 - s_k^2), from the noisy coefficients y and public noise
    variances s_k^2 (an unbiased estimate of the truncation error sum c_k^2; can be < 0);
    noise: sum_{k<=K} s_k^2 (public: n, eps, delta); expected = max(trunc_est, 0) + noise;
    realised: int (F_hat_K - F_n)^2 of this draw's raw projection against the records' eCDF
    (NOT private), by Parseval: sum_{k<=K} (y_k - c_k)^2 + int F_n^2 - sum_{k<=K} c_k^2.
    best_expected: the K with the smallest expected error (the first one on ties).
    """

    k: NDArray[np.int64]
    trunc_est: FloatArray
    noise: FloatArray
    expected: FloatArray
    realised: FloatArray
    best_expected: int


def degree_errors(y: ArrayLike, noise_sd: ArrayLike, c: ArrayLike,
                  integral_sq: float) -> DegreeErrors:
    """Expected and realised squared L2 error of the PP estimate at every degree 0..K_max.

    ``y``: the released coefficients y_0..y_{K_max} (1-D, finite, at least one); ``noise_sd``:
    their public noise standard deviations (a scalar or one per coefficient, >= 0, as
    ``release.extra["noise_sd"]``); ``c``: the exact coefficients of the data's eCDF up to the
    same K_max (``dpcore.cdf.legendre.coefficients``; NOT private); ``integral_sq``: int F_n^2
    (:func:`integral_sq_ecdf`), in [0, 1]. Otherwise DPError naming the argument. The part
    int F_n^2 - sum_{k<=K} c_k^2 of ``realised`` is clipped at 0 (it is >= 0 mathematically and
    only rounding makes it negative). Accuracy: each entry is a running sum of K_max + 1 terms,
    so its absolute error is at most about (K_max + 2) u times the sum of the terms' sizes.
    """
    yy = v.real("y (released coefficients)", y)
    if yy.ndim != 1:
        raise DPError("data_1d", shape=str(yy.shape))
    if yy.size < 1:
        raise DPError("data_too_few", count=0)
    sd = v.real("noise_sd", noise_sd, lo=0.0)
    if sd.ndim > 1 or (sd.ndim == 1 and sd.size != yy.size):
        raise DPError("out_of_range.interval", name="len(noise_sd)", value=str(sd.size),
                      left="[", lo=f"{yy.size}", hi=f"{yy.size}", right="]")
    cc = v.real("c (data coefficients)", c)
    if cc.shape != yy.shape:
        raise DPError("out_of_range.interval", name="len(c)", value=str(cc.size), left="[",
                      lo=f"{yy.size}", hi=f"{yy.size}", right="]")
    fn2 = v.real_scalar("integral_sq", integral_sq, lo=0.0, hi=1.0)
    k_max = yy.size - 1
    s2 = np.broadcast_to(sd**2, yy.shape)
    excess = yy * yy - s2
    trunc = np.concatenate([np.cumsum(excess[::-1])[::-1][1:], [0.0]])
    noise = np.cumsum(s2)
    expected = np.maximum(trunc, 0.0) + noise
    realised = np.cumsum((yy - cc) ** 2) + np.maximum(fn2 - np.cumsum(cc * cc), 0.0)
    return DegreeErrors(np.arange(k_max + 1), trunc, noise, expected, realised,
                        int(np.argmin(expected)))
