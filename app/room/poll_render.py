"""HTML of the private polls and the class's CDF: the student's forms (``/join?room=CODE``) and
the projector's results (``/teach?room=CODE``). Every text is escaped here; every plot is an
inline SVG beside a table with the same numbers."""

from __future__ import annotations

import html
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.room import poll as P
from app.shell.i18n import t
from app.shell.numbers import fmt_pct

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


def pct(x: float | None, lang: str) -> str:  # None or NaN: a dash
    return fmt_pct(x, lang)  # "95.0%" in Korean, "95.0 %" in English (lessons/terms.toml)


def num(x: float, digits: int = 3) -> str:
    return f"{x:.{digits}g}"


def question_of(item: Mapping[str, Any], lang: str) -> str:
    if item.get("preset"):
        return t(f"poll.preset.{item['preset']}", lang)
    return str(item.get("question") or "")


def option_labels(poll: Mapping[str, Any], lang: str) -> list[str]:
    if poll["kind"] == "yesno":
        return [t("poll.yes", lang), t("poll.no", lang)]
    return [str(o) for o in poll.get("options") or []]


# ---------------------------------------------------------------------------------------------
# the student's page


def explain(poll: Mapping[str, Any], lang: str) -> str:
    """What will happen to the answer, in plain words, before it is sent."""
    eps, k = float(poll["eps"]), int(poll["k"])
    if poll["model"] == "central":
        return t("poll.explain.central", lang, eps=num(eps))
    keep = P.keep_probability(eps, k)
    ratio = P.likelihood_ratio(eps, k)
    key = "poll.explain.local2" if k == 2 else "poll.explain.localk"
    return t(key, lang, keep=f"{100 * keep:.0f}", other=f"{100 * (1 - keep) / (k - 1):.0f}",
             eps=num(eps), ratio=num(ratio))


def student_poll_html(poll: Mapping[str, Any] | None, lang: str) -> str:
    if poll is None:
        return f'<p class="dp-poll-none">{_e(t("poll.student.none", lang))}</p>'
    q = question_of(poll, lang)
    if not poll.get("open"):
        return (f'<div class="dp-poll-closed-box" data-poll="{_e(poll["id"])}"><h2>{_e(q)}</h2>'
                f'<p class="dp-poll-closed">{_e(t("poll.student.closed", lang))}</p></div>')
    labels = option_labels(poll, lang)
    values = ["yes", "no"] if poll["kind"] == "yesno" else [str(i) for i in range(len(labels))]
    opts = "".join(
        f'<label class="dp-poll-choice"><input type="radio" class="dp-poll-option" '
        f'name="dp-poll-answer" value="{_e(v)}"> {_e(lab)}</label>'
        for v, lab in zip(values, labels, strict=True))
    model = t(f"poll.model.{poll['model']}", lang)
    central = poll["model"] == "central"
    warn = (f'<p class="dp-poll-central-warn"><strong>{_e(t("poll.student.central_warn", lang))}'
            f'</strong></p>' if central else "")
    reopens = str(poll.get("reopens") or "")
    again = f' data-reopens="{_e(reopens)}"' if reopens else ""
    return (f'<form id="dp-poll" class="dp-poll" data-poll="{_e(poll["id"])}"{again} '
            f'data-eps="{float(poll["eps"])!r}" data-k="{int(poll["k"])}" '
            f'data-model="{_e(poll["model"])}" data-kind="{_e(poll["kind"])}" novalidate>'
            f'<fieldset><legend><span class="dp-poll-model">{_e(model)}</span> '
            f'<span class="dp-poll-q">{_e(q)}</span></legend>{opts}</fieldset>'
            f'{warn}<p class="dp-poll-explain" id="dp-poll-explain">{_e(explain(poll, lang))}</p>'
            f'<button type="button" class="dp-room-btn dp-room-primary dp-poll-send" '
            f'aria-describedby="dp-poll-explain">{_e(t("poll.student.send", lang))}</button>'
            f'<p class="dp-poll-status" role="status" aria-live="polite"></p></form>')


