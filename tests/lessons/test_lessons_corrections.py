"""Issue 18, section 1: the corrected statements read their numbers from dpcore, in both
languages alike."""

from __future__ import annotations

import pytest

import lessons
from dpcore.cdf import mp
from dpcore.cdf.hist import auto_bins


def _section(lesson: str, lang: str, sid: str) -> str:
    return next(s.body for s in lessons.load(lesson, lang).sections if s.id == sid)


@pytest.mark.parametrize("lang", lessons.LANGS)
def test_auto_states_the_bin_rule_of_the_code(lang: str) -> None:
    v = lessons.values("cdf")
    body = _section("cdf", lang, "auto")
    assert v["bins_rule_tex"] in body
    assert v["bins_eps01"] == str(auto_bins(10_000, 0.1))
    assert "docs/cdf-results.md" in body and "dpcore/cdf/hist.py" in body


def test_degree_crossing_and_minimum_are_values() -> None:
    v = lessons.values("cdf")
    assert int(v["k_cross"]) <= int(v["k_opt"])
    for lang in lessons.LANGS:
        ex = next(e.body for e in lessons.load("cdf", lang).examples if e.id == "ex-degree")
        assert f"K = {v['k_cross']}" in ex and f"K = {v['k_opt']}" in ex


@pytest.mark.parametrize("lang", lessons.LANGS)
def test_mp_has_its_own_release(lang: str) -> None:
    body = _section("cdf", lang, "matching-pursuit")
    assert str(mp.K_MAX_DEFAULT) in body and lessons.values("cdf")["mp_released"] in body


@pytest.mark.parametrize("lang", lessons.LANGS)
def test_worked_teaches_what_delta_allows(lang: str) -> None:
    v = lessons.values("gaussian")
    body = _section("gaussian", lang, "worked")
    assert "(0, \\delta)" in body and "\\ll 1/n" in body
    assert v["ns_expected"] == "0.52" and v["ns_any"] in body


@pytest.mark.parametrize("lang", lessons.LANGS)
def test_reading_lab_quotes_the_density_title(lang: str) -> None:
    import json

    cat = json.loads((lessons.LESSON_DIR.parent / "app" / "i18n" / f"lab.{lang}.json")
                     .read_text("utf-8"))
    assert f'"{cat["lab.dens.title"]}"' in _section("gaussian", lang, "reading-lab")


def test_baselines_name_the_winners_from_the_values() -> None:
    v = lessons.values("cdf")
    assert v["bl_hq_wins_en"] != "none"  # the lesson says hq wins somewhere on this seed
    for lang in lessons.LANGS:
        ex = next(e.body for e in lessons.load("cdf", lang).examples if e.id == "ex-baselines")
        # the winners are named by a computed verdict (issue 39: lessons/verdicts_cdf.py)
        assert v[f"vd_bl_seed_{lang}"] in ex and v["low_hq128_ks"] in ex
