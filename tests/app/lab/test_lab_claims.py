"""The lab shows dpcore's hardened verdicts: claims below the double range and "too close"."""

from __future__ import annotations

import math
import re

from app.lab import compute as lc
from app.lab.card import card_html
from app.lab.state import LabState


def _cls(page: str, cls: str) -> str:
    m = re.search(rf'class="[^"]*\b{cls}\b[^"]*">(.*?)</', page, re.S)
    assert m, cls
    return m.group(1).strip()


def test_a_claim_below_the_double_range_is_compared_as_typed() -> None:
    s = LabState()
    s.apply_url({"q": "mean", "n": "32", "B": "1", "sigma": "10", "eps": "10", "delta": "1e-400"})
    cert = s.certification()
    assert cert.claimed_log10 == -400.0  # not -inf: the text is read in log space
    page = card_html(s, cert, "en")
    assert "(log10 = -400.0000)" in page
    # required log10 δ ≈ -2223595.49 < -400: the positive claim covers it.
    assert cert.passes and "pass" in _cls(page, "dp-verdict")
    cv = lc.curve_view(s.sensitivity, s.sigma, s.eps, s.delta, s.eps_lo, s.eps_hi, "log10",
                       claimed_log10=s.claim.log10)
    assert cv.claimed_y == -400.0
    # The double of the claim is 0.0, which alone would have hidden the orange line.
    assert s.delta == 0.0
    assert math.isnan(lc.curve_view(s.sensitivity, s.sigma, s.eps, s.delta, s.eps_lo, s.eps_hi,
                                    "log10").claimed_y)


def test_claim_equal_to_the_required_delta_is_never_a_pass() -> None:
    s = LabState()
    s.apply_url({"q": "sum", "n": "4", "B": "1", "sigma": "1", "eps": "1",
                 "delta": "0.12693673750664386"})  # 6.8e-16 below the true δ (issue 10)
    cert = s.certification()
    assert not cert.passes
    page = card_html(s, cert, "en")
    assert "pass" not in _cls(page, "dp-verdict").replace("not a pass", "")
    assert 'dp-verdict-box fail' in page
