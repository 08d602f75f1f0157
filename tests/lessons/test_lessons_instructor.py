"""The instructor's kit (issue 39, "For the instructor"): realistic 75-minute plans with their
stated slack, every activity with its guide, rubrics and the A4 answer key, an exit ticket per
lesson mapped to the learning goals, the pre-class checklist, the "what the lab does not
model" box, and the index page's links to the teacher views. The plan rules are computed from
the plan data (``plan_problems``) and shown to fail on a broken plan."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

import lessons
from app.lesson import index as lesson_index
from app.lesson import page as lesson_page
from app.lesson import teach
from app.room.tokens import ENV_TOKEN
from app.shell.i18n import t

CASES = [(topic, lang) for topic in lessons.LESSONS for lang in lessons.LANGS]
CLASS_MINUTES = 75
SLACK_MIN = 5  # stated spare minutes a realistic plan keeps
POLL_MINUTES = (12, 15)  # the local-vs-central block and its live poll, hall of 150-300
TPS_MIN_BLOCK = 6  # no think-pair-share inside a block of 5 minutes or less
CONTENT_MIN = 3  # minutes a block keeps for its own content beside its activities
ROOT = Path(__file__).resolve().parents[2]


def _render(**args: str) -> str:
    status, page = lesson_page.render(args, None)
    assert status == 200
    return page


def _args(topic: str, lang: str, **extra: str) -> dict[str, str]:
    return {"lang": lang, **({"topic": topic} if topic != "gaussian" else {}), **extra}


def plan_problems(les: lessons.Lesson, tour: list[str]) -> list[str]:
    """Every rule of a realistic plan that ``les`` breaks (empty: none)."""
    bad = []
    total = sum(r.minutes for r in les.plan)
    slack = [r for r in les.plan if r.level == "slack"]
    if total != CLASS_MINUTES:
        bad.append(f"class blocks add up to {total} min, not {CLASS_MINUTES}")
    if len(slack) != 1 or slack[0].minutes < SLACK_MIN:
        bad.append("no stated slack of at least 5 min")
    in_class = {s: r for r in les.plan for s in r.sections}
    outside = {s for r in les.reading for s in r.sections}
    if "local-central" in in_class:
        m = in_class["local-central"].minutes
        if not POLL_MINUTES[0] <= m <= POLL_MINUTES[1]:
            bad.append(f"the local-vs-central block with its poll has {m} min")
    for a in les.activities:
        if a.minutes <= 0:
            bad.append(f"{a.id}: no class time")
        if a.section not in in_class:
            if a.kind == "think-pair-share" or a.section not in outside:
                bad.append(f"{a.id}: its section is not taught in class")
            continue
        block = in_class[a.section]
        if a.kind == "think-pair-share" and block.minutes < TPS_MIN_BLOCK:
            bad.append(f"{a.id}: think-pair-share in a {block.minutes}-minute block")
    for r in les.plan:
        used = sum(a.minutes for a in les.activities if a.section in r.sections)
        if r.minutes - used < CONTENT_MIN and used:
            bad.append(f"{r.id}: {used} of {r.minutes} min are activities")
    planned = [s for r in (*les.plan, *les.reading) for s in r.tour]
    if planned != tour:
        bad.append(f"tour steps in the plan's order {planned} != the tour's {tour}")
    return bad


@pytest.mark.parametrize(("topic", "lang"), CASES)
def test_plans_are_realistic(topic: str, lang: str) -> None:
    les = lessons.load(topic, lang)
    assert plan_problems(les, teach.tour_ids(topic, lang)) == []


def test_the_plan_rules_can_fail() -> None:
    les = lessons.load("gaussian", "en")
    tour = teach.tour_ids("gaussian", "en")
    polls = next(r for r in les.plan if "local-central" in r.sections)
    short = dataclasses.replace(les, plan=tuple(
        dataclasses.replace(r, minutes=6) if r is polls else r for r in les.plan))
    assert any("local-vs-central" in p for p in plan_problems(short, tour))
    assert any("add up" in p for p in plan_problems(short, tour))
    no_slack = dataclasses.replace(les, plan=tuple(r for r in les.plan if r.level != "slack"))
    assert any("slack" in p for p in plan_problems(no_slack, tour))
    loss = next(r for r in les.plan if "privacy-loss" in r.sections)
    tiny = dataclasses.replace(les, plan=tuple(
        dataclasses.replace(r, minutes=5) if r is loss else r for r in les.plan))
    assert any("think-pair-share in a 5-minute" in p for p in plan_problems(tiny, tour))
    swapped = dataclasses.replace(les, plan=tuple(reversed(les.plan)))
    assert any("tour steps" in p for p in plan_problems(swapped, tour))
    cdf = lessons.load("cdf", "en")
    moved = dataclasses.replace(cdf, reading=(*cdf.reading, *[
        r for r in cdf.plan if "paper" in r.sections]), plan=tuple(
        r for r in cdf.plan if "paper" not in r.sections))
    assert any("tps-paper" in p for p in plan_problems(moved, teach.tour_ids("cdf", "en")))


@pytest.mark.parametrize(("topic", "lang"), CASES)
def test_rendered_plan_states_its_slack_and_tour_steps(topic: str, lang: str) -> None:
    les = lessons.load(topic, lang)
    page = _render(**_args(topic, lang, teacher="1"))
    slack = next(r.minutes for r in les.plan if r.level == "slack")
    assert t("teach.plan_total", lang, minutes=CLASS_MINUTES, slack=slack) in page
    assert page.count('class="dp-plan-row dp-level-slack"') == 1
    assert page.count('<tr class="dp-reading-row') == len(les.reading) >= 1
    steps = {sid: k for k, sid in enumerate(teach.tour_ids(topic, lang), 1)}
    for r in les.plan:
        if r.tour:
            label = t("teach.plan_tour", lang,
                      steps=teach.spans([steps[s] for s in r.tour]))
            row = re.search(rf'<tr [^>]*id="plan-{r.id}">.*?</tr>', page, re.S)
            assert row and label in row.group(0), r.id
        assert f'data-sections="{" ".join(r.sections)}" id="plan-{r.id}"' in page


def test_spans() -> None:
    assert teach.spans([1, 2, 3, 4, 7]) == "1–4, 7"
    assert teach.spans([5, 6]) == "5–6" and teach.spans([3]) == "3"


@pytest.mark.parametrize(("topic", "lang"), CASES)
def test_every_activity_has_its_guide(topic: str, lang: str) -> None:
    les = lessons.load(topic, lang)
    assert les.activities
    for a in les.activities:
        for part in ("expected", "listen", "close"):
            assert getattr(a, part).strip(), (a.id, part)
    teacher = _render(**_args(topic, lang, teacher="1"))
    student = _render(**_args(topic, lang))
    assert "dp-activity-guide" not in student
    for a in les.activities:
        box = re.search(rf'<aside class="dp-activity[^"]*" id="{a.id}".*?</aside>', teacher, re.S)
        assert box, a.id
        for part in ("expected", "listen", "close"):
            assert f'class="dp-guide-{part}"' in box.group(0), (a.id, part)
            assert t(f"teach.guide_{part}", lang) in box.group(0)


@pytest.mark.parametrize("topic", lessons.LESSONS)
def test_rubrics_and_exit_tickets_match_across_languages(topic: str) -> None:
    ko, en = lessons.load(topic, "ko"), lessons.load(topic, "en")
    assert [[p for p, _ in x.rubric] for x in ko.problems] == [
        [p for p, _ in x.rubric] for x in en.problems]
    assert [(e.id, e.goal) for e in ko.exits] == [(e.id, e.goal) for e in en.exits]
    assert [g.id for g in ko.goals] == [g.id for g in en.goals]
    for a, b in zip(ko.activities, en.activities, strict=True):
        assert a.minutes == b.minutes, a.id


@pytest.mark.parametrize(("topic", "lang"), CASES)
def test_answer_key_with_rubric_points(topic: str, lang: str) -> None:
    les = lessons.load(topic, lang)
    for p in les.problems:
        assert p.rubric and all(pts > 0 and text.strip() for pts, text in p.rubric), p.id
    page = _render(**_args(topic, lang, key="1"))
    key = re.search(r'<article class="dp-handout dp-key".*?</article>', page, re.S)
    assert key
    body = key.group(0)
    found = re.findall(r'class="dp-key-problem" id="key-([\w-]+)" data-level="\d" '
                       r'data-points="(\d+)"', body)
    assert found == [(p.id, str(p.points)) for p in les.problems]
    total = sum(p.points for p in les.problems)
    assert f'data-points="{total}"' in body and t("teach.key_total", lang, points=total) in body
    assert body.count('<table class="dp-rubric">') == len(les.problems)
    for p in les.problems:  # every solution step, then one rubric row per criterion
        box = re.search(rf'id="key-{p.id}".*?</table></div>', body, re.S)
        assert box, p.id
        sol = box.group(0).split("<ol>", 1)[1].split("</ol>", 1)[0]
        assert sol.count("<li>") == len(p.steps), p.id
        assert box.group(0).count('<td class="dp-rubric-points">') == len(p.rubric), p.id
    assert body.count('class="dp-key-activity"') == len(les.activities)
    assert body.count('class="dp-exit-answer"') == len(les.exits)
    assert "lesson-teach.css" in page
    css = (ROOT / "assets/lesson-teach.css").read_text("utf-8")
    assert re.search(r"@media print\s*\{\s*@page\s*\{\s*size:\s*A4", css)
    # the teacher view links the key; the student view does not
    assert 'class="dp-key-link"' in _render(**_args(topic, lang, teacher="1"))
    assert 'class="dp-key-link"' not in _render(**_args(topic, lang))


@pytest.mark.parametrize("lang", lessons.LANGS)
def test_three_easy_problems_in_the_cdf_set(lang: str) -> None:
    levels = [p.level for p in lessons.load("cdf", lang).problems]
    assert levels.count(1) >= 3 and {2, 3} <= set(levels)


@pytest.mark.parametrize(("topic", "lang"), CASES)
def test_exit_ticket_names_existing_goals(topic: str, lang: str) -> None:
    les = lessons.load(topic, lang)
    goals = {g.id for g in les.goals}
    assert len(les.exits) >= 3 and len(goals) >= 3
    assert all(e.goal in goals for e in les.exits)
    assert all(e.question.strip() and e.answer.strip() for e in les.exits)
    handout = _render(**_args(topic, lang, handout="1"))
    assert handout.count('class="dp-exit-item"') == len(les.exits)
    assert "dp-exit-answer" not in handout  # students get the questions only
    notes = _render(**_args(topic, lang, teacher="1"))
    for e in les.exits:
        assert f'<a href="#goal-{e.goal}">' in notes and f'id="goal-{e.goal}"' in notes


def test_an_exit_item_naming_an_unknown_goal_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = lessons.read_source("cdf", "en")
    broken = {**raw, "exit": [{**raw["exit"][0], "goal": "no-such-goal"}]}
    monkeypatch.setattr(lessons, "read_source", lambda lesson, lang: broken)
    lessons.load.cache_clear()
    try:
        with pytest.raises(ValueError, match="unknown learning goal"):
            lessons.load("cdf", "en")
    finally:
        monkeypatch.undo()
        lessons.load.cache_clear()


LIMITS = {
    "ko": ("더하거나 빼는", "사람 단위", "부분 표본", "부동소수점", "PCG64", "판정 불가"),
    "en": ("add or remove", "Person-level", "Subsampling", "Floating-point", "PCG64",
           "too close to call"),
}


@pytest.mark.parametrize(("topic", "lang"), CASES)
def test_checklist_and_what_the_lab_does_not_model(topic: str, lang: str) -> None:
    les = lessons.load(topic, lang)
    notes = {n.id: n.body for n in les.teacher}
    check = notes["checklist"]
    for needle in (f"`{ENV_TOKEN}`", "size=large", "`/teach`", "`/join`", "DPLAB_PUBLIC_URL",
                   "handout=1", "key=1"):
        assert needle in check, needle
    tour = "/lab?tour=1&size=large" if topic == "gaussian" else "/cdf?tour=1&size=large"
    assert tour in check
    limits = notes["limits"]
    for needle in LIMITS[lang]:
        assert needle in limits, needle
    assert lessons.values(topic)["ref_mironov"] in limits
    page = _render(**_args(topic, lang, teacher="1"))
    assert 'class="dp-teacher-block dp-limits" id="teacher-limits"' in page
    assert page.index('id="teacher-checklist"') < page.index('id="teacher-plan"')
    assert 'class="dp-handout-part dp-limits"' in _render(**_args(topic, lang, handout="1"))


@pytest.mark.parametrize("lang", lessons.LANGS)
def test_index_links_the_teacher_views(lang: str) -> None:
    status, page = lesson_index.render({"lang": lang}, None)
    assert status == 200
    sec = re.search(r'<section class="dp-index-teacher".*?</section>', page, re.S)
    assert sec and t("teach.index_heading", lang) in sec.group(0)
    hrefs = [h.replace("&amp;", "&") for h in re.findall(r'href="([^"]+)"', sec.group(0))]
    for topic in ("", "&topic=cdf"):
        assert f"/lesson?lang={lang}{topic}&teacher=1" in hrefs
        assert f"/lesson?lang={lang}{topic}&teacher=1&size=large" in hrefs
        assert f"/lesson?lang={lang}{topic}&key=1" in hrefs
    for h in hrefs:
        assert _render(**dict(x.split("=") for x in h.split("?")[1].split("&")))
    for lesson in lessons.LESSONS:  # each link names its lesson for a screen reader
        name = t(f"common.index.lesson_{lesson}", lang)
        for cls in ("notes", "present", "key"):
            label = t(f"teach.index_{cls}", lang, lesson=name)
            assert f'aria-label="{label}"' in sec.group(0).replace("&#x27;", "'"), label


@pytest.mark.parametrize(("topic", "lang"), CASES)
def test_present_mode_carries_the_notes_strings(topic: str, lang: str) -> None:
    page = _render(**_args(topic, lang, teacher="1", size="large"))
    m = re.search(r'<script type="application/json" id="dp-slide-strings">(.*?)</script>', page)
    assert m and t("teach.slide_notes", lang) in m.group(1)
    js = (ROOT / "assets/lesson-teach.js").read_text("utf-8")
    assert "history.replaceState" in js and "pushState" not in js
    assert 'id="dp-slide-strings"' not in _render(**_args(topic, lang, key="1", size="large"))