def student_ask_html(ask: Mapping[str, Any] | None, lang: str) -> str:
    if ask is None:
        return ""
    q = question_of(ask, lang)
    unit = str(ask.get("unit") or "")
    rng = t("poll.value.range", lang, lo=num(float(ask["lo"]), 6), hi=num(float(ask["hi"]), 6),
            unit=unit)
    if not ask.get("open"):
        return (f'<div class="dp-value-closed-box" data-ask="{_e(ask["id"])}"><h2>{_e(q)}</h2>'
                f'<p>{_e(t("poll.value.closed", lang))}</p></div>')
    return (f'<form class="dp-value" data-ask="{_e(ask["id"])}" data-lo="{float(ask["lo"])!r}" '
            f'data-hi="{float(ask["hi"])!r}" novalidate><h2>{_e(q)}</h2>'
            f'<label for="dp-value-input">{_e(t("poll.value.label", lang))} ({_e(rng)})</label>'
            f'<input id="dp-value-input" class="dp-value-input" type="text" inputmode="decimal" '
            f'autocomplete="off" aria-describedby="dp-value-error dp-value-note">'
            f'<p class="dp-room-error dp-value-error" id="dp-value-error" role="alert"></p>'
            f'<p class="dp-room-small" id="dp-value-note">{_e(t("poll.value.note", lang))}</p>'
            f'<button type="button" class="dp-room-btn dp-room-primary dp-value-send">'
            f'{_e(t("poll.value.send", lang))}</button>'
            f'<p class="dp-value-status" role="status" aria-live="polite"></p></form>')


# ---------------------------------------------------------------------------------------------
# plots


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


def cdf_svg(rel: Mapping[str, Any], ys: Sequence[float], lang: str, title: str,
            cls: str = "dp-cdf-curve", truth: Sequence[float] | None = None,
            b: Box = SMALL) -> str:
    lo, hi, xs = float(rel["lo"]), float(rel["hi"]), rel["xs"]
    unit = str(rel.get("unit") or "")
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


def cdf_table(rel: Mapping[str, Any], ys: Sequence[float], lang: str,
              truth: Sequence[float] | None = None) -> str:
    lo, hi, xs = float(rel["lo"]), float(rel["hi"]), list(rel["xs"])
    unit = str(rel.get("unit") or "")
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


# ---------------------------------------------------------------------------------------------
# the projector


def _interval_text(ci: Sequence[float] | None, clipped: bool, lang: str) -> str:
    if ci is None:
        return "—"
    text = t("poll.res.ci", lang, lo=pct(ci[0], lang), hi=pct(ci[1], lang))
    return text + (" " + t("poll.res.clipped", lang) if clipped else "")


