"""The instructor's parts of /lesson: teacher notes, the in-class activities, the graded problem
set and the printable handout (plain HTML from ``lessons/*.toml``).

Fixed names (outside checks rely on them): the notes at ``/lesson?teacher=1`` (and
``&topic=cdf``) inside ``.dp-teacher-notes``; the timed plan ``table.dp-lesson-plan``, one
``tr.dp-plan-row`` per block with its minutes in ``data-minutes``; activities
``.dp-activity`` (``data-kind``: think-pair-share or sketch); problems ``.dp-problem``
(``data-level`` 1-3, marks ``.dp-difficulty``, solution ``.dp-problem-solution``, hidden until
``.dp-solution-toggle``); the handout ``/lesson?handout=1`` (``.dp-handout``); the answer key
with the rubric ``/lesson?key=1`` (``.dp-key``, ``.dp-rubric``). Each plan row names its sections
(``data-sections``), which present mode's notes panel (``.dp-slide-notes``, key N) shows per
slide; the activities' guide for the instructor (``.dp-activity-guide``) is in the teacher view.
Present mode (``size=large``) is assets/lesson-teach.js on the ordinary page.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from typing import Protocol
from urllib.parse import urlencode

import lessons
from app.lesson import sketch
from app.shell.i18n import t


class Markup(Protocol):
    def block(self, text: str) -> str: ...

    def inline(self, text: str) -> str: ...


def _tr(lang: str) -> Callable[..., str]:
    return lambda key, **f: html.escape(t(key, lang, **f))


def lesson_query(topic: str, lang: str, kept: Mapping[str, str], **extra: str) -> str:
    """``/lesson?...`` for this topic with the kept options and ``extra`` (e.g. teacher=1)."""
    q = {"lang": lang, **kept, **({"topic": topic} if topic != "gaussian" else {}), **extra}
    return "/lesson?" + urlencode({k: v for k, v in q.items() if v})


def tour_ids(lesson_id: str, lang: str) -> list[str]:
    """The step ids of the lesson's guided tour (the lab's, or /cdf's), in the tour's order."""
    steps = lessons.tour(lang) if lesson_id == "gaussian" else lessons.cdf_tour(lang)
    return [s.id for s in steps]


def spans(nums: list[int]) -> str:
    """1, 2, 3, 4, 7 -> "1–4, 7" (tour step numbers of a plan block)."""
    out: list[str] = []
    for k in sorted(nums):
        if out and out[-1].split("–")[-1] == str(k - 1):
            out[-1] = f"{out[-1].split('–')[0]}–{k}"
        else:
            out.append(str(k))
    return ", ".join(out)


def stars(level: int, lang: str) -> str:
    return (f'<span class="dp-difficulty" role="img" '
            f'aria-label="{_tr(lang)("teach.difficulty", level=level)}">{"★" * level}</span>')


def tools_html(lesson: lessons.Lesson, lang: str, kept: Mapping[str, str], teacher: bool) -> str:
    """The links under the lead: notes on/off, present mode, handout."""
    tr = _tr(lang)
    base = dict(kept)
    notes = (lesson_query(lesson.id, lang, base) if teacher
             else lesson_query(lesson.id, lang, base, teacher="1"))
    present = lesson_query(lesson.id, lang, {**base, "size": "large"},
                           **({"teacher": "1"} if teacher else {}))
    printable = {k: v for k, v in base.items() if k != "size"}
    handout = lesson_query(lesson.id, lang, printable, handout="1")
    links = [(notes, "teach.close_notes" if teacher else "teach.open_notes", "dp-notes-link")]
    if kept.get("size") != "large":
        links.append((present, "teach.present", "dp-present-link"))
    links.append((handout, "teach.handout", "dp-handout-link"))
    if teacher:
        links.append((lesson_query(lesson.id, lang, printable, key="1"), "teach.key",
                      "dp-key-link"))
    items = " · ".join(f'<a class="{cls}" href="{html.escape(href)}">{tr(key)}</a>'
                       for href, key, cls in links)
    return f'<p class="dp-teach-tools">{items}</p>'


def notes_html(lesson: lessons.Lesson, r: Markup, lang: str) -> str:
    """The teacher notes: goals, prerequisites, the timed plan, the tour, common errors."""
    if not lesson.teacher and not lesson.plan:
        return ""
    tr = _tr(lang)
    titles = {s.id: s.title for s in lesson.sections}
    step_no = {sid: k for k, sid in enumerate(tour_ids(lesson.id, lang), 1)}

    def table(rows_in: tuple[lessons.PlanRow, ...], cls: str, row_cls: str) -> str:
        rows = []
        for k, row in enumerate(rows_in, 1):
            secs = ", ".join(f'<a href="#{s}">{r.inline(titles[s])}</a>' for s in row.sections)
            note = r.block(row.body) if row.body.strip() else ""
            where = (f'<div class="dp-plan-sections">{tr("teach.sections")} {secs}</div>'
                     if secs else "")
            tour = (f'<div class="dp-plan-tour">'
                    f'{tr("teach.plan_tour", steps=spans([step_no[t] for t in row.tour]))}</div>'
                    if row.tour else "")
            rows.append(
                f'<tr class="{row_cls} dp-level-{row.level}" data-minutes="{row.minutes}" '
                f'data-level="{row.level}" data-sections="{" ".join(row.sections)}" '
                f'id="plan-{row.id}"><td>{k}</td>'
                f'<td class="dp-plan-minutes">{tr("teach.minutes", minutes=row.minutes)}</td>'
                f"<td><strong>{r.inline(row.title)}</strong>"
                f"{where}{tour}{note}</td>"
                f'<td><span class="dp-level">{tr(f"teach.level.{row.level}")}</span></td></tr>')
        total = sum(row.minutes for row in rows_in)
        slack = sum(row.minutes for row in rows_in if row.level == "slack")
        foot = (tr("teach.plan_total", minutes=total, slack=slack) if cls == "dp-lesson-plan"
                else tr("teach.reading_total", minutes=total))
        return (f'<table class="{cls}"><thead><tr><th scope="col">'
                f'{tr("teach.plan_block")}</th><th scope="col">{tr("teach.plan_minutes")}</th>'
                f'<th scope="col">{tr("teach.plan_what")}</th><th scope="col">'
                f'{tr("teach.plan_level")}</th></tr></thead><tbody>{"".join(rows)}</tbody>'
                f'<tfoot><tr><td colspan="4">{foot}</td></tr></tfoot></table>')

    plan = ""
    if lesson.plan:
        plan = (f'<h3 id="teacher-plan">{tr("teach.plan")}</h3>'
                f'{table(lesson.plan, "dp-lesson-plan", "dp-plan-row")}')
    if lesson.reading:
        plan += (f'<h3 id="teacher-reading">{tr("teach.reading")}</h3>'
                 f'<p class="dp-muted">{tr("teach.reading_lead")}</p>'
                 f'{table(lesson.reading, "dp-lesson-reading", "dp-reading-row")}')
    plan += exit_html(lesson, r, lang, answers=True)
    lead = ("goals", "prerequisites", "checklist")
    first = sorted((n for n in lesson.teacher if n.id in lead), key=lambda n: lead.index(n.id))
    rest = [n for n in lesson.teacher if n.id not in lead]

    def block(n: lessons.Note) -> str:
        goals = goals_html(lesson, r) if n.id == "goals" else ""
        cls = " dp-limits" if n.id == "limits" else ""
        return (f'<div class="dp-teacher-block{cls}" id="teacher-{n.id}">'
                f"<h3>{r.inline(n.title)}</h3>{r.block(n.body)}{goals}</div>")

    return (f'<section class="dp-section dp-teacher-notes" id="teacher" '
            f'aria-labelledby="teacher-h"><h2 id="teacher-h">{tr("teach.notes")}</h2>'
            f'<p class="dp-muted">{tr("teach.notes_lead")}</p>'
            f'{"".join(block(n) for n in first)}{plan}{"".join(block(n) for n in rest)}'
            f'<p><button type="button" class="dp-btn dp-solutions-all" '
            f'data-show="{tr("teach.solutions_all_show")}" '
            f'data-hide="{tr("teach.solutions_all_hide")}" aria-controls="problems">'
            f'{tr("teach.solutions_all_show")}</button></p></section>')


def goals_html(lesson: lessons.Lesson, r: Markup) -> str:
    """The learning goals, each with an anchor the exit ticket points to."""
    items = "".join(f'<li id="goal-{g.id}" class="dp-goal">{r.inline(g.text)}</li>'
                    for g in lesson.goals)
    return f'<ul class="dp-goals">{items}</ul>' if items else ""


def exit_html(lesson: lessons.Lesson, r: Markup, lang: str, answers: bool,
              heading: str = "h3") -> str:
    """The exit ticket: each item names its learning goal; ``answers`` adds the answers."""
    if not lesson.exits:
        return ""
    tr = _tr(lang)
    goals = {g.id: g.text for g in lesson.goals}
    items = []
    for e in lesson.exits:
        goal = (f'<p class="dp-exit-goal" data-goal="{e.goal}">{tr("teach.exit_goal")} '
                f'<a href="#goal-{e.goal}">{r.inline(goals[e.goal])}</a></p>' if answers
                else "")
        ans = (f'<div class="dp-exit-answer"><strong>{tr("teach.exit_answer")}</strong> '
               f"{r.block(e.answer)}</div>" if answers
               else '<div class="dp-exit-write" aria-hidden="true"></div>')
        items.append(f'<li class="dp-exit-item" id="exit-{e.id}" data-goal="{e.goal}">'
                     f"{r.block(e.question)}{goal}{ans}</li>")
    return (f'<div class="dp-exit-ticket" id="exit-ticket"><{heading}>{tr("teach.exit")}'
            f'</{heading}><p class="dp-muted">{tr("teach.exit_lead")}</p>'
            f'<ol>{"".join(items)}</ol></div>')


def guide_html(a: lessons.Activity, r: Markup, lang: str) -> str:
    """The instructor's guide to one activity: expected answers, what to listen for, the
    closing line (teacher view and answer key only)."""
    tr = _tr(lang)
    parts = [(key, text) for key, text in (("expected", a.expected), ("listen", a.listen),
                                           ("close", a.close)) if text.strip()]
    items = "".join(f'<dt>{tr(f"teach.guide_{key}")}</dt><dd class="dp-guide-{key}">'
                    f"{r.block(text)}</dd>" for key, text in parts)
    return (f'<div class="dp-activity-guide"><p class="dp-guide-head"><strong>'
            f'{tr("teach.guide")}</strong> · {tr("teach.guide_minutes", minutes=a.minutes)}'
            f"</p><dl>{items}</dl></div>")


def activity_html(a: lessons.Activity, r: Markup, lang: str,
                  open_link: Callable[[str], str], teacher: bool = False) -> str:
    tr = _tr(lang)
    kind = tr(f"teach.activity.{a.kind}")
    head = (f'<h3 id="{a.id}-title"><span class="dp-kicker">{kind}</span> '
            f"{r.inline(a.title)}</h3>")
    link = f"<p>{open_link(a.link)}</p>" if a.link else ""
    guide = guide_html(a, r, lang) if teacher else ""
    if a.kind == "think-pair-share":
        return (f'<aside class="dp-activity dp-tps" id="{a.id}" data-kind="{a.kind}" '
                f'aria-labelledby="{a.id}-title">{head}{r.block(a.body)}'
                f'<p class="dp-muted">{tr("teach.tps_steps")}</p>{link}{guide}</aside>')
    labels = {"pad": t("teach.sketch_label", lang, title=a.title),
              "yours": t("teach.sketch_yours", lang), "truth": t("teach.sketch_truth", lang),
              "guide": t("teach.sketch_guide", lang)}
    live = open_link(sketch.LINKS[a.figure]) if a.figure in sketch.LINKS else ""
    return (
        f'<aside class="dp-activity dp-sketch" id="{a.id}" data-kind="{a.kind}" '
        f'data-figure="{a.figure}" aria-labelledby="{a.id}-title">{head}{r.block(a.body)}'
        f'<p class="dp-muted">{tr("teach.sketch_help")}</p>'
        f'<div class="dp-sketch-figure">{sketch.svg(a.figure, a.title, labels)}</div>'
        f'<p class="dp-sketch-actions"><button type="button" class="dp-btn dp-sketch-reveal" '
        f'aria-controls="{a.id}-reveal" aria-expanded="false" '
        f'data-show="{tr("teach.sketch_reveal")}" data-hide="{tr("teach.sketch_hide")}">'
        f'{tr("teach.sketch_reveal")}</button> '
        f'<button type="button" class="dp-btn dp-sketch-clear">{tr("teach.sketch_clear")}'
        f"</button></p>"
        f'<div class="dp-sketch-reveal-text" id="{a.id}-reveal" hidden aria-live="polite">'
        f"{r.block(a.reveal)}<p>{live}</p></div>{link}{guide}</aside>")


def problems_html(lesson: lessons.Lesson, r: Markup, lang: str,
                  open_link: Callable[[str], str]) -> str:
    if not lesson.problems:
        return ""
    tr = _tr(lang)
    items = []
    for k, p in enumerate(lesson.problems, 1):
        steps = "".join(f"<li>{r.block(s)}</li>" for s in p.steps)
        link = f'<p class="dp-problem-links">{open_link(p.link)}</p>' if p.link else ""
        items.append(
            f'<div class="dp-problem" id="problem-{p.id}" data-level="{p.level}">'
            f'<h3>{tr("teach.problem_n", k=k)} {stars(p.level, lang)}</h3>'
            f"{r.block(p.question)}{link}"
            f'<p><button type="button" class="dp-btn dp-solution-toggle" aria-expanded="false" '
            f'aria-controls="solution-{p.id}" data-show="{tr("teach.solution_show")}" '
            f'data-hide="{tr("teach.solution_hide")}">{tr("teach.solution_show")}</button></p>'
            f'<div class="dp-problem-solution" id="solution-{p.id}" hidden>'
            f'<h4>{tr("teach.solution")}</h4><ol>{steps}</ol></div></div>')
    return (f'<section class="dp-section dp-problems" id="problems" aria-labelledby="problems-h">'
            f'<h2 id="problems-h">{tr("teach.problems")} <a class="dp-anchor" href="#problems" '
            f'aria-label="{tr("lesson.anchor")}">#</a></h2>'
            f'<p>{tr("teach.problems_lead")}</p>{"".join(items)}</section>')


def handout_html(lesson: lessons.Lesson, r: Markup, lang: str, kept: Mapping[str, str]) -> str:
    """The printable A4 handout: key formulas, worked examples, exercises without solutions."""
    tr = _tr(lang)
    back = lesson_query(lesson.id, lang, kept)
    formulas = "".join(f'<div class="dp-handout-formula"><h3>{r.inline(f.title)}</h3>'
                       f"{r.block(f.body)}</div>" for f in lesson.formulas)
    examples = "".join(f'<div class="dp-handout-example"><h3>{r.inline(e.title)}</h3>'
                       f"{r.block(e.body)}</div>" for e in lesson.examples)
    exercises = "".join(f'<li class="dp-handout-exercise">{r.block(e.question)}</li>'
                        for e in lesson.exercises)
    problems = "".join(f'<li class="dp-handout-problem">{stars(p.level, lang)} '
                       f"{r.block(p.question)}</li>" for p in lesson.problems)
    parts = [f'<section class="dp-handout-part"><h2>{tr("teach.handout_formulas")}</h2>'
             f"{formulas}</section>" if formulas else "",
             f'<section class="dp-handout-part"><h2>{tr("teach.handout_examples")}</h2>'
             f"{examples}</section>" if examples else "",
             f'<section class="dp-handout-part"><h2>{tr("teach.handout_exercises")}</h2>'
             f"<ol>{exercises}</ol></section>" if exercises else "",
             f'<section class="dp-handout-part"><h2>{tr("teach.handout_problems")}</h2>'
             f"<ol>{problems}</ol></section>" if problems else ""]
    limits = next((n for n in lesson.teacher if n.id == "limits"), None)
    if limits is not None:
        parts.append(f'<section class="dp-handout-part dp-limits"><h2>{r.inline(limits.title)}'
                     f"</h2>{r.block(limits.body)}</section>")
    if lesson.exits:
        parts.append(f'<section class="dp-handout-part dp-handout-exit">'
                     f"{exit_html(lesson, r, lang, answers=False, heading='h2')}</section>")
    return (f'<article class="dp-handout" data-lesson="{lesson.id}">'
            f'<p class="dp-handout-tools"><button type="button" class="dp-btn dp-print">'
            f'{tr("teach.handout_print")}</button> <a href="{html.escape(back)}">'
            f'{tr("teach.handout_back")}</a></p>'
            f'<h1>{tr("teach.handout_title", title=lesson.title)}</h1>'
            f'<p class="dp-muted">{tr("teach.handout_lead")}</p>{"".join(parts)}'
            f'<p class="dp-handout-source dp-muted">'
            f'{tr("teach.handout_source", link=back)}</p></article>')


def key_html(lesson: lessons.Lesson, r: Markup, lang: str, kept: Mapping[str, str]) -> str:
    """The printable A4 answer key for the instructor: every problem with its solution and
    rubric (points), the activities' guides, the exit ticket with its answers and goals."""
    tr = _tr(lang)
    back = lesson_query(lesson.id, lang, kept, teacher="1")
    probs = []
    for k, p in enumerate(lesson.problems, 1):
        steps = "".join(f"<li>{r.block(x)}</li>" for x in p.steps)
        rubric = "".join(f'<tr><td class="dp-rubric-points">{tr("teach.points", points=pts)}'
                         f"</td><td>{r.inline(text)}</td></tr>" for pts, text in p.rubric)
        probs.append(
            f'<div class="dp-key-problem" id="key-{p.id}" data-level="{p.level}" '
            f'data-points="{p.points}"><h3>{tr("teach.problem_n", k=k)} {stars(p.level, lang)} '
            f'<span class="dp-key-points">{tr("teach.problem_points", points=p.points)}</span>'
            f"</h3>{r.block(p.question)}<h4>{tr('teach.solution')}</h4><ol>{steps}</ol>"
            f'<table class="dp-rubric"><caption>{tr("teach.rubric")}</caption><thead><tr>'
            f'<th scope="col">{tr("teach.rubric_points")}</th><th scope="col">'
            f'{tr("teach.rubric_what")}</th></tr></thead><tbody>{rubric}</tbody></table></div>')
    total = sum(p.points for p in lesson.problems)
    acts = "".join(
        f'<div class="dp-key-activity" id="key-{a.id}" data-kind="{a.kind}"><h3>'
        f'<span class="dp-kicker">{tr(f"teach.activity.{a.kind}")}</span> {r.inline(a.title)}'
        f"</h3>{r.block(a.body)}{guide_html(a, r, lang)}</div>" for a in lesson.activities)
    goals = next((n for n in lesson.teacher if n.id == "goals"), None)
    goal_part = (f'<section class="dp-handout-part"><h2>{r.inline(goals.title)}</h2>'
                 f"{r.block(goals.body)}{goals_html(lesson, r)}</section>" if goals else "")
    return (f'<article class="dp-handout dp-key" data-lesson="{lesson.id}">'
            f'<p class="dp-handout-tools"><button type="button" class="dp-btn dp-print">'
            f'{tr("teach.handout_print")}</button> <a href="{html.escape(back)}">'
            f'{tr("teach.key_back")}</a></p>'
            f'<h1>{tr("teach.key_title", title=lesson.title)}</h1>'
            f'<p class="dp-muted">{tr("teach.key_lead")}</p>'
            f'<section class="dp-handout-part dp-key-problems"><h2>{tr("teach.key_problems")}'
            f'</h2>{"".join(probs)}<p class="dp-key-total" data-points="{total}"><strong>'
            f'{tr("teach.key_total", points=total)}</strong></p></section>'
            f'<section class="dp-handout-part"><h2>{tr("teach.key_activities")}</h2>{acts}'
            f"</section>{goal_part}"
            f'<section class="dp-handout-part">'
            f"{exit_html(lesson, r, lang, answers=True, heading='h2')}</section>"
            f'<p class="dp-handout-source dp-muted">'
            f'{tr("teach.handout_source", link=back)}</p></article>')
