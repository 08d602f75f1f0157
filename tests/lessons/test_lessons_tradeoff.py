"""The Gaussian lesson's section on what δ means to an attacker (issue 41 §4, "The course"):
every number is what dpcore.tradeoff / dpcore.gaussian compute, every comparative sentence is a
verdict decided from the numbers it shows, both languages carry the same items, and the Korean
text keeps the course's vocabulary."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping

import pytest

import lessons
from dpcore import accounting, certify, gaussian, queries, tradeoff
from lessons import values_gaussian as vg
from lessons import verdicts as vmod
from lessons.fmt import sig
from tests.lessons.test_lessons_verdicts import check_every_number_can_change
from tests.lessons.test_lessons_vocabulary import AFTER_NUMBER, AFTER_PLACEHOLDER

LANGS = lessons.LANGS
SECTION = "tradeoff"
EXAMPLES = ["ex-attack", "ex-attack-calibrate"]
EXERCISES = ["attack-advantage", "attack-error", "attack-compose"]
QUIZ = ["q-attack-hits", "q-attack-line", "q-attack-delta"]
TERMS = ["membership-inference", "hypothesis-test", "false-positive-rate", "true-positive-rate",
         "tradeoff-function"]


@pytest.fixture(scope="module")
def v() -> dict[str, str]:
    return dict(lessons.values("gaussian"))


def _sec(lang: str) -> str:
    return next(s.body for s in lessons.load("gaussian", lang).sections if s.id == SECTION)


def _num(text: str) -> float:
    return vmod.num(text)


# ---- the values are dpcore's --------------------------------------------------------------------
def test_the_attacker_at_five_percent(v: dict[str, str]) -> None:
    mu = queries.sensitivity("sum", 4, 1.0) / 1.0
    t = tradeoff.tpr(0.05, mu)
    assert v["to_mu"] == "1" and v["to_fpr"] == "0.05" and v["to_fa100"] == "5"
    assert v["to_tpr05"] == sig(t, 4) == "0.2595"
    assert v["to_beta05"] == sig(tradeoff.tradeoff(0.05, mu), 4)
    assert v["to_hits100"] == str(math.ceil(100 * t)) == "26"  # the plain-number reading
    assert _num(v["to_s05"]) == pytest.approx(_num(v["to_q05"]) + mu, abs=1e-3)


def test_the_profile_is_the_family_of_supporting_lines(v: dict[str, str]) -> None:
    mu, eps = 1.0, 1.0
    delta = float(gaussian.delta(eps, 1.0, 1.0))
    assert v["to_delta1"] == sig(delta, 4)
    a = float(v["to_tan_fpr"])
    assert tradeoff.tpr(a, mu) == pytest.approx(float(v["to_tan_tpr"]), abs=1e-4)
    # the shown arithmetic adds up at the shown precision
    assert _num(v["to_tan_tpr"]) - _num(v["to_tan_efpr"]) == pytest.approx(delta, abs=1e-4)
    assert _num(v["to_tan_efpr"]) == pytest.approx(math.e * a, rel=1e-4)
    # the supremum over α of 1 − e^ε α − β(α) is δ(ε), attained at the tangent
    grid = [k / 2000 for k in range(1, 2000)]
    best = max(1 - math.e**eps * x - tradeoff.tradeoff(x, mu) for x in grid)
    assert best <= delta * (1 + 1e-12) and best == pytest.approx(delta, rel=1e-4)
    assert _num(v["to_line_cap05"]) == pytest.approx(math.e * 0.05 + delta, abs=1e-4)
    eps5 = gaussian.epsilon(1e-5, 1.0, 1.0)
    assert v["to_weak_eps"] == sig(eps5, 4) == v["eps_for_1e5"]
    assert _num(v["to_weak_cap"]) == pytest.approx(math.exp(eps5) * 0.05 + 1e-5, rel=1e-3)


def test_the_largest_advantage_is_delta_at_zero(v: dict[str, str]) -> None:
    adv = tradeoff.best_advantage(1.0)
    assert v["to_adv"] == sig(adv, 4) and adv == pytest.approx(float(gaussian.delta(0, 1, 1)))
    assert _num(v["to_adv"]) == pytest.approx(_num(v["eps0_delta"]), abs=1e-4)
    assert v["to_adv_fpr"] == sig(tradeoff.best_advantage_fpr(1.0), 4)
    assert v["to_adv100"] == str(math.ceil(100 * adv))


def test_the_calibrations(v: dict[str, str]) -> None:
    cal = tradeoff.calibrate_sigma_tpr(0.10, 0.05, 1.0, 1e-5)
    assert cal.tpr is not None and cal.tpr <= 0.10 and cal.eps is not None
    assert v["to_cal_sigma"] == sig(cal.sigma, 4) and v["to_cal_mu"] == sig(cal.mu, 4)
    assert v["to_cal_eps"] == sig(cal.eps, 4) and v["to_cal_hw"] == sig(cal.half_width, 4)
    assert v["to_cal_eps"] == sig(gaussian.epsilon(1e-5, 1.0, cal.sigma), 4)
    assert _num(v["to_cal_mu"]) == pytest.approx(_num(v["to_q10"]) - _num(v["to_q05"]),
                                                abs=2e-3)
    err = tradeoff.calibrate_sigma_error(0.05, queries.sensitivity("mean", 100, 1.0), 1e-5, 0.05)
    assert err.tpr is not None and err.eps is not None
    assert v["to_err_sigma"] == sig(err.sigma, 4) and v["to_err_tpr05"] == sig(err.tpr, 4)
    assert v["to_err_eps"] == sig(err.eps, 4) and v["to_err_hits100"] == str(
        math.ceil(100 * err.tpr))
    star = gaussian.calibrate_sigma(1.0, 1e-5, 1.0)
    assert v["to_star_tpr05"] == sig(tradeoff.tpr(0.05, 1 / star), 4)
    assert v["to_star_hits100"] == str(math.ceil(100 * tradeoff.tpr(0.05, 1 / star)))
    assert v["to_line_1e5_hits100"] == str(math.ceil(100 * (math.e * 0.05 + 1e-5)))


def test_four_releases_are_the_attacker_of_one(v: dict[str, str]) -> None:
    one = accounting.gaussian_mu(1.0, 2.0)
    assert accounting.gdp_compose([one] * 4) == pytest.approx(1.0)
    assert v["to_one_tpr05"] == sig(tradeoff.tpr(0.05, one), 4)
    assert v["to_one_hits100"] == str(math.ceil(100 * tradeoff.tpr(0.05, one)))


def _link(item_id: str) -> dict[str, str]:
    les = lessons.load("gaussian", "en")
    links = {e.id: e.link for e in les.examples} | {e.id: e.link for e in les.exercises}
    link = links[item_id]
    return dict(kv.split("=") for kv in link.split("?", 1)[1].split("&"))


def test_the_lab_links_keep_their_promise() -> None:
    cal = _link("ex-attack-calibrate")
    assert (float(cal["sigma"]), float(cal["eps"])) == vg.TO_LINK_CAL
    s = float(cal["sigma"])
    assert tradeoff.tpr(vg.TO_FPR, 1.0 / s) <= vg.TO_TARGET
    assert certify.certify("sum", 4, 1.0, s, float(cal["eps"]), cal["delta"]).passes
    err = _link("attack-error")
    assert (float(err["sigma"]), float(err["eps"])) == vg.TO_LINK_ERR
    assert float(err["sigma"]) * tradeoff.Z95 <= vg.TO_HALF_WIDTH  # the accuracy holds
    assert certify.certify("mean", int(err["n"]), 1.0, float(err["sigma"]), float(err["eps"]),
                           err["delta"]).passes


# ---- the verdicts -------------------------------------------------------------------------------
VERDICT_KEYS = {"_vd_to_line": ("to_tpr05", "to_line_cap05"),
                "_vd_to_tps": ("to_star_tpr05", "to_line_1e5"),
                "_vd_to_cal": ("to_cal_sigma", "exact_sigma")}


@pytest.mark.parametrize("group", vg.TRADEOFF_VERDICTS, ids=lambda f: f.__name__)
def test_every_number_a_verdict_reads_can_change_it(
        v: dict[str, str], group: Callable[[Mapping[str, str], dict[str, str]], None]) -> None:
    check_every_number_can_change(v, group)


@pytest.mark.parametrize("name", sorted(VERDICT_KEYS))
def test_each_verdict_matches_its_numbers_and_turns_when_they_swap(
        v: dict[str, str], name: str) -> None:
    group = getattr(vg, name)
    a, b = VERDICT_KEYS[name]
    assert vmod.cmp(v[a], v[b]) < 0  # today's numbers: under the line / less noise
    out: dict[str, str] = {}
    group(v, out)
    words = {"_vd_to_line": ("아래에 있어서", "lies under the line"),
             "_vd_to_tps": ("아래에 있어서", "lies under the line"),
             "_vd_to_cal": ("작은 잡음으로 충분", "less noise than")}[name]
    key = name.replace("_vd_", "vd_")
    assert words[0] in out[f"{key}_ko"] and words[1] in out[f"{key}_en"]
    swapped = dict(v, **{a: v[b], b: v[a]})
    out2: dict[str, str] = {}
    group(swapped, out2)
    assert words[0] not in out2[f"{key}_ko"] and words[1] not in out2[f"{key}_en"]
    tie = dict(v, **{a: v[b]})
    out3: dict[str, str] = {}
    group(tie, out3)
    assert "자릿수로" in out3[f"{key}_ko"] and "precision shown" in out3[f"{key}_en"]


def test_the_weak_line_verdict(v: dict[str, str]) -> None:
    assert vmod.cmp(v["to_weak_cap"], "1") > 0
    assert "rules out nothing" in v["vd_to_weak_en"] and "막지 못합니다" in v["vd_to_weak_ko"]
    out: dict[str, str] = {}
    vg._vd_to_weak(dict(v, to_weak_cap="0.5"), out)
    assert "does limit" in out["vd_to_weak_en"] and "막지 못합니다" not in out["vd_to_weak_ko"]


@pytest.mark.parametrize("lang", LANGS)
def test_the_lesson_prints_the_verdicts(v: dict[str, str], lang: str) -> None:
    les = lessons.load("gaussian", lang)
    blob = "\n".join([_sec(lang)] + [e.body for e in les.examples]
                     + [a.expected for a in les.activities])
    for key in ("vd_to_line", "vd_to_tps", "vd_to_weak", "vd_to_cal"):
        assert v[f"{key}_{lang}"] in blob, key


def test_korean_verdicts_glue_no_particle_to_a_number(v: dict[str, str]) -> None:
    for name, text in vg.tradeoff_verdicts(v).items():
        if name.endswith("_ko"):
            assert not AFTER_NUMBER.search(text), (name, text)


# ---- the course items ---------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_the_section_and_its_items(v: dict[str, str], lang: str) -> None:
    les = lessons.load("gaussian", lang)
    ids = [s.id for s in les.sections]
    assert ids.index(SECTION) == ids.index("reading-lab") + 1
    assert [e.id for e in les.examples if e.section == SECTION] == EXAMPLES
    assert [e.id for e in les.exercises][-3:] == EXERCISES
    assert [q.id for q in les.quiz][-3:] == QUIZ
    tps = [a for a in les.activities if a.section == SECTION]
    assert [(a.id, a.kind) for a in tps] == [("tps-attack", "think-pair-share")]
    assert all(getattr(tps[0], f).strip() for f in ("expected", "listen", "close"))
    body = _sec(lang)
    assert v["ref_drs"] in body and v["ref_kov"] in body
    assert "Dong, Roth & Su" in v["ref_drs"] and "Kairouz, Oh & Viswanath" in v["ref_kov"]
    plain = {"en": f"an attacker allowed {v['to_fa100']} false alarms in 100 catches at most "
                   f"{v['to_hits100']} in 100",
             "ko": f"거짓 경보를 100번 중 {v['to_fa100']}번까지 허용받은 공격자도, 100번 중 "
                   f"많아야 {v['to_hits100']}번 맞힙니다"}[lang]
    assert plain in body
    raw = lessons.read_source("gaussian", lang)
    sec_raw = next(s["body"] for s in raw["section"] if s["id"] == SECTION)
    for term in TERMS:
        assert f"[[{term}]]" in sec_raw, term
    for needle in ("\\Phi^{-1}(1 - \\alpha) - \\mu", "\\sup_{0 \\le \\alpha \\le 1}",
                   "e^{\\varepsilon}\\alpha + \\delta"):
        assert needle in body, needle


@pytest.mark.parametrize("lang", LANGS)
def test_the_attacker_block_is_taught_in_class(lang: str) -> None:
    les = lessons.load("gaussian", lang)
    block = next(r for r in les.plan if SECTION in r.sections)
    assert block.id == "attacker" and block.level == "core"
    tps = next(a for a in les.activities if a.id == "tps-attack")
    assert block.minutes - tps.minutes >= 3
    assert "vectors" in {s for r in les.reading for s in r.sections}
    assert "attacker" in {g.id for g in les.goals}
    assert "f-tradeoff" in {f.id for f in les.formulas}


def _ko_new_texts() -> list[str]:
    raw = lessons.read_source("gaussian", "ko")
    out = [next(s["body"] for s in raw["section"] if s["id"] == SECTION)]
    out += [e["body"] for e in raw["example"] if e["id"] in EXAMPLES]
    for e in raw["exercise"]:
        if e["id"] in EXERCISES:
            out += [e["question"], *e["steps"]]
    for q in raw["quiz"]:
        if q["id"] in QUIZ:
            out += [q["question"]] + [o[k] for o in q["options"] for k in ("text", "why")]
    a = next(a for a in raw["activity"] if a["id"] == "tps-attack")
    out += [a[k] for k in ("title", "body", "expected", "listen", "close")]
    return out


# maths, values, glossary terms and links: what is left is prose
NOT_PROSE = (r"\$\$.*?\$\$|\$[^$]*\$|\{\{[^}]*\}\}|\[\[[^\]]*\]\]|"
             r"\[[^\]]*\]\([^)]*\)")


def test_korean_uses_korean_words_and_no_particle_after_a_value() -> None:
    for text in _ko_new_texts():
        assert not AFTER_PLACEHOLDER.search(text), text[:80]
        plain = re.sub(NOT_PROSE, " ", text, flags=re.S)
        latin = set(re.findall(r"[A-Za-z]{3,}", plain)) - {"dpcore", "gaussian", "GDP"}
        assert not latin, (latin, text[:80])
        assert "TPR" not in text and "FPR" not in text
        assert re.search(r"\d %", text) is None  # 95% spacing as the Korean catalogues write it


@pytest.mark.parametrize("lang", LANGS)
def test_the_terms(lang: str) -> None:
    names = {"ko": ["소속 추론", "가설 검정", "거짓 양성률", "참 양성률", "트레이드오프 함수"],
             "en": ["membership inference", "hypothesis test", "false-positive rate",
                    "true-positive rate", "trade-off function"]}[lang]
    glossary = lessons.glossary(lang)
    assert [glossary[t].name for t in TERMS] == names
    if lang == "ko":  # the other names Korean sources use are listed in the tooltip
        assert "멤버십 추론 공격" in glossary["membership-inference"].tip
        assert "위양성률" in glossary["false-positive-rate"].tip
        assert "민감도" in glossary["true-positive-rate"].tip
    # the lab's attacker view uses the same words
    import json

    cat = json.loads((lessons.LESSON_DIR.parent / "app" / "i18n" / f"lab.{lang}.json")
                     .read_text("utf-8"))
    view = " ".join(t for k, t in cat.items() if k.startswith("lab.attack."))
    for word in names[2:4]:
        assert word in view, word
