"""The class's CDF for the teacher and the projector: the release's guarantee, the curve at
each degree (the slider picks one; moving it is post-processing), the room's privacy ledger and
the NOT private comparison with the true curve (teacher only). A student's view of the same
release is :func:`app.room.poll_student.student_cdf_html`; every text is escaped here."""

from __future__ import annotations

import html
from collections.abc import Sequence

from app.room import poll as P
from app.room.poll_plots import LARGE, SMALL, cdf_svg, cdf_table
from app.room.poll_render import num, question_of
from app.room.records import Ask, CdfRelease, Ledger
from app.shell.i18n import t


def _e(x: object) -> str:
    return html.escape(str(x))


def ledger_html(led: Ledger, lang: str) -> str:
    if not led.count:
        return (f'<p class="dp-cdf-ledger">{_e(t("poll.ledger.none", lang))}</p>')
    rule = t(f"poll.ledger.rule.{led.rule}", lang)
    total = t("poll.ledger.total", lang, count=led.count, eps=num(led.eps, 4),
              delta=f"{led.delta:.3g}")
    basic = t("poll.ledger.basic", lang, eps=num(led.basic_eps, 4),
              delta=f"{led.basic_delta:.3g}")
    return (f'<p class="dp-cdf-ledger"><strong>{_e(total)}</strong> {_e(rule)} {_e(basic)}</p>')


def _mech(mechanism: str, lang: str) -> str:
    kind = "gaussian" if mechanism.startswith("gaussian") else "laplace" \
        if mechanism.startswith("laplace") else ""
    return t(f"poll.mech.{kind}", lang) if kind else mechanism


def _guarantee(rel: CdfRelease, lang: str) -> list[str]:
    """The release's guarantee, and a warning when it was made from few values."""
    method = t(f"poll.cdf.method.{rel.method}", lang)
    guarantee = t("poll.cdf.guarantee", lang, method=method, eps=num(rel.eps),
                  delta=f"{rel.delta:g}", n=rel.n, sens=num(rel.sensitivity, 3),
                  norm=rel.norm, mech=_mech(rel.mechanism, lang))
    out = [f'<p class="dp-cdf-guarantee">{_e(guarantee)}</p>']
    if rel.n < P.FEW_ANSWERS:
        out.append(f'<p class="dp-poll-few"><strong>{_e(t("poll.cdf.few", lang))}</strong></p>')
    return out


def _curves(rel: CdfRelease, lang: str
            ) -> tuple[str, list[tuple[str, Sequence[float], str]]]:
    """The degree slider (empty unless the release is a polynomial projection's) and each curve
    it can show: (the attributes of its ``dp-cdf-at`` block, the curve, its title); every curve
    but the released degree's is hidden."""
    curves = rel.curves
    if rel.method != "pp":
        return "", [("", curves["-"], t("poll.cdf.title", lang))]
    d0 = int(rel.degree or 0)
    slider = (f'<p class="dp-cdf-degree-box"><label for="dp-cdf-degree">'
              f'{_e(t("poll.cdf.degree", lang))}</label> '
              f'<input type="range" id="dp-cdf-degree" class="dp-cdf-degree" min="0" '
              f'max="{P.CDF_K_MAX}" step="1" value="{d0}" '
              f'aria-describedby="dp-cdf-degree-note"> <output class="dp-cdf-degree-out" '
              f'for="dp-cdf-degree">{d0}</output></p><p class="dp-room-small" '
              f'id="dp-cdf-degree-note">{_e(t("poll.cdf.degree_note", lang, auto=d0))}</p>')
    return slider, [(f' data-degree="{d}"{"" if d == d0 else " hidden"}', curves[str(d)],
                     t("poll.cdf.title_deg", lang, degree=d)) for d in range(P.CDF_K_MAX + 1)]


def cdf_html(rel: CdfRelease | None, led: Ledger, ask: Ask | None, n_values: int,
             lang: str) -> str:
    """The class CDF on the panel: one SVG + table per degree (the slider picks one; moving it
    is post-processing), the guarantee of the release, the room's ledger (the projector's:
    :func:`cdf_projector_html`)."""
    parts = []
    if ask is not None:
        state = t("poll.res.open" if ask.open else "poll.res.closed_state", lang)
        parts.append(f'<h3>{_e(question_of(ask, lang))}</h3><p class="dp-cdf-n">'
                     f'{_e(t("poll.cdf.values", lang, n=n_values))} · {_e(state)} '
                     f'<span class="dp-room-small">{_e(t("poll.res.n_public", lang))}</span></p>')
    if rel is None:
        parts.append(f'<p>{_e(t("poll.cdf.none", lang))}</p>')
        return "".join(parts) + ledger_html(led, lang)
    unit = ask.unit if ask else ""
    slider, curves = _curves(rel, lang)
    parts += [*_guarantee(rel, lang), slider]
    for attrs, ys, title in curves:
        parts.append(f'<div class="dp-cdf-at"{attrs}>'
                     f'{cdf_svg(rel, ys, lang, title, b=SMALL, unit=unit)}'
                     f'{cdf_table(rel, ys, lang, unit=unit)}</div>')
    parts.append(ledger_html(led, lang))
    return "".join(parts)


def cdf_projector_html(rel: CdfRelease, led: Ledger, ask: Ask | None, lang: str) -> str:
    """The projected class CDF: the figure on the left at its own size (text 28 px), beside it
    the guarantee, the degree slider, the table and the ledger, so that all of it is on the
    first 1920×1080 screen under the room's band."""
    unit = ask.unit if ask else ""
    slider, curves = _curves(rel, lang)
    figs = [f'<div class="dp-cdf-at"{attrs}>{cdf_svg(rel, ys, lang, title, b=LARGE, unit=unit)}'
            f'</div>' for attrs, ys, title in curves]
    tables = [f'<div class="dp-cdf-at"{attrs}>{cdf_table(rel, ys, lang, unit=unit)}</div>'
              for attrs, ys, _title in curves]
    side = [*_guarantee(rel, lang), slider, *tables, ledger_html(led, lang)]
    return (f'<div class="dp-cdf-big"><div class="dp-cdf-fig">{"".join(figs)}</div>'
            f'<div class="dp-cdf-side">{"".join(side)}</div></div>')


def truth_html(rel: CdfRelease, ask: Ask, truth: Sequence[float], lang: str) -> str:
    """The NOT private comparison (teacher only, labelled in large type)."""
    ys = rel.curves.get(str(rel.degree)) or next(iter(rel.curves.values()))
    title = t("poll.truth.title", lang)
    return (f'<div class="dp-cdf-not-private" role="region" '
            f'aria-label="{_e(t("poll.truth.label", lang))}">'
            f'<p class="dp-cdf-not-private-label">{_e(t("poll.truth.label", lang))}</p>'
            f'<p>{_e(t("poll.truth.note", lang))}</p>'
            f'{cdf_svg(rel, ys, lang, title, "dp-cdf-truth-plot", truth, unit=ask.unit)}'
            f'{cdf_table(rel, ys, lang, truth, unit=ask.unit)}</div>')

