"""Matching pursuit (MP) over a dictionary of normalised atoms, as post-processing of one release.

Dictionary (public, fixed before seeing data; functions on [0, 1]): shifted Legendre polynomials
p_0..p_16; cubic B-splines on uniform knots with 8, 16 and 32 intervals; and distribution-based
CDF atoms Phi((t - mu) / s) for mu in {0.025, 0.075, ..., 0.975} (20 centres) and
s in {0.02, 0.035, 0.06, 0.1, 0.17, 0.3} (202 atoms in all)
(Tao & Sarwate, arXiv 2501.06620, Sec. 5, use Legendre, B-spline and distribution-based
dictionaries).  Each atom d_j enters through its projection P d_j onto polynomials of degree
<= K_max (default 128), normalised to unit L2 norm; P d_j has Legendre coefficients D[j, :]
(computed once by Simpson quadrature on 8193 nodes; public).

Privacy design (what is released, and the theorem that accounts for it):
  The only private step is the PP release y = c + Z of the eCDF's shifted-Legendre coefficients
  c_0..c_{K_max}, Z ~ N(0, sigma^2 I), sigma = calibrate_sigma(eps, delta, 1/n) (L2 sensitivity
  exactly 1/n, see ``pp``).  Every atom correlation <P F_n, P d_j> = (D c)_j is a linear function
  of c, so the noisy correlations r = D y, report-noisy-max over them (argmax |r_j|: Gaussian
  report-noisy-max is post-processing of the Gaussian vector), and the noisy least-squares
  coefficients are all post-processing (Dwork & Roth 2014, Prop. 2.1).  Total: one Gaussian
  release, mu-GDP with mu = (1/n) / sigma, converted to (eps, delta) exactly by
  ``dpcore.accounting.gdp_epsilon`` (the record shows it).
  Why not the paper's per-round split (report-noisy-max on fresh noise, then a fresh noisy
  coefficient, for S rounds)?  Each round would be a Gaussian release of a vector of residual
  correlations with L2 sensitivity up to ||D||_op / n (||D||_op = 10.2 for this dictionary,
  because its positive atoms all correlate with the constant), and S rounds compose by GDP to
  mu_total = sqrt(S) mu_round (``accounting.gdp_compose``).  At equal (eps, delta) that means
  noise about sqrt(S) * 10 times larger than ours, so we release once and pursue afterwards.

Post-processing (orthogonal matching pursuit, Pati et al. 1993): start from the Legendre atoms
p_0..p_K0, K0 = min(K*, 16) with K* the PP automatic degree of the same release (so MP refines
the PP model), then repeatedly add the atom with the largest |residual correlation| and refit
all chosen atoms by least squares on y, while that correlation exceeds the universal threshold
sqrt(2 log M) times its noise standard deviation (Donoho & Johnstone 1994; with isotropic noise
that sd is sigma, because the projected atoms have unit norm), up to ``max_atoms``.  The fit is
a polynomial of degree <= K_max; evaluate, isotonic, clip.  Measured in docs/cdf-results.md:
far better than plain low-degree PP on the bimodal shape, not better than PP with the
automatic degree rule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike
from scipy import interpolate, special

from dpcore import accounting
from dpcore import validate as v
from dpcore.cdf import legendre, pp
from dpcore.cdf.common import CDFEstimate, FloatArray, check_privacy, clip_data, make_rng

FINE = 8193  # quadrature nodes for the atoms' Legendre coefficients
FAMILIES = ("legendre", "bspline", "normal")
K_MAX_DEFAULT = 128


@dataclass(frozen=True)
class Dictionary:
    """Projected, normalised atoms as rows of Legendre coefficients, and their Gram matrix."""

    names: tuple[str, ...]
    coef: FloatArray  # (M, K_max + 1): Legendre coefficients of P d_j / ||P d_j||
    gram: FloatArray  # (M, M) = coef @ coef.T
    op_norm: float  # ||D||_op of the raw (unprojected) dictionary, for the record


@lru_cache(maxsize=8)
def build_dictionary(
    families: tuple[str, ...] = FAMILIES,
    k_max: int = K_MAX_DEFAULT,
    legendre_degree: int = 16,
    spline_intervals: tuple[int, ...] = (8, 16, 32),
    normal_locs: int = 20,
    normal_scales: tuple[float, ...] = (0.02, 0.035, 0.06, 0.1, 0.17, 0.3),
) -> Dictionary:
    """Build (and cache) the public dictionary; see the module docstring."""
    if not families:
        raise ValueError(f"families must name at least one of {FAMILIES}")
    for f in families:
        if f not in FAMILIES:
            raise ValueError(f"families must be drawn from {FAMILIES} (got {f!r})")
    t = np.linspace(0.0, 1.0, FINE)
    rows: list[FloatArray] = []
    names: list[str] = []
    if "legendre" in families:
        b = legendre.basis(t, legendre_degree)
        for k in range(legendre_degree + 1):
            rows.append(b[:, k])
            names.append(f"legendre[{k}]")
    if "bspline" in families:
        for m in spline_intervals:
            knots = np.concatenate([[0.0] * 3, np.linspace(0.0, 1.0, m + 1), [1.0] * 3])
            design = interpolate.BSpline.design_matrix(t, knots, 3).toarray()
            for j in range(design.shape[1]):
                rows.append(design[:, j])
                names.append(f"bspline{m}[{j}]")
    if "normal" in families:
        for s in normal_scales:
            for mu in (np.arange(normal_locs) + 0.5) / normal_locs:
                rows.append(special.ndtr((t - mu) / s))
                names.append(f"normal(mu={mu:.2f},s={s})")
    d = np.array(rows)
    # Composite Simpson weights on the FINE (odd) nodes: h/3 [1, 4, 2, 4, ..., 2, 4, 1].
    w = np.full(FINE, 2.0)
    w[1::2] = 4.0
    w[0] = w[-1] = 1.0
    w /= 3.0 * (FINE - 1)
    dw = d * w
    # Legendre coefficients of each atom (public numbers) and the raw Gram matrix.
    coef = dw @ legendre.basis(t, k_max)
    gram_raw = dw @ d.T
    norms = np.sqrt(np.diag(gram_raw))
    op = float(np.sqrt(np.linalg.eigvalsh(gram_raw / np.outer(norms, norms))[-1]))
    coef /= np.linalg.norm(coef, axis=1)[:, None]
    gram = coef @ coef.T
    coef.setflags(write=False)
    gram.setflags(write=False)
    return Dictionary(tuple(names), coef, gram, op)


def pursue(
    y: FloatArray, dic: Dictionary, noise_sd: FloatArray, max_atoms: int, n: int | None = None
) -> tuple[list[int], FloatArray]:
    """Orthogonal matching pursuit from the released coefficients y (post-processing only).

    Start: the Legendre atoms p_0..p_K0 with K0 = min(K*, largest Legendre atom), K* the PP
    automatic degree (``pp.auto_degree``) of the same release, so MP refines the PP model.
    Step: add the atom with the largest |residual correlation| and refit all chosen atoms by
    least squares (minimising ||y - D_S^T a||_2), while that correlation exceeds
    sqrt(2 log M) times its noise standard deviation sqrt(sum_k D_jk^2 s_k^2).
    Returns the chosen atom indices and their coefficients a.
    """
    d = dic.coef
    sd = np.broadcast_to(np.asarray(noise_sd, dtype=np.float64), y.shape)
    corr = d @ y
    m = corr.size
    thr = math.sqrt(2.0 * math.log(max(m, 2))) * np.sqrt((d * d) @ (sd * sd))
    k_star, _ = pp.auto_degree(y, sd, n)
    chosen = [j for j, name in enumerate(dic.names) if _legendre_index(name) <= k_star]
    chosen = chosen[:max_atoms]

    def refit() -> FloatArray:
        g = dic.gram[np.ix_(chosen, chosen)]
        return np.asarray(np.linalg.lstsq(g, corr[chosen], rcond=1e-10)[0], dtype=np.float64)

    coef = refit() if chosen else np.zeros(0)
    r = corr - dic.gram[:, chosen] @ coef if chosen else corr.copy()
    while len(chosen) < max_atoms:
        score = np.abs(r) / thr
        if chosen:
            score[chosen] = -np.inf
        j = int(np.argmax(score))
        if not score[j] >= 1.0:
            break
        chosen.append(j)
        coef = refit()
        r = corr - dic.gram[:, chosen] @ coef
    return chosen, coef


def _legendre_index(name: str) -> float:
    """k for an atom named 'legendre[k]', +inf for any other atom."""
    if name.startswith("legendre[") and name.endswith("]"):
        return float(name[len("legendre[") : -1])
    return math.inf


def estimate_mp(
    data: ArrayLike,
    *,
    bounds: object,
    eps: float,
    delta: float,
    rng: object = None,
    families: tuple[str, ...] | list[str] = FAMILIES,
    k_max: int = K_MAX_DEFAULT,
    max_atoms: int = 40,
    noise: str = "gaussian",
) -> CDFEstimate:
    """Private CDF by matching pursuit over the dictionary (one release; see module doc).

    Options: ``families`` (non-empty subset of 'legendre', 'bspline', 'normal'), ``k_max``
    (released Legendre degree, 16..256, default 128), ``max_atoms`` (1..500), ``noise``
    ('gaussian' as in the paper, or 'laplace' for pure eps-DP).  Certified guarantee:
    (eps, delta) for Gaussian (exact calibration), (eps, 0) for Laplace.
    """
    eps_v, delta_v = check_privacy(eps, delta)
    km = v.integer("k_max", k_max, lo=16)
    if km > pp.K_MAX_LIMIT:
        raise ValueError(f"k_max must be a whole number in [16, {pp.K_MAX_LIMIT}] (got {km})")
    s_max = v.integer("max_atoms", max_atoms, lo=1)
    if s_max > 500:
        raise ValueError(f"max_atoms must be a whole number in [1, 500] (got {s_max})")
    if isinstance(families, str):
        families = (families,)
    dic = build_dictionary(tuple(families), km)
    clipped = clip_data(data, bounds)
    rel = pp.release(clipped, eps_v, delta_v, k_max=km, noise=noise, rng=make_rng(rng))
    noise_sd = np.asarray(rel.extra["noise_sd"])
    if rel.mechanism.startswith("gaussian"):
        mu = accounting.gaussian_mu(rel.sensitivity, rel.noise_scale)
        certified = accounting.gdp_epsilon(delta_v, accounting.gdp_compose([mu]))
        rel.extra["mu"] = mu
        rel.extra["eps_from_accountant"] = certified
    rel.extra["dictionary_size"] = len(dic.names)
    chosen, a = pursue(rel.values, dic, noise_sd, s_max, rel.n)
    c = a @ dic.coef[chosen] if chosen else np.zeros(km + 1)
    est = pp.from_coefficients(rel, c, method="mp")
    est.info.update({"chosen": [dic.names[j] for j in chosen], "atom_coefficients": a})
    return est
