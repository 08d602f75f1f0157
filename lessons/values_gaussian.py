"""Values of the Gaussian lesson and the lab tour, computed by dpcore when the page is built.

Every number a student reads in ``gaussian.*.toml`` / ``tour.*.toml`` comes from here (names are
``{{name}}`` placeholders there). ``*_tex`` variants go inside ``$...$``.
"""

from __future__ import annotations

import math

from dpcore import gaussian, queries
from lessons._fmt import fixed, sci, sci_tex, sig, tex


def values() -> dict[str, str]:
    v: dict[str, str] = {}
    ln10 = math.log(10)

    # Example 1: sum, n = 4, B = 1 (Δ = 1), σ = 1, ε = 1.
    d_sum = queries.sensitivity("sum", 4, 1.0)
    delta_sum = float(gaussian.delta(1.0, d_sum, 1.0))
    v["sum_sens"] = sig(d_sum)
    v["sum_delta"] = sig(delta_sum, 8)
    v["sum_t"] = fixed(gaussian.boundary(1.0, d_sum, 1.0), 1)
    v["sum_a"] = fixed(d_sum / 2 - 1.0 / d_sum, 1)
    v["sum_c"] = fixed(-d_sum / 2 - 1.0 / d_sum, 1)
    v["sum_mse"] = sig(gaussian.noise_errors(1.0).mse)

    # Example 2: mean, n = 4, B = 1 (Δ = 0.25), σ = 1, ε = 1.
    d_mean = queries.sensitivity("mean", 4, 1.0)
    h = d_mean / 1.0
    delta_mean = float(gaussian.delta(1.0, d_mean, 1.0))
    v["mean_sens"] = sig(d_mean)
    v["mean_a"] = fixed(h / 2 - 1.0 / h, 3)
    v["mean_c"] = fixed(-h / 2 - 1.0 / h, 3)
    v["mean_delta"] = sci(delta_mean, 8)
    v["mean_delta_tex"] = sci_tex(delta_mean, 8)
    v["mean_log10"] = fixed(float(gaussian.log_delta(1.0, d_mean, 1.0)) / ln10, 4)

    # Example 3: mean, n = 32, B = 1 (Δ = 1/32), σ = 10, ε = 10: the double underflows.
    d_uf = queries.sensitivity("mean", 32, 1.0)
    log_uf = float(gaussian.log_delta(10.0, d_uf, 10.0))
    v["uf_sens"] = sig(d_uf)
    v["uf_double"] = repr(float(gaussian.delta(10.0, d_uf, 10.0)))
    v["uf_log10"] = fixed(log_uf / ln10, 4)
    v["uf_log10_tex"] = tex(v["uf_log10"])
    v["uf_t"] = sig(gaussian.boundary(10.0, d_uf, 10.0), 8)

    # ε = 0, Δ = 1, σ = 1: δ = 2Φ(1/2) − 1.
    v["eps0_delta"] = sig(float(gaussian.delta(0.0, 1.0, 1.0)), 10)

    # Error figures of σ = 1 noise and the 95 % band.
    errs = gaussian.noise_errors(1.0)
    v["mae_coef"] = sig(errs.mae, 8)
    v["z95"] = sig(errs.half_width_95, 6)

    # Classic vs exact σ at ε = 1, δ = 1e-5, Δ = 1.
    v["classic_sigma"] = sig(gaussian.classic_sigma(1.0, 1e-5, 1.0).sigma, 5)
    v["exact_sigma"] = sig(gaussian.calibrate_sigma(1.0, 1e-5, 1.0), 5)
    return v
