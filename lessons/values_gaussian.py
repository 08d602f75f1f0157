"""Values of the Gaussian lesson and the lab tour, computed by dpcore when the page is built.

Every number a student reads in ``gaussian.*.toml`` / ``tour.*.toml`` comes from here (names are
``{{name}}`` placeholders there). ``*_tex`` variants go inside ``$...$``.

The identities the text states in words (four releases at sigma = 2 are one at sigma = 1, the
mean at sigma = 1 is the sum at sigma = 4, ...) are checked here with ``_same``, so a page that
says them cannot be built if dpcore disagrees.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from dpcore import accounting, certify, gaussian, queries, tradeoff
from lessons import verdicts as vd
from lessons.fmt import fixed, rounded, sci, sci_exact, sci_tex, sig, tex
from lessons.languages import CODES as LANGS

LN10 = math.log(10)


def _same(x: float, y: float, what: str) -> None:
    if not math.isclose(x, y, rel_tol=1e-12, abs_tol=0.0):
        raise ArithmeticError(f"lesson identity fails ({what}): {x!r} != {y!r}")


def _with_tex(v: dict[str, str], name: str, text: str) -> None:
    v[name] = text
    v[name + "_tex"] = tex(text)


def values() -> dict[str, str]:
    v: dict[str, str] = {}
    ln10 = LN10

    # Example 1: sum, n = 4, B = 1 (Δ = 1), σ = 1, ε = 1.
    d_sum = queries.sensitivity("sum", 4, 1.0)
    delta_sum = float(gaussian.delta(1.0, d_sum, 1.0))
    v["sum_sens"] = sig(d_sum)
    v["sum_delta"] = sig(delta_sum, 8)
    v["sum_t"] = fixed(gaussian.boundary(1.0, d_sum, 1.0), 1)
    v["sum_a"] = fixed(d_sum / 2 - 1.0 / d_sum, 1)
    v["sum_c"] = fixed(-d_sum / 2 - 1.0 / d_sum, 1)
    v["sum_mse"] = sig(gaussian.noise_errors(1.0).mse)
    v["sum_delta_tex"] = tex(v["sum_delta"])
    for k in ("sum_t", "sum_a", "sum_c"):
        v[k + "_tex"] = tex(v[k])
    we_sum = gaussian.worst_event(1.0, d_sum, 1.0)
    _with_tex(v, "sum_p0", sig(we_sum.p0, 8))
    _with_tex(v, "sum_p1", sig(we_sum.p1_scaled, 8))
    v["sum_log10"] = fixed(we_sum.log_delta / ln10, 4)
    v["sum_delta10"] = sig(delta_sum, 10)  # as the card prints it (10 significant digits)
    cert_sum = certify.certify("sum", 4, 1.0, 1.0, 1.0, 0.13)
    if not (cert_sum.passes and not certify.certify("sum", 4, 1.0, 1.0, 1.0, 0.126).passes):
        raise ArithmeticError("the sum example must pass at 0.13 and fail at 0.126")

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
    v["mean_a_tex"] = tex(v["mean_a"])
    v["mean_c_tex"] = tex(v["mean_c"])
    we_mean = gaussian.worst_event(1.0, d_mean, 1.0)
    v["mean_p0"] = sci(we_mean.p0, 8)
    v["mean_p0_tex"] = sci_tex(we_mean.p0, 8)
    v["mean_p1"] = sci(we_mean.p1_scaled, 8)
    v["mean_p1_tex"] = sci_tex(we_mean.p1_scaled, 8)
    v["mean_p_ratio_pct"] = fixed(100 * we_mean.p1_scaled / we_mean.p0, 1)
    v["mean_t"] = fixed(gaussian.boundary(1.0, d_mean, 1.0), 3)
    v["sum_over_mean"] = rounded(delta_sum / delta_mean, 2)
    # The mean at σ = 1 has the profile of the sum at σ = n σ = 4 (same Δ/σ).
    _same(delta_mean, float(gaussian.delta(1.0, d_sum, 4.0)), "mean σ=1 is sum σ=4")
    v["mean_as_sum_sigma"] = sig(4 * 1.0 / 1.0)

    # Doubling n for the mean: n = 8, Δ = 0.125, σ = 1, ε = 1.
    d_mean8 = queries.sensitivity("mean", 8, 1.0)
    ld8 = float(gaussian.log_delta(1.0, d_mean8, 1.0))
    v["mean8_sens"] = sig(d_mean8)
    _with_tex(v, "mean8_a", fixed(d_mean8 / 2 - 1.0 / d_mean8, 4))
    v["mean8_delta"] = sci(math.exp(ld8), 8)
    v["mean8_delta_tex"] = sci_tex(math.exp(ld8), 8)
    v["mean8_log10"] = fixed(ld8 / ln10, 4)
    v["mean8_factor"] = sci(delta_mean / math.exp(ld8), 2)
    _same(float(gaussian.delta(1.0, d_mean8, 0.5)), delta_mean, "n=8, σ=0.5 is n=4, σ=1")
    # "doubling n halves δ" (issue 39 §9): three digits, as the misconception's answer prints
    v["mean_delta3"], v["mean_delta3_tex"] = sci(delta_mean, 3), sci_tex(delta_mean, 3)
    v["mean8_delta3"], v["mean8_delta3_tex"] = sci(math.exp(ld8), 3), sci_tex(math.exp(ld8), 3)
    for q in ("sum", "count"):  # n does not enter their sensitivity
        _same(queries.sensitivity(q, 8, 1.0), queries.sensitivity(q, 4, 1.0), f"{q}: Δ without n")

    # Example 3: mean, n = 32, B = 1 (Δ = 1/32), σ = 10, ε = 10: the double underflows.
    d_uf = queries.sensitivity("mean", 32, 1.0)
    log_uf = float(gaussian.log_delta(10.0, d_uf, 10.0))
    v["uf_sens"] = sig(d_uf)
    v["uf_double"] = repr(float(gaussian.delta(10.0, d_uf, 10.0)))
    v["uf_log10"] = fixed(log_uf / ln10, 4)
    v["uf_log10_tex"] = tex(v["uf_log10"])
    v["uf_t"] = sig(gaussian.boundary(10.0, d_uf, 10.0), 8)
    h_uf = d_uf / 10.0
    _with_tex(v, "uf_h", sig(h_uf, 8))
    _with_tex(v, "uf_a", sig(h_uf / 2 - 10.0 / h_uf, 8))
    _with_tex(v, "uf_ln", fixed(log_uf, 1))
    v["uf_t_tex"] = tex(v["uf_t"])
    we_uf = gaussian.worst_event(10.0, d_uf, 10.0)
    _with_tex(v, "uf_p0_log10", fixed(we_uf.log_p0 / ln10, 4))
    _with_tex(v, "uf_gap_log10", fixed((we_uf.log_delta - we_uf.log_p0) / ln10, 2))
    cert_uf = certify.certify("mean", 32, 1.0, 10.0, 10.0, 0.0)
    if not (cert_uf.underflow and cert_uf.mathematically_positive and not cert_uf.passes):
        raise ArithmeticError("the underflow example must underflow, be positive and fail δ = 0")
    tiny = math.ulp(0.0)
    v["min_double"] = sci_exact(tiny, 2)
    v["min_double_log10"] = fixed(math.log10(tiny), 1)

    # ε = 0, Δ = 1, σ = 1: δ = 2Φ(1/2) − 1.
    v["eps0_delta"] = sig(float(gaussian.delta(0.0, 1.0, 1.0)), 10)
    v["eps0_delta_tex"] = tex(v["eps0_delta"])
    v["eps0_delta_short"] = sig(float(gaussian.delta(0.0, 1.0, 1.0)), 3)

    # Error figures of σ = 1 noise and the 95 % band.
    errs = gaussian.noise_errors(1.0)
    v["mae_coef"] = sig(errs.mae, 8)
    v["mae_coef_tex"] = tex(v["mae_coef"])
    v["z95"] = sig(errs.half_width_95, 6)
    errs2 = gaussian.noise_errors(2.0)
    v["mae_sigma2"] = sig(errs2.mae, 8)
    v["mse_sigma2"] = sig(errs2.mse)
    v["hw_sigma2"] = sig(errs2.half_width_95, 6)

    # Classic vs exact σ at ε = 1, δ = 1e-5, Δ = 1 (ε = 1 lies outside the classic proof).
    v["classic_sigma"] = sig(gaussian.classic_sigma(1.0, 1e-5, 1.0).sigma, 5)
    v["exact_sigma"] = sig(gaussian.calibrate_sigma(1.0, 1e-5, 1.0), 5)
    ex1 = gaussian.calibrate_sigma(1.0, 1e-5, 1.0)
    v["exact_sigma_long"] = sig(ex1, 8)
    v["exact_sigma_mean"] = sig(gaussian.calibrate_sigma(1.0, 1e-5, d_mean), 5)
    _same(gaussian.calibrate_sigma(1.0, 1e-5, d_mean), ex1 * d_mean, "σ scales with Δ")
    v["exact_h"] = sig(1.0 / ex1, 5)
    v["exact_h_tex"] = tex(v["exact_h"])
    # The same at ε = 0.5, inside the classic proof (0 < ε < 1).
    cl05 = gaussian.classic_sigma(0.5, 1e-5, 1.0)
    ex05 = gaussian.calibrate_sigma(0.5, 1e-5, 1.0)
    if not cl05.proven or gaussian.classic_sigma(1.0, 1e-5, 1.0).proven:
        raise ArithmeticError("the classic bound must be proven at ε = 0.5 and not at ε = 1")
    v["classic_sigma_05"] = sig(cl05.sigma, 5)
    v["exact_sigma_05"] = sig(ex05, 5)
    v["classic_ratio_05"] = rounded(cl05.sigma / ex05, 3)
    v["classic_extra_pct"] = fixed(100 * (cl05.sigma / ex05 - 1), 0)
    # Outside the proof the classic formula can be too small: ε = 10, δ = 1e-5, Δ = 1.
    cl10 = gaussian.classic_sigma(10.0, 1e-5, 1.0).sigma
    ex10 = gaussian.calibrate_sigma(10.0, 1e-5, 1.0)
    if not cl10 < ex10:
        raise ArithmeticError("the classic σ must fall short of the exact σ at ε = 10")
    v["classic_sigma_10"] = sig(cl10, 4)
    v["exact_sigma_10"] = sig(ex10, 4)
    v["classic_delta_10"] = sci(float(gaussian.delta(10.0, 1.0, cl10)), 2)
    # doubling the claim does not rescue the formula (q-classic): its σ misses 2·10⁻⁵ too
    if not float(gaussian.delta(10.0, 1.0, cl10)) > 2e-5:
        raise ArithmeticError("the classic σ at ε = 10 must fail a doubled claim of 2e-5")
    v["classic_ln_term"] = sig(math.sqrt(2 * math.log(1.25 / 1e-5)), 5)
    v["classic_ln_term_tex"] = tex(v["classic_ln_term"])
    # Reading the curve: the smallest ε at which the sum (σ = 1) passes a claim of 1e-3 / 1e-5.
    v["eps_for_1e3"] = sig(gaussian.epsilon(1e-3, 1.0, 1.0), 4)
    v["eps_for_1e5"] = sig(gaussian.epsilon(1e-5, 1.0, 1.0), 4)
    v["delta_sum_eps5"] = sci(float(gaussian.delta(5.0, 1.0, 1.0)), 3)
    v["delta_sum_eps2"] = sig(float(gaussian.delta(2.0, 1.0, 1.0)), 4)

    # Count (Δ = 1 whatever n and B) and constant (Δ = 0).
    d_count = queries.sensitivity("count", 1000, 50.0)
    _same(float(gaussian.delta(1.0, d_count, 1.0)), delta_sum, "count Δ = 1 like the sum")
    v["count_sens"] = sig(d_count)
    cert_const = certify.certify("const", 4, 1.0, 1.0, 1.0, 0.0)
    if not (cert_const.passes and cert_const.pure_dp_possible and cert_const.required_delta == 0):
        raise ArithmeticError("the constant query must pass δ = 0 exactly")

    # Composition (Gaussian DP): four sum releases at σ = 2 are exactly one at σ = 1.
    mu_one = accounting.gaussian_mu(d_sum, 2.0)
    mu4 = accounting.gdp_compose([mu_one] * 4)
    v["gdp_mu_one"] = sig(mu_one)
    v["gdp_mu4"] = sig(mu4)
    _same(accounting.gdp_delta(1.0, mu4), delta_sum, "4 releases at σ=2 are one at σ=1")
    mu_steps = accounting.gdp_compose([0.1] * 100)
    v["gdp_mu_100"] = sig(mu_steps, 6)
    v["gdp_delta_100"] = sig(accounting.gdp_delta(1.0, mu_steps), 8)
    # Two releases at σ = 1: μ = √2.
    mu2 = accounting.gdp_compose([1.0, 1.0])
    v["gdp_mu2"] = sig(mu2, 8)
    v["gdp_delta2"] = sig(accounting.gdp_delta(1.0, mu2), 8)

    # Vectors: a record moves 4 coordinates by at most 1 each: L2 sensitivity √4 = 2 (an
    # integer, so the lab reproduces the 1-D problem as a sum with B = 2).
    l2 = math.sqrt(4.0)
    _same(float(gaussian.delta(1.0, l2, 1.0)),
          float(gaussian.delta(1.0, queries.sensitivity("sum", 4, 2.0), 1.0)), "vector = sum B=2")
    v["vec_l2"] = sig(l2, 8)
    v["vec_delta"] = sig(float(gaussian.delta(1.0, l2, 1.0)), 8)
    v["vec_sigma"] = sig(gaussian.calibrate_sigma(1.0, 0.13, l2), 5)
    _check_tour_answers()
    _too_close(v)
    v["n_delta_soft"] = str(certify.N_DELTA_SOFT)
    v["ref_mironov"] = "Mironov (2012)"  # "On significance of the least significant bits..."
    # what the Gauss-Legendre section says was measured (dpcore.gaussian's constants)
    v["gl_nodes"] = ", ".join(str(k) for k in sorted(set(gaussian._RULES_U)))
    v["erfcx_ulps"] = f"{gaussian._THETA_ERFCX / 2 / 2.0**-53:g}"  # the bound uses twice it
    v["cf_ulps"] = f"{gaussian._THETA_CF / 2 / 2.0**-53:g}"
    # what delta allows: "name and shame" publishes each record with probability delta
    # ((0, delta)-DP); with the lab's n = 4 and delta = 0.13 (a claim that passes)
    ns_n, ns_delta = 4, 0.13
    v["ns_expected"] = sig(ns_n * ns_delta, 2)
    v["ns_any"] = sig(1.0 - (1.0 - ns_delta) ** ns_n, 2)
    v["ns_inv_n"] = sig(1.0 / ns_n, 2)
    # the density plot's title, exactly as the lab prints it (reading-lab quotes it)
    import json
    from pathlib import Path

    cat_dir = Path(__file__).resolve().parent.parent / "app" / "i18n"
    for lang in LANGS:
        cat = json.loads((cat_dir / f"lab.{lang}.json").read_text("utf-8"))
        v[f"dens_title_{lang}"] = cat["lab.dens.title"]
    _teach(v)
    _polls(v)
    _tradeoff(v)
    v.update(tradeoff_verdicts(v))
    return v


def _teach(v: dict[str, str]) -> None:
    """Values of the instructor's parts (issue 18 §4): the Laplace bridge, the derivative
    problem, the simulation problem, the sketch's reveal."""

    # Laplace bridge: scale b at the same MSE as N(0, sigma^2) is sigma / sqrt(2); its loss
    # is bounded by d / b, so delta(eps) = 0 from eps = d / b on (pure DP)
    d, s = 1.0, 1.0
    b = s / math.sqrt(2.0)
    eps_lap = d / b
    if float(gaussian.laplace_delta(eps_lap * (1 + 1e-12), d, s)) != 0.0:
        raise ArithmeticError("Laplace at equal MSE must be pure DP at eps = d / b")
    v["lap_b"] = sig(b, 4)
    v["lap_eps"] = sig(eps_lap, 4)
    we = gaussian.worst_event(eps_lap, d, s)
    v["lap_gauss_tail"] = sig(we.p0, 4)  # P_D[L > d / b] for the Gaussian at sigma = 1
    v["lap_gauss_delta"] = sig(float(gaussian.delta(eps_lap, d, s)), 4)

    # d delta / d h = phi(a) at the sum example (h = 1, eps = 1), checked by a central
    # difference of dpcore's delta in sigma (h = d / sigma)
    h, eps = 1.0, 1.0
    a = h / 2 - eps / h
    phi_a = math.exp(-a * a / 2) / math.sqrt(2 * math.pi)
    dh = 1e-6
    fd = (float(gaussian.delta(eps, h + dh, 1.0)) - float(gaussian.delta(eps, h - dh, 1.0))) / (
        2 * dh)
    if not math.isclose(fd, phi_a, rel_tol=1e-6):
        raise ArithmeticError("d delta / d h must equal phi(a)")
    v["dh_phi"] = sig(phi_a, 4)
    v["dh_fd"] = sig(fd, 4)

    # a simulation cannot check delta = 1e-6: draws needed for a +-10 % (95 %) estimate of
    # delta = P_D[S] - e^eps P_D'[S] at the calibrated sigma of the sum (n = 4, B = 1, eps = 1)
    target = 1e-6
    sg = gaussian.calibrate_sigma(1.0, target, 1.0)
    w = gaussian.worst_event(1.0, 1.0, sg)
    q = w.p1_scaled / math.e
    var = w.p0 * (1 - w.p0) + math.e**2 * q * (1 - q)
    need = (1.959963984540054 * math.sqrt(var) / (0.1 * target)) ** 2
    v["sim_sigma"] = sig(sg, 4)
    v["sim_p0"] = sci(w.p0, 3)
    v["sim_p0_tex"] = sci_tex(w.p0, 3)
    v["sim_p1"] = sci(q, 3)
    v["sim_p1_tex"] = sci_tex(q, 3)
    v["sim_need"] = sci(need, 2)
    v["sim_need_tex"] = sci_tex(need, 2)
    # app.lab.state.SIM_MAX (checked by tests/lessons/test_lessons_teach.py)
    v["sim_max"] = "200000"
    v["sim_ratio"] = sci(need / 200_000, 2)
    v["sim_ratio_tex"] = sci_tex(need / 200_000, 2)

    # the sketch of delta(eps): its value at eps = 0 and at the ends of the drawn window
    v["sk_d0"] = sig(float(gaussian.delta(0.0, 1.0, 1.0)), 3)
    v["sk_d1"] = sig(float(gaussian.delta(1.0, 1.0, 1.0)), 3)
    v["sk_d4"] = sci(float(gaussian.delta(4.0, 1.0, 1.0)), 2)
    v["sk_d4_tex"] = sci_tex(float(gaussian.delta(4.0, 1.0, 1.0)), 2)


