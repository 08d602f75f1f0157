"""Polynomial projection (PP): private shifted-Legendre coefficients of the empirical CDF.

Mechanism (Tao & Sarwate, arXiv 2501.06620, Sec. 4; docs/math.md#legendre-projection):

1. Clip to the public bounds, rescale to [0, 1], compute c_k = (1/n) sum_i G_k(x_i) for
   k = 0..K_max (``legendre.coefficients``, stable recurrence, no raw moments).
2. Release y = c + Z once, up to K_max.
   * Gaussian (the default; docs/math.md#pp-sensitivity): Z ~ N(0, sigma^2 I) with
     sigma = ``dpcore.gaussian.calibrate_sigma(eps, delta, 1/n)``.  L2 sensitivity is exactly
     1/n for every K_max: G(x) - G(x') are the Legendre coefficients of the indicator of
     [min, max), whose L2 norm is sqrt(|x - x'|) <= 1 (Bessel), with equality at x = 0, x' = 1,
     where only c_0 moves (G_k(0) = 0 for k >= 1 since P_{k+1}(-1) = P_{k-1}(-1)).
   * Split Gaussian (option ``noise="gaussian_split"``, used by the "auto" method): the same
     sigma on c_0 but sigma / sqrt(2) on c_1..c_K.  Same (eps, delta): for x < x' with
     d = x' - x, the change is Delta_0 = d on c_0 and, by Bessel on the indicator of [x, x'),
     sum_{k>=1} Delta_k^2 <= d - d^2.  The whitened change satisfies
     Delta_0^2 / sigma^2 + 2 sum_{k>=1} Delta_k^2 / sigma^2 <= (d^2 + 2(d - d^2)) / sigma^2
     = (2d - d^2) / sigma^2 <= 1 / sigma^2, with equality only at d = 1 (x = 0, x' = 1).  So
     the whitened release is a Gaussian mechanism with sensitivity (1/n) / sigma and unit
     noise, exactly the profile of the isotropic one, while the variance of every c_k, k >= 1,
     is halved.  (A record at 0 vs 1 moves only the mean, so c_0 alone must carry that cost.)
   * Weighted Laplace (option ``noise="laplace_weighted"``, used by "auto" when noise is
     high): scale LAPLACE_C0_SCALE * b on c_0 and b on c_1.., with b from the certified
     weighted L1 bound (``l1_sensitivity(k_max, c0_scale=...)``); pure eps-DP.
   * Laplace (option ``noise="laplace"``, pure eps-DP, used by the "auto" method at small eps):
     Z_k ~ Laplace(b) with b = Delta_1(K_max) / (n eps), where Delta_1 is a *certified upper
     bound* on sup_{x, x'} ||G(x) - G(x')||_1 (``l1_sensitivity``).
3. Everything after the release is post-processing (no privacy cost): truncation to a degree K
   (a slider may move freely), shrinkage, evaluation on a grid, isotonic regression, clip.

Automatic degree/shrinkage rule ("auto", from the noisy coefficients, the public noise
variances s_k^2 and the public n only; post-processing):
   (a) Mallows' C_p / unbiased risk estimate of the L2 error of truncation at K:
       R(K) = sum_{K < k <= K_max} (y_k^2 - v_k) + sum_{k <= K} v_k,   K* = argmin R(K),
       the same bias-variance trade-off as docs/math.md#degree-errors.
       v_k = s_k^2 + m_k / n: besides the privacy noise, the target is the population CDF, so
       each coefficient also carries the sampling variance Var G_k(X) / n, for which the
       public proxy m_k / n with m_k = int_0^1 G_k^2 (its value for uniform X) is used.
       (Without that term the rule chases the sample's own noise at large eps; measured.)
   (b) Then each kept coefficient k >= 1 is multiplied by the positive-part James-Stein/Wiener
       factor max(0, 1 - v_k / y_k^2) (c_0 is kept: it carries the mean and is always large).
   This is measured in docs/cdf-results.md against fixed degrees.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike

from dpcore import gaussian
from dpcore import validate as v
from dpcore.cdf import legendre
from dpcore.cdf.common import (
    GRID_SIZE,
    CDFEstimate,
    Clipped,
    FloatArray,
    Release,
    check_privacy,
    clip_data,
    finish_grid,
    grid_in_units,
    make_rng,
)

K_MAX_DEFAULT = 64
K_MAX_LIMIT = 256
NOISES = ("gaussian", "gaussian_split", "laplace", "laplace_weighted")
# laplace_weighted: c_0 gets this many times the Laplace scale of c_1.. (c_0 moves by at most
# |x - x'| while the other coefficients carry the interior pairs; measured in docs/cdf-results.md)
LAPLACE_C0_SCALE = 3.0


@lru_cache(maxsize=256)
def _sigma(eps: float, delta: float, sensitivity: float) -> float:
    # calibrate_sigma is a pure function; caching keeps repeated releases (audits, sliders) fast.
    return gaussian.calibrate_sigma(eps, delta, sensitivity)


def l2_sensitivity(n: int) -> float:
    """Exact L2 sensitivity of the PP coefficient vector (any degree): 1/n (see module doc)."""
    return 1.0 / v.integer("n", n, lo=1)


@lru_cache(maxsize=64)
def l1_sensitivity(k_max: int, grid: int = 2049, c0_scale: float = 1.0) -> float:
    """Certified upper bound on sup_{0<=x<x'<=1} sum_k w_k |G_k(x) - G_k(x')| for k = 0..k_max.

    Weights w_0 = 1 / c0_scale, w_k = 1 (k >= 1); c0_scale = 1 gives the plain L1 sensitivity.
    Laplace noise of scale b / w_k on coefficient k with b = (this bound) / (n eps) is then
    eps-DP (sum_k |Delta_k| w_k / b <= eps for every neighbouring pair).
    Method: exact maximum over all pairs of a uniform grid of ``grid`` points, plus the Lipschitz
    margin h * sum_k w_k sqrt(2k+1): |G_k'(x)| = |p_k(x)| <= sqrt(2k+1), and each of x, x' is
    within h/2 of a grid point.  So the returned value is >= the true weighted sensitivity and
    exceeds it by at most that margin (about 3 % at k_max = 32).
    """
    k_max = v.integer("k_max", k_max, lo=0)
    scale = v.real_scalar("c0_scale", c0_scale, lo=1.0)
    w = np.ones(k_max + 1)
    w[0] = 1.0 / scale
    if k_max == 0:
        return float(w[0])
    xs = np.linspace(0.0, 1.0, grid)
    g = legendre.g_matrix(xs, k_max) * w
    best = 0.0
    step = 64
    for i in range(0, grid, step):
        blk = g[i : i + step]
        d = np.abs(blk[:, None, :] - g[None, :, :]).sum(axis=2)
        best = max(best, float(d.max()))
    margin = (xs[1] - xs[0]) * float((w * np.sqrt(2.0 * np.arange(k_max + 1) + 1.0)).sum())
    return best + margin


@lru_cache(maxsize=64)
def l1_sensitivity_lower(k_max: int, grid: int = 257) -> float:
    """A lower bound on the L1 sensitivity: the maximum over pairs of a coarse grid (no margin)."""
    xs = np.linspace(0.0, 1.0, grid)
    g = legendre.g_matrix(xs, v.integer("k_max", k_max, lo=0))
    return float(np.abs(g[:, None, :] - g[None, :, :]).sum(axis=2).max())


@lru_cache(maxsize=8)
def _g_second_moments(k_max: int) -> FloatArray:
    """m_k = int_0^1 G_k(x)^2 dx (Simpson, 8193 nodes): E G_k(X)^2 when X is uniform."""
    x = np.linspace(0.0, 1.0, 8193)
    w = np.full(x.size, 2.0)
    w[1::2] = 4.0
    w[0] = w[-1] = 1.0
    w /= 3.0 * (x.size - 1)
    m = w @ legendre.g_matrix(x, k_max) ** 2
    m[0] = 1.0 / 12.0  # Var(1 - X) for uniform X
    m.setflags(write=False)
    return m


def auto_degree(
    y: FloatArray, noise_sd: float | FloatArray, n: int | None = None
) -> tuple[int, FloatArray]:
    """The automatic rule of the module docstring: (K*, shrunk coefficients up to K*).

    Uses only the released y, the public noise standard deviation(s) ``noise_sd`` (a scalar or
    one value per coefficient) and, if given, the public n.  With n the rule targets the
    population CDF rather than the sample's: each coefficient then also carries sampling
    variance Var G_k(X) / n, for which the public proxy m_k / n (m_k = int G_k^2, its value
    for uniform X) is used.
    """
    y = np.asarray(y, dtype=np.float64)
    s2 = np.broadcast_to(np.asarray(noise_sd, dtype=np.float64) ** 2, y.shape).copy()
    if n is not None:
        s2 += _g_second_moments(y.size - 1) / n
    excess = y**2 - s2
    # tail[k] = sum_{j > k} (y_j^2 - s_j^2);  risk(K) = tail[K] + sum_{j <= K} s_j^2
    tail = np.concatenate([np.cumsum(excess[::-1])[::-1][1:], [0.0]])
    risk = tail + np.cumsum(s2)
    k_star = int(np.argmin(risk))
    c = y[: k_star + 1].copy()
    if k_star >= 1:
        w = np.clip(1.0 - s2[1 : k_star + 1] / np.maximum(c[1:] ** 2, 1e-300), 0.0, 1.0)
        c[1:] *= w
    return k_star, c


def coefficients_to_grid(c: FloatArray, size: int = GRID_SIZE) -> FloatArray:
    """Evaluate sum_k c_k p_k on the internal grid, then isotonic + clip (cached basis)."""
    t = np.linspace(0.0, 1.0, size)
    b = legendre.basis_cached(t, K_MAX_LIMIT if c.size - 1 <= K_MAX_LIMIT else c.size - 1)
    return finish_grid(b[:, : c.size] @ c)


def release(
    clipped: Clipped,
    eps: float,
    delta: float,
    *,
    k_max: int,
    noise: str,
    rng: np.random.Generator,
) -> Release:
    """Release the noisy coefficient vector y_0..y_{k_max} once (the only private step)."""
    n = clipped.n
    c = legendre.coefficients(clipped.t, k_max)
    if noise in ("gaussian", "gaussian_split"):
        sens = l2_sensitivity(n)
        sigma = _sigma(eps, delta, sens)
        sd = np.full(c.size, sigma)
        how = "one Gaussian release, exact analytic calibration (Balle & Wang 2018)"
        if noise == "gaussian_split":
            sd[1:] = sigma / math.sqrt(2.0)
            how += "; noise sigma on c_0 and sigma/sqrt(2) on c_1.. (whitened sensitivity 1/n)"
        y = c + rng.normal(0.0, 1.0, size=c.size) * sd
        return Release.of(
            clipped,
            method="pp",
            mechanism=noise,
            values=y,
            noise_scale=sigma,
            sensitivity=sens,
            norm="L2" if noise == "gaussian" else "L2 (whitened)",
            eps=eps,
            delta=delta,
            accounting=how,
            extra={"k_max": k_max, "noise_sd": sd},
        )
    if noise in ("laplace", "laplace_weighted"):
        c0_scale = LAPLACE_C0_SCALE if noise == "laplace_weighted" else 1.0
        sens = l1_sensitivity(k_max, c0_scale=c0_scale) / n
        b = sens / eps
        scales = np.full(c.size, b)
        scales[0] = b * c0_scale
        y = c + rng.laplace(0.0, 1.0, size=c.size) * scales
        return Release.of(
            clipped,
            method="pp",
            mechanism=noise,
            values=y,
            noise_scale=b,
            sensitivity=sens,
            norm="L1" if c0_scale == 1.0 else f"weighted L1 (c_0 weight 1/{c0_scale:g})",
            eps=eps,
            delta=0.0,
            accounting="one Laplace release (pure eps-DP, Dwork et al. 2006) with a certified "
            "(weighted) L1 sensitivity bound",
            extra={"k_max": k_max, "noise_sd": math.sqrt(2.0) * scales, "laplace_scales": scales},
        )
    raise ValueError(f"noise must be one of {NOISES} (got {noise!r})")


def _check_degree(degree: object, k_max: int) -> int | str:
    if isinstance(degree, str):
        if degree != "auto":
            raise ValueError(
                f"degree must be 'auto' or a whole number in [0, {k_max}] (got {degree!r})"
            )
        return degree
    if isinstance(degree, bool):
        raise ValueError(
            f"degree must be 'auto' or a whole number in [0, {k_max}] (got {degree!r})"
        )
    try:
        d = float(degree)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(
            f"degree must be 'auto' or a whole number in [0, {k_max}] (got {degree!r})"
        ) from None
    if not math.isfinite(d) or d != int(d) or not 0 <= d <= k_max:
        raise ValueError(
            f"degree must be 'auto' or a whole number in [0, k_max={k_max}] (got {degree!r})"
        )
    return int(d)


def from_release(rel: Release, degree: int | str = "auto", method: str = "pp") -> CDFEstimate:
    """Post-process a PP release to a CDF at ``degree`` (no privacy cost)."""
    k_max = rel.values.size - 1
    deg = _check_degree(degree, k_max)
    noise_sd = rel.extra["noise_sd"]
    if deg == "auto":
        k, c = auto_degree(rel.values, noise_sd, rel.n)
    else:
        k = int(deg)
        c = rel.values[: k + 1]
    est = from_coefficients(rel, c, method=method, redegree=True)
    est.info.update({"degree": k, "degree_rule": deg if deg == "auto" else "fixed"})
    return est


def from_coefficients(
    rel: Release, c: FloatArray, *, method: str, redegree: bool = False
) -> CDFEstimate:
    """CDF from post-processed Legendre coefficients c of a PP release (grid, isotonic, clip)."""
    vals = coefficients_to_grid(np.asarray(c, dtype=np.float64))
    _, gx = grid_in_units(*rel.bounds, vals.size)
    return CDFEstimate(
        grid_x=gx,
        grid_f=vals,
        eps=rel.eps,
        delta=rel.delta,
        method=method,
        release=rel,
        info={"coefficients": c},
        _redegree=(lambda d: from_release(rel, d, method)) if redegree else None,
    )


def estimate_pp(
    data: ArrayLike,
    *,
    bounds: object,
    eps: float,
    delta: float,
    rng: object = None,
    k_max: int = K_MAX_DEFAULT,
    degree: int | str = "auto",
    noise: str = "gaussian",
) -> CDFEstimate:
    """Private CDF by polynomial projection; see the module docstring for the mechanism.

    Options: ``k_max`` (released degrees, 0..256, default 64), ``degree`` ('auto' or an int in
    [0, k_max]; any degree is post-processing of the same release), ``noise`` ('gaussian' as in
    the paper, or 'laplace' for pure eps-DP).  Returns a CDFEstimate whose ``with_degree(k)``
    re-evaluates another degree from the same noisy coefficients.
    """
    eps_v, delta_v = check_privacy(eps, delta)
    if (
        isinstance(k_max, bool)
        or not isinstance(k_max, (int, np.integer))
        or not (0 <= k_max <= K_MAX_LIMIT)
    ):
        raise ValueError(f"k_max must be a whole number in [0, {K_MAX_LIMIT}] (got {k_max!r})")
    _check_degree(degree, int(k_max))
    clipped = clip_data(data, bounds)
    rel = release(clipped, eps_v, delta_v, k_max=int(k_max), noise=noise, rng=make_rng(rng))
    return from_release(rel, degree)
