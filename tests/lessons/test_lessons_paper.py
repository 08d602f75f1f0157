"""The CDF lesson's section "paper" (issue 18 §2): the paper is cited, every measured figure is
a placeholder, and each sentence that reads the figures says what they show."""

from __future__ import annotations

import math

import pytest

import lessons
from dpcore.cdf import legendre


@pytest.fixture(scope="module")
def v() -> dict[str, str]:
    return lessons.values("cdf")


@pytest.mark.parametrize("lang", lessons.LANGS)
def test_section_cites_the_paper(lang: str) -> None:
    les = lessons.load("cdf", lang)
    sec = next(s for s in les.sections if s.id == "paper")
    assert "arXiv:2501.06620" in sec.body
    assert "Functional Approximation Methods for Differentially Private" in sec.body
    ids = [s.id for s in les.sections]
    assert ids.index("paper") == ids.index("not-private") - 1


def test_sentences_match_the_measurements(v: dict[str, str]) -> None:
    cells = int(v["pa_cells"])
    # "agrees only in part" at small eps, "disagrees" at large eps
    assert 0 < int(v["pa_low_agree"]) < cells
    assert int(v["pa_high_agree"]) == 0
    # "with more quantiles AQ's W1 falls" (on both shapes)
    assert v["pa_aqmore_better"] == "2"
    for shape in ("bimodal", "beta"):
        assert float(v[f"pa_{shape}_aqmore_w1"]) < float(v[f"pa_{shape}_hi_aq_w1"])
        for tag in ("lo", "hi"):
            for metric in ("ks", "w1"):
                best = v[f"pa_{shape}_{tag}_best_{metric}"].lower()
                got = {m: float(v[f"pa_{shape}_{tag}_{m}_{metric}"])
                       for m in ("pp", "mp", "hq", "aq")}
                assert got[best] <= min(got.values())
    spl = float(v["pa_dict_spl_w1"]) < float(v["pa_dict_leg_w1"])
    assert ("더한 사전이 더 작았습니다" in v["pa_dict_verdict_ko"]) is spl
    assert ("was lower" in v["pa_dict_verdict_en"]) is spl


def test_density_sensitivity_is_the_ends(v: dict[str, str]) -> None:
    # the largest move is record 0 -> 1: only the odd degrees change, by 2 sqrt(2k + 1)
    for k in (10, 20):
        ends = math.sqrt(sum(4 * (2 * j + 1) for j in range(1, k + 1, 2)))
        assert float(v[f"pa_pdf_sens_{k}"]) == pytest.approx(ends, rel=5e-3)
        b = legendre.basis([0.0, 1.0], k)
        assert math.hypot(*(b[0] - b[1])) == pytest.approx(ends)
    assert float(v["pa_split_ratio"]) < 1.0