def _polls(v: dict[str, str]) -> None:
    """Values of the local-vs-central section (the room's private polls): randomized response
    for a class of n = 100 at eps = ln 3 against the central count released once with Laplace
    (pure eps) or Gaussian noise (delta = 1e-5, the room's default), as the projector computes
    them (tests/lessons/test_lessons_polls.py checks them against app.room.poll)."""
    n, eps, delta = 100, math.log(3.0), 1e-5
    z95 = gaussian.noise_errors(1.0).half_width_95
    p = math.exp(eps) / (1.0 + math.exp(eps))  # P[the true answer is sent]
    lr = p / (1.0 - p)  # the largest likelihood ratio of what was sent: e^eps
    _same(lr, math.exp(eps), "randomized response: p / (1 - p) = e^eps")

    def local_sd(m: int) -> float:  # sd of p-hat: each report has variance p(1 - p)
        return math.sqrt(p * (1.0 - p) / m) / (2.0 * p - 1.0)

    _same(local_sd(n), math.exp(eps / 2) / ((math.exp(eps) - 1.0) * math.sqrt(n)),
          "sd of p-hat in closed form")

    def laplace_hw(m: int) -> float:  # count + Lap(1 / eps), divided by m: 95 % at b ln 20
        return math.log(20.0) / (eps * m)

    sigma = gaussian.calibrate_sigma(eps, delta, 1.0)  # count, L2 sensitivity 1
    v["rr_n"] = str(n)
    v["rr_n4"] = str(4 * n)
    v["rr_keep_pct"] = sig(100 * p, 3)
    v["rr_lr"] = sig(lr, 3)
    v["rr_local_sd"] = sig(local_sd(n), 2)
    v["rr_local_sd_approx"] = sig(1.0 / (math.sqrt(n) * eps), 2)
    v["rr_central_sd"] = sig(math.sqrt(2.0) / (n * eps), 2)
    loc, cen = z95 * local_sd(n), laplace_hw(n)
    v["rr_local_pp"] = fixed(100 * loc, 1)  # as the projector prints it (percentage points)
    v["rr_central_pp"] = fixed(100 * cen, 1)
    v["rr_gauss_sigma"] = sig(sigma, 3)
    v["rr_gauss_pp"] = fixed(100 * z95 * sigma / n, 1)
    v["rr_width_ratio"] = fixed(loc / cen, 1)
    v["rr_needed"] = f"{math.ceil((loc / cen) ** 2 * n):,}"
    loc4, cen4 = z95 * local_sd(4 * n), laplace_hw(4 * n)
    _same(loc4 / cen4, 2 * loc / cen, "the ratio of the widths grows like sqrt(n)")
    v["rr_local_pp_4n"] = fixed(100 * loc4, 1)
    v["rr_central_pp_4n"] = fixed(100 * cen4, 1)
    v["rr_width_ratio_4n"] = fixed(loc4 / cen4, 1)
    # a student's own account: eps per local poll answered, added (basic composition)
    polls = 3
    v["rr_polls"] = str(polls)
    v["rr_polls_eps"] = sig(polls * eps, 3)
    v["rr_polls_lr"] = sig(math.exp(polls * eps), 3)
    # the room's ledger: two central Gaussian polls, composed exactly (GDP), read at delta
    mu = accounting.gaussian_mu(1.0, sigma)
    v["rr_ledger2_eps"] = sig(accounting.gdp_epsilon(delta, accounting.gdp_compose([mu, mu])), 3)
    v["rr_basic2_eps"] = sig(2 * eps, 3)


