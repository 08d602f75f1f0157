"""/lesson (Gaussian) and /lesson?topic=cdf: plain HTML rendered from ``lessons/*.toml``.

The page is static per (lesson, language, options) and cached: reading a lesson costs the
server nothing per student. Maths is typeset in the browser by KaTeX served from /assets (its
output carries MathML, so a screen reader reads the formula; before KaTeX runs the TeX source
is the text). Quiz answers and "learned" marks are kept by /assets/lesson.js in the student's
localStorage (keys ``dplab.quiz.<lesson>.<id>`` and ``dplab.learned.<lesson>.<id>``).

Fixed CSS classes (outside checks rely on them): dp-quiz-question, dp-quiz-explanation,
dp-exercise, dp-exercise-answer, dp-open-in-lab; the instructor's parts (teacher notes, activities,
problem set, handout, present mode) are listed in :mod:`app.lesson.teach`.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from functools import cache

from markdown_it import MarkdownIt

import lessons
from app.lesson import teach
from app.shell.html import document, options
from app.shell.i18n import t
from app.shell.template import asset_url

TOPICS = {"gaussian": "gaussian", "cdf": "cdf"}
_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)
_TERM = re.compile(r"\[\[([a-z0-9-]+)(?:\|([^\]]+))?\]\]")
_TOKEN = re.compile(r"DPTOK(\d+)X")
# An empty header cell (the corner above a column of row names) is no header: a <td> says so
# to a screen reader (axe "empty-table-header").
_EMPTY_TH = re.compile(r"<th( style=\"[^\"]*\")?></th>")
_MD = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")


class _Renderer:
    """Markdown + maths + glossary terms of one page (token ids unique per page)."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.terms = lessons.glossary(lang)
        self.tokens: list[str] = []
        self.tip_count = 0
        self.table_count = 0

    def _protect(self, text: str) -> str:
        def math(m: re.Match[str]) -> str:
            display = m.group(1) is not None
            tex = m.group(1) if display else m.group(2)
            # A span even for display maths (CSS makes it a block): valid inside <p>.
            cls = "dp-math dp-display" if display else "dp-math"
            self.tokens.append(f'<span class="{cls}">{html.escape(tex.strip())}</span>')
            return f"DPTOK{len(self.tokens) - 1}X"

        def term(m: re.Match[str]) -> str:
            tid, shown = m.group(1), m.group(2)
            if tid not in self.terms:
                raise KeyError(f"unknown glossary term [[{tid}]] ({self.lang})")
            tm = self.terms[tid]
            self.tip_count += 1
            tip_id = f"dp-tip-{self.tip_count}"
            tip = self.inline(tm.tip)
            self.tokens.append(
                f'<span class="dp-term" tabindex="0" aria-describedby="{tip_id}">'
                f"{html.escape(shown or tm.name)}"
                f'<span class="dp-tip" role="tooltip" id="{tip_id}"><strong>'
                f"{html.escape(tm.name)}</strong> {tip}</span></span>")
            return f"DPTOK{len(self.tokens) - 1}X"

        return _TERM.sub(term, _MATH.sub(math, text))

    def _restore(self, out: str) -> str:
        for _ in range(3):  # tips hold maths: restore nested tokens
            out = _TOKEN.sub(lambda m: self.tokens[int(m.group(1))], out)
        return out

    def block(self, text: str) -> str:
        out = _EMPTY_TH.sub(r"<td\1></td>", self._restore(_MD.render(self._protect(text))))
        # A table wider than a phone scrolls inside its own box, not the page; the box takes
        # keyboard focus so the arrow keys scroll it (axe "scrollable-region-focusable").
        # Each region is a landmark, so each has a name of its own ("table 3 ...").

        def wrap(_: re.Match[str]) -> str:
            self.table_count += 1
            label = html.escape(t("lesson.table_region", self.lang, k=self.table_count))
            return (f'<div class="dp-table-wrap" role="region" tabindex="0" '
                    f'aria-label="{label}"><table>')

        return re.sub(r"<table>", wrap, out).replace("</table>", "</table></div>")

    def inline(self, text: str) -> str:
        return self._restore(_MD.renderInline(self._protect(text)))


def _lab_href(link: str, lang: str, kept: Mapping[str, str]) -> str:
    extra = "".join(f"&{k}={v}" for k, v in (("lang", lang), *kept.items()))
    return link + extra