def results_html(poll: Mapping[str, Any], res: Mapping[str, Any], lang: str) -> str:
    """The projector's block: n, raw share sent, estimate, interval, ε per student, why the
    students are protected, the width plot and the local-vs-central comparison."""
    q = question_of(poll, lang)
    eps, n, k = float(res["eps"]), int(res["n"]), int(poll["k"])
    labels = option_labels(poll, lang)
    model = t(f"poll.model.{poll['model']}", lang)
    state = t("poll.res.open" if res["open"] else "poll.res.closed_state", lang)
    head = (f'<h3 class="dp-poll-res-q">{_e(q)}</h3><p class="dp-poll-res-meta">'
            f'<span class="dp-poll-res-model">{_e(model)}</span> · {_e(state)} · '
            f'<span class="dp-poll-n">{_e(t("poll.res.n", lang, n=n))}</span> '
            f'<span class="dp-room-small">{_e(t("poll.res.n_public", lang))}</span></p>')
    few = (f'<p class="dp-poll-few" role="note"><strong>{_e(t("poll.res.few", lang, n=n))}'
           f'</strong></p>' if res["few"] and n > 0 else "")
    rows = []
    if poll["model"] == "local":
        for i, lab in enumerate(labels):
            e = res["per_option"][i]
            est = pct(e["estimate"], lang) if n else "—"  # pct(, lang) says "—" for None
            rows.append(f'<tr><th scope="row">{_e(lab)}</th><td>{e["reported"]}</td>'
                        f'<td>{pct(e["raw_share"], lang) if n else "—"}</td>'
                        f'<td class="dp-poll-est">{est}</td>'
                        f'<td>{_e(_interval_text(e["ci95"] if n else None, e["clipped"], lang))}'
                        f'</td></tr>')
        cols: tuple[str, ...] = ("poll.res.col.option", "poll.res.col.sent",
                                 "poll.res.col.raw", "poll.res.col.est", "poll.res.col.ci")
        p = P.keep_probability(eps, k)
        formula = t("poll.res.formula2" if k == 2 else "poll.res.formulak", lang,
                    p=f"{p:.4f}", q=f"{(1 - p) / (k - 1):.4f}")
        spent = t("poll.res.spent_local", lang, eps=num(eps))
        why = t("poll.res.why", lang, eps=num(eps), ratio=num(P.likelihood_ratio(eps, k)))
    else:
        rel = res.get("released")
        for i, lab in enumerate(labels):
            if rel:
                o = rel["options"][i]
                rows.append(f'<tr><th scope="row">{_e(lab)}</th>'
                            f'<td>{o["noisy_count"]:.1f}</td>'
                            f'<td class="dp-poll-est">{pct(o["estimate"], lang)}</td>'
                            f'<td>{_e(_interval_text(o["ci95"], o["clipped"], lang))}</td></tr>')
            else:
                rows.append(f'<tr><th scope="row">{_e(lab)}</th><td>—</td><td>—</td>'
                            f'<td>—</td></tr>')
        cols = ("poll.res.col.option", "poll.res.col.noisy", "poll.res.col.est",
                "poll.res.col.ci")
        scale, sens = P.central_scale(eps, float(res["delta"]) or P.DEFAULT_DELTA,
                                      str(res["mech"]), k)
        formula = t(f"poll.res.central_{res['mech']}", lang, scale=num(scale, 4),
                    sens=num(sens, 3), eps=num(eps), delta=f"{float(res['delta']):g}")
        if not rel:
            formula += " " + t("poll.res.central_wait", lang)
        spent = t("poll.res.spent_central", lang, eps=num(eps),
                  delta=f"{float(res['delta']):g}")
        why = t("poll.res.why_central", lang)
    head_row = "".join(f'<th scope="col">{_e(t(c, lang))}</th>' for c in cols)
    table = (f'<table class="dp-room-table dp-poll-table"><caption>'
             f'{_e(t("poll.res.table", lang))}</caption><thead><tr>{head_row}</tr></thead>'
             f'<tbody>{"".join(rows)}</tbody></table>')
    big = ""
    if res.get("estimate") is not None and n and res["few"]:
        big = (f'<p class="dp-poll-big dp-poll-waiting">'
               f'{_e(t("poll.proj.waiting", lang, need=P.FEW_ANSWERS, k=n))}</p>')
    elif res.get("estimate") is not None and n:
        # the estimate shown is the one inside the interval; the unbiased one is in the table
        raw = float(res["estimate"])
        big = (f'<p class="dp-poll-big">{_e(t("poll.res.big", lang, option=labels[0]))} '
               f'<strong class="dp-poll-estimate">{pct(min(1.0, max(0.0, raw)), lang)}</strong> '
               f'<span class="dp-poll-ci">'
               f'{_e(_interval_text(res["ci95"], bool(res["clipped"]), lang))}</span></p>')
        if not 0.0 <= raw <= 1.0:
            big += (f'<p class="dp-room-small dp-poll-raw">'
                    f'{_e(t("poll.res.outside_raw", lang, raw=pct(raw, lang)))}</p>')
    delta_cmp = float(res["delta"]) or P.DEFAULT_DELTA
    cmp_ = P.comparison(eps, delta_cmp, max(n, 1), k)
    cmp_text = t("poll.cmp.text" if cmp_["ratio"] > 1 else "poll.cmp.text_small", lang,
                 n=max(n, 1), eps=num(eps), delta=f"{delta_cmp:g}", local=pct(cmp_["local"], lang),
                 central=pct(cmp_["central"], lang), gaussian=pct(cmp_["gaussian"], lang),
                 ratio=f"{cmp_['ratio']:.1f}", needed=f"{math.ceil(cmp_['n_needed']):,}")
    compare = (f'<div class="dp-poll-compare"><h4>{_e(t("poll.cmp.title", lang))}</h4>'
               f'<p>{_e(cmp_text)}</p></div>')
    return (f'<div class="dp-poll-res" data-poll="{_e(poll["id"])}">{head}{few}{big}{table}'
            f'<p class="dp-poll-formula">{_e(formula)}</p>'
            f'<p class="dp-poll-spent"><strong>{_e(spent)}</strong></p>'
            f'<p class="dp-poll-why">{_e(why)}</p>{manipulation_html(poll, n, lang)}'
            f'{width_plot(eps, max(n, 1), delta_cmp, lang, k)}{compare}</div>')


# ---------------------------------------------------------------------------------------------
# what local DP does not protect against


def _points(x: float, lang: str) -> str:
    """A shift of a share, in percentage points (never past the whole range)."""
    if x >= 1.0:
        return t("poll.proj.whole", lang)
    return t("poll.proj.points", lang, x=f"{100 * x:.1f}")