def _too_close(v: dict[str, str]) -> None:
    """The card's third verdict: a claim equal to the exact δ of the sum example (Δ = σ = ε = 1)
    to 40 significant digits, and the fewest digits at which a claim is "too close to call"."""
    import mpmath as mp

    with mp.workdps(80):
        exact = mp.ncdf(mp.mpf(-0.5)) - mp.e * mp.ncdf(mp.mpf(-1.5))
        texts = {k: mp.nstr(exact, k) for k in range(20, 41)}
    claim = texts[40]
    verdict = {k: certify.certify("sum", 4, 1.0, 1.0, 1.0, s).verdict for k, s in texts.items()}
    if verdict[40] != "too_close":
        raise ArithmeticError("a 40-digit claim equal to δ must be too close to call")
    first = min(k for k in verdict if all(verdict[j] == "too_close" for j in range(k, 41)))
    v["tc_claim"] = claim
    v["tc_digits"] = str(first)


def _check_tour_answers() -> None:
    """The verdicts the tour (tour.*.toml) and the exercises state, checked against dpcore."""
    def passes(q: str, n: int, sigma: float, eps: float, claim: float) -> bool:
        return certify.certify(q, n, 1.0, sigma, eps, claim).passes

    expected = [
        (("sum", 4, 1.0, 1.0, 0.13), True),      # sum-card
        (("sum", 4, 1.0, 1.0, 0.126), False),    # sum-claim
        (("sum", 4, 1.0, 0.0, 0.5), True),       # eps-zero
        (("mean", 4, 1.0, 1.0, 0.13), True),     # mean
        (("mean", 4, 1.0, 1.0, 0.0), False),     # mean-zero
        (("mean", 32, 10.0, 10.0, 0.0), False),  # underflow
        (("mean", 32, 10.0, 10.0, 1e-300), True),  # underflow: a positive claim passes
        (("sum", 4, 1.0, 1.0, 1e-3), False),     # curve at ε = 1
        (("sum", 4, 1.0, 4.0, 1e-3), True),      # curve: click near ε = 4
        (("const", 4, 1.0, 1.0, 0.0), True),     # const
        (("sum", 4, 8.0, 0.5, 1e-5), True),      # calibrate: σ = 8
        (("sum", 4, 7.0, 0.5, 1e-5), False),     # calibrate: σ = 7
        (("count", 1000, 1.0, 1.0, 0.13), True),  # exercise count-query (B = 50 below)
    ]
    for args, want in expected:
        if passes(*args) != want:
            raise ArithmeticError(f"tour/exercise verdict changed for {args}: expected {want}")
    if not certify.certify("count", 1000, 50.0, 1.0, 1.0, 0.13).passes:
        raise ArithmeticError("count with B = 50 must pass 0.13")
    # The curve step's right option is "ε ≈ 3".
    if not 2.5 <= gaussian.epsilon(1e-3, 1.0, 1.0) < 3.5:
        raise ArithmeticError("the curve step's crossing is no longer near ε = 3")


