"""HTML shared by the room page and the labs of a room: the answers' distribution and the QR
code. Every text is escaped here."""

from __future__ import annotations

import functools
import html
from collections.abc import Sequence

from app.room.state import QuestionText, shares
from app.shell.i18n import t
from app.shell.numbers import pct_text


def distribution_html(q: QuestionText | None, counts: Sequence[int], revealed: bool,
                      lang: str) -> str:
    """Bars with counts and the same numbers as a table (``dp-room-dist``); the right answer
    is marked once revealed."""
    if q is None:
        return (f'<div class="dp-room-dist dp-room-dist-none"><p>'
                f'{html.escape(t("room.dist.none", lang))}</p></div>')
    total = sum(counts)
    share = shares(counts)
    bars, rows = [], []
    for i, text in enumerate(q.options):
        c = counts[i] if i < len(counts) else 0
        right = revealed and q.answer == i
        cls = "dp-room-bar dp-room-bar-right" if right else "dp-room-bar"
        mark = f' <strong>{html.escape(t("room.dist.right", lang))}</strong>' if right else ""
        pct = round(100 * share[i]) if i < len(share) else 0
        bars.append(
            f'<li class="{cls}"><span class="dp-room-bar-label">{html.escape(text)}{mark}</span>'
            f'<span class="dp-room-bar-track" aria-hidden="true"><span class="dp-room-bar-fill" '
            f'style="width:{pct}%"></span></span>'
            f'<span class="dp-room-bar-count">{c}</span></li>')
        row_cls = ' class="dp-room-row-right"' if right else ""
        rows.append(f'<tr{row_cls}><th scope="row">'
                    f"{html.escape(text)}{mark}</th><td>{c}</td>"
                    f"<td>{pct_text(str(pct), lang)}</td></tr>")
    head = t("room.dist.heading", lang, n=total)
    return (f'<div class="dp-room-dist" aria-live="polite"><h3>{html.escape(q.text)}</h3>'
            f'<p class="dp-room-dist-total">{html.escape(head)}</p>'
            f'<ul class="dp-room-bars" aria-hidden="true">{"".join(bars)}</ul>'
            f'<table class="dp-room-table"><caption>{html.escape(t("room.dist.table", lang))}'
            f'</caption><thead><tr><th scope="col">{html.escape(t("room.dist.option", lang))}'
            f'</th><th scope="col">{html.escape(t("room.dist.count", lang))}</th>'
            f'<th scope="col">{html.escape(t("room.dist.share", lang))}</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


@functools.lru_cache(maxsize=64)
def qr_svg(address: str, title: str) -> str:
    """The join address as an inline SVG QR code (segno; offline), with an accessible title."""
    import segno

    qr = segno.make(address, error="m")
    # a viewBox instead of a fixed size: the style sheet sizes it (the projector's is smaller)
    svg: str = qr.svg_inline(scale=8, border=2, dark="#000", light="#fff", svgclass="dp-room-qr",
                             title=title, omitsize=True)
    return svg
