"""The inline SVG plots of the polls and the class's CDF, each beside a table with the same
numbers (for screen readers, and for the back of the hall): the plot box (:class:`Box`: small on
a page, large on the projector), axes and ticks, a released CDF (:func:`cdf_svg`,
:func:`cdf_table`) and how a poll's 95 % interval widens as ε falls and narrows as n grows
(:func:`width_plot`, with its legend). Shared by the student's, the teacher's and the
projector's blocks (poll_student, poll_results, poll_cdf); every text is escaped here."""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.room import poll as P
from app.room.poll_render import num, pct
from app.room.records import CdfRelease
from app.shell.i18n import t

W, H, ML, MR, MT, MB = 640, 300, 56, 16, 14, 46  # the plots' box (SVG user units)


@dataclass(frozen=True)
class Box:
    """A plot's box in SVG user units; ``cls`` sizes its text (assets/dplab-poll.css)."""

    w: int = W
    h: int = H
    ml: int = ML
    mr: int = MR
    mt: int = MT
    mb: int = MB
    tick_dy: int = 16  # x tick labels below the axis
    label_x: int = 14  # the y label's centre
    cls: str = ""
    ylabel_top: bool = False


SMALL = Box()

# The projector's class CDF: drawn at its own width (1000 px at 1920×1080), so its 28-unit text
# is 28 px on the screen (at least 24 px, read from the back of a hall).
LARGE = Box(1000, 500, 118, 28, 64, 100, 40, 30, " dp-plot-big", ylabel_top=True)


def _e(x: object) -> str:
    return html.escape(str(x))


def _sx(x: float, lo: float, hi: float, b: Box = SMALL) -> float:
    return b.ml + (b.w - b.ml - b.mr) * (x - lo) / (hi - lo)


def _sy(y: float, b: Box = SMALL) -> float:
    return b.mt + (b.h - b.mt - b.mb) * (1.0 - max(0.0, min(1.0, y)))


def _axes(xticks: Sequence[tuple[float, str]], yticks: Sequence[tuple[float, str]],
          xlabel: str, ylabel: str, b: Box = SMALL) -> str:
    w, h, ml, mr, mt, mb = b.w, b.h, b.ml, b.mr, b.mt, b.mb
    parts = [f'<line class="dp-plot-axis" x1="{ml}" y1="{h - mb}" x2="{w - mr}" y2="{h - mb}"/>',
             f'<line class="dp-plot-axis" x1="{ml}" y1="{mt}" x2="{ml}" y2="{h - mb}"/>']
    for x, lab in xticks:
        parts.append(f'<line class="dp-plot-grid" x1="{x:.1f}" y1="{mt}" x2="{x:.1f}" '
                     f'y2="{h - mb}"/><text class="dp-plot-tick" x="{x:.1f}" '
                     f'y="{h - mb + b.tick_dy}" text-anchor="middle">{_e(lab)}</text>')
    dx, dy = (6, 4) if b is SMALL else (12, 9)
    for y, lab in yticks:
        parts.append(f'<line class="dp-plot-grid" x1="{ml}" y1="{y:.1f}" x2="{w - mr}" '
                     f'y2="{y:.1f}"/><text class="dp-plot-tick" x="{ml - dx}" '
                     f'y="{y + dy:.1f}" text-anchor="end">{_e(lab)}</text>')
    parts.append(f'<text class="dp-plot-label" x="{(ml + w - mr) / 2}" y="{h - 8}" '
                 f'text-anchor="middle">{_e(xlabel)}</text>')
    if b.ylabel_top:  # large text: the y label reads across, above the plot
        parts.append(f'<text class="dp-plot-label" x="{ml - 40}" y="{mt - 22}" '
                     f'text-anchor="start">{_e(ylabel)}</text>')
    else:
        parts.append(f'<text class="dp-plot-label" x="{b.label_x}" y="{(mt + h - mb) / 2}" '
                     f'text-anchor="middle" '
                     f'transform="rotate(-90 {b.label_x} {(mt + h - mb) / 2})">'
                     f'{_e(ylabel)}</text>')
    return "".join(parts)