# ---------------------------------------------------------------------------------------------
# What δ means to an attacker (issue 41 §4): the section "tradeoff", its examples, exercises,
# quiz and think-pair-share. Every rate comes from dpcore.tradeoff, every δ and ε from
# dpcore.gaussian; the identities the text states are checked here.
# ---------------------------------------------------------------------------------------------
TO_FPR = 0.05  # the attacker's false-positive rate the section reads (an input: 5 in 100)
TO_TARGET = 0.10  # example 2: no attacker at TO_FPR may catch more than 10 in 100
TO_DELTA = 1e-5  # the claimed δ at which a calibrated σ is read as ε
TO_HALF_WIDTH = 0.05  # exercise attack-error: the accepted 95 % half-width of the mean
TO_MEAN_N = 100  # ... of n = 100 records in [0, 1]
# the lab links of the new items (sigma, eps of the link): checked below against dpcore
TO_LINK_CAL = (2.76, 1.4)  # ex-attack-calibrate: sum, n = 4, B = 1, δ = 1e-5
TO_LINK_ERR = (0.0255, 1.53)  # attack-error: mean, n = 100, B = 1, δ = 1e-5


def _per100(rate: float) -> str:
    """"at most k in 100": the rate times 100 rounded up (never promises less than is true)."""
    return str(math.ceil(round(100.0 * rate, 9)))


