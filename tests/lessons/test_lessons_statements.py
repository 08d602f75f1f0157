"""Issue 39, "Statements to correct": each corrected statement, in both languages, with its
numbers taken from the values dpcore computes (so a changed number changes the check)."""

from __future__ import annotations

import math

import pytest

import lessons
from dpcore import certify, gaussian, queries

LANGS = lessons.LANGS


def _sec(lesson: str, lang: str, sid: str) -> str:
    return next(s.body for s in lessons.load(lesson, lang).sections if s.id == sid)


def _quiz(lesson: str, lang: str, qid: str) -> lessons.Question:
    return next(q for q in lessons.load(lesson, lang).quiz if q.id == qid)


@pytest.mark.parametrize("lang", LANGS)
def test_3_the_target_is_a_modelling_choice_with_both_measured(lang: str) -> None:
    v = lessons.values("cdf")
    body = _sec("cdf", lang, "auto")
    words = {"ko": ("경험적 CDF", "모집단 CDF", "추론", "따로 떼어 둔 데이터", "GRID_SHAPES"),
             "en": ("empirical CDF", "population CDF", "inference", "The hold-out",
                    "GRID_SHAPES")}[lang]
    assert all(w in body for w in words)
    assert v[f"vd_pop_{lang}"] in body and v[f"vd_holdout_{lang}"] in body
    for name in ("anes96_age", "diabetes_age", "penguins_mass"):
        assert v[f"ho_{name}_auto"] in body and v[f"ho_{name}_label_{lang}"] in body
    for key in ("ecp_bimodal_lo_pp", "ecp_spikes_hi_auto"):
        assert v[key] in body
    assert "The error that matters" not in body and "중요한 오차는" not in body


@pytest.mark.parametrize("lang", LANGS)
def test_4_proven_and_measured_are_told_apart(lang: str) -> None:
    v = lessons.values("gaussian")
    body = _sec("gaussian", lang, "mills")
    assert "proven error bound" not in body and "증명된 오차 한계를 지키는" not in body
    heads = {"ko": ("*증명된 것:*", "*재서 정한 것(증명이 아님):*", "*확인한 것:*"),
             "en": ("*Proven:*", "*Measured, not proven:*", "*Checked:*")}[lang]
    assert all(h in body for h in heads)
    assert v["gl_nodes"] == ", ".join(str(k) for k in sorted(set(gaussian._RULES_U)))
    assert float(v["erfcx_ulps"]) * 2 * 2.0**-53 == gaussian._THETA_ERFCX
    assert v["gl_nodes"] in body and v["erfcx_ulps"] in body and v["cf_ulps"] in body


@pytest.mark.parametrize("lang", LANGS)
def test_5_the_papers_large_eps_finding_as_the_paper_says_it(lang: str) -> None:
    v = lessons.values("cdf")
    body = _sec("cdf", lang, "paper")
    said = {"ko": "AQ가 PP보다 조금 앞서는 경우도 있지만, 전체로 보면 MP가 가장 견고했습니다",
            "en": "AQ may be slightly ahead of PP in some cases, while MP was robust overall"}
    assert said[lang] in body
    assert "at large $\\varepsilon$ AQ was ahead" not in body and "AQ가 앞섰으며" not in body
    assert v[f"vd_pa_high_{lang}"] in body and v[f"vd_aqmore_{lang}"] in body


@pytest.mark.parametrize("lang", LANGS)
def test_6_mp_costs_composition_not_sensitivity(lang: str) -> None:
    body = _sec("cdf", lang, "matching-pursuit")
    assert "\\;\\le\\; 1/n" in body and "much larger sensitivity" not in body
    assert "민감도도 훨씬 큽니다" not in body
    coef = {"ko": "고른 모양의 계수에도 새 잡음을 넣어 공개합니다",
            "en": "fresh noise on the chosen shape's coefficient"}[lang]
    assert coef in body
    paper = _sec("cdf", lang, "paper")
    assert {"ko": "고른 모양의 계수도 새 잡음을 넣어 공개합니다",
            "en": "releases the chosen shape's coefficient with fresh noise"}[lang] in paper


@pytest.mark.parametrize("lang", LANGS)
def test_7_a_record_changes_at_most_two_counts_per_level(lang: str) -> None:
    q = _quiz("cdf", lang, "q-auto-tree")
    right = next(o for o in q.options if o.correct)
    assert {"ko": "많아야 둘", "en": "at most two counts per level"}[lang] in right.text
    assert "changes one count per level" not in right.text and "개수 하나만" not in right.text
    assert {"ko": "많아야 둘", "en": "at most two counts change"}[lang] in _sec("cdf", lang, "auto")