def _ticks(lo: float, hi: float, count: int = 6) -> list[float]:
    step = (hi - lo) / count
    mag = 10 ** math.floor(math.log10(step))
    step = min((s * mag for s in (1, 2, 2.5, 5, 10) if s * mag >= step), default=step)
    start = math.ceil(lo / step) * step
    out, x = [], start
    while x <= hi + 1e-9 * step:
        out.append(round(x, 10))
        x += step
    return out


def cdf_svg(rel: CdfRelease, ys: Sequence[float], lang: str, title: str,
            cls: str = "dp-cdf-curve", truth: Sequence[float] | None = None,
            b: Box = SMALL, *, unit: str = "") -> str:
    """A released curve ``ys`` (on the release's grid) as an SVG; ``unit``: the number
    question's."""
    lo, hi, xs = rel.lo, rel.hi, rel.xs
    pts = " ".join(f"{_sx(x, lo, hi, b):.1f},{_sy(y, b):.1f}"
                   for x, y in zip(xs, ys, strict=True))
    xt = [(_sx(x, lo, hi, b), f"{x:g}") for x in _ticks(lo, hi)]
    yt = [(_sy(y, b), f"{y:.2g}") for y in (0.0, 0.25, 0.5, 0.75, 1.0)]
    xlabel = t("poll.cdf.x", lang, unit=f" ({unit})" if unit else "")
    extra = ""
    if truth is not None:
        tp = " ".join(f"{_sx(x, lo, hi, b):.1f},{_sy(y, b):.1f}" for x, y in zip(xs, truth,
                                                                                   strict=True))
        extra = f'<polyline class="dp-plot-truth" points="{tp}"/>'
    return (f'<svg class="{cls}{b.cls}" viewBox="0 0 {b.w} {b.h}" role="img" '
            f'aria-label="{_e(title)}" data-lo="{lo!r}" data-hi="{hi!r}" '
            f'data-box="{b.ml},{b.mt},{b.w - b.ml - b.mr},{b.h - b.mt - b.mb}" '
            f'data-curve="{_e(json.dumps(list(ys)))}" data-xs="{_e(json.dumps(list(xs)))}">'
            f'<title>{_e(title)}</title>'
            f'{_axes(xt, yt, xlabel, t("poll.cdf.y", lang), b)}'
            f'<polyline class="dp-plot-line" points="{pts}"/>{extra}</svg>')