def _tradeoff(v: dict[str, str]) -> None:
    from scipy import special as sc

    fpr, e = TO_FPR, math.e
    d = queries.sensitivity("sum", 4, 1.0)
    mu = d / 1.0  # example 1: the sum at σ = 1
    v["to_mu"] = sig(mu)
    # the references on the line (issue 41); titles stay in English in both languages
    v["ref_drs"] = ('Dong, Roth & Su, "Gaussian differential privacy" (arXiv:1905.02383, 2019; '
                    "*Journal of the Royal Statistical Society: Series B* 84, 2022)")
    v["ref_kov"] = ('Kairouz, Oh & Viswanath, "The composition theorem for differential privacy" '
                    "(ICML 2015)")
    v["to_fpr"] = sig(fpr)
    v["to_fa100"] = fixed(100 * fpr, 0)
    t, b = tradeoff.tpr(fpr, mu), tradeoff.tradeoff(fpr, mu)
    _same(t + b, 1.0, "TPR + β = 1")
    q = float(sc.ndtri(fpr))
    _same(float(sc.ndtr(q + mu)), t, "TPR = Φ(Φ⁻¹(α) + μ)")
    _same(float(sc.ndtr(float(sc.ndtri(1.0 - fpr)) - mu)), b, "β = Φ(Φ⁻¹(1 − α) − μ)")
    _same(tradeoff.tradeoff_inverse(b, mu), fpr, "β(β(α)) = α")
    _with_tex(v, "to_q05", fixed(q, 3))
    _with_tex(v, "to_s05", fixed(q + mu, 3))
    _with_tex(v, "to_tpr05", sig(t, 4))
    _with_tex(v, "to_beta05", sig(b, 4))
    v["to_hits100"] = _per100(t)

    # duality: δ(ε) = sup over α of (1 − e^ε α − β(α)); at ε = 1 the supremum sits at
    # α = Φ(c), TPR = Φ(a) (a, c of the worst-event section): the two numbers of example 1
    eps = 1.0
    delta1 = float(gaussian.delta(eps, d, 1.0))
    a_t = float(sc.ndtr(-eps / mu - mu / 2))
    t_t = tradeoff.tpr(a_t, mu)
    _same(t_t, float(sc.ndtr(mu / 2 - eps / mu)), "the tangent's TPR is Φ(a)")
    _same(t_t - e**eps * a_t, delta1, "δ(ε) is the supporting line's intercept")
    we = gaussian.worst_event(eps, d, 1.0)
    _same(t_t, we.p0, "the tangent's TPR is P0 of example 1")
    _same(e**eps * a_t, we.p1_scaled, "e^ε times the tangent's FPR is e^ε P1 of example 1")
    grid = [k / 4000 for k in range(1, 4000)]
    best = max(1.0 - e**eps * x - tradeoff.tradeoff(x, mu) for x in grid)
    if not (best <= delta1 * (1 + 1e-12) and best > delta1 * (1 - 1e-5)):
        raise ArithmeticError("δ(ε) must be the supremum of 1 − e^ε α − β(α)")
    _with_tex(v, "to_tan_fpr", sig(a_t, 4))
    _with_tex(v, "to_tan_tpr", sig(t_t, 4))
    _with_tex(v, "to_tan_efpr", sig(e**eps * a_t, 4))
    _with_tex(v, "to_delta1", sig(delta1, 4))
    v["to_delta1_100"] = _per100(delta1)  # a wrong quiz answer reads δ as a hit rate
    cap = e**eps * fpr + delta1  # the single line of (1, δ(1)) at 5 %
    if not t <= cap:
        raise ArithmeticError("the curve must lie under every line of its profile")
    _with_tex(v, "to_line_cap05", sig(cap, 4))
    # one (ε, δ) pair alone: σ = 1 meets δ = 1e-5 at ε = 4.377..., a line that allows > 1
    eps5 = gaussian.epsilon(TO_DELTA, d, 1.0)
    _with_tex(v, "to_weak_eps", sig(eps5, 4))
    _with_tex(v, "to_weak_cap", sig(math.exp(eps5) * fpr + TO_DELTA, 4))

    # the largest advantage 2Φ(μ/2) − 1 = δ(0) (total variation) at α* = Φ(−μ/2)
    adv = tradeoff.best_advantage(mu)
    a_star = tradeoff.best_advantage_fpr(mu)
    _same(adv, float(gaussian.delta(0.0, d, 1.0)), "the best advantage is δ(0)")
    _same(tradeoff.tpr(a_star, mu) - a_star, adv, "the advantage at α* is the largest")
    if not all(tradeoff.advantage(x, mu) <= adv * (1 + 1e-12) for x in grid):
        raise ArithmeticError("no false-positive rate may beat the best advantage")
    _with_tex(v, "to_adv", sig(adv, 4))
    _with_tex(v, "to_adv_fpr", sig(a_star, 4))
    _with_tex(v, "to_adv_tpr", sig(tradeoff.tpr(a_star, mu), 4))
    v["to_adv100"] = _per100(adv)

    # example 2: σ from an attacker's hit rate (at most 10 in 100 at 5 in 100), ε at 1e-5
    cal = tradeoff.calibrate_sigma_tpr(TO_TARGET, fpr, d, TO_DELTA)
    if cal.tpr is None or cal.eps is None or not cal.tpr <= TO_TARGET:
        raise ArithmeticError("the calibrated σ must keep every attacker at the target")
    _same(cal.mu, float(sc.ndtri(TO_TARGET)) - q, "μ = Φ⁻¹(TPR) − Φ⁻¹(α)")
    v["to_cal_target100"] = fixed(100 * TO_TARGET, 0)
    v["to_target"] = fixed(TO_TARGET, 2)
    _with_tex(v, "to_q10", fixed(float(sc.ndtri(TO_TARGET)), 3))
    _with_tex(v, "to_cal_mu", sig(cal.mu, 4))
    _with_tex(v, "to_cal_sigma", sig(cal.sigma, 4))
    _with_tex(v, "to_cal_hw", sig(cal.half_width, 4))
    _with_tex(v, "to_cal_eps", sig(cal.eps, 4))
    _same(tradeoff.calibrate_sigma_tpr(TO_TARGET, fpr, 0.25).sigma, 0.25 * cal.sigma,
          "the calibrated σ scales with Δ")
    _with_tex(v, "to_cal_sigma_mean", sig(0.25 * cal.sigma, 4))
    s_link, e_link = TO_LINK_CAL
    if not (s_link >= cal.sigma and tradeoff.tpr(fpr, d / s_link) <= TO_TARGET
            and certify.certify("sum", 4, 1.0, s_link, e_link, TO_DELTA).passes):
        raise ArithmeticError("ex-attack-calibrate's lab link must keep the target and pass")

    # the usual claim (1, 1e-5): its smallest σ, the attacker it leaves, the line it draws
    star = gaussian.calibrate_sigma(1.0, TO_DELTA, d)
    t_star = tradeoff.tpr(fpr, d / star)
    line = e * fpr + TO_DELTA
    _with_tex(v, "to_star_mu", sig(d / star, 4))
    _with_tex(v, "to_star_tpr05", sig(t_star, 4))
    v["to_star_hits100"] = _per100(t_star)
    _with_tex(v, "to_line_1e5", sig(line, 4))
    v["to_line_1e5_hits100"] = _per100(line)

    # exercise attack-error: accuracy first (the mean of n = 100 within ±0.05 at 95 %)
    d_m = queries.sensitivity("mean", TO_MEAN_N, 1.0)
    err = tradeoff.calibrate_sigma_error(TO_HALF_WIDTH, d_m, TO_DELTA, fpr)
    if err.tpr is None or err.eps is None:
        raise ArithmeticError("the error calibration must give a TPR and an ε")
    v["to_err_n"] = str(TO_MEAN_N)
    v["to_err_sens"] = sig(d_m)
    v["to_err_hw"] = sig(TO_HALF_WIDTH)
    _with_tex(v, "to_err_sigma", sig(err.sigma, 4))
    _with_tex(v, "to_err_mu", sig(err.mu, 4))
    _with_tex(v, "to_err_tpr05", sig(err.tpr, 4))
    v["to_err_hits100"] = _per100(err.tpr)
    _with_tex(v, "to_err_eps", sig(err.eps, 4))
    s_link, e_link = TO_LINK_ERR
    if not (s_link <= err.sigma
            and certify.certify("mean", TO_MEAN_N, 1.0, s_link, e_link, TO_DELTA).passes):
        raise ArithmeticError("attack-error's lab link must keep the accuracy and pass")

    # exercise attack-compose: one sum release at σ = 2, then four (GDP: μ = 1, example 1)
    mu_one = accounting.gaussian_mu(d, 2.0)
    _same(accounting.gdp_compose([mu_one] * 4), mu, "four releases at σ = 2 are μ = 1")
    t_one = tradeoff.tpr(fpr, mu_one)
    _with_tex(v, "to_one_tpr05", sig(t_one, 4))
    v["to_one_hits100"] = _per100(t_one)


