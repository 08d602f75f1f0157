"""The private polls on a student's screen (``/join?room=CODE``): the poll's form with what
will happen to the answer before it is sent, the form for one number (the class's CDF), and the
released class CDF. Kept apart from the projector's blocks: a student sees only these, and every
text in them is escaped here."""

from __future__ import annotations

import html

from app.room import poll as P
from app.room.poll_plots import cdf_svg, cdf_table
from app.room.poll_render import num, option_labels, question_of
from app.room.records import Ask, CdfRelease, Poll
from app.shell.i18n import t


def _e(x: object) -> str:
    return html.escape(str(x))


def explain(poll: Poll, lang: str) -> str:
    """What will happen to the answer, in plain words, before it is sent."""
    eps, k = poll.eps, poll.k
    if poll.model == "central":
        return t("poll.explain.central", lang, eps=num(eps))
    keep = P.keep_probability(eps, k)
    ratio = P.likelihood_ratio(eps, k)
    key = "poll.explain.local2" if k == 2 else "poll.explain.localk"
    return t(key, lang, keep=f"{100 * keep:.0f}", other=f"{100 * (1 - keep) / (k - 1):.0f}",
             eps=num(eps), ratio=num(ratio))


def student_poll_html(poll: Poll | None, lang: str) -> str:
    if poll is None:
        return f'<p class="dp-poll-none">{_e(t("poll.student.none", lang))}</p>'
    q = question_of(poll, lang)
    if not poll.open:
        return (f'<div class="dp-poll-closed-box" data-poll="{_e(poll.id)}"><h2>{_e(q)}</h2>'
                f'<p class="dp-poll-closed">{_e(t("poll.student.closed", lang))}</p></div>')
    labels = option_labels(poll, lang)
    values = poll.poll_kind.keys(len(labels))
    opts = "".join(
        f'<label class="dp-poll-choice"><input type="radio" class="dp-poll-option" '
        f'name="dp-poll-answer" value="{_e(v)}"> {_e(lab)}</label>'
        for v, lab in zip(values, labels, strict=True))
    model = t(f"poll.model.{poll.model}", lang)
    central = poll.model == "central"
    warn = (f'<p class="dp-poll-central-warn"><strong>{_e(t("poll.student.central_warn", lang))}'
            f'</strong></p>' if central else "")
    again = f' data-reopens="{_e(poll.reopens)}"' if poll.reopens else ""
    return (f'<form id="dp-poll" class="dp-poll" data-poll="{_e(poll.id)}"{again} '
            f'data-eps="{poll.eps!r}" data-k="{poll.k}" '
            f'data-model="{_e(poll.model)}" data-kind="{_e(poll.kind)}" '
            f'data-sends="{"value" if poll.poll_kind.fixed else "index"}" novalidate>'
            f'<fieldset><legend><span class="dp-poll-model">{_e(model)}</span> '
            f'<span class="dp-poll-q">{_e(q)}</span></legend>{opts}</fieldset>'
            f'{warn}<p class="dp-poll-explain" id="dp-poll-explain">{_e(explain(poll, lang))}</p>'
            f'<button type="button" class="dp-room-btn dp-room-primary dp-poll-send" '
            f'aria-describedby="dp-poll-explain">{_e(t("poll.student.send", lang))}</button>'
            f'<p class="dp-poll-status" role="status" aria-live="polite"></p></form>')


def student_ask_html(ask: Ask | None, lang: str) -> str:
    if ask is None:
        return ""
    q = question_of(ask, lang)
    rng = t("poll.value.range", lang, lo=num(ask.lo, 6), hi=num(ask.hi, 6), unit=ask.unit)
    if not ask.open:
        return (f'<div class="dp-value-closed-box" data-ask="{_e(ask.id)}"><h2>{_e(q)}</h2>'
                f'<p>{_e(t("poll.value.closed", lang))}</p></div>')
    return (f'<form class="dp-value" data-ask="{_e(ask.id)}" data-lo="{ask.lo!r}" '
            f'data-hi="{ask.hi!r}" novalidate><h2>{_e(q)}</h2>'
            f'<label for="dp-value-input">{_e(t("poll.value.label", lang))} ({_e(rng)})</label>'
            f'<input id="dp-value-input" class="dp-value-input" type="text" inputmode="decimal" '
            f'autocomplete="off" aria-describedby="dp-value-error dp-value-note">'
            f'<p class="dp-room-error dp-value-error" id="dp-value-error" role="alert"></p>'
            f'<p class="dp-room-small" id="dp-value-note">{_e(t("poll.value.note", lang))}</p>'
            f'<button type="button" class="dp-room-btn dp-room-primary dp-value-send">'
            f'{_e(t("poll.value.send", lang))}</button>'
            f'<p class="dp-value-status" role="status" aria-live="polite"></p></form>')


def student_cdf_html(rel: CdfRelease | None, ask: Ask | None, lang: str) -> str:
    """The released curve on a student's screen; assets/dplab-poll.js marks the student's own
    value on it (kept in that tab only, never sent back)."""
    if rel is None:
        return ""
    unit = ask.unit if ask else ""
    ys = rel.curves[str(rel.degree) if rel.method == "pp" else "-"]
    method = t(f"poll.cdf.method.{rel.method}", lang)
    note = t("poll.cdf.student_note", lang, method=method, eps=num(rel.eps),
             delta=f"{rel.delta:g}", n=rel.n)
    few = (f'<p class="dp-poll-few">{_e(t("poll.cdf.few", lang))}</p>'
           if rel.n < P.FEW_ANSWERS else "")
    return (f'<section class="dp-join-cdf" data-release="{_e(rel.id)}"><h2>'
            f'{_e(t("poll.cdf.student_title", lang))}</h2>'
            f'<p>{_e(note)}</p>'
            f'{few}{cdf_svg(rel, ys, lang, t("poll.cdf.title", lang), unit=unit)}'
            f'<p class="dp-join-mine" aria-live="polite"></p>'
            f'{cdf_table(rel, ys, lang, unit=unit)}</section>')

