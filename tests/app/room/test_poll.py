"""The numbers of the private polls and the class CDF, without a server: randomized response
against exact formulas, unbiasedness and coverage by simulation (fixed seeds), the central
model's calibration by dpcore, the class CDF release audited like /cdf (L2 sensitivity 1/n,
the ledger), the teacher's bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.room import poll as P
from dpcore import accounting, gaussian


def rr(truths: np.ndarray, eps: float, k: int, rng: np.random.Generator) -> np.ndarray:
    """k-ary randomized response as assets/dplab-poll.js does it (numpy's generator here)."""
    keep = rng.random(truths.size) < P.keep_probability(eps, k)
    other = rng.integers(0, k - 1, truths.size)
    other = np.where(other >= truths, other + 1, other)
    return np.where(keep, truths, other)


def test_keep_probability_and_ratio() -> None:
    assert P.keep_probability(math.log(3)) == pytest.approx(0.75, abs=1e-15)
    for eps in (0.1, 1.0, math.log(3), 5.0):
        for k in (2, 3, 6):
            p, q = P.keep_probability(eps, k), P.other_probability(eps, k)
            assert p + (k - 1) * q == pytest.approx(1.0, abs=1e-14)
            assert P.likelihood_ratio(eps, k) == pytest.approx(math.exp(eps), rel=1e-12)


def test_binary_estimate_and_interval_exact() -> None:
    eps, n_yes, n = math.log(3), 27, 40
    p = 0.75
    [yes, no] = P.local_estimates([n_yes, n - n_yes], eps)
    ybar = n_yes / n
    want = (ybar - (1 - p)) / (2 * p - 1)
    assert yes.estimate == pytest.approx(want, rel=1e-12)
    sd = math.sqrt(p * (1 - p) / n) / (2 * p - 1)
    assert yes.sd == pytest.approx(sd, rel=1e-12)
    lo, hi = want - 1.959963984540054 * sd, want + 1.959963984540054 * sd
    assert (yes.lo, yes.hi) == (pytest.approx(max(0, lo)), pytest.approx(min(1, hi)))
    assert yes.clipped == (lo < 0 or hi > 1)
    assert no.estimate == pytest.approx(1 - want, rel=1e-12)
    # all "yes" sent: the estimate is above 1, the interval is clipped and says so
    [top, _] = P.local_estimates([40, 0], eps)
    assert top.estimate == pytest.approx(1.5) and top.hi == 1.0 and top.clipped
    assert P.local_estimates([0, 0], eps)[0].clipped  # no answers: nothing to read


@pytest.mark.parametrize("k", [2, 4])
def test_rr_unbiased_and_covers(k: int) -> None:
    rng = np.random.default_rng(20261201)
    eps, n, trials = 1.0, 200, 2000
    truths = np.repeat(np.arange(k), [n // 2] + [n // (2 * (k - 1))] * (k - 1))[:n]
    truths = np.concatenate([truths, np.zeros(n - truths.size, int)])
    share = np.bincount(truths, minlength=k) / n
    ests = np.empty((trials, k))
    covered = np.zeros(k)
    for i in range(trials):
        counts = np.bincount(rr(truths, eps, k, rng), minlength=k).tolist()
        es = P.local_estimates(counts, eps)
        ests[i] = [e.estimate for e in es]
        covered += [e.estimate - 1.96 * e.sd <= s <= e.estimate + 1.96 * e.sd
                    for e, s in zip(es, share, strict=True)]
    se = ests.std(axis=0) / math.sqrt(trials)
    assert np.all(np.abs(ests.mean(axis=0) - share) < 4 * se)  # unbiased
    assert np.all(covered / trials > 0.92)  # the 95 % interval covers about 95 %


def test_central_model_calibrated_by_dpcore() -> None:
    eps, delta = math.log(3), 1e-5
    sigma, sens = P.central_scale(eps, delta, "gaussian")
    assert sens == 1.0 and sigma == gaussian.calibrate_sigma(eps, delta, 1.0)
    assert P.central_scale(eps, delta, "gaussian", k=3) == (
        gaussian.calibrate_sigma(eps, delta, math.sqrt(2.0)), math.sqrt(2.0))
    assert P.central_scale(eps, delta, "laplace") == (1 / eps, 1.0)
    assert P.central_scale(eps, delta, "laplace", k=4) == (2 / eps, 2.0)
    rel = P.central_release([30, 10], eps, delta, "gaussian", np.random.default_rng(1))
    z = np.random.default_rng(1).normal(0, sigma, 2)
    assert rel.options[0].noisy_count == pytest.approx(30 + z[0])
    assert rel.options[0].estimate == pytest.approx((30 + z[0]) / 40)
    half = 1.959963984540054 * sigma / 40
    lo, hi = rel.options[0].ci95
    assert hi - lo <= 2 * half + 1e-12
    assert "true" not in str(rel) and 30 not in [o.noisy_count for o in rel.options]
    step = P.central_step(rel)
    assert step.mu == pytest.approx(1.0 / sigma)
    lap = P.central_release([3, 2, 1], 1.0, 0.0, "laplace", np.random.default_rng(2))
    assert lap.delta == 0.0 and P.central_step(lap).mu is None
    assert P.central_half_width(1.0, 0.0, "laplace", 10, 3) == pytest.approx(2 * math.log(20) / 10)


def test_local_against_central() -> None:
    c = P.comparison(math.log(3), 1e-5, 40)
    assert c["local"] == pytest.approx(1.959963984540054 * math.sqrt(0.1875 / 40) / 0.5)
    assert c["central"] == pytest.approx(math.log(20) / (40 * math.log(3)))  # Laplace, pure ε
    assert c["gaussian"] == pytest.approx(
        1.959963984540054 * gaussian.calibrate_sigma(math.log(3), 1e-5, 1.0) / 40)
    assert c["ratio"] > 1  # the local model pays for not trusting the server
    assert c["n_needed"] == pytest.approx(c["ratio"] ** 2 * 40)
    # local shrinks like 1/sqrt(n), central like 1/n
    c4 = P.comparison(math.log(3), 1e-5, 160)
    assert c4["local"] == pytest.approx(c["local"] / 2)
    assert c4["central"] == pytest.approx(c["central"] / 4)
    assert c4["gaussian"] == pytest.approx(c["gaussian"] / 4)


def test_teacher_input() -> None:
    for bad in ("0", "-1", "10.5", "nan", "inf", "", "x", None):
        with pytest.raises(P.PollError) as e:
            P.parse_eps(bad)
        assert e.value.field == "eps"
    assert P.parse_eps("10") == 10.0 and P.parse_eps("1,5") == 1.5
    with pytest.raises(P.PollError):
        P.parse_question("x" * 301, None)
    with pytest.raises(P.PollError):
        P.parse_question("   ", "")
    assert P.parse_question("x" * 300, None) == ("x" * 300, "")
    assert P.parse_question("", "homework") == ("", "homework")
    with pytest.raises(P.PollError):
        P.parse_range("3", "3")
    with pytest.raises(P.PollError):
        P.parse_range("a", "3")
    assert P.parse_range("0", "12") == (0.0, 12.0)
    with pytest.raises(P.PollError):
        P.parse_choices("a\nb")
    with pytest.raises(P.PollError):
        P.parse_choices("a\na\nb")
    assert P.parse_choices("a\n\n b \nc") == ["a", "b", "c"]
    assert P.parse_value(13, 0, 12) is None and P.parse_value("nan", 0, 12) is None
    assert P.parse_value(True, 0, 12) is None and P.parse_value("7.5", 0, 12) == 7.5
    poll = P.new_poll(question="q", preset="", eps=1.0)
    assert P.option_index(poll, "yes") == 0 and P.option_index(poll, "no") == 1
    assert P.option_index(poll, 0) is None and P.option_index(poll, "maybe") is None
    choice = P.new_poll(question="q", preset="", eps=1.0, kind="choice", options=["a", "b", "c"])
    assert P.option_index(choice, 2) == 2 and P.option_index(choice, 3) is None
    assert P.option_index(choice, True) is None


def test_class_cdf_release_audited() -> None:
    rng = np.random.default_rng(7)
    vals = list(rng.uniform(4, 10, 30))
    rel = P.release_cdf(vals, 0.0, 12.0, 1.0, 1e-5, "pp", rng=1)
    assert rel.n == 30 and rel.sensitivity == pytest.approx(1 / 30)  # L2, 1/n
    assert rel.norm == "L2" and rel.mechanism == "gaussian"
    assert sorted(rel.curves, key=int) == [str(d) for d in range(P.CDF_K_MAX + 1)]
    for ys in rel.curves.values():
        assert all(0 <= y <= 1 for y in ys) and all(np.diff(ys) >= -1e-9)
    assert not set(np.round(vals, 5)) & set(rel.xs)  # the grid is public, not the data
    assert "values" not in rel.to_dict()
    sigma = rel.noise_scale
    assert sigma == pytest.approx(gaussian.calibrate_sigma(1.0, 1e-5, 1 / 30))
    assert rel.step.mu == pytest.approx((1 / 30) / sigma)
    # the ledger: two Gaussian releases compose exactly in GDP; a Laplace one adds basically
    hq = P.release_cdf(vals, 0.0, 12.0, 0.5, 1e-5, "hq", rng=2)
    led = P.ledger([rel.step, rel.step], 1e-5)
    assert led["rule"] == "gdp" and led["count"] == 2
    assert led["eps"] == pytest.approx(
        accounting.gdp_epsilon(1e-5, math.sqrt(2) * rel.step.mu))
    assert led["eps"] < led["basic_eps"] == pytest.approx(2.0)
    mixed = P.ledger([rel.step, hq.step], 1e-5)
    assert mixed["rule"] == "mixed" and mixed["eps"] == pytest.approx(
        accounting.gdp_epsilon(1e-5, rel.step.mu) + hq.step.eps)
    assert P.ledger([], 1e-5)["count"] == 0
    with pytest.raises(P.PollError):
        P.release_cdf([1.0], 0, 12, 1.0, 1e-5, "pp")
    with pytest.raises(P.PollError):
        P.release_cdf(vals, 0, 12, 1.0, 1e-5, "auto")  # an explicit method only
    assert P.true_cdf([1, 2, 2, 5], [0, 1, 2, 4, 5]) == [0, 0.25, 0.75, 0.75, 1.0]


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_formula_names_the_class_share_pi_hat_and_says_clipping_biases_it(lang: str) -> None:
    """Issue 39 (11): the class share is π̂, p stays the probability of keeping the answer;
    the estimate shown large is clipped to [0, 1], which biases it, and the unclipped value is
    in the teacher's table (12 "no" reports at ε = ln 3: π̂ = −50 %, shown as 0 %)."""
    import html
    import re

    from app.room import poll_results
    from app.shell.i18n import t

    poll = P.new_poll(question="q", preset="", eps=math.log(3))
    res = P.results(poll, {f"s{i}": "1" for i in range(12)})
    page = html.unescape(re.sub(r"<[^>]+>", " ", poll_results.results_html(poll, res, lang)))
    formula = t("poll.res.formula2", lang, p="0.7500", q="0.2500")
    assert formula in page
    assert "p̂" not in page and "π̂ = (ȳ − (1 − p)) / (2p − 1)" in formula
    assert "π̂ ± 1.96" in formula and "0.7500" in formula
    words = {"en": ("probability that a true answer is sent as it is", "biased", "clipped"),
             "ko": ("진짜 답을 그대로 보낼 확률", "편향이 생깁니다", "클리핑")}[lang]
    assert all(w in formula for w in words), formula
    assert t("poll.res.col.est", lang).split("(")[0].strip() in formula  # names the column
    # the big estimate is clipped, the unbiased −50 % is in the table
    # (percent spacing by language, lessons/terms.toml: "50.0%" in Korean, "50.0 %" in English)
    sign = {"ko": "%", "en": " %"}[lang]
    assert re.search(r"[−-]50\.0" + sign, page)
    big = re.search(r'class="dp-poll-estimate">([^<]+)<',
                    poll_results.results_html(poll, res, lang))
    assert big and big.group(1) == "0.0" + sign
    k3 = P.new_poll(question="q", preset="", eps=1.0, kind="choice", options=["a", "b", "c"])
    text = t("poll.res.formulak", lang, p="0.5761", q="0.2119")
    assert "π̂ = (ȳ − q) / (p − q)" in text and words[1] in text
    assert text in html.unescape(poll_results.results_html(
        k3, P.results(k3, {"s1": "0", "s2": "1"}), lang))