def lesson_html(lesson: lessons.Lesson, lang: str, kept: Mapping[str, str],
                teacher: bool = False) -> str:
    """The lesson page's body; ``teacher`` adds the instructor's notes (``.dp-teacher-notes``)."""
    r = _Renderer(lang)
    tr = lambda key, **f: html.escape(t(key, lang, **f))  # noqa: E731

    def open_link(link: str, cls: str = "dp-open-in-lab") -> str:
        key = "lesson.open_lab" if link.startswith("/lab") else "lesson.open_cdf"
        return (f'<a class="{cls}" href="{html.escape(_lab_href(link, lang, kept))}">'
                f"{tr(key)}</a>")

    def open_teach(link: str) -> str:  # activities and problems (not counted as exercises)
        return open_link(link, "dp-open-in-lab-teach")

    toc = [f'<li><a href="#{s.id}">{r.inline(s.title)}</a></li>' for s in lesson.sections]
    if lesson.exercises:
        toc.append(f'<li><a href="#exercises">{tr("lesson.exercises")}</a></li>')
    if lesson.problems:
        toc.append(f'<li><a href="#problems">{tr("teach.problems")}</a></li>')
    if lesson.quiz:
        toc.append(f'<li><a href="#quiz">{tr("lesson.quiz")}</a></li>')

    sections = []
    for s in lesson.sections:
        examples = "".join(
            f'<aside class="dp-example" id="{e.id}" aria-labelledby="{e.id}-title">'
            f'<h3 id="{e.id}-title"><span class="dp-kicker">{tr("lesson.example")}</span> '
            f"{r.inline(e.title)}</h3>{r.block(e.body)}<p>{open_link(e.link)}</p></aside>"
            for e in lesson.examples if e.section == s.id)
        examples += "".join(teach.activity_html(a, r, lang, open_teach, teacher)
                            for a in lesson.activities if a.section == s.id)
        sections.append(
            f'<section class="dp-section" id="{s.id}" aria-labelledby="{s.id}-h">'
            f'<h2 id="{s.id}-h">{r.inline(s.title)} <a class="dp-anchor" href="#{s.id}" '
            f'aria-label="{tr("lesson.anchor")}">#</a></h2>{r.block(s.body)}{examples}</section>')

    exercises = []
    for k, e in enumerate(lesson.exercises, 1):
        steps = "".join(f'<li class="dp-exercise-step" hidden>{r.block(s)}</li>' for s in e.steps)
        exercises.append(
            f'<div class="dp-exercise" id="exercise-{e.id}" data-steps="{len(e.steps)}">'
            f'<h3>{tr("lesson.exercise_n", k=k)}</h3>{r.block(e.question)}'
            f'<p class="dp-exercise-links">{open_link(e.link)}</p>'
            f'<ol class="dp-exercise-answer" id="answer-{e.id}" hidden aria-live="polite">'
            f"{steps}</ol>"
            f'<p class="dp-exercise-actions"><button type="button" class="dp-btn dp-next-step" '
            f'aria-controls="answer-{e.id}" data-first="{tr("lesson.step_first")}" '
            f'data-next="{tr("lesson.step_next")}" data-done="{tr("lesson.step_done")}">'
            f'{tr("lesson.step_first")}</button> '
            f'<button type="button" class="dp-btn dp-hide-steps" hidden>'
            f'{tr("lesson.step_hide")}</button></p></div>')

    questions = []
    for k, q in enumerate(lesson.quiz, 1):
        name = f"quiz-{q.id}"
        opts = "".join(
            f'<label class="dp-option"><input type="radio" name="{name}" value="{i}"> '
            f"<span>{r.inline(o.text)}</span></label>" for i, o in enumerate(q.options))
        marks = (tr("lesson.quiz_wrong_mark"), tr("lesson.quiz_right_mark"))
        whys = "".join(
            f'<li class="{"dp-right" if o.correct else "dp-wrong"}" data-option="{i}">'
            f'<span class="dp-mark">{marks[o.correct]}</span> '
            f'<span class="dp-opt-text">{r.inline(o.text)}</span>'
            f'<span class="dp-yours" hidden> {tr("lesson.quiz_yours")}</span>'
            f'<div class="dp-why">{r.block(o.why)}</div></li>' for i, o in enumerate(q.options))
        questions.append(
            f'<fieldset class="dp-quiz-question" id="{name}" data-qid="{q.id}">'
            f'<legend><span class="dp-qnum">{k}.</span> {r.inline(q.question)}</legend>'
            f'<div class="dp-options">{opts}</div>'
            f'<p class="dp-quiz-actions"><button type="button" class="dp-btn dp-check">'
            f'{tr("lesson.quiz_check")}</button> '
            f'<span class="dp-quiz-status" role="status"></span></p>'
            f'<div class="dp-quiz-explanation" hidden>'
            f'<p class="dp-quiz-verdict"></p><ul class="dp-whys">{whys}</ul>'
            f'<p class="dp-quiz-actions"><label class="dp-learned-label">'
            f'<input type="checkbox" class="dp-learned"> {tr("lesson.quiz_learned")}</label> '
            f'<button type="button" class="dp-btn dp-redo">{tr("lesson.quiz_redo")}</button>'
            f"</p></div></fieldset>")

    ex_html = ""
    if exercises:
        ex_html = (f'<section class="dp-section" id="exercises" aria-labelledby="exercises-h">'
                   f'<h2 id="exercises-h">{tr("lesson.exercises")} <a class="dp-anchor" '
                   f'href="#exercises" aria-label="{tr("lesson.anchor")}">#</a></h2>'
                   f'<p>{tr("lesson.exercises_lead")}</p>{"".join(exercises)}</section>')
    quiz_html = ""
    if questions:
        quiz_html = (
            f'<section class="dp-section dp-quiz" id="quiz" aria-labelledby="quiz-h" '
            f'data-lesson="{lesson.id}">'
            f'<h2 id="quiz-h">{tr("lesson.quiz")} <a class="dp-anchor" href="#quiz" '
            f'aria-label="{tr("lesson.anchor")}">#</a></h2>'
            f'<p>{tr("lesson.quiz_lead")}</p><p class="dp-muted">{tr("lesson.quiz_storage")}</p>'
            f'<p class="dp-quiz-summary" aria-live="polite" '
            f'data-template="{tr("common.index.progress")}"></p>'
            f'{"".join(questions)}'
            f'<p><button type="button" class="dp-btn dp-reset-all">{tr("lesson.quiz_reset_all")}'
            f"</button></p></section>")

    tour_href, tour_key = (("/lab?tour=1", "lesson.tour") if lesson.id == "gaussian"
                           else ("/cdf?tour=1", "teach.cdf_tour"))
    tour = (f'<p class="dp-tour-link"><a class="dp-btn-link" href="'
            f'{html.escape(_lab_href(tour_href, lang, kept))}">{tr(tour_key)}</a></p>')
    other = "cdf" if lesson.id == "gaussian" else "gaussian"
    other_href = "/lesson?" + "&".join(
        [f"lang={lang}", *(f"{k}={v}" for k, v in kept.items())]
        + ([f"topic={other}"] if other != "gaussian" else []))
    return f"""
<article class="dp-lesson" data-lesson="{lesson.id}"
  data-scroll-hint="{html.escape(tr("lesson.formula_scrolls"))}">
  <h1>{r.inline(lesson.title)}</h1>
  <div class="dp-lead">{r.block(lesson.lead)}</div>
  {teach.tools_html(lesson, lang, kept, teacher)}
  {tour}
  {teach.notes_html(lesson, r, lang) if teacher else ""}
  <nav class="dp-toc" aria-label="{tr("lesson.toc")}"><h2>{tr("lesson.toc")}</h2>
    <ol>{"".join(toc)}</ol>
    <p><a href="{html.escape(other_href)}">{tr(f"lesson.other.{other}")}</a></p></nav>
  {"".join(sections)}
  {ex_html}
  {teach.problems_html(lesson, r, lang, open_teach)}
  {quiz_html}
</article>"""