def _under_line(v: Mapping[str, str], tpr: str, cap: str, fa: str) -> tuple[str, str]:
    """Is the Gaussian's true-positive rate (shown) under the cap one (ε, δ) line allows?"""
    c = vd.cmp(v[tpr], v[cap])
    head_ko = f"거짓 양성률 {v[fa]}%에서 곡선의 값은 {v[tpr]}, 선의 값은 {v[cap]}입니다. "
    head_en = (f"At a false-positive rate of {v[fa]} % the curve is at {v[tpr]} and the line "
               f"at {v[cap]}: ")
    ko = {-1: "곡선이 선 아래에 있어서, 실제 공격자는 이 (ε, δ) 한 쌍이 허용하는 만큼 맞히지 "
              "못합니다.",
          0: "표시한 자릿수로는 둘이 같습니다. 선이 곡선에 닿는 점 가까이입니다.",
          1: "곡선이 선 위로 나갑니다. 이 (ε, δ) 주장은 성립하지 않습니다."}[c]
    en = {-1: "the curve lies under the line, so the real attacker catches less than this one "
              "(ε, δ) pair allows.",
          0: "equal at the precision shown, near the point where the line touches the curve.",
          1: "the curve rises above the line, so this (ε, δ) claim does not hold."}[c]
    return head_ko + ko, head_en + en