def manipulation(poll: Mapping[str, Any], n: int) -> dict[str, float]:
    """How far fake answers can move this poll's estimate of a share.

    Local model: π̂ = (ȳ − q) / (p − q), so one report changed (a student who sends the option
    of their choice instead of the coin's) moves ȳ by 1/n and π̂ by 1/(n(p − q)); a report added
    moves it by at most as much; m fake reports by at most m/(n(p − q)). A change of one true
    answer moves the expected estimate by only 1/n: the randomization amplifies each fake answer
    1/(p − q) times. Central model: one fake answer moves the count by 1, the share by 1/n.
    ``m`` is a tenth of the class: its shift does not shrink as the class grows."""
    k, eps = int(poll["k"]), float(poll["eps"])
    n = max(1, n)
    m = max(2, math.ceil(n / 10))
    d = P.keep_probability(eps, k) - P.other_probability(eps, k)
    if poll["model"] != "local":
        d = 1.0
    return {"n": n, "m": m, "pq": d, "one": 1.0 / (n * d), "many": m / (n * d),
            "truthful": 1.0 / n, "amp": 1.0 / d}


def manipulation_html(poll: Mapping[str, Any], n: int, lang: str) -> str:
    """Said under every poll, with its numbers: DP protects each student's answer, not the
    result against fake answers."""
    f = manipulation(poll, n)
    eps, k = float(poll["eps"]), int(poll["k"])
    if n < P.FEW_ANSWERS:  # the formula only: with so few answers the numbers mean nothing
        key = "poll.proj.manip_formula" if poll["model"] == "local" else \
            "poll.proj.manip_formula_central"
        body = t(key, lang, pq=f"{f['pq']:.3f}", amp=f"{f['amp']:.1f}", need=P.FEW_ANSWERS)
    elif poll["model"] == "local":
        body = t("poll.proj.manip_local", lang, k=k, eps=num(eps), n=f["n"],
                 pq=f"{f['pq']:.3f}", one=_points(f["one"], lang), m=f["m"],
                 many=_points(f["many"], lang), truthful=_points(f["truthful"], lang),
                 amp=f"{f['amp']:.1f}")
    else:
        body = t("poll.proj.manip_central", lang, n=f["n"], one=_points(f["one"], lang),
                 m=f["m"], many=_points(f["many"], lang))
    title = t("poll.proj.manip_title" if poll["model"] == "local" else
              "poll.proj.manip_title_central", lang)
    return (f'<div class="dp-poll-manip" role="note"><p class="dp-poll-manip-title"><strong>'
            f'{_e(title)}</strong></p><p>{_e(body)}</p></div>')


def past_table(past: Sequence[Mapping[str, Any]], lang: str) -> str:
    """Every closed poll of the room, one line each (the same numbers as when it closed)."""
    if not past:
        return ""
    rows = []
    for r in sorted(past, key=lambda r: str(r.get("id"))):
        model = t(f"poll.model.{r['model']}", lang)
        rows.append(f'<tr><td>{_e(question_of(r, lang))}</td>'
                    f'<td>{_e(model)}</td><td>{num(float(r["eps"]))}</td><td>{r["n"]}</td>'
                    f'<td>{pct(r.get("estimate"), lang)}</td>'
                    f'<td>{_e(_interval_text(r.get("ci95"), bool(r.get("clipped")), lang))}'
                    f'</td></tr>')
    cols = ("poll.past.question", "poll.past.model", "poll.past.eps", "poll.past.n",
            "poll.past.est", "poll.past.ci")
    return (f'<table class="dp-room-table dp-poll-past"><caption>{_e(t("poll.past.title", lang))}'
            f'</caption><thead><tr>'
            + "".join(f'<th scope="col">{_e(t(c, lang))}</th>' for c in cols)
            + f'</tr></thead><tbody>{"".join(rows)}</tbody></table>')


def ledger_html(led: Mapping[str, Any], lang: str) -> str:
    if not led["count"]:
        return (f'<p class="dp-cdf-ledger">{_e(t("poll.ledger.none", lang))}</p>')
    rule = t(f"poll.ledger.rule.{led['rule']}", lang)
    total = t("poll.ledger.total", lang, count=led["count"], eps=num(led["eps"], 4),
              delta=f"{led['delta']:.3g}")
    basic = t("poll.ledger.basic", lang, eps=num(led["basic_eps"], 4),
              delta=f"{led['basic_delta']:.3g}")
    return (f'<p class="dp-cdf-ledger"><strong>{_e(total)}</strong> {_e(rule)} {_e(basic)}</p>')


