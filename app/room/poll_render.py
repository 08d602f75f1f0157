"""The words and numbers every block of the private polls and the class's CDF shares: a share
as a percentage, a number in a few digits, a poll's question and its options' labels.

The polls' HTML is split by whom it is for, each module escaping every text it writes:
:mod:`app.room.poll_student` (the student's forms and curve, ``/join?room=CODE``),
:mod:`app.room.poll_results` (a poll's results on the teacher's page and the projector),
:mod:`app.room.poll_cdf` (the class's CDF for the teacher and the projector) and
:mod:`app.room.poll_plots` (the inline SVG plots, each beside a table with the same numbers).
They all say a number or a label the same way because they take it from here."""

from __future__ import annotations

from app.room.records import Ask, Poll, PollResults
from app.shell.i18n import t
from app.shell.numbers import fmt_pct


def pct(x: float | None, lang: str) -> str:  # None or NaN: a dash
    return fmt_pct(x, lang)  # "95.0%" in Korean, "95.0 %" in English (lessons/terms.toml)


def num(x: float, digits: int = 3) -> str:
    return f"{x:.{digits}g}"


def question_of(item: Poll | Ask | PollResults, lang: str) -> str:
    if item.preset:
        return t(f"poll.preset.{item.preset}", lang)
    return item.question


def option_labels(poll: Poll, lang: str) -> list[str]:
    return poll.poll_kind.labels(poll.options, lang)