@cache
def _cached(topic: str, lang: str, kept_items: tuple[tuple[str, str], ...],
            view: str = "student") -> str:
    lesson = lessons.load(topic, lang)
    kept = dict(kept_items)
    if view == "handout":
        return teach.handout_html(lesson, _Renderer(lang), lang, kept)
    if view == "key":
        return teach.key_html(lesson, _Renderer(lang), lang, kept)
    return lesson_html(lesson, lang, kept, teacher=view == "teacher")


def _flag(args: Mapping[str, str], name: str) -> bool:
    return args.get(name, "") in ("1", "true", "yes")


def render(args: Mapping[str, str], accept_language: str | None) -> tuple[int, str]:
    lang, kept, notices = options(args, accept_language)
    topic = args.get("topic", "gaussian") or "gaussian"
    if topic not in TOPICS:
        notices = [*notices, t("common.url.bad_option", lang, name="topic", value=topic[:40])]
        topic = "gaussian"
    lesson = lessons.load(topic, lang)
    view = ("handout" if _flag(args, "handout") else "key" if _flag(args, "key") else
            "teacher" if _flag(args, "teacher") else "student")
    body = _cached(topic, lang, tuple(sorted(kept.items())), view)
    strings = {k: t(f"lesson.js.{k}", lang) for k in ("right", "wrong", "choose", "saved")}
    data = ('<script type="application/json" id="dp-strings">'
            + json.dumps(strings, ensure_ascii=False).replace("<", "\\u003c") + "</script>")
    if kept.get("size") == "large" and view in ("student", "teacher"):  # present mode
        keys = ("prev", "next", "count", "keys", "nav", "notes", "notes_keys", "notes_none",
                "second")
        slide = {k: t(f"teach.slide_{k}", lang) for k in keys}
        data += ('<script type="application/json" id="dp-slide-strings">'
                 + json.dumps(slide, ensure_ascii=False).replace("<", "\\u003c") + "</script>")
    return 200, document(
        lang=lang, kept=kept, notices=notices, path="/lesson", title=lesson.title,
        body=body, extra_query={**({"topic": topic} if topic != "gaussian" else {}),
                                **({view: "1"} if view != "student" else {})},
        css=[asset_url("vendor/katex/katex.min.css"), asset_url("lesson-teach.css")],
        scripts=[asset_url("vendor/katex/katex.min.js"), asset_url("lesson.js"),
                 asset_url("lesson-teach.js")],
        inline_data=data)
