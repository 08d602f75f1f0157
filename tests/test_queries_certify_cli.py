"""dpcore.queries, dpcore.certify and the dplab command line."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from app import cli
from dpcore import certify, gaussian, queries


# ---- queries ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("q", "want"), [("sum", 2.0), ("mean", 0.5), ("count", 1.0), ("const", 0.0)]
)
def test_global_sensitivity(q, want):
    assert queries.sensitivity(q, 4, 2.0) == want


@pytest.mark.parametrize("q", queries.QUERIES)
def test_worst_pair_attains_the_global_sensitivity(q):
    d, d2 = queries.worst_pair(q, 5, 3.0)
    assert len(d) == len(d2) == 5
    assert sum(a != b for a, b in zip(d, d2, strict=True)) == 1
    diff = abs(queries.value(q, d, 3.0) - queries.value(q, d2, 3.0))
    assert diff == pytest.approx(queries.sensitivity(q, 5, 3.0))


def test_local_difference_never_exceeds_global():
    data = [0.2, 0.9, 0.4, 0.6]
    for q in queries.QUERIES:
        for i in range(4):
            for v in (0.0, 0.3, 0.5, 1.0):
                local = queries.local_difference(q, data, i, v, 1.0)
                assert 0.0 <= local <= queries.sensitivity(q, 4, 1.0) + 1e-15
    assert queries.local_difference("sum", data, 1, 0.0, 1.0) == pytest.approx(0.9)
    assert queries.local_difference("count", data, 1, 0.0, 1.0) == 1.0
    assert queries.local_difference("count", data, 0, 0.4, 1.0) == 0.0


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: queries.sensitivity("median", 4, 1.0), "query"),
        (lambda: queries.sensitivity("sum", 0, 1.0), "n"),
        (lambda: queries.sensitivity("sum", 2.5, 1.0), "n"),
        (lambda: queries.sensitivity("sum", 4, 0.0), "B"),
        (lambda: queries.sensitivity("sum", 4, -1.0), "B"),
        (lambda: queries.neighbour([0.1, 0.2], 0, 1.5, 1.0), "replacement value"),
        (lambda: queries.neighbour([0.1, 0.2], 2, 0.5, 1.0), "record index"),
        (lambda: queries.value("sum", [0.1, 2.0], 1.0), "data"),
        (lambda: queries.value("sum", [], 1.0), "data"),
    ],
)
def test_query_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# ---- certification ---------------------------------------------------------------------------
def test_certify_seed_sum_claims():
    ok = certify.certify("sum", 4, 1.0, 1.0, 1.0, 0.13)
    bad = certify.certify("sum", 4, 1.0, 1.0, 1.0, 0.126)
    assert ok.passes and ok.reason == "claim_covers"
    assert not bad.passes and bad.reason == "claim_too_small"
    assert ok.sensitivity == 1.0 and ok.unit == "sum"
    assert ok.required_delta == pytest.approx(0.12693674, abs=5e-9)
    assert ok.mathematically_positive and not ok.underflow and not ok.pure_dp_possible
    assert ok.mse == 1.0 and ok.mae == pytest.approx(0.79788456, rel=1e-8)


def test_certify_underflow_example():
    c = certify.certify("mean", 32, 1.0, 10.0, 10.0, 0.0)
    assert c.sensitivity == 1 / 32 and c.unit == "mean"
    assert c.required_delta == 0.0 and c.underflow and c.mathematically_positive
    assert c.log10_delta == pytest.approx(-2223595.4904, abs=5e-5)
    assert not c.passes and c.reason == "claim_zero_positive_delta"
    # a positive claim is compared in log space even though both doubles would be 0
    tiny = certify.certify("mean", 32, 1.0, 10.0, 10.0, 5e-324)
    assert tiny.passes


def test_certify_constant_query_is_pure():
    c = certify.certify("const", 4, 1.0, 1.0, 1.0, 0.0)
    assert c.passes and c.reason == "zero_sensitivity"
    assert c.required_delta == 0.0 and c.log_delta == -math.inf and c.log10_delta == -math.inf
    assert c.pure_dp_possible and not c.mathematically_positive and not c.underflow
    assert c.mse == 1.0  # noise added on purpose still costs accuracy


def test_certify_exact_and_classic_sigma():
    c = certify.certify("sum", 4, 1.0, 1.0, 1.0, 1e-5)
    assert c.exact_sigma == pytest.approx(gaussian.calibrate_sigma(1.0, 1e-5, 1.0), rel=1e-15)
    assert c.classic_sigma == pytest.approx(4.8448, abs=1e-4) and not c.classic_proven
    d = c.as_dict()
    assert json.loads(json.dumps(d))["passes"] is False


@pytest.mark.parametrize(
    ("kw", "name"),
    [
        ({"sigma": 0.0}, "sigma"),
        ({"eps": -1.0}, "epsilon"),
        ({"claimed_delta": 1.5}, "claimed delta"),
        ({"n": 0}, "n"),
        ({"B": 0.0}, "B"),
        ({"sigma": math.nan}, "sigma"),
        ({"query": "max"}, "query"),
    ],
)
def test_certify_bad_input(kw, name):
    args = {"query": "sum", "n": 4, "B": 1.0, "sigma": 1.0, "eps": 1.0, "claimed_delta": 0.1}
    args.update(kw)
    with pytest.raises(ValueError, match=name):
        certify.certify(**args)


# ---- command line ----------------------------------------------------------------------------
def test_cli_certify_json(capsys):
    rc = cli.main(["certify", "--query", "mean", "--n", "32", "--B", "1", "--sigma", "10",
                   "--eps", "10", "--delta", "0", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["underflow"] is True and out["passes"] is False
    assert out["log10_delta"] == pytest.approx(-2223595.4904, abs=5e-5)


@pytest.mark.parametrize(("lang", "word"), [("en", "fail"), ("ko", "실패")])
def test_cli_certify_text(capsys, lang, word):
    rc = cli.main(["certify", "--query", "sum", "--n", "4", "--B", "1", "--sigma", "1",
                   "--eps", "1", "--delta", "0.126", "--lang", lang])
    assert rc == 0
    out = capsys.readouterr().out
    assert word in out and "0.1269367375" in out and "-0.8964" in out


def test_cli_calibrate(capsys):
    assert cli.main(["calibrate", "--eps", "1", "--delta", "1e-5", "--sensitivity", "1",
                     "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sigma"] == pytest.approx(3.7306, abs=1e-4)
    assert cli.main(["calibrate", "--eps", "1", "--delta", "1e-5", "--query", "mean",
                     "--n", "4", "--B", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sensitivity"] == 0.25 and out["sigma"] == pytest.approx(3.7306 / 4, abs=1e-4)


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        (["certify", "--query", "sum", "--n", "4", "--B", "1", "--sigma", "-1", "--eps", "1",
          "--delta", "0.1"], "sigma"),
        (["certify", "--query", "sum", "--n", "0", "--B", "1", "--sigma", "1", "--eps", "1",
          "--delta", "0.1"], "n"),
        (["certify", "--query", "sum", "--n", "4", "--B", "1", "--sigma", "1", "--eps", "nan",
          "--delta", "0.1"], "epsilon"),
        (["calibrate", "--eps", "1", "--delta", "2", "--sensitivity", "1"], "delta"),
        (["calibrate", "--eps", "1", "--delta", "0.1", "--sensitivity", "abc"], "sensitivity"),
    ],
)
def test_cli_bad_input_is_one_line_exit_2(argv, name):
    proc = subprocess.run([sys.executable, "-m", "app.cli", *argv], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and name in lines[0] and "Traceback" not in proc.stderr


# ---- issue 10: exact inputs, log-space claims, the third verdict -------------------------------
def test_certify_accepts_the_claim_as_text_in_log_space():
    c = certify.certify("sum", 4, 1.0, 1.0, 1.0, "0.13")
    assert c.passes and c.claimed_text == "0.13" and c.claimed_log10 == pytest.approx(
        math.log10(0.13), rel=1e-15)
    tiny = certify.certify("mean", 32, 1.0, 10.0, 10.0, "1e-1000000")  # below 5e-324
    assert tiny.passes  # ln delta = -5.1e6 < ln 1e-1000000 = -2.3e6
    assert not certify.certify("mean", 32, 1.0, 10.0, 10.0, "1e-3000000").passes
    assert certify.certify("sum", 4, 1.0, 1.0, 1.0, 0.13).decided_by == "double"
    with pytest.raises(ValueError, match="claimed delta"):
        certify.certify("sum", 4, 1.0, 1.0, 1.0, "1.5")


@pytest.mark.parametrize(("lang", "words"), [("en", "below the double range"),
                                             ("ko", "배정밀도 범위보다 작음")])
def test_cli_prints_an_underflowing_sensitivity_from_its_log(capsys, lang, words):
    assert cli.main(["certify", "--query", "mean", "--n", "1e30", "--B", "1e-300", "--sigma",
                     "1e-300", "--eps", "0", "--delta", "1e-30", "--lang", lang]) == 0
    out = capsys.readouterr().out
    assert "1.000000000e-330" in out and words in out


def test_cli_too_close_shows_both_numbers(capsys):
    import mpmath as mp

    with mp.workdps(120):  # delta(1) for h = 1: Phi(-1/2) - e Phi(-3/2), to 90 digits
        exact = mp.nstr(mp.ncdf(mp.mpf(-0.5)) - mp.e * mp.ncdf(mp.mpf(-1.5)), 90)
    assert cli.main(["certify", "--query", "sum", "--n", "4", "--B", "1", "--sigma", "1",
                     "--eps", "1", "--delta", exact, "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "too close to call" in out and exact in out
    assert "required delta = 0.1269367375066439458008296" in out