def _mech(mechanism: str, lang: str) -> str:
    kind = "gaussian" if mechanism.startswith("gaussian") else "laplace" \
        if mechanism.startswith("laplace") else ""
    return t(f"poll.mech.{kind}", lang) if kind else mechanism


def cdf_html(rel: Mapping[str, Any] | None, led: Mapping[str, Any], ask: Mapping[str, Any] |
             None, n_values: int, lang: str) -> str:
    """The class CDF on the panel: one SVG + table per degree (the slider picks one; moving it
    is post-processing), the guarantee of the release, the room's ledger (the projector's:
    :func:`cdf_projector_html`)."""
    parts = []
    box = SMALL
    if ask is not None:
        state = t("poll.res.open" if ask.get("open") else "poll.res.closed_state", lang)
        parts.append(f'<h3>{_e(question_of(ask, lang))}</h3><p class="dp-cdf-n">'
                     f'{_e(t("poll.cdf.values", lang, n=n_values))} · {_e(state)} '
                     f'<span class="dp-room-small">{_e(t("poll.res.n_public", lang))}</span></p>')
    if rel is None:
        parts.append(f'<p>{_e(t("poll.cdf.none", lang))}</p>')
        return "".join(parts) + ledger_html(led, lang)
    rel = {**rel, "unit": (ask or {}).get("unit", "")}
    method = t(f"poll.cdf.method.{rel['method']}", lang)
    guarantee = t("poll.cdf.guarantee", lang, method=method, eps=num(rel["eps"]),
                  delta=f"{rel['delta']:g}", n=rel["n"], sens=num(rel["sensitivity"], 3),
                  norm=rel["norm"], mech=_mech(str(rel["mechanism"]), lang))
    parts.append(f'<p class="dp-cdf-guarantee">{_e(guarantee)}</p>')
    if rel["n"] < P.FEW_ANSWERS:
        parts.append(f'<p class="dp-poll-few"><strong>{_e(t("poll.cdf.few", lang))}</strong></p>')
    curves = rel["curves"]
    if rel["method"] == "pp":
        d0 = int(rel.get("degree") or 0)
        parts.append(f'<p class="dp-cdf-degree-box"><label for="dp-cdf-degree">'
                     f'{_e(t("poll.cdf.degree", lang))}</label> '
                     f'<input type="range" id="dp-cdf-degree" class="dp-cdf-degree" min="0" '
                     f'max="{P.CDF_K_MAX}" step="1" value="{d0}" '
                     f'aria-describedby="dp-cdf-degree-note"> <output class="dp-cdf-degree-out" '
                     f'for="dp-cdf-degree">{d0}</output></p><p class="dp-room-small" '
                     f'id="dp-cdf-degree-note">{_e(t("poll.cdf.degree_note", lang, auto=d0))}</p>')
        for d in range(P.CDF_K_MAX + 1):
            ys = curves[str(d)]
            title = t("poll.cdf.title_deg", lang, degree=d)
            hidden = "" if d == d0 else " hidden"
            parts.append(f'<div class="dp-cdf-at" data-degree="{d}"{hidden}>'
                         f'{cdf_svg(rel, ys, lang, title, b=box)}{cdf_table(rel, ys, lang)}'
                         f'</div>')
    else:
        ys = curves["-"]
        parts.append(f'<div class="dp-cdf-at">'
                     f'{cdf_svg(rel, ys, lang, t("poll.cdf.title", lang), b=box)}'
                     f'{cdf_table(rel, ys, lang)}</div>')
    parts.append(ledger_html(led, lang))
    return "".join(parts)


