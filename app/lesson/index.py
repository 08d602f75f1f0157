"""Our own index page at ``/``: plain HTML (no Bokeh session), with per-lesson progress.

Progress ("answered / learned") is read in the student's browser from localStorage by
``/assets/lesson.js``; the server only says how many questions each lesson has.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

import lessons
from app.shell.html import document, options
from app.shell.i18n import t
from app.shell.options import kept_query
from app.shell.template import asset_url


def _quiz_ids(lesson: str, lang: str) -> list[str]:
    try:

        return [q.id for q in lessons.load(lesson, lang).quiz]
    except (FileNotFoundError, KeyError, ValueError):  # a lesson not written yet
        return []


def teacher_links(lang: str, q: str) -> str:
    """The instructor's views of each lesson (notes with the plan, present mode, answer key)."""
    items = []
    for lesson, topic in (("gaussian", ""), ("cdf", "&topic=cdf")):
        name = t(f"common.index.lesson_{lesson}", lang)
        base = "/lesson" + q + topic
        large = "" if "size=large" in q else "&size=large"
        links = " · ".join(
            f'<a class="dp-index-{cls}" href="{html.escape(base + extra)}" '
            f'aria-label="{html.escape(t(f"teach.index_{cls}", lang, lesson=name))}">'
            f'{html.escape(t(f"teach.index_link_{cls}", lang))}</a>'
            for cls, extra in (("notes", "&teacher=1"), ("present", "&teacher=1" + large),
                               ("key", "&key=1")))
        items.append(f"<li><strong>{html.escape(name)}</strong><br>{links}</li>")
    return (f'<section class="dp-index-teacher" aria-labelledby="dp-index-teacher-h">'
            f'<h2 id="dp-index-teacher-h">{html.escape(t("teach.index_heading", lang))}</h2>'
            f'<p>{html.escape(t("teach.index_lead", lang))}</p><ul>{"".join(items)}</ul>'
            f"</section>")


def index_html(lang: str, kept: Mapping[str, str]) -> str:
    q = kept_query(lang, kept)

    def tile(href: str, title_key: str, desc_key: str, lesson: str | None = None) -> str:
        progress = ""
        if lesson is not None:
            ids = _quiz_ids(lesson, lang)
            template = t("common.index.progress", lang)
            first = t("common.index.progress", lang, answered=0, learned=0, total=len(ids))
            progress = (
                f'<span class="dp-learned-count" data-lesson="{lesson}" '
                f'data-ids="{html.escape(" ".join(ids))}" data-total="{len(ids)}" '
                f'data-template="{html.escape(template)}" aria-live="polite">'
                f"{html.escape(first)}</span>")
        return (f'<a class="dp-tile" href="{html.escape(href)}"><strong>'
                f"{html.escape(t(title_key, lang))}</strong>"
                f"<span>{html.escape(t(desc_key, lang))}</span>{progress}</a>")

    return f"""
    <div class="dp-index">
      <h1>{html.escape(t("common.index.title", lang))}</h1>
      <p>{html.escape(t("common.index.lead", lang))}</p>
      <h2>{html.escape(t("common.index.course", lang))}</h2>
      <div class="dp-tiles">
        {tile("/lesson" + q, "common.index.lesson_gaussian",
              "common.index.lesson_gaussian_desc", "gaussian")}
        {tile("/lesson" + q + "&topic=cdf", "common.index.lesson_cdf",
              "common.index.lesson_cdf_desc", "cdf")}
      </div>
      <h2>{html.escape(t("common.index.tools", lang))}</h2>
      <div class="dp-tiles">
        {tile("/lab" + q, "common.nav.lab", "common.index.lab_desc")}
        {tile("/lab" + q + "&tour=1", "common.index.tour", "common.index.tour_desc")}
        {tile("/cdf" + q, "common.nav.cdf", "common.index.cdf_desc")}
      </div>
      {teacher_links(lang, q)}
      <p class="dp-muted">{html.escape(t("common.index.privacy", lang))}</p>
      <p class="dp-muted">{html.escape(t("common.index.options", lang))}</p>
    </div>"""


def render(args: Mapping[str, str], accept_language: str | None) -> tuple[int, str]:
    lang, kept, notices = options(args, accept_language)
    return 200, document(lang=lang, kept=kept, notices=notices, path="/",
                         title=t("common.nav.home", lang), body=index_html(lang, kept),
                         scripts=[asset_url("lesson.js")])
