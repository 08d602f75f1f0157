"""Browser tests of issue 39 (the course, third edition): the lab tour's first step shows the
card's soft n·δ note, and the CDF lesson prints its computed verdicts and the hold-out table
(both languages)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

import lessons
from app.shell.i18n import t
from ui.conftest import Server


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_tour_step_one_shows_the_soft_note(page: Any, server: Server, lang: str) -> None:
    page.goto(f"{server.url}/lab?tour=1&lang={lang}")
    box = page.locator(".dp-verdict-box")
    expect(box).to_contain_text(t("lab.verdict.pass", lang))
    note = box.locator(".dp-delta-large")
    expect(note).to_be_visible()
    expect(note).to_contain_text(
        t("lab.card.delta_large", lang, inv_n="0.25", expected="0.52", soft="0.01"))
    expect(box.locator(".dp-delta-no-one")).to_have_count(0)
    # the tour's own text says why (the same threshold, computed by dpcore)
    expect(page.locator(".dp-tour-step")).to_contain_text(lessons.tour(lang)[0].title)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_cdf_lesson_prints_the_verdicts(page: Any, server: Server, lang: str) -> None:
    v = lessons.values("cdf")
    page.goto(f"{server.url}/lesson?topic=cdf&lang={lang}")
    mp = page.locator("section#matching-pursuit")
    expect(mp).to_contain_text(v["mp_ref_ks"])
    first = v[f"vd_mp_pp_{lang}"].split("(#paper)")[1].split("MP")[0].strip()
    expect(mp).to_contain_text(first)
    auto = page.locator("section#auto")
    holdout = auto.locator("table").nth(1)
    expect(holdout.locator("th").first).to_be_visible()
    expect(holdout).to_contain_text(v[f"ho_anes96_age_label_{lang}"])
    expect(holdout).to_contain_text(v["ho_penguins_mass_auto"])
