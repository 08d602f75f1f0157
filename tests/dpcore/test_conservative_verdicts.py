"""Issue 10: every problem the adversarial review reproduced, as a test, plus the 10,000-case
checks against mpmath (precomputed: tests/reference/conservative_reference.json, made by
tests/reference/make_conservative_reference.py; mpmath at 40+ digits, see there).

The reference answers are stored rounded in the safe direction (h* down, eps* up), and the
comparisons below are exact rational comparisons, so a pass proves the returned sigma / eps
conservative for the exact delta of the exact inputs.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import warnings
from fractions import Fraction
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest

from app import cli
from app.lab.state import LabState
from app.shell.i18n import LANGUAGES, catalogue, t
from dpcore import certify, gaussian, queries
from dpcore.cdf import estimate
from dpcore.cdf.isotonic import isotonic
from dpcore.errors import ENGLISH, DPError

REF = json.loads((Path(__file__).parents[1] / "reference" / "conservative_reference.json")
                 .read_text())


def mp_ln_delta(eps: object, h: object, dps: int = 60) -> mp.mpf:
    """Exact ln delta (Balle & Wang 2018, Thm 8) at ``dps`` digits; h may be a Fraction."""
    with mp.workdps(dps):
        e = mp.mpf(eps)
        hh = (mp.mpf(h.numerator) / mp.mpf(h.denominator) if isinstance(h, Fraction)
              else mp.mpf(h))
        a, c = hh / 2 - e / hh, -hh / 2 - e / hh
        if a > 1:
            return mp.log1p(-(mp.ncdf(-a) + mp.exp(e) * mp.ncdf(c)))
        return mp.log(mp.ncdf(a) - mp.exp(e) * mp.ncdf(c))


def run_cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app.cli", *argv], capture_output=True,
                          text=True, timeout=120)


# ---- 1. a false "pure DP" from an underflowing B/n ----------------------------------------------
def test_1_mean_whose_sensitivity_underflows_is_not_pure_dp() -> None:
    c = certify.certify("mean", "1e30", 1e-300, 1e-300, 0.0, 0.0)
    assert c.mathematically_positive and not c.pure_dp_possible
    assert not c.passes and c.reason == "claim_zero_positive_delta"
    assert c.sensitivity_underflow and c.log10_sensitivity == pytest.approx(-330.0, abs=1e-12)
    assert c.h == pytest.approx(1e-30, rel=1e-15)
    # delta(0) = erf(h / (2 sqrt 2)) ~ 4e-31 for the true h = 1e-30
    ref = mp_ln_delta(0, Fraction(1e-300) / (10**30 * Fraction(1e-300)), 80)
    assert c.log_delta == pytest.approx(float(ref), rel=1e-14)
    assert c.required_delta == pytest.approx(3.989422804014327e-31, rel=1e-13)
    d = c.as_dict()
    assert d["sensitivity"] == "1.000000000e-330" and d["pure_dp_possible"] is False


def test_1_cli_json_never_reports_zero_sensitivity() -> None:
    proc = run_cli("certify", "--query", "mean", "--n", "1e30", "--B", "1e-300", "--sigma",
                   "1e-300", "--eps", "0", "--delta", "0", "--json")
    assert proc.returncode == 0
    out = json.loads(proc.stdout)
    assert out["sensitivity"] != 0.0 and out["sensitivity"].endswith("e-330")
    assert out["passes"] is False and out["pure_dp_possible"] is False


def test_1_sensitivity_is_exact_for_huge_n() -> None:
    assert queries.sensitivity_exact("mean", 10**400, 1.0) == Fraction(1, 10**400)
    assert queries.log10_sensitivity("mean", 10**400, 1.0) == pytest.approx(-400.0)
    assert queries.sensitivity("mean", 10**400, 1.0) == 0.0  # the double, documented


# ---- 2. the verdict is conservative, with a margin far below 1e-12 -------------------------------
def test_2_claim_a_hair_below_the_true_delta_fails() -> None:
    c = certify.certify("sum", 4, 1, 1, 1, 0.12693673750664386)
    assert float(mp_ln_delta(1, 1)) > math.log(0.12693673750664386)  # truly too small
    assert not c.passes and c.verdict == "fail" and c.reason == "claim_too_small"
    assert c.decided_by == "mpmath"
    assert c.log_delta_lo <= float(mp_ln_delta(1, 1)) <= c.log_delta_hi


@pytest.mark.parametrize(("query", "n", "B", "sigma", "eps"),
                         [("sum", 4, 1.0, 1.0, 1.0), ("mean", 1000, 1.0, 0.01, 2.0),
                          ("count", 7, 3.0, 2.5, 0.0), ("mean", 32, 1.0, 10.0, 10.0)])
def test_2_verdict_matches_mpmath_around_the_true_delta(query, n, B, sigma, eps) -> None:
    sens = queries.sensitivity_exact(query, n, B)
    with mp.workdps(60):
        true_ld = mp_ln_delta(eps, sens / Fraction(sigma), 60)
        for rel, want in (("1e-12", True), ("-1e-12", False), ("1e-15", True),
                          ("-1e-15", False)):
            claim = mp.nstr(mp.exp(true_ld) * (1 + mp.mpf(rel)), 30)
            c = certify.certify(query, n, B, sigma, eps, claim)
            assert c.passes is want, (query, rel, c.verdict, c.decided_by)
    # a claim 1e-12 above the true delta passes without the slow path when delta is normal
    if true_ld > -700:
        with mp.workdps(60):
            claim = mp.nstr(mp.exp(true_ld) * (1 + mp.mpf("1e-12")), 30)
        assert certify.certify(query, n, B, sigma, eps, claim).decided_by == "double"


def test_2_the_cards_own_required_delta_is_decided_exactly() -> None:
    for args in (("sum", 4, 1.0, 1.0, 1.0), ("mean", 1000, 1.0, 0.01, 2.0)):
        shown = certify.certify(*args, 0.5).required_delta
        c = certify.certify(*args, repr(shown))
        with mp.workdps(60):
            truth = mp_ln_delta(args[4], queries.sensitivity_exact(*args[:3])
                                / Fraction(args[3]), 60) <= mp.log(mp.mpf(repr(shown)))
        assert c.passes is bool(truth)


def test_2_too_close_to_call_is_not_a_pass() -> None:
    with mp.workdps(120):
        exact = mp.nstr(mp.exp(mp_ln_delta(1, 1, 120)), 90)
    c = certify.certify("sum", 4, 1, 1, 1, exact)
    assert c.verdict == "too_close" and not c.passes and c.reason == "too_close_to_call"
    for lang in LANGUAGES:
        assert t("lab.reason.too_close_to_call", lang) and t("cli.verdict.too_close", lang)


def test_2_bound_is_stated_and_small() -> None:
    c = certify.certify("sum", 4, 1, 1, 1, 0.13)
    width = c.log_delta_hi - c.log_delta_lo
    assert 0 < width < 1e-13 and c.decided_by == "double" and c.passes


# ---- 3. conservative inverses: the issue's cases and 10,000 random cases each ----------------
def test_3_epsilon_case_from_the_issue() -> None:
    t_, d, s = 2.0262742853219547e-09, 1.092864754516252, 0.009400277123117699
    e = gaussian.epsilon(t_, d, s)
    with mp.workdps(60):
        assert mp_ln_delta(e, Fraction(d) / Fraction(s)) <= mp.log(mp.mpf(t_))


def test_3_error_bound_holds_on_10000_points() -> None:
    rows = REF["profile"]
    assert len(rows) >= 10_000
    worst = 0.0
    for e, h, ref in rows:
        e, h, ref = float(e), float(h), float(ref)
        p = gaussian._parts(e, h)
        err = abs(p.log_delta - ref)
        bound = gaussian._error_bound(p)
        assert err <= bound, (e, h, p.path, err, bound)
        worst = max(worst, err / bound)
    assert worst < 0.6  # the bound is not vacuous either: see the docstring of _error_bound
    eps = np.array([float(r[0]) for r in rows])
    hh = np.array([float(r[1]) for r in rows])
    ref = np.array([float(r[2]) for r in rows])
    vec = gaussian.log_delta(eps, hh, 1.0)  # the vectorised twin, same formulas
    scalar = np.array([gaussian.log_delta(float(a), float(b), 1.0) for a, b in zip(eps, hh,
                                                                                    strict=True)])
    scale = np.maximum(1.0, np.abs(ref))
    assert np.all(np.abs(vec - scalar) <= 1e-15 * scale)
    # accuracy: a few ulps of max(1, |ln delta|), up to 2e-14 where a = h/2 - eps/h ~ 0 with
    # h ~ 500..1000 (a carries the rounding of eps/h ~ 500 ulps of 1); the contract is 1e-12
    assert np.all(np.abs(vec - ref) <= 3e-14 * scale)
    assert np.median(np.abs(vec - ref) / scale) < 3e-16


def test_3_calibrate_sigma_is_conservative_on_10000_cases() -> None:
    rows = REF["calibrate"]
    assert len(rows) >= 10_000
    gaps = []
    for e, t_, d, h_star in rows:
        e, t_, d = float(e), float(t_), float(d)
        sigma = gaussian.calibrate_sigma(e, t_, d)
        hs = Fraction(h_star)
        h = Fraction(d) / Fraction(sigma)
        assert h <= hs, (e, t_, d)  # exact delta(eps; d/sigma) <= target
        gaps.append(float((hs - h) / hs))
    gaps_a = np.array(gaps)
    assert np.median(gaps_a) < 1e-14 and gaps_a.max() < 1e-12  # and tight


def test_3_epsilon_is_conservative_on_10000_cases() -> None:
    rows = REF["epsilon"]
    assert len(rows) >= 10_000
    gaps = []
    for t_, d, s, e_star in rows:
        t_, d, s = float(t_), float(d), float(s)
        e = gaussian.epsilon(t_, d, s)
        if e_star == "0":
            assert e < 1e-6 or e == 0.0
            continue
        es = Fraction(e_star)
        assert math.isfinite(e) and Fraction(e) >= es, (t_, d, s)
        gaps.append(float((Fraction(e) - es) / es))
    gaps_a = np.array(gaps)
    assert np.median(gaps_a) < 1e-14 and gaps_a.max() < 1e-11


def test_3_calibrate_at_large_eps_stays_within_target() -> None:
    rng = np.random.default_rng(3)
    for _ in range(40):
        e, tt = float(10 ** rng.uniform(2, 4)), float(10 ** rng.uniform(-300, -1))
        sigma = gaussian.calibrate_sigma(e, tt, 1.0)
        with mp.workdps(50):
            assert mp_ln_delta(e, Fraction(1) / Fraction(sigma), 50) <= mp.log(mp.mpf(tt))


# ---- 4. tight near delta = 1 ---------------------------------------------------------------------
def test_4_calibrate_near_delta_one_is_tight() -> None:
    target = 1 - 2**-52
    sigma = gaussian.calibrate_sigma(1.0, target, 1.0)
    with mp.workdps(60):
        lt = mp.log(mp.mpf(target))
        lo, hi = mp.mpf(1), mp.mpf(100)  # bisection on h for the true minimum
        for _ in range(200):
            mid = (lo + hi) / 2
            if mp_ln_delta(1, mid, 60) > lt:
                hi = mid
            else:
                lo = mid
        assert Fraction(1) / Fraction(sigma) <= Fraction(mp.nstr(lo, 40))
        assert float(sigma * lo - 1) < 1e-12  # was 2.4 % above the minimum


# ---- 5. sigma beyond the double range is an error, not "inf" ------------------------------------
@pytest.mark.parametrize("argv", [["--eps", "0", "--delta", "1e-310", "--sensitivity", "1"],
                                  ["--eps", "1e-300", "--delta", "1e-5", "--sensitivity",
                                   "1e308"]])
def test_5_sigma_overflow_exits_2(argv, capsys) -> None:
    for lang, words in (("en", "exceeds the double range"), ("ko", "배정밀도 범위")):
        assert cli.main(["calibrate", *argv, "--lang", lang]) == 2
        out = capsys.readouterr()
        assert words in out.err and "inf" not in out.out
        assert len(out.err.strip().splitlines()) == 1
    with pytest.raises(DPError) as exc:
        gaussian.calibrate_sigma(float(argv[1]), float(argv[3]), float(argv[5]))
    assert exc.value.key == "sigma_overflow"


def test_5_inf_only_for_delta_zero_with_its_own_message(capsys) -> None:
    assert gaussian.calibrate_sigma(1.0, 0.0, 1.0) == math.inf
    assert cli.main(["calibrate", "--eps", "1", "--delta", "0", "--sensitivity", "1",
                     "--lang", "en"]) == 0
    assert "no finite sigma gives delta = 0" in capsys.readouterr().out


# ---- 6. tiny h: computed in logs, or a clear error -------------------------------------------
@pytest.mark.parametrize(("eps", "d"), [(1e-22, 1e-175), (0.0, 5e-324), (1e-300, 1e-315),
                                        (0.0, 1e-315), (0.0, 1e-320), (1e-310, 1e-300),
                                        (1e-200, 1e-180), (3.0, 1e-30)])
def test_6_tiny_h_matches_mpmath(eps, d) -> None:
    got = gaussian.log_delta(eps, d, 1.0)
    ref = mp_ln_delta(eps, d, 400)
    assert abs(got - float(ref)) <= 4e-16 * max(1.0, abs(float(ref)))
    vec = gaussian.log_delta(np.array([eps]), d, 1.0)[0]
    assert vec == got
    _, lo, hi = gaussian.log_delta_bounds(eps, d, 1.0)
    assert lo <= float(ref) <= hi


def test_6_tiny_quotient_of_normal_doubles() -> None:
    # h = 1e-300 / 1e15 is subnormal; ln h and eps/h come from the exact exponents
    got = gaussian.log_delta(0.0, 1e-300, 1e15)
    ref = mp_ln_delta(0, Fraction(1e-300) / Fraction(1e15), 400)
    assert got == pytest.approx(float(ref), rel=1e-15)


def test_6_beyond_the_double_range_is_a_clear_error() -> None:
    for args in ((1e8, 1e-170, 1.0), (1e4, 1e-300, 1e10)):
        with pytest.raises(DPError) as exc:
            gaussian.worst_event(*args)
        assert exc.value.key == "ln_delta_below_range" and "math domain" not in str(exc.value)
        with pytest.raises(DPError):
            gaussian.log_delta(*args)


# ---- 7. a claim below the double range is read in log space --------------------------------------
def test_7_claim_below_double_range() -> None:
    claim = certify.Claim.parse("1e-400")
    assert claim.log10 == -400.0 and claim.value == 0.0 and claim.text == "1e-400"
    c = certify.certify("sum", 4, 1, 1, 1, "1e-400")
    assert c.reason == "claim_too_small" and c.claimed_log10 == -400.0
    assert not certify.certify("mean", 4, 1, 1.0, 0.0, "1e-400").passes
    # with a large enough eps 1e-400 is a true claim
    ok = certify.certify("sum", 1, 1, 1, 1000.0, "1e-400")  # ln delta ~ -5e5 < -921
    assert ok.passes and ok.reason == "claim_covers"
    assert certify.Claim.parse("-0").text == "0" and certify.Claim.parse("-0").log10 == -math.inf


def test_7_lab_state_reads_the_claim_in_log_space() -> None:
    s = LabState()
    assert s.set_text("delta", "1e-400") is None
    assert s.delta_text == "1e-400" and s.claim.log10 == -400.0
    assert s.certification().reason == "claim_too_small"  # not "delta = 0 is claimed"
    assert s.set_text("delta", "-0") is None and s.delta_text == "0"
    assert s.url_query()["delta"] == "0"
    assert s.set_text("delta", "0,5") is None and s.delta_text == "0.5" and s.delta == 0.5
    assert s.set_text("delta", "1.5") is not None and s.delta == 0.5


# ---- 8. CDF bounds whose width overflows ---------------------------------------------------------
def test_8_cdf_bounds_width_overflow_is_rejected() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(DPError) as exc:
            estimate([1.0, 2, 3, -5] * 50, bounds=(-1e308, 1e308), eps=1, delta=1e-6,
                     method="hq")
    assert exc.value.key == "bounds_width"


# ---- 9. validation: one clear ValueError, no warnings, no OverflowError --------------------------
@pytest.mark.parametrize(("call", "name"), [
    (lambda: gaussian.log_delta(10**400, 1, 1), "epsilon"),
    (lambda: gaussian.calibrate_sigma(1, 10**400, 1), "delta"),
    (lambda: gaussian.log_delta(True, 1, 1), "epsilon"),
    (lambda: gaussian.log_delta(1, 1, True), "sigma"),
    (lambda: gaussian.log_delta(None, 1, 1), "epsilon"),
    (lambda: gaussian.log_delta(np.array([1.0, -1.0]), 1, 1), "epsilon"),
    (lambda: gaussian.log_delta(np.array([1.0]), [None], 1), "sensitivity"),
    (lambda: gaussian.log_delta(np.array([True, False]), 1, 1), "epsilon"),
    (lambda: gaussian.log_delta(np.array([1e-22]), 1e-175, 1e300), "epsilon"),
    (lambda: gaussian.epsilon(0.1, 1, [10**400]), "sigma"),
    (lambda: queries.sensitivity("sum", True, 1.0), "n"),
    (lambda: certify.certify("sum", 4, 1, 1, 1, True), "claimed delta"),
])
def test_9_one_value_error_and_no_warning(call, name) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            call()
        except ValueError as exc:  # DPError is a ValueError
            assert isinstance(exc, DPError)
            assert name in str(exc) or exc.key in ("ln_delta_below_range", "claim_text")
            assert "nan" not in str(exc).lower() or "nan" in name
        else:  # only the 1e300-sigma case is a valid input: it must then be finite
            assert name == "epsilon"


def test_9_none_is_reported_as_none_not_nan() -> None:
    with pytest.raises(DPError) as exc:
        gaussian.log_delta(None, 1, 1)
    assert "None" in str(exc.value) and "nan" not in str(exc.value)


# ---- 10. errors carry a key; the CLI and the lab translate them ----------------------------------
def test_10_every_error_key_is_in_both_catalogues_with_the_same_fields() -> None:
    import string as _s

    def fields(text: str) -> set[str]:
        return {f for _, f, _, _ in _s.Formatter().parse(text) if f}

    for key, text in ENGLISH.items():
        for lang in LANGUAGES:
            assert f"err.{key}" in catalogue(lang), (lang, key)
            assert fields(catalogue(lang)[f"err.{key}"]) == fields(text), (lang, key)
        assert catalogue("en")[f"err.{key}"] == text


def test_10_cli_prints_dpcore_errors_in_korean_by_default() -> None:
    proc = run_cli("certify", "--query", "sum", "--n", "4", "--B", "1", "--sigma", "-1",
                   "--eps", "1", "--delta", "0.1")
    assert proc.returncode == 2 and "유한한 수" in proc.stderr and "sigma" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_10_cli_english_on_request(capsys) -> None:
    assert cli.main(["certify", "--query", "sum", "--n", "4", "--B", "1", "--sigma", "-1",
                     "--eps", "1", "--delta", "0.1", "--lang", "en"]) == 2
    assert "must be a finite number > 0" in capsys.readouterr().err


def test_10_cli_in_process_translation(capsys) -> None:
    assert cli.main(["calibrate", "--eps", "1", "--delta", "2", "--sensitivity", "1"]) == 2
    err = capsys.readouterr().err
    assert "범위" in err or "주장한 delta" in err


def test_10_lab_stores_dpcore_errors_as_translatable_keys(monkeypatch) -> None:
    s = LabState()

    def boom(*a, **k):
        raise DPError("ln_delta_below_range")

    monkeypatch.setattr("app.lab.state.queries.sensitivity", boom)
    err = s.set_text("sigma", "2")
    assert err == ("err.ln_delta_below_range", {})
    assert s.sigma == 1.0
    for lang in LANGUAGES:
        assert t(err[0], lang, **err[1])


# ---- isotonic regression through SciPy -----------------------------------------------------------
def _pav(y: list[float], w: list[float]) -> list[float]:
    """Textbook pool-adjacent-violators (independent of SciPy), for the comparison."""
    blocks: list[list[float]] = []  # [mean, weight, count]
    for yi, wi in zip(y, w, strict=True):
        blocks.append([yi, wi, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2, c2 = blocks.pop()
            m1, w1, c1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, c1 + c2])
    return [b[0] for b in blocks for _ in range(b[2])]


def test_isotonic_agrees_with_textbook_pav() -> None:
    rng = np.random.default_rng(5)
    for n in (2, 7, 100, 1025):
        y = np.linspace(0, 1, n) + rng.normal(0, 0.1, n)
        w = rng.uniform(0.5, 2.0, n)
        np.testing.assert_allclose(isotonic(y, w), _pav(list(y), list(w)), rtol=0, atol=1e-14)
        np.testing.assert_allclose(isotonic(y), _pav(list(y), [1.0] * n), rtol=0, atol=1e-14)
