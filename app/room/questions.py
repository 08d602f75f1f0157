"""The questions a teacher can ask the class: the tour's prediction steps and the lessons' quiz
questions, each read in the student's own language from ``lessons/``."""

from __future__ import annotations

import functools
import re

import lessons
from app.room.state import MAX_OPTIONS, QuestionText

# Quiz texts are Markdown with TeX; the lab shows them as plain text with the common symbols.
_TEX = {r"\varepsilon": "ε", r"\epsilon": "ε", r"\delta": "δ", r"\Delta": "Δ", r"\sigma": "σ",
        r"\mu": "μ", r"\le": "≤", r"\ge": "≥", r"\infty": "∞", r"\approx": "≈", r"\cdot": "·",
        r"\times": "×", r"\Pr": "Pr", r"\ln": "ln", r"\sqrt": "√", r"\sum": "Σ",
        r"\neq": "≠", r"\lt": "<", r"\gt": ">"}
_TEX_RX = re.compile("|".join(re.escape(k) + r"(?![A-Za-z])" for k in
                              sorted(_TEX, key=len, reverse=True)))
_TERM = re.compile(r"\[\[([a-z0-9-]+)(?:\|([^\]]+))?\]\]")


def plain(text: str) -> str:
    """Lesson Markdown/TeX as plain text for a question line."""
    text = _TERM.sub(lambda m: m.group(2) or m.group(1).replace("-", " "), text)

    def maths(m: re.Match[str]) -> str:
        inner = _TEX_RX.sub(lambda k: _TEX[k.group(0)], m.group(1))
        return inner.replace("{", "").replace("}", "").replace("\\", "")

    text = re.sub(r"\$([^$]+)\$", maths, text)
    return re.sub(r"[*_`]", "", text).strip()


@functools.cache
def quiz_refs() -> tuple[str, ...]:
    """Every quiz question that can be asked: ``lesson:question-id``."""
    out = []
    for lesson in lessons.LESSONS:
        for q in lessons.load(lesson, lessons.LANGS[0]).quiz:
            if 2 <= len(q.options) <= MAX_OPTIONS:
                out.append(f"{lesson}:{q.id}")
    return tuple(out)


@functools.cache
def question_text(kind: str, ref: str, lang: str) -> QuestionText | None:
    """The question in ``lang``; None for a reference that names none."""
    try:
        if kind == "tour":
            steps = lessons.tour(lang)
            k = int(ref)
            if not 1 <= k <= len(steps) or steps[k - 1].predict is None:
                return None
            s = steps[k - 1]
            return QuestionText(plain(s.predict or ""), tuple(plain(o) for o in s.options),
                                s.answer)
        if kind == "quiz":
            lesson, _, qid = ref.partition(":")
            if lesson not in lessons.LESSONS:
                return None
            for q in lessons.load(lesson, lang).quiz:
                if q.id == qid:
                    right = [i for i, o in enumerate(q.options) if o.correct]
                    return QuestionText(plain(q.question), tuple(plain(o.text)
                                                                 for o in q.options),
                                        right[0] if right else None)
    except (OSError, KeyError, ValueError):
        return None
    return None