def cdf_table(rel: CdfRelease, ys: Sequence[float], lang: str,
              truth: Sequence[float] | None = None, *, unit: str = "") -> str:
    lo, hi, xs = rel.lo, rel.hi, list(rel.xs)
    rows = []
    for x in _ticks(lo, hi):
        i = min(range(len(xs)), key=lambda j: abs(xs[j] - x))
        tr = f"<td>{pct(truth[i], lang)}</td>" if truth is not None else ""
        rows.append(f'<tr><th scope="row">{x:g}{(" " + _e(unit)) if unit else ""}</th>'
                    f"<td>{pct(min(1.0, max(0.0, ys[i])), lang)}</td>{tr}</tr>")
    th = (f'<th scope="col">{_e(t("poll.cdf.truth_col", lang))}</th>'
          if truth is not None else "")
    return (f'<table class="dp-room-table dp-cdf-table"><caption>'
            f'{_e(t("poll.cdf.table", lang))}</caption><thead><tr><th scope="col">'
            f'{_e(t("poll.cdf.at", lang))}</th><th scope="col">'
            f'{_e(t("poll.cdf.share_below", lang))}</th>{th}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _log_x(eps: float) -> float:
    a, b = math.log10(0.1), math.log10(10.0)
    return ML + (W - ML - MR) * (math.log10(eps) - a) / (b - a)


def width_plot(eps: float, n: int, delta: float, lang: str, k: int = 2) -> str:
    """How the 95 % interval's width grows as ε falls and shrinks as n grows (local model, this
    class's n and 4n), beside the central model at this n; this class's (ε, width) marked."""
    n = max(1, n)
    grid = [10 ** (-1 + 2 * i / 80) for i in range(81)]

    def line(fn: Any, cls: str) -> str:
        pts = " ".join(f"{_log_x(e):.1f},{_sy(min(1.0, fn(e))):.1f}" for e in grid)
        return f'<polyline class="{cls}" points="{pts}"/>'

    def w_local(m: int) -> Any:
        return lambda e: 2 * P.Z95 * P.local_sd(e, m, k)

    def w_central(e: float) -> float:
        return 2 * P.central_half_width(e, delta, "gaussian", n, k)

    def w_laplace(e: float) -> float:
        return 2 * P.central_half_width(e, 0.0, "laplace", n, k)

    xt = [(_log_x(e), f"{e:g}") for e in (0.1, 0.25, 0.5, 1, 2, 5, 10)]
    yt = [(_sy(y), f"{y:.2g}") for y in (0.0, 0.25, 0.5, 0.75, 1.0)]
    here = 2 * P.Z95 * P.local_sd(eps, n, k)
    mx, my = _log_x(min(10.0, max(0.1, eps))), _sy(min(1.0, here))
    title = t("poll.width.title", lang, n=n)
    svg = (f'<svg class="dp-poll-width-plot" viewBox="0 0 {W} {H}" role="img" '
           f'aria-label="{_e(title)}"><title>{_e(title)}</title>'
           f'{_axes(xt, yt, t("poll.width.x", lang), t("poll.width.y", lang))}'
           f'{line(w_local(n), "dp-plot-line")}{line(w_local(4 * n), "dp-plot-line2")}'
           f'{line(w_central, "dp-plot-line3")}{line(w_laplace, "dp-plot-line4")}'
           f'<circle class="dp-plot-mark" cx="{mx:.1f}" cy="{my:.1f}" r="7"/>'
           f'<text class="dp-plot-tick" x="{mx + 10:.1f}" y="{my - 8:.1f}">'
           f'{_e(t("poll.width.here", lang, n=n, eps=num(eps)))}</text></svg>')
    legend = (f'<ul class="dp-plot-legend"><li><span class="dp-key dp-key-1" aria-hidden="true">'
              f'</span>{_e(t("poll.width.local", lang, n=n))}</li>'
              f'<li><span class="dp-key dp-key-2" aria-hidden="true"></span>'
              f'{_e(t("poll.width.local", lang, n=4 * n))}</li>'
              f'<li><span class="dp-key dp-key-3" aria-hidden="true"></span>'
              f'{_e(t("poll.width.central", lang, n=n, delta=f"{delta:g}"))}</li>'
              f'<li><span class="dp-key dp-key-4" aria-hidden="true"></span>'
              f'{_e(t("poll.width.laplace", lang, n=n))}</li></ul>')
    rows = []
    for e in (0.25, 0.5, 1.0, math.log(3.0), 2.0, 5.0):
        rows.append(f'<tr><th scope="row">{e:.3g}</th>'
                    f'<td>{pct(min(1, w_local(n)(e)), lang)}</td>'
                    f'<td>{pct(min(1, w_local(4 * n)(e)), lang)}</td>'
                    f'<td>{pct(min(1, w_central(e)), lang)}</td>'
                    f'<td>{pct(min(1, w_laplace(e)), lang)}</td>'
                    f'</tr>')
    table = (f'<table class="dp-room-table"><caption>{_e(t("poll.width.table", lang))}</caption>'
             f'<thead><tr><th scope="col">ε</th><th scope="col">'
             f'{_e(t("poll.width.local", lang, n=n))}</th><th scope="col">'
             f'{_e(t("poll.width.local", lang, n=4 * n))}</th><th scope="col">'
             f'{_e(t("poll.width.central", lang, n=n, delta=f"{delta:g}"))}</th><th scope="col">'
             f'{_e(t("poll.width.laplace", lang, n=n))}</th></tr></thead>'
             f'<tbody>{"".join(rows)}</tbody></table>')
    return f'<figure class="dp-poll-width">{svg}{legend}{table}</figure>'