@pytest.mark.parametrize("lang", LANGS)
def test_8_a_large_enough_sigma_works_and_doubling_delta_does_not(lang: str) -> None:
    v = lessons.values("gaussian")
    cl = gaussian.classic_sigma(10.0, 1e-5, 1.0).sigma
    true_delta = float(gaussian.delta(10.0, 1.0, cl))
    assert true_delta > 2e-5  # the measured refutation of "double δ"
    assert v["classic_sigma_10"] == f"{cl:.4g}" and v["classic_delta_10"].startswith(
        f"{true_delta:.1e}"[:3])
    q = _quiz("gaussian", lang, "q-classic")
    doubled = q.options[2]
    assert not doubled.correct
    for key in ("classic_sigma_10", "classic_delta_10", "exact_sigma_10"):
        assert v[key] in doubled.why
    assert "whatever factor" not in doubled.why and "어떤 인자를 곱해도" not in doubled.why
    # and a sigma of at least the exact minimum does pass
    assert certify.certify("sum", 4, 1.0, float(v["exact_sigma_10"]) + 1e-3, 10.0,
                           1e-5).passes


@pytest.mark.parametrize("lang", LANGS)
def test_9_doubling_n_is_answered_with_the_numbers(lang: str) -> None:
    v = lessons.values("gaussian")
    d4 = float(gaussian.delta(1.0, queries.sensitivity("mean", 4, 1.0), 1.0))
    d8 = float(gaussian.delta(1.0, queries.sensitivity("mean", 8, 1.0), 1.0))
    assert v["mean_delta3"] == "2.92 × 10⁻⁶" and v["mean8_delta3"] == "1.55 × 10⁻¹⁷"
    assert math.isclose(d4, 2.9242721e-6, rel_tol=1e-6) and d8 < d4 / 1e10
    errors = next(n.body for n in lessons.load("gaussian", lang).teacher if n.id == "errors")
    line = next(ln for ln in errors.splitlines() if "δ" in ln and ("n을 두 배" in ln
                                                                   or "Doubling n" in ln))
    assert v["mean_delta3_tex"] in line and v["mean8_delta3_tex"] in line
    assert {"ko": "합과 개수", "en": "sum and the count"}[lang] in line
    ex = next(e for e in lessons.load("gaussian", lang).exercises if e.id == "fixed-n-doubled")
    assert "q=mean" in ex.link and "n=8" in ex.link
    assert v["mean8_sens"] in ex.steps[0] and v["mean8_delta3_tex"] in ex.steps[1]


@pytest.mark.parametrize("lang", LANGS)
def test_10_tour_step_1_says_the_card_notes_n_delta(lang: str) -> None:
    v = lessons.values("gaussian")
    step = lessons.tour(lang)[0]
    assert step.id == "sum-card" and step.lab["delta"] == "0.13" and step.lab["n"] == "4"
    c = certify.certify("sum", 4, 1.0, 1.0, 1.0, "0.13")
    assert c.passes and c.n_delta_level == "large"
    assert v["n_delta_soft"] == str(certify.N_DELTA_SOFT) and v["n_delta_soft"] in step.body
    assert v["ns_expected"] in step.body and "1/n" in step.body


@pytest.mark.parametrize("lang", LANGS)
def test_11a_the_third_verdict_is_taught(lang: str) -> None:
    v = lessons.values("gaussian")
    assert certify.certify("sum", 4, 1.0, 1.0, 1.0, v["tc_claim"]).verdict == "too_close"
    body = _sec("gaussian", lang, "reading-lab")
    assert f"delta={v['tc_claim']}" in body and v["tc_digits"] in body
    assert {"ko": "판정 불가", "en": "too close to call"}[lang] in body
    q = _quiz("gaussian", lang, "q-too-close")
    assert v["tc_digits"] in next(o for o in q.options if o.correct).why


@pytest.mark.parametrize("lang", LANGS)
def test_11b_randomness_and_floating_point(lang: str) -> None:
    for lesson, sid in (("gaussian", "mills"), ("cdf", "not-private")):
        body = _sec(lesson, lang, sid)
        assert "PCG64" in body and "Mironov (2012)" in body
        assert {"ko": "암호학적 난수원", "en": "cryptographic source"}[lang] in body


@pytest.mark.parametrize("lang", LANGS)
def test_11c_the_class_share_is_pi_hat_and_clipping_biases_it(lang: str) -> None:
    body = _sec("gaussian", lang, "local-central")
    assert "\\hat\\pi = \\frac{\\bar y - (1 - p)}{2p - 1}" in body
    assert "\\hat p " not in body and "\\hat p$" not in body
    assert {"ko": "**편향이 생깁니다**", "en": "**biased**"}[lang] in body


@pytest.mark.parametrize("lang", LANGS)
def test_11d_the_three_part_error(lang: str) -> None:
    body = _sec("cdf", lang, "metrics")
    parts = {"ko": ("프라이버시(잡음)", "근사", "표본"),
             "en": ("privacy (noise)", "approximation", "sampling")}[lang]
    assert all(f"\\text{{{p}}}" in body for p in parts)


def test_11f_mp_is_its_own_release_in_readme_and_results() -> None:
    root = lessons.LESSON_DIR.parent
    for path in ("README.md", "docs/cdf-results.md", "dpcore/cdf/experiments.py"):
        text = (root / path).read_text("utf-8")
        assert "post-processing of one PP release" not in text.replace("\n", " "), path
        assert "post-processing of\none PP release" not in text, path
