"""dpcore.certify (moved from tests/test_queries_certify_cli.py; the queries' tests are in
tests/dpcore/test_queries.py, the command line's in tests/app/test_cli.py)."""

from __future__ import annotations

import json
import math

import pytest

from dpcore import certify, gaussian


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


# ---- exact inputs, log-space claims, the third verdict ------------------------------------
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
