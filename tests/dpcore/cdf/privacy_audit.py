"""Empirical privacy audit shared by the CDF release tests (neighbouring data sets, many draws)."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats


def worst_excess(a: np.ndarray, b: np.ndarray, eps: float, delta: float) -> float:
    """Largest lower-confidence excess P_D(S) - e^eps P_D'(S) - delta over S = {s > t}.

    s is the release projected on the neighbours' difference (the likelihood-ratio statistic
    of a Gaussian shift); one-sided Clopper-Pearson bounds at 1e-4 each over 25 thresholds.
    """
    trials = a.size
    worst = -np.inf
    for t in np.quantile(np.r_[a, b], np.linspace(0.02, 0.98, 25)):
        k_p, k_q = int(np.sum(a > t)), int(np.sum(b > t))
        p_lo = stats.beta.ppf(1e-4, k_p, trials - k_p + 1) if k_p > 0 else 0.0
        q_hi = stats.beta.ppf(1 - 1e-4, k_q + 1, trials - k_q) if k_q < trials else 1.0
        worst = max(worst, p_lo - math.exp(eps) * q_hi - delta)
    return float(worst)