def _vd_to_line(v: Mapping[str, str], out: dict[str, str]) -> None:
    """The section: the curve at 5 % against the single line of (1, δ(1))."""
    out["vd_to_line_ko"], out["vd_to_line_en"] = _under_line(
        v, "to_tpr05", "to_line_cap05", "to_fa100")


def _vd_to_tps(v: Mapping[str, str], out: dict[str, str]) -> None:
    """The think-pair-share: the Gaussian at the smallest σ for (1, 1e-5) against its line."""
    out["vd_to_tps_ko"], out["vd_to_tps_en"] = _under_line(
        v, "to_star_tpr05", "to_line_1e5", "to_fa100")


def _vd_to_weak(v: Mapping[str, str], out: dict[str, str]) -> None:
    """The section: does the line of (4.377, 1e-5) alone say anything at 5 %?"""
    cap, fa = v["to_weak_cap"], v["to_fa100"]
    c = vd.cmp(cap, "1")
    ko = f"이 선 하나가 거짓 양성률 {fa}%에서 허용하는 참 양성률은 {cap}입니다. "
    en = (f"On its own, at a false-positive rate of {fa} %, this line caps the true-positive "
          f"rate at {cap}")
    if c > 0:
        ko += "확률이 가질 수 있는 가장 큰 값 1보다 크므로, 이 선은 여기서 아무것도 막지 못합니다."
        en += ": more than 1, the largest a probability can be, so here it rules out nothing."
    elif c == 0:
        ko += "확률이 가질 수 있는 가장 큰 값 1과 같으므로, 이 선은 여기서 아무것도 막지 못합니다."
        en += ": 1, the largest a probability can be, so here it rules out nothing."
    else:
        ko += "1보다 작으므로 이 선도 여기서 공격자를 어느 정도 막습니다."
        en += ": less than 1, so this line does limit the attacker here."
    out["vd_to_weak_ko"], out["vd_to_weak_en"] = ko, en