def cdf_projector_html(rel: Mapping[str, Any], led: Mapping[str, Any],
                       ask: Mapping[str, Any] | None, lang: str) -> str:
    """The projected class CDF: the figure on the left at its own size (text 28 px), beside it
    the guarantee, the degree slider, the table and the ledger, so that all of it is on the
    first 1920×1080 screen under the room's band."""
    rel = {**rel, "unit": (ask or {}).get("unit", "")}
    method = t(f"poll.cdf.method.{rel['method']}", lang)
    guarantee = t("poll.cdf.guarantee", lang, method=method, eps=num(rel["eps"]),
                  delta=f"{rel['delta']:g}", n=rel["n"], sens=num(rel["sensitivity"], 3),
                  norm=rel["norm"], mech=_mech(str(rel["mechanism"]), lang))
    side = [f'<p class="dp-cdf-guarantee">{_e(guarantee)}</p>']
    if rel["n"] < P.FEW_ANSWERS:
        side.append(f'<p class="dp-poll-few"><strong>{_e(t("poll.cdf.few", lang))}</strong></p>')
    figs, tables = [], []
    curves = rel["curves"]
    if rel["method"] == "pp":
        d0 = int(rel.get("degree") or 0)
        side.append(f'<p class="dp-cdf-degree-box"><label for="dp-cdf-degree">'
                    f'{_e(t("poll.cdf.degree", lang))}</label> '
                    f'<input type="range" id="dp-cdf-degree" class="dp-cdf-degree" min="0" '
                    f'max="{P.CDF_K_MAX}" step="1" value="{d0}" '
                    f'aria-describedby="dp-cdf-degree-note"> <output class="dp-cdf-degree-out" '
                    f'for="dp-cdf-degree">{d0}</output></p><p class="dp-room-small" '
                    f'id="dp-cdf-degree-note">{_e(t("poll.cdf.degree_note", lang, auto=d0))}</p>')
        for d in range(P.CDF_K_MAX + 1):
            ys = curves[str(d)]
            hidden = "" if d == d0 else " hidden"
            title = t("poll.cdf.title_deg", lang, degree=d)
            figs.append(f'<div class="dp-cdf-at" data-degree="{d}"{hidden}>'
                        f'{cdf_svg(rel, ys, lang, title, b=LARGE)}</div>')
            tables.append(f'<div class="dp-cdf-at" data-degree="{d}"{hidden}>'
                          f'{cdf_table(rel, ys, lang)}</div>')
    else:
        ys = curves["-"]
        figs.append(f'<div class="dp-cdf-at">'
                    f'{cdf_svg(rel, ys, lang, t("poll.cdf.title", lang), b=LARGE)}</div>')
        tables.append(f'<div class="dp-cdf-at">{cdf_table(rel, ys, lang)}</div>')
    side += [*tables, ledger_html(led, lang)]
    return (f'<div class="dp-cdf-big"><div class="dp-cdf-fig">{"".join(figs)}</div>'
            f'<div class="dp-cdf-side">{"".join(side)}</div></div>')


def truth_html(rel: Mapping[str, Any], ask: Mapping[str, Any], truth: Sequence[float],
               lang: str) -> str:
    """The NOT private comparison (teacher only, labelled in large type)."""
    rel = {**rel, "unit": ask.get("unit", "")}
    ys = rel["curves"].get(str(rel.get("degree"))) or next(iter(rel["curves"].values()))
    return (f'<div class="dp-cdf-not-private" role="region" '
            f'aria-label="{_e(t("poll.truth.label", lang))}">'
            f'<p class="dp-cdf-not-private-label">{_e(t("poll.truth.label", lang))}</p>'
            f'<p>{_e(t("poll.truth.note", lang))}</p>'
            f'{cdf_svg(rel, ys, lang, t("poll.truth.title", lang), "dp-cdf-truth-plot", truth)}'
            f'{cdf_table(rel, ys, lang, truth)}</div>')


def student_cdf_html(rel: Mapping[str, Any] | None, ask: Mapping[str, Any] | None,
                     lang: str) -> str:
    """The released curve on a student's screen; assets/dplab-poll.js marks the student's own
    value on it (kept in that tab only, never sent back)."""
    if rel is None:
        return ""
    rel = {**rel, "unit": (ask or {}).get("unit", "")}
    key = str(rel.get("degree")) if rel["method"] == "pp" else "-"
    ys = rel["curves"][key]
    method = t(f"poll.cdf.method.{rel['method']}", lang)
    note = t("poll.cdf.student_note", lang, method=method, eps=num(rel["eps"]),
             delta=f"{rel['delta']:g}", n=rel["n"])
    few = (f'<p class="dp-poll-few">{_e(t("poll.cdf.few", lang))}</p>'
           if rel["n"] < P.FEW_ANSWERS else "")
    return (f'<section class="dp-join-cdf" data-release="{_e(rel["id"])}"><h2>'
            f'{_e(t("poll.cdf.student_title", lang))}</h2>'
            f'<p>{_e(note)}</p>'
            f'{few}{cdf_svg(rel, ys, lang, t("poll.cdf.title", lang))}'
            f'<p class="dp-join-mine" aria-live="polite"></p>{cdf_table(rel, ys, lang)}</section>')