def _vd_to_cal(v: Mapping[str, str], out: dict[str, str]) -> None:
    """Example 2: the σ of the hit-rate target against the smallest σ of (1, 1e-5)."""
    mine, star = v["to_cal_sigma"], v["exact_sigma"]
    c = vd.cmp(mine, star)
    ko = {-1: f"흔히 쓰는 주장 (ε, δ) = (1, 10⁻⁵)의 가장 작은 σ인 {star}보다 작은 잡음으로 "
              "충분합니다.",
          0: f"흔히 쓰는 주장 (ε, δ) = (1, 10⁻⁵)의 가장 작은 σ인 {star}, 표시한 자릿수로 "
             "같은 잡음입니다.",
          1: f"흔히 쓰는 주장 (ε, δ) = (1, 10⁻⁵)의 가장 작은 σ인 {star}보다 큰 잡음이 "
             "필요합니다."}[c]
    en = {-1: f"less noise than the smallest σ for the usual claim (ε, δ) = (1, 10⁻⁵), {star}.",
          0: f"the same noise, at the precision shown, as the smallest σ for the usual claim "
             f"(ε, δ) = (1, 10⁻⁵), {star}.",
          1: f"more noise than the smallest σ for the usual claim (ε, δ) = (1, 10⁻⁵), "
             f"{star}."}[c]
    out["vd_to_cal_ko"], out["vd_to_cal_en"] = ko, en


#: the comparative sentences of the attacker's section, each a pure function of shown values
TRADEOFF_VERDICTS = (_vd_to_line, _vd_to_tps, _vd_to_weak, _vd_to_cal)


def tradeoff_verdicts(v: Mapping[str, str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for group in TRADEOFF_VERDICTS:
        group(v, out)
    return out
