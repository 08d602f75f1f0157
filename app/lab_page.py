"""The Gaussian mechanism lab page (/lab): controls, certification card and three linked plots.

All views are functions of one :class:`~app.lab_state.LabState`. Figures are built once and
only their ColumnDataSources / ranges / labels are updated; heavy work runs on a slider's
``value_throttled`` (not on every drag event). Key outputs carry fixed CSS classes for outside
checks: dp-required-delta, dp-log10-delta, dp-verdict, dp-sensitivity.
"""

from __future__ import annotations

import functools
import html
import logging
import math
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import panel as pn
import param
from bokeh.events import Tap
from bokeh.models import ColumnDataSource, Label, Line, Range1d, Scatter, Span, Title
from bokeh.plotting import figure

from app import export, first_paint, layout
from app.i18n import pick_language, request_language, t
from app.lab_compute import (
    CurveView,
    DensityView,
    SimulationView,
    curve_view,
    density_view,
    simulation,
)
from app.lab_state import EPS_MAX, PRESETS, LabState, fmt_input
from app.tour import CONCEALED_HTML
from dpcore import queries

# Inputs closer than BURST_MS form a burst; during one, the figures redraw once the input has
# been quiet for PLOT_PAUSE_MS (the card always updates at once).
BURST_MS = 400
PLOT_PAUSE_MS = 150

log = logging.getLogger(__name__)

# Line and text colours per theme: app.layout.PALETTES (contrast-tested for both themes).
PLOT_HEIGHT = 400
# Projector (size=large): the card strip and both plots fit 1920x1080 together.
PLOT_HEIGHT_LARGE = 490

SIGMA_LOG_RANGE = (-3.0, 3.0)
EPS_SLIDER_MAX = 20.0
DELTA_LOG_RANGE = (-30.0, 0.0)


# ---------------------------------------------------------------------------------------------
# number formatting (pure; unit-tested)
# ---------------------------------------------------------------------------------------------
def fmt_delta(x: float) -> str:
    """A delta with 10 significant digits; 0 only for an exact double 0.0."""
    if x == 0:
        return "0"
    return f"{x:.10g}"


def fmt_log10(x: float) -> str:
    """log10 with 4 decimals; -inf as the ASCII text ``-inf``."""
    if x == -math.inf:
        return "-inf"
    return f"{x:.4f}"


def fmt_num(x: float, digits: int = 10) -> str:
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == 0:
        return "0"
    return f"{x:.{digits}g}"


def fmt_prob(p: float, log_p: float, digits: int = 8) -> str:
    """A probability, with its log10 when the double underflows or is tiny."""
    if log_p == -math.inf:
        return "0"
    if p == 0 or p < 1e-300:
        return f"10^{log_p / math.log(10):.{max(2, digits - 4)}f}"
    return f"{p:.{digits}g}"


# ---------------------------------------------------------------------------------------------
# the certification card (pure HTML from a Certification; unit-tested)
# ---------------------------------------------------------------------------------------------
def _unit(lang: str, unit: str) -> str:
    return t(f"common.unit.{unit}", lang)


def _sens_formula(query: str, n: int, B: float, lang: str) -> str:
    Bs, ns = fmt_input(B), str(n)
    return {
        "sum": f"Δ = B = {Bs}",
        "mean": f"Δ = B / n = {Bs} / {ns}",
        "count": "Δ = 1",
        "const": "Δ = 0",
    }[query] + " — " + t(f"lab.card.sens_why.{query}", lang)


# Verdict kind -> (message key, mark). A new verdict (e.g. "too close to call") is one more
# entry here and one more branch in verdict_kind(); its CSS class is the kind itself.
VERDICTS: dict[str, tuple[str, str]] = {
    "pass": ("lab.verdict.pass", "✓"),
    "fail": ("lab.verdict.fail", "✗"),
    # Not a pass: the claim and the required δ agree even at 40+ digits (dpcore.certify).
    "too_close": ("lab.verdict.too_close", "≟"),
}

# Short names of the controls, for the stale-card note (language-neutral symbols).
FIELD_SYMBOLS = {"query": "q", "n": "n", "B": "B", "sigma": "σ", "eps": "ε", "delta": "δ",
                 "data": "D", "record": "i", "replacement": "v", "eps_lo": "ε₁", "eps_hi": "ε₂",
                 "sim_n": "N"}


def verdict_kind(cert: Any) -> str:
    kind = getattr(cert, "verdict", "pass" if cert.passes else "fail")
    return kind if kind in VERDICTS else "fail"


def underflow_approx(log10_delta: float) -> str:
    """``10^−2223595.49``: an underflowed δ's size, from its exact log10 (2 decimals)."""
    return f"10^{log10_delta:.2f}".replace("-", "\u2212")


def card_html(state: LabState, cert: Any, lang: str, *, folded: bool = False) -> str:
    """Certification card. ``cert`` is a dpcore Certification for the state's release.

    ``folded``: the secondary parts (flags, errors, calibration, neighbours) start closed
    (projector view). While ``state.errors`` holds a rejected input the card carries the class
    ``dp-stale`` and says that it shows the last valid values.
    """
    unit = _unit(lang, cert.unit)
    u = html.escape(unit)
    kind = verdict_kind(cert)
    word_key, mark = VERDICTS[kind]
    verdict_word = t(word_key, lang)
    reason = t(f"lab.reason.{cert.reason}", lang)
    yes, no = t("common.yes", lang), t("common.no", lang)

    # The student's own neighbours (local view) next to the global sensitivity.
    data = state.data
    local = ""
    try:
        d_prime = state.neighbour()
        f_d = queries.value(state.query, list(data), state.B)
        f_dp = queries.value(state.query, list(d_prime), state.B)
        loc = queries.local_difference(state.query, list(data), state.record - 1,
                                       state.replacement, state.B)

        def show(ds: list[float]) -> str:
            items = ", ".join(fmt_input(v) for v in ds[:12])
            return f"({items}{', …' if len(ds) > 12 else ''})"

        local = f"""
        <h3>{t("lab.card.neighbours", lang)}</h3>
        <dl class="dp-grid">
          <dt>D</dt><dd>{show(data)}</dd>
          <dt>D′</dt><dd>{show(d_prime)} <span class="dp-muted">{html.escape(t(
            "lab.card.replaced", lang, i=state.record, v=fmt_input(state.replacement)))}</span></dd>
          <dt>f(D)</dt><dd>{fmt_num(f_d)} {u}</dd>
          <dt>f(D′)</dt><dd>{fmt_num(f_dp)} {u}</dd>
          <dt>|f(D) − f(D′)|</dt><dd class="dp-local-difference">{fmt_num(loc)} {u}</dd>
        </dl>
        <p class="dp-note">{html.escape(t("lab.card.global_why", lang, local=fmt_num(loc),
                                         sens=fmt_num(cert.sensitivity), unit=unit))}</p>"""
    except ValueError as exc:  # cannot happen for a validated state; never show a traceback
        log.info("neighbour view skipped: %s", exc)

    claimed = state.delta_text if state.delta_text else fmt_delta(cert.claimed_delta)
    # From the claim's text in log space: a claim of 1e-400 reads log10 = -400, not -inf.
    claimed_log = fmt_log10(cert.claimed_log10)
    flags = [
        ("lab.flag.positive", cert.mathematically_positive),
        ("lab.flag.underflow", cert.underflow),
        ("lab.flag.pure", cert.pure_dp_possible),
    ]
    flag_rows = "".join(
        f"<dt>{html.escape(t(k, lang))}</dt><dd class=\"dp-flag-{k.rsplit('.', 1)[1]}\">"
        f"{yes if v else no}</dd>" for k, v in flags
    )
    if cert.underflow:
        underflow_note = (f'<p class="dp-note dp-warn">'
                          f'{html.escape(t("lab.card.underflow_note", lang))}</p>')
        # The double is 0, the number is not: the badge and the size from the exact log10
        # are as large as the "0" itself.
        underflow_badge = (
            f' <span class="dp-badge dp-underflow-badge">'
            f'({html.escape(t("lab.card.underflow_badge", lang))})</span>'
            f' <span class="dp-approx">≈ {underflow_approx(cert.log10_delta)}</span>')
    else:
        underflow_note = underflow_badge = ""
    classic_note = t("lab.card.classic_proven" if cert.classic_proven
                     else "lab.card.classic_unproven", lang)
    exact = cert.exact_sigma
    if cert.sensitivity == 0:
        calib = f"<p>{html.escape(t('lab.card.calib_const', lang))}</p>"
    else:
        calib = f"""
        <dl class="dp-grid">
          <dt>{html.escape(t("lab.card.exact_sigma", lang))}</dt>
          <dd class="dp-exact-sigma">{fmt_num(exact, 8)} {u}</dd>
          <dt>{html.escape(t("lab.card.classic_sigma", lang))}</dt>
          <dd class="dp-classic-sigma">{fmt_num(cert.classic_sigma, 8)} {u}
            <span class="dp-muted">({html.escape(classic_note)})</span></dd>
        </dl>"""
    stale = ""
    if state.errors:
        fields = ", ".join(FIELD_SYMBOLS.get(c, c) for c in state.errors)
        stale = (f'<p class="dp-stale-note" role="status"><span aria-hidden="true">⚠</span> '
                 f'{html.escape(t("lab.card.stale", lang, fields=fields))}</p>')
    sens_formula = _sens_formula(cert.query, cert.n, cert.B, lang)
    required = fmt_delta(cert.required_delta)
    return f"""
    <section class="dp-card{' dp-stale' if stale else ''}" aria-labelledby="dp-card-title">
      <h2 id="dp-card-title">{html.escape(t("lab.card.title", lang))}</h2>
      {stale}
      <div class="dp-card-top">
      <p class="dp-verdict-box {"fail too_close" if kind == "too_close" else kind}" role="status">
        <span class="dp-verdict">{mark} {html.escape(verdict_word)}</span>
        <span class="dp-reason">{html.escape(reason)}</span></p>
      <dl class="dp-grid dp-main-numbers">
        <dt>{html.escape(t("lab.card.release", lang))}</dt>
        <dd class="dp-release">{html.escape(t(f"common.query.{cert.query}", lang))}, n = {cert.n},
          B = {fmt_input(cert.B)}, σ = <span class="dp-sigma">{fmt_input(cert.sigma)}</span> {u},
          ε = <span class="dp-eps">{fmt_input(cert.eps)}</span></dd>
        <dt>{html.escape(t("lab.card.sensitivity", lang))}</dt>
        <dd><span class="dp-sensitivity">{fmt_num(cert.sensitivity)}</span> {u}
          <div class="dp-muted">{html.escape(sens_formula)}</div></dd>
        <dt>{html.escape(t("lab.card.required", lang))}</dt>
        <dd class="dp-big"><span class="dp-required-delta">{required}</span>{underflow_badge}</dd>
        <dt>{html.escape(t("lab.card.log10", lang))}</dt>
        <dd class="dp-big"><span class="dp-log10-delta">{fmt_log10(cert.log10_delta)}</span></dd>
        <dt>{html.escape(t("lab.card.claimed", lang))}</dt>
        <dd><span class="dp-claimed-delta">{html.escape(claimed)}</span>
          <span class="dp-muted">(log10 = {claimed_log})</span></dd>
      </dl>
      </div>
      {underflow_note}
      <details class="dp-more"{'' if folded else ' open'}>
      <summary>{html.escape(t("lab.card.more", lang))}</summary>
      <h3>{html.escape(t("lab.card.flags", lang))}</h3>
      <dl class="dp-grid">{flag_rows}</dl>
      <h3>{html.escape(t("lab.card.errors", lang))}</h3>
      <dl class="dp-grid">
        <dt>{html.escape(t("lab.card.mse", lang))}</dt><dd>{fmt_num(cert.mse, 8)} ({u})²</dd>
        <dt>{html.escape(t("lab.card.mae", lang))}</dt><dd>{fmt_num(cert.mae, 8)} {u}</dd>
        <dt>{html.escape(t("lab.card.hw", lang))}</dt>
        <dd>± {fmt_num(cert.half_width_95, 8)} {u}</dd>
      </dl>
      <p class="dp-note">{html.escape(t("lab.card.not_delta", lang))}</p>
      <h3>{html.escape(t("lab.card.calibration", lang, delta=claimed))}</h3>
      {calib}
      {local}
      </details>
    </section>"""


CARD_CSS = """
.dp-card { font-size: 1.05em; line-height: 1.4; }
/* Shown as soon as it is drawn, while Bokeh still keeps the new layout around it hidden: it
   takes over from the server-rendered first card at once (app/first_paint.py). */
.dp-card { visibility: visible; }
.dp-card h2 { margin: 0 0 .4em 0; font-size: 1.4em; }
.dp-card h3 { margin: .9em 0 .3em 0; font-size: 1.08em; border-bottom: 1px solid #8884; }
.dp-grid { display: grid; grid-template-columns: max-content 1fr; gap: .25em 1em; margin: 0; }
.dp-grid dt { font-weight: 600; }
.dp-grid dd { margin: 0; font-variant-numeric: tabular-nums; }
.dp-big { font-size: 1.35em; font-weight: 700;
          font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
.dp-verdict-box { padding: .5em .8em; border-radius: 8px; border: 3px solid; margin: 0 0 .7em 0;
                  display: flex; flex-wrap: wrap; gap: .3em 1em; align-items: baseline; }
.dp-verdict-box.pass { border-color: #007a4d; background: #007a4d18; }
.dp-verdict-box.fail { border-color: #b3261e; background: #b3261e14; border-style: double;
                       border-width: 5px; }
.dp-verdict { font-size: 1.6em; font-weight: 800; }
.pass .dp-verdict { color: #007a4d; }
.fail .dp-verdict { color: #b3261e; }
.dp-muted { opacity: .75; font-size: .92em; }
.dp-note { font-size: .95em; margin: .4em 0; }
.dp-warn { border-left: 5px solid #d55e00; padding-left: .6em; }
.dp-text { font-size: 1em; line-height: 1.45; }
.dp-text table { border-collapse: collapse; font-variant-numeric: tabular-nums;
                 display: block; max-width: 100%; overflow-x: auto; }
.dp-text th, .dp-text td { padding: 2px 10px; border-bottom: 1px solid #8884; text-align: right; }
.dp-text th:first-child, .dp-text td:first-child { text-align: left; }
.dp-error { color: #b3261e; font-weight: 600; }
.dp-notice { border: 3px solid #d55e00; border-radius: 8px; padding: .4em .8em; }
.dp-badge { display: inline-block; font-family: system-ui, sans-serif; font-size: .62em;
            font-weight: 700; padding: .1em .5em; border: 2px solid #d55e00; border-radius: 1em;
            vertical-align: middle; }
.dp-approx { white-space: nowrap; }
.dp-stale-note { border: 3px dashed #d55e00; border-radius: 8px; padding: .35em .7em;
                 margin: 0 0 .6em 0; font-weight: 600; }
.dp-stale .dp-card-top { opacity: .6; }
details.dp-more > summary, details.dp-fold > summary { cursor: pointer; font-weight: 600;
  padding: .3em 0; min-height: 32px; }
details > summary:focus-visible { outline: 3px solid #d55e00; outline-offset: 2px; }
details.dp-fold { margin: .2em 0; }
@media print {
  .dp-card, .dp-text { color: #000; }
  details > summary { display: none; }
}
"""

# Projector view: the verdict box beside the main numbers (one strip above the two plots).
PROJECTOR_CSS = """
.dp-card h2 { font-size: 1.1em; margin: 0 0 .2em 0; }
.dp-card-top { display: grid; grid-template-columns: minmax(12em, 1fr) 2.2fr; gap: .3em 1.4em;
               align-items: start; }
.dp-verdict-box { margin: 0; }
.dp-main-numbers { gap: .1em 1em; }
.dp-main-numbers div.dp-muted { display: none; }
.dp-reason { font-size: .85em; }
"""


# The server-rendered card of the first paint (LabPage.first_paint): where the live card will be.
FIRST_PAINT_CSS = """
.dp-first-paint { display: block; margin: 0 10px 10px 10px; font-size: 14px; }
.dp-first-paint.dp-large { font-size: 22px; }
.dp-first-paint-row { display: flex; flex-wrap: wrap; gap: 16px; }
.dp-first-paint-card { flex: 1 1 400px; min-width: 280px; }
.dp-first-paint-rest { flex: 1.3 1 480px; min-width: 280px; }
.dp-large .dp-first-paint-card { flex: 1 1 100%; }
.dp-large .dp-first-paint-rest { display: none; }
.dp-first-paint-note { margin: .3em 0 .6em 0; font-size: .9em; opacity: .8; }
.dp-first-paint-spacer { height: 44px; }
.dp-first-paint-failed .dp-first-paint-note { opacity: 1; font-weight: 600; }
"""


def card_theme_css(pal: layout.Palette) -> str:
    """Verdict and warning colours of the theme (text ≥ 4.5:1 against the page background)."""
    return f"""
.dp-verdict-box.pass {{ border-color: {pal.passed}; }}
.dp-verdict-box.fail {{ border-color: {pal.failed}; }}
.pass .dp-verdict {{ color: {pal.passed}; }}
.fail .dp-verdict {{ color: {pal.failed}; }}
.dp-error {{ color: {pal.failed}; }}
.dp-warn, .dp-notice, .dp-stale-note, .dp-badge {{ border-color: {pal.claim}; }}
"""


# ---------------------------------------------------------------------------------------------
# text equivalents of the plots (pure HTML; unit-tested)
# ---------------------------------------------------------------------------------------------
def density_text(dv: DensityView, sens: float, sigma: float, eps: float, unit: str,
                 lang: str) -> str:
    u = html.escape(unit)
    if sens == 0:
        body = f"<p>{html.escape(t('lab.dens.same', lang))}</p>"
    else:
        outside = ""
        if dv.t_outside:
            outside = (f'<p class="dp-note dp-warn dp-t-outside">'
                       f'{html.escape(t("lab.dens.outside", lang, t=fmt_num(dv.t, 8), unit=unit))}'
                       "</p>")
        body = f"""
        <p>{html.escape(t("lab.dens.summary", lang, d=fmt_num(sens), sigma=fmt_input(sigma),
                                          unit=unit))}</p>
        <dl class="dp-grid">
          <dt>{html.escape(t("lab.dens.t", lang))}</dt>
          <dd class="dp-boundary">t = Δ/2 − εσ²/Δ = {fmt_num(dv.t, 8)} {u}</dd>
          <dt>P₀ = Pr[N(0, σ²) &lt; t]</dt><dd class="dp-p0">{fmt_prob(dv.p0, dv.log_p0)}</dd>
          <dt>e^ε·P₁ = e^ε·Pr[N(Δ, σ²) &lt; t]</dt>
          <dd class="dp-p1-scaled">{fmt_prob(dv.p1_scaled, dv.log_p1_scaled)}</dd>
          <dt>δ = P₀ − e^ε·P₁</dt><dd>{html.escape(t("lab.dens.delta_is", lang))}</dd>
          <dt>{html.escape(t("lab.dens.peak", lang))}</dt>
          <dd>{fmt_num(dv.peak, 6)} 1/{u}</dd>
        </dl>{outside}"""
    return f'<div class="dp-text dp-density-text">{body}</div>'


def curve_text(cv: CurveView, claimed: float, lang: str) -> str:
    if cv.all_zero:
        msg = html.escape(t("lab.curve.all_zero", lang))
        return f'<div class="dp-text dp-curve-text"><p>{msg}</p></div>'
    rows = []
    for e, y in zip(cv.table_eps, cv.table_y, strict=True):
        if cv.scale == "log10":
            delta_s = "—" if math.isnan(y) else fmt_log10(y)
        else:
            delta_s = fmt_delta(y)
        rows.append(f"<tr><td>{fmt_num(float(e), 6)}</td><td>{delta_s}</td></tr>")
    col = "log10 δ" if cv.scale == "log10" else "δ"
    cur = (fmt_log10(cv.current_log10) if cv.scale == "log10"
           else fmt_delta(math.exp(cv.current_log10 * math.log(10))))
    return f"""
    <div class="dp-text dp-curve-text">
      <p>{html.escape(t("lab.curve.current", lang, eps=fmt_input(cv.current_eps), col=col,
                                       value=cur, claimed=fmt_delta(claimed)))}</p>
      <table aria-label="{html.escape(t("lab.curve.table", lang))}">
        <thead><tr><th>ε</th><th>{col}</th></tr></thead><tbody>{"".join(rows)}</tbody></table>
      <p class="dp-muted">{html.escape(t("lab.curve.legend_text", lang))}</p>
    </div>"""


def sim_text(sv: SimulationView, eps: float, lang: str) -> str:
    def row(name: str, k: int, f: float, ci: tuple[float, float], exact: float,
            log_exact: float) -> str:
        inside = ci[0] <= exact <= ci[1]
        mark = t("lab.sim.inside" if inside else "lab.sim.outside", lang)
        return (f"<tr><td>{name}</td><td>{k} / {sv.n}</td><td>{f:.4f}</td>"
                f"<td>[{ci[0]:.4f}, {ci[1]:.4f}]</td><td>{fmt_prob(exact, log_exact)}</td>"
                f"<td>{html.escape(mark)}</td></tr>")

    if math.isinf(sv.t):
        note = f"<p>{html.escape(t('lab.sim.no_event', lang))}</p>"
    else:
        note = f"<p>{html.escape(t('lab.sim.event', lang, t=fmt_num(sv.t, 8)))}</p>"
    return f"""
    <div class="dp-text dp-sim-text">
      {note}
      <table aria-label="{html.escape(t("lab.sim.table", lang))}">
        <thead><tr><th></th><th>{html.escape(t("lab.sim.count", lang))}</th>
          <th>{html.escape(t("lab.sim.freq", lang))}</th>
          <th>{html.escape(t("lab.sim.ci", lang))}</th>
          <th>{html.escape(t("lab.sim.exact", lang))}</th><th></th></tr></thead>
        <tbody>{row("D: y &lt; t", sv.k0, sv.f0, sv.ci0, sv.p0, sv.log_p0)}
               {row("D′: y &lt; t", sv.k1, sv.f1, sv.ci1, sv.p1, sv.log_p1)}</tbody></table>
      <p class="dp-muted">{html.escape(t("lab.sim.honest", lang))}</p>
    </div>"""


# ---------------------------------------------------------------------------------------------
# the page
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LegendEntry:
    """One legend line, drawn in HTML next to the figure (and into its PNG export)."""

    label: str
    kind: str  # "line", "area", "hatch" or "marker"
    colour: str
    dash: tuple[int, ...]  # SVG/canvas dash pattern; () is solid
    width: float
    alpha: float
    renderer: Any = field(compare=False, repr=False)

    def as_dict(self) -> dict[str, Any]:
        return {"label": self.label, "kind": self.kind, "colour": self.colour,
                "dash": list(self.dash), "width": self.width, "alpha": self.alpha}


_DASHES = {"solid": (), "dashed": (6, 4), "dotted": (2, 4), "dotdash": (2, 4, 6, 4),
           "dashdot": (6, 4, 2, 4)}


def _dash(value: Any) -> tuple[int, ...]:
    if isinstance(value, str):
        return _DASHES.get(value, ())
    return tuple(int(v) for v in (value or ()))


def take_legend(fig: Any) -> list[LegendEntry]:
    """Move a figure's legend out of the canvas: its entries, read from the renderers' glyphs.

    A Bokeh legend cannot wrap: below a plot it took a third of the ε–δ figure's height and
    was cut off on phones. The entries are drawn as HTML (:func:`legend_html`), which wraps,
    is read by screen readers, and costs no Bokeh models per session.
    """
    entries: list[LegendEntry] = []
    for leg in list(fig.legend):
        for item in leg.items:
            label = getattr(item.label, "value", None) or str(item.label)
            r = item.renderers[0]
            g = r.glyph
            if isinstance(g, Line):
                entries.append(LegendEntry(label, "line", g.line_color, _dash(g.line_dash),
                                           float(g.line_width), float(g.line_alpha), r))
            elif isinstance(g, Scatter):
                entries.append(LegendEntry(label, "marker", g.fill_color, (), 1.0,
                                           float(g.fill_alpha), r))
            elif g.hatch_pattern:
                entries.append(LegendEntry(label, "hatch", g.hatch_color, (), 1.5,
                                           float(g.hatch_alpha), r))
            else:
                entries.append(LegendEntry(label, "area", g.fill_color, (), 1.0,
                                           float(g.fill_alpha), r))
        for area in ("center", "below", "above", "left", "right"):
            setattr(fig, area, [m for m in getattr(fig, area) if m is not leg])
    return entries


def _swatch(e: LegendEntry) -> str:
    c = html.escape(e.colour)
    dash = f' stroke-dasharray="{" ".join(map(str, e.dash))}"' if e.dash else ""
    if e.kind == "line":
        body = (f'<line x1="2" y1="8" x2="38" y2="8" stroke="{c}" stroke-width="{e.width:g}"'
                f'{dash} stroke-opacity="{e.alpha:g}"/>')
    elif e.kind == "marker":
        body = f'<polygon points="20,1 27,8 20,15 13,8" fill="{c}"/>'
    elif e.kind == "hatch":
        body = (f'<rect x="2" y="2" width="36" height="12" fill="none" stroke="{c}"/>'
                f'<path d="M2 14L14 2M10 14L22 2M18 14L30 2M26 14L38 2" stroke="{c}"'
                f' stroke-width="1.5"/>')
    else:
        body = (f'<rect x="2" y="2" width="36" height="12" fill="{c}"'
                f' fill-opacity="{max(e.alpha, 0.35):g}" stroke="{c}"/>')
    return (f'<svg class="dp-swatch" width="40" height="16" viewBox="0 0 40 16" '
            f'aria-hidden="true">{body}</svg>')


def legend_html(entries: list[LegendEntry], label: str) -> str:
    """The legend as a wrapping HTML list (only the entries whose renderer is visible)."""
    items = "".join(f"<li>{_swatch(e)}<span>{html.escape(e.label)}</span></li>"
                    for e in entries if e.renderer is None or e.renderer.visible)
    return f'<ul class="dp-legend" aria-label="{html.escape(label)}">{items}</ul>'


LEGEND_CSS = """
.dp-legend { list-style: none; display: flex; flex-wrap: wrap; gap: .15em 1.2em;
             margin: .1em 0 .4em 0; padding: 0 0 0 3.5em; font-size: .95em; }
.dp-legend li { display: inline-flex; align-items: center; gap: .4em; }
.dp-swatch { flex: none; }
@media (max-width: 760px) { .dp-legend { padding-left: .5em; } }
"""


def _legend_below(fig: Any, ncols: int = 2) -> None:
    # Below the plot: a legend inside the frame would hide the curves' peaks.
    leg = fig.legend[0]
    fig.center = [r for r in fig.center if r is not leg]
    leg.orientation = "horizontal"
    leg.ncols = ncols
    leg.background_fill_alpha = 0.0
    leg.border_line_alpha = 0.0
    leg.click_policy = "none"
    fig.add_layout(leg, "below")


def _lean(fig: Any, *, selectable: bool = False) -> None:
    # bokeh.plotting gives each renderer a muted and a non-selection copy of its glyph: two
    # more models per curve per session. Our legends never mute (click_policy "none") and
    # only a figure with a TapTool can select; without a copy BokehJS draws the glyph itself.
    for r in fig.renderers:
        r.muted_glyph = None
        if not selectable:
            r.nonselection_glyph = None


def _set_data(src: ColumnDataSource, **columns: Any) -> None:
    """Replace a source's columns only when one of them changed.

    Bokeh sends a ColumnDataSource's data on every assignment, equal or not, and the browser
    redraws it. The sigma-only arrays are cached (app.lab_compute), so an eps move hands back
    the very same arrays: nothing to send for the densities, the curve or the histograms.
    """
    old = src.data
    if old.keys() == columns.keys() and all(
            v is old[k] or (len(v) <= 8 and len(old[k]) == len(v)
                            and np.array_equal(np.asarray(v, dtype=float),
                                               np.asarray(old[k], dtype=float), equal_nan=True))
            for k, v in columns.items()):
        return
    src.data = columns


class RevealBox(pn.custom.JSComponent):
    """An empty box that reports once it comes within 300 px of the viewport (or is shown).

    Holds the place of a figure that is built only when a student scrolls to it: a figure is
    ~60 Bokeh models per session, and many students never scroll that far.
    """

    seen = param.Boolean(default=False, doc="True once the box has been near the viewport.")

    _esm = """
    export function render({ model, el }) {
      const show = () => { model.seen = true; };
      if (!("IntersectionObserver" in window)) { show(); return; }
      const io = new IntersectionObserver((entries) => {
        if (entries.some((e) => e.isIntersecting)) { io.disconnect(); show(); }
      }, { rootMargin: "300px 0px" });
      io.observe(el);
      model.on("remove", () => io.disconnect());
    }
    """

# Touch screens and phones: a handle a finger can hit (30 px; WCAG 2.5.8 asks >= 24 px).
SLIDER_TOUCH_CSS = """
@media (pointer: coarse), (max-width: 760px) {
  .noUi-target.noUi-horizontal { margin: 14px 15px; }
  .noUi-target.noUi-horizontal .noUi-handle { --handle-width: 30px; --handle-height: 30px;
                                              border-radius: 50%; }
}
"""


class _Slider(pn.widgets.FloatSlider):
    # Panel waits 50 ms (Syncable._debounce) to batch browser changes; the lab acts only on
    # value_throttled, which is already final, so that wait is pure latency.
    _debounce = 0
    _stylesheets: ClassVar[list[str]] = [*pn.widgets.FloatSlider._stylesheets, SLIDER_TOUCH_CSS]


class _Text(pn.widgets.TextInput):
    # value changes only on Enter / leaving the field: nothing to batch either.
    _debounce = 0


class LabPage(param.Parameterized):
    """Widgets + figures bound to one LabState (one instance per browser session)."""

    state = param.ClassSelector(class_=LabState, doc="The lab state shown by this page.")
    lang = param.Selector(default="ko", objects=["ko", "en"], doc="Page language.")

    def __init__(self, state: LabState | None = None, lang: str = "ko", large: bool = False,
                 dark: bool = False, **params: Any) -> None:
        super().__init__(state=state or LabState(), lang=lang, **params)
        self._large = large
        self._dark = dark
        self.pal = layout.palette(dark)
        self.tour: Any = None  # a TourState when the guided tour is attached
        self._syncing = False
        self._pending_plots: set[str] = set()
        self._plots_scheduled = False
        self._last_input = 0.0
        self._in_burst = False
        self.address = layout.AddressBar()
        self._build_widgets()
        self._build_figures()
        self.state.param.watch(self._on_state, list(self.state.param))
        self.refresh()

    # ---- widgets --------------------------------------------------------------------------
    def _tr(self, key: str, **fmt: Any) -> str:
        return t(key, self.lang, **fmt)

    def _theme_css(self) -> list[str]:
        """Stylesheets after CARD_CSS: theme colours, and the projector strip when large."""
        return [card_theme_css(self.pal), *([PROJECTOR_CSS] if self._large else [])]

    def _text(self, control: str, value: str, label: str) -> tuple[_Text, pn.pane.HTML]:
        w = _Text(value=value, label=label, sizing_mode="stretch_width",
                                 css_classes=[f"dp-input-{control}"])
        err = layout.TextPane("", css_classes=[f"dp-error-{control}"], stylesheets=[CARD_CSS],
                              margin=(0, 10), sizing_mode="stretch_width")
        w.param.watch(lambda e, c=control: self._on_text(c, e.new), "value")
        self._inputs[control] = w
        self._errors[control] = err
        return w, err

    def _build_widgets(self) -> None:
        s = self.state
        self._inputs: dict[str, _Text] = {}
        self._errors: dict[str, pn.pane.HTML] = {}
        self.preset_buttons = []
        for p in PRESETS:
            b = pn.widgets.Button(label=self._tr(f"lab.preset.{p.key}"), color="light",
                                  sizing_mode="stretch_width", css_classes=[f"dp-preset-{p.key}"])
            b.on_click(lambda e, k=p.key: self._safe(self.state.load_preset, k))
            self.preset_buttons.append(b)
        self.query = pn.widgets.Select(
            label=self._tr("lab.ctl.query"),
            options={self._tr(f"common.query.{q}"): q for q in queries.QUERIES},
            value=s.query, sizing_mode="stretch_width", css_classes=["dp-input-query"])
        self.query.param.watch(lambda e: self._safe(self._set_query, e.new), "value")
        self._errors["query"] = layout.TextPane("", css_classes=["dp-error-query"],
                                                stylesheets=[CARD_CSS], margin=(0, 10))
        unit = _unit(self.lang, queries.unit_key(s.query))
        for c, v in (("n", str(s.n)), ("B", fmt_input(s.B)), ("sigma", fmt_input(s.sigma)),
                     ("eps", fmt_input(s.eps)), ("delta", s.delta_text), ("data", s.data_text),
                     ("record", str(s.record)), ("replacement", fmt_input(s.replacement)),
                     ("eps_lo", fmt_input(s.eps_lo)), ("eps_hi", fmt_input(s.eps_hi)),
                     ("sim_n", str(s.sim_n))):
            self._text(c, v, self._tr(f"lab.ctl.{c}", unit=unit))
        self.sigma_slider = _Slider(
            label=self._tr("lab.ctl.sigma_slider"), start=SIGMA_LOG_RANGE[0],
            end=SIGMA_LOG_RANGE[1], step=0.01, value=math.log10(s.sigma),
            sizing_mode="stretch_width", css_classes=["dp-slider-sigma"], format="0[.]00")
        self.eps_slider = _Slider(
            label=self._tr("lab.ctl.eps_slider"), start=0.0, end=EPS_SLIDER_MAX, step=0.05,
            value=min(s.eps, EPS_SLIDER_MAX), sizing_mode="stretch_width",
            css_classes=["dp-slider-eps"])
        self.delta_slider = _Slider(
            label=self._tr("lab.ctl.delta_slider"), start=DELTA_LOG_RANGE[0],
            end=DELTA_LOG_RANGE[1], step=0.1, value=self._delta_log(s.delta),
            sizing_mode="stretch_width", css_classes=["dp-slider-delta"])
        self.sigma_slider.param.watch(
            lambda e: self._slider("sigma", float(f"{10 ** e.new:.4g}")), "value_throttled")
        self.eps_slider.param.watch(lambda e: self._slider("eps", round(e.new, 4)),
                                    "value_throttled")
        self.delta_slider.param.watch(
            lambda e: self._slider("delta", float(f"{10 ** e.new:.3g}") if e.new < 0 else 1.0),
            "value_throttled")
        self.scale = pn.widgets.RadioButtonGroup(
            label=self._tr("lab.ctl.scale"),
            options={self._tr("lab.scale.log10"): "log10", self._tr("lab.scale.linear"): "linear"},
            value=s.scale, color="primary", variant="outline",
            css_classes=["dp-scale"])
        self.scale.param.watch(lambda e: self._safe(setattr, self.state, "scale", e.new), "value")
        self.overlays = pn.widgets.CheckBoxGroup(
            label=self._tr("lab.ctl.overlays"),
            options={self._tr("lab.overlay.laplace"): "laplace",
                     self._tr("lab.overlay.classic"): "classic"},
            value=list(s.overlays), inline=False, css_classes=["dp-overlays"])
        self.overlays.param.watch(
            lambda e: self._safe(setattr, self.state, "overlays", list(e.new)), "value")
        self.resample = pn.widgets.Button(label=self._tr("lab.ctl.resample"), color="default",
                                          css_classes=["dp-resample"])
        self.resample.on_click(lambda e: self._safe(
            setattr, self.state, "sim_seed", (self.state.sim_seed + 1) % (2**31 - 1)))
        self.notice = layout.TextPane("", stylesheets=[CARD_CSS], sizing_mode="stretch_width",
                                      css_classes=["dp-notices"], visible=False)

    @staticmethod
    def _delta_log(delta: float) -> float:
        if delta <= 0:
            return DELTA_LOG_RANGE[0]
        return min(DELTA_LOG_RANGE[1], max(DELTA_LOG_RANGE[0], math.log10(delta)))

    def _safe(self, fn: Any, *args: Any) -> None:
        # Never let an exception reach the browser or the server log as an error.
        try:
            fn(*args)
        except Exception:
            log.warning("lab: input rejected", exc_info=True)
            self._show_errors()

    def _set_query(self, q: str) -> None:
        if self._syncing:
            return
        self.state.set_query(q)
        self._show_errors()
        if self.query.value != self.state.query:
            self._sync_widgets()

    def _on_text(self, control: str, text: str) -> None:
        if self._syncing:
            return
        self._safe(self.state.set_text, control, text)
        self._show_errors()

    def _slider(self, control: str, x: float) -> None:
        if self._syncing:
            return
        self._safe(self.state.set_value, control, x)
        self._show_errors()

    def _show_errors(self) -> None:
        errs = self.state.errors
        for c, pane in self._errors.items():
            if c in errs:
                key, fmt = errs[c]
                msg = self._tr(key, **fmt)
                pane.object = f'<p class="dp-error" role="alert">⚠ {html.escape(msg)}</p>'
                self._place_error(c, pane)
            elif pane.object:
                pane.object = ""

    def _place_error(self, control: str, pane: pn.pane.HTML) -> None:
        # An error pane joins the sidebar, under its control, with its first message: 12 empty
        # panes and their wrappers were ~20 % of the page's Bokeh models (issue 11).
        side = getattr(self, "_side", None)
        if side is None or any(o is pane for o in side.objects):
            return
        widget = self.query if control == "query" else self._inputs[control]
        at = next(i for i, o in enumerate(side.objects) if o is widget)
        side.insert(at + 1, pane)

    def _sync_widgets(self) -> None:
        s = self.state
        self._syncing = True
        try:
            values = {"n": str(s.n), "B": fmt_input(s.B), "sigma": fmt_input(s.sigma),
                      "eps": fmt_input(s.eps), "delta": s.delta_text, "data": s.data_text,
                      "record": str(s.record), "replacement": fmt_input(s.replacement),
                      "eps_lo": fmt_input(s.eps_lo), "eps_hi": fmt_input(s.eps_hi),
                      "sim_n": str(s.sim_n)}
            for c, v in values.items():
                w = self._inputs[c]
                # A rejected text stays visible (with its message) until the student fixes it.
                if c not in s.errors and w.value != v:
                    w.value = v
            # Compared first: setting a parameter, even to its value, costs param's machinery
            # on every move (issue 11).
            ls = math.log10(s.sigma)
            unit = _unit(self.lang, queries.unit_key(s.query))
            wanted: list[tuple[Any, str, Any]] = [
                (self._inputs["data"], "disabled", not s.data_editable),
                (self.query, "value", s.query), (self.scale, "value", s.scale),
                (self.overlays, "value", list(s.overlays)),
                (self.eps_slider, "value", min(s.eps, EPS_SLIDER_MAX)),
                (self.delta_slider, "value", self._delta_log(s.delta)),
                *((self._inputs[c], "label", self._tr(f"lab.ctl.{c}", unit=unit))
                  for c in ("sigma", "replacement")),
            ]
            if SIGMA_LOG_RANGE[0] <= ls <= SIGMA_LOG_RANGE[1]:
                wanted.append((self.sigma_slider, "value", ls))
            for obj, name, v in wanted:
                if getattr(obj, name) != v:
                    setattr(obj, name, v)
        finally:
            self._syncing = False

    # ---- figures --------------------------------------------------------------------------
    def _build_figures(self) -> None:
        tools = "pan,wheel_zoom,box_zoom,reset,save"
        p = self.pal
        # Projector mode: taller figures so that larger text leaves room for the curves.
        fs = "15pt" if self._large else "12pt"
        height = PLOT_HEIGHT_LARGE if self._large else PLOT_HEIGHT
        self.src_dens = ColumnDataSource(dict(x=[], p=[], q=[]))
        self.src_event = ColumnDataSource(dict(x=[], p=[], q=[], zero=[]))
        f = figure(height=height, sizing_mode="stretch_width", tools=tools,
                   x_range=Range1d(-4, 5), title=self._tr("lab.dens.title"))
        f.varea("x", "zero", "p", source=self.src_event, fill_color=p.d0, fill_alpha=0.25,
                legend_label=self._tr("lab.dens.legend_p0"))
        f.varea("x", "zero", "q", source=self.src_event, fill_alpha=0.0, hatch_pattern="/",
                hatch_color=p.d1, hatch_alpha=0.8, legend_label=self._tr("lab.dens.legend_p1"))
        f.line("x", "p", source=self.src_dens, line_width=4, color=p.d0,
               legend_label=self._tr("lab.dens.legend_d0"))
        f.line("x", "q", source=self.src_dens, line_width=4, color=p.d1, line_dash="dashed",
               legend_label=self._tr("lab.dens.legend_d1"))
        self.t_span = Span(location=0, dimension="height", line_color=p.marker, line_width=3,
                           line_dash="dotdash")
        f.add_layout(self.t_span)
        self.t_label = Label(x=0, y=12, x_units="data", y_units="screen", text="",
                             text_font_size=fs, x_offset=6, text_align="left", text_color=p.text,
                             background_fill_color=p.label_bg, background_fill_alpha=0.85)
        f.add_layout(self.t_label)
        # Two short subtitle lines instead of one that the plot's width cuts off.
        self.dens_sub2 = Title(text="", text_font_size=fs, text_font_style="normal",
                               text_color=p.text)
        self.dens_sub = Title(text="", text_font_size=fs, text_font_style="normal",
                              text_color=p.text)
        f.add_layout(self.dens_sub2, "above")
        f.add_layout(self.dens_sub, "above")
        self.dens_note = Label(x=8, y=8, x_units="screen", y_units="screen", text="",
                               text_font_size=fs, text_color=p.note,
                               background_fill_color=p.label_bg, background_fill_alpha=0.9)
        f.add_layout(self.dens_note)
        self.leg_dens = take_legend(f)
        f.css_classes = ["dp-density-plot"]
        _lean(f)
        self.fig_dens = layout.large_type(f, self._large, self._dark)

        self.src_curve = ColumnDataSource(dict(eps=[], y=[], lap=[], cl_in=[], cl_out=[]))
        self.src_claim = ColumnDataSource(dict(eps=[], y=[]))
        self.src_cur = ColumnDataSource(dict(eps=[], y=[]))
        c = figure(height=height, sizing_mode="stretch_width", tools=tools + ",tap",
                   x_range=Range1d(0, 10), title=self._tr("lab.curve.title"))
        # The claimed delta is drawn first: where it crosses the curve, the curve stays on top.
        self.r_claim = c.line("eps", "y", source=self.src_claim, line_width=3, color=p.claim,
                              line_dash="dashdot", legend_label=self._tr("lab.curve.legend_claim"))
        self.r_lap = c.line("eps", "lap", source=self.src_curve, line_width=3, color=p.laplace,
                            line_dash="dotted", legend_label=self._tr("lab.curve.legend_laplace"))
        self.r_cl_in = c.line("eps", "cl_in", source=self.src_curve, line_width=3,
                              color=p.classic, line_dash="dashed",
                              legend_label=self._tr("lab.curve.legend_classic_in"))
        self.r_cl_out = c.line("eps", "cl_out", source=self.src_curve, line_width=2,
                               color=p.classic, line_dash="dotted",
                               legend_label=self._tr("lab.curve.legend_classic_out"))
        self.r_curve = c.line("eps", "y", source=self.src_curve, line_width=4, color=p.curve,
                              legend_label=self._tr("lab.curve.legend_delta"))
        self.eps_span = Span(location=1, dimension="height", line_color=p.marker, line_width=2,
                             line_dash="dashed")
        c.add_layout(self.eps_span)
        c.scatter("eps", "y", source=self.src_cur, size=16, marker="diamond", color=p.curve,
                  line_color=p.background, line_width=2,
                  legend_label=self._tr("lab.curve.legend_cur"))
        self.curve_note = Label(x=8, y=8, x_units="screen", y_units="screen", text="",
                                text_font_size=fs, text_color=p.note,
                                background_fill_color=p.label_bg, background_fill_alpha=0.9)
        c.add_layout(self.curve_note)
        c.xaxis.axis_label = self._tr("lab.curve.xlabel")
        self.leg_curve = take_legend(c)
        c.on_event(Tap, self._on_tap)
        c.css_classes = ["dp-curve-plot"]
        _lean(c, selectable=True)  # TapTool: a tap on a curve selects it
        self.fig_curve = layout.large_type(c, self._large, self._dark)

        # The simulation figure is built when a student scrolls to it (sim_figure()); its
        # sources and threshold line are kept up to date until then.
        self.src_h0 = ColumnDataSource(dict(left=[], right=[], top=[]))
        self.src_h1 = ColumnDataSource(dict(left=[], right=[], top=[]))
        self.t_span_sim = Span(location=0, dimension="height", line_color=p.marker, line_width=3,
                               line_dash="dotdash")
        self.fig_sim: Any = None

        card_css = [CARD_CSS, *self._theme_css()]
        self.card = layout.TextPane("", stylesheets=card_css, sizing_mode="stretch_width",
                                    css_classes=["dp-card-pane"])
        self.dens_text = layout.TextPane("", stylesheets=card_css, sizing_mode="stretch_width")
        self.curve_text = layout.TextPane("", stylesheets=card_css, sizing_mode="stretch_width")
        self.sim_text = layout.TextPane("", stylesheets=card_css, sizing_mode="stretch_width")
        legend = self._tr("lab.legend")
        self.dens_legend = layout.TextPane(legend_html(self.leg_dens, legend),
                                           stylesheets=[LEGEND_CSS], sizing_mode="stretch_width",
                                           margin=(0, 5))
        self.curve_legend = layout.TextPane(legend_html(self.leg_curve, legend),
                                            stylesheets=[LEGEND_CSS], sizing_mode="stretch_width",
                                            margin=(0, 5))

    def _build_sim_figure(self) -> Any:
        p = self.pal
        h = figure(height=PLOT_HEIGHT - 40, sizing_mode="stretch_width",
                   tools="pan,wheel_zoom,box_zoom,reset,save", x_range=self.fig_dens.x_range,
                   title=self._tr("lab.sim.title"))
        h.quad(left="left", right="right", top="top", bottom=0, source=self.src_h0,
               fill_color=p.d0, fill_alpha=0.35, line_color=p.d0,
               legend_label=self._tr("lab.sim.legend_h0"))
        h.quad(left="left", right="right", top="top", bottom=0, source=self.src_h1,
               fill_alpha=0.0, hatch_pattern="\\", hatch_color=p.d1, line_color=p.d1,
               legend_label=self._tr("lab.sim.legend_h1"))
        h.line("x", "p", source=self.src_dens, line_width=3, color=p.d0)
        h.line("x", "q", source=self.src_dens, line_width=3, color=p.d1, line_dash="dashed")
        h.add_layout(self.t_span_sim)
        _legend_below(h, 2)
        h.css_classes = ["dp-sim-plot"]
        _lean(h)
        h.xaxis.axis_label = self.fig_dens.xaxis.axis_label
        h.yaxis.axis_label = self.fig_dens.yaxis.axis_label
        self.fig_sim = layout.large_type(h, self._large, self._dark)
        return self.fig_sim

    def sim_figure(self) -> pn.Column:
        """The simulation figure's place in the page: an empty box of the figure's height
        until it comes near the viewport, then the figure (built once)."""
        reveal = RevealBox(height=PLOT_HEIGHT - 40, sizing_mode="stretch_width", margin=0,
                         css_classes=["dp-sim-reveal"])
        slot = pn.Column(reveal, sizing_mode="stretch_width", margin=0)

        def show(*_: Any) -> None:
            fig = self.fig_sim if self.fig_sim is not None else self._build_sim_figure()
            slot.objects = [pn.pane.Bokeh(fig, sizing_mode="stretch_width")]

        reveal.param.watch(show, "seen")
        return slot

    def _on_tap(self, event: Tap) -> None:
        if event.x is None:
            return
        x = float(event.x)
        x = min(EPS_MAX, max(0.0, float(f"{x:.3g}") if x > 0 else 0.0))
        self._safe(self.state.set_value, "eps", x)
        self._show_errors()

    # ---- refresh --------------------------------------------------------------------------
    def _on_state(self, *events: Any) -> None:
        names = {e.name for e in events}
        if names <= {"errors"}:
            # The card marks itself stale (dp-stale) exactly while an input is rejected.
            self._safe(self.refresh_card, names)
            return
        if names <= {"notices"}:
            self._show_notices()
            return
        self._safe(self._refresh_unlocked, names)

    def _refresh_unlocked(self, names: set[str]) -> None:
        # Bokeh models (sources, ranges, spans) are changed directly here; Panel's unlocked()
        # dispatches those changes safely from any widget or Bokeh-event callback.
        doc = pn.state.curdoc
        if doc is None or doc.session_context is None:
            self.refresh(names)
            return
        # Card first (one small message). A single change redraws the figures on the next
        # tick; during a burst of changes (a held arrow key) the figures wait until the input
        # pauses for PLOT_PAUSE_MS, so the card is never queued behind the browser redrawing
        # three canvases for a value already superseded. Rapid moves coalesce.
        with pn.io.unlocked():
            self.refresh_card(names)
        self._pending_plots |= names
        now = time.monotonic()
        burst = (now - self._last_input) * 1000.0 < BURST_MS
        self._last_input, self._in_burst = now, burst
        if not self._plots_scheduled:
            self._plots_scheduled = True
            if burst:
                doc.add_timeout_callback(self._plots_tick, PLOT_PAUSE_MS)
            else:
                doc.add_next_tick_callback(self._plots_tick)

    def _plots_tick(self) -> None:
        quiet_ms = (time.monotonic() - self._last_input) * 1000.0
        doc = pn.state.curdoc
        if quiet_ms < PLOT_PAUSE_MS and self._in_burst and doc is not None:
            doc.add_timeout_callback(self._plots_tick, max(1, int(PLOT_PAUSE_MS - quiet_ms)))
            return
        names, self._pending_plots = self._pending_plots, set()
        self._plots_scheduled = False
        try:
            with pn.io.unlocked():
                self.refresh_plots(names)
        except Exception:
            log.warning("lab: plot update skipped", exc_info=True)

    def _show_notices(self) -> None:
        ns = self.state.notices
        if not ns:
            self.notice.visible = False
            return
        items = "".join(f"<li>{html.escape(self._tr(k, **f))}</li>" for k, f in ns)
        self.notice.object = (f'<div class="dp-notice" role="alert"><strong>'
                              f'{html.escape(self._tr("lab.url.title"))}</strong><ul>{items}</ul></div>')
        self.notice.visible = True

    def refresh(self, names: set[str] | None = None) -> None:
        """Recompute every view from the state and update the sources in place."""
        self.refresh_card(names)
        self.refresh_plots(names)

    def refresh_card(self, names: set[str] | None = None) -> None:
        """The certification card and the controls: cheap, sent to the browser first."""
        s = self.state
        if self.tour is not None and self.tour.concealed:
            self.card.object = CONCEALED_HTML.format(
                title=html.escape(self._tr("tour.concealed_title")),
                text=html.escape(self._tr("tour.concealed")))
        else:
            cert = s.certification()
            self.card.object = card_html(s, cert, self.lang, folded=self._large)
        self._sync_widgets()
        self._show_errors()
        self._show_notices()

    def refresh_plots(self, names: set[str] | None = None) -> None:
        """Figures, their text equivalents and the address bar (ColumnDataSources in place)."""
        s = self.state
        sens = float(queries.sensitivity(s.query, s.n, s.B))
        unit = _unit(self.lang, queries.unit_key(s.query))
        heavy = names is None or bool(names & {"query", "n", "B", "sigma", "eps"})
        if heavy:
            dv = density_view(sens, s.sigma, s.eps)
            self._draw_density(dv, sens, unit)
            self.dens_text.object = self._fold(
                "lab.fold.dens_text", density_text(dv, sens, s.sigma, s.eps, unit, self.lang))
        if heavy or bool(names & {"sim_n", "sim_seed"}):
            lo, hi = -4.0 * s.sigma, sens + 4.0 * s.sigma
            sv = simulation(sens, s.sigma, s.eps, s.sim_n, s.sim_seed, lo, hi)
            self._draw_sim(sv)
            self.sim_text.object = sim_text(sv, s.eps, self.lang)
        cv = curve_view(sens, s.sigma, s.eps, s.delta, s.eps_lo, s.eps_hi, s.scale,
                        claimed_log10=s.claim.log10)
        self._draw_curve(cv)
        self.curve_text.object = self._fold("lab.fold.curve_text",
                                            curve_text(cv, s.delta, self.lang))
        self.address.update(**s.url_query())

    def _draw_density(self, dv: DensityView, sens: float, unit: str) -> None:
        _set_data(self.src_dens, x=dv.x, p=dv.p, q=dv.q)
        _set_data(self.src_event, x=dv.x_event, p=dv.p_event, q=dv.q_event,
                  zero=np.zeros_like(dv.x_event))
        self.fig_dens.x_range.start, self.fig_dens.x_range.end = dv.lo, dv.hi
        self.fig_dens.xaxis.axis_label = self._tr("lab.dens.xlabel", unit=unit)
        self.fig_dens.yaxis.axis_label = self._tr("lab.dens.ylabel", unit=unit)
        if sens == 0:
            self.t_span.visible = self.t_label.visible = self.t_span_sim.visible = False
            self.dens_note.text = self._tr("lab.dens.same_short")
            self.dens_sub.text = "Δ = 0: δ = 0"
            self.dens_sub2.text = ""
            return
        self.dens_sub.text = self._tr("lab.dens.sub_event", t=fmt_num(dv.t, 6))
        # 5 digits in the picture (it must fit a phone); all of them are in the text below.
        self.dens_sub2.text = (f"P₀ = {fmt_prob(dv.p0, dv.log_p0, 5)},  "
                               f"e^ε·P₁ = {fmt_prob(dv.p1_scaled, dv.log_p1_scaled, 5)}")
        inside = dv.t_outside is None
        self.t_span.visible = self.t_label.visible = self.t_span_sim.visible = inside
        if inside:
            self.t_span.location = self.t_span_sim.location = dv.t
            self.t_label.x = dv.t
            self.t_label.text = f"t = {fmt_num(dv.t, 5)}"
            self.dens_note.text = ""
        else:
            self.dens_note.text = self._tr("lab.dens.outside_short", t=fmt_num(dv.t, 6))

    def _draw_curve(self, cv: CurveView) -> None:
        s = self.state
        show_lap = "laplace" in s.overlays and not cv.all_zero
        show_cl = "classic" in s.overlays and not cv.all_zero
        _set_data(self.src_curve, eps=cv.eps, y=cv.y, lap=cv.laplace, cl_in=cv.classic_in,
                  cl_out=cv.classic_out)
        self.r_lap.visible = show_lap
        self.r_cl_in.visible = self.r_cl_out.visible = show_cl
        legend = legend_html(self.leg_curve, self._tr("lab.legend"))
        if self.curve_legend.object != legend:  # only when an overlay is switched
            self.curve_legend.object = legend
        lo, hi = float(cv.eps[0]), float(cv.eps[-1])
        self.fig_curve.x_range.start, self.fig_curve.x_range.end = lo, hi
        if math.isnan(cv.claimed_y):
            _set_data(self.src_claim, eps=[], y=[])
        else:
            _set_data(self.src_claim, eps=[lo, hi], y=[cv.claimed_y, cv.claimed_y])
        self.eps_span.location = cv.current_eps
        if math.isnan(cv.current_y):
            _set_data(self.src_cur, eps=[], y=[])
        else:
            _set_data(self.src_cur, eps=[cv.current_eps], y=[cv.current_y])
        self.fig_curve.yaxis.axis_label = self._tr(
            "lab.curve.ylabel_log" if cv.scale == "log10" else "lab.curve.ylabel_lin")
        notes = []
        if cv.all_zero:
            notes.append(self._tr("lab.curve.all_zero_short"))
        elif cv.scale == "log10" and math.isnan(cv.claimed_y):
            notes.append(self._tr("lab.curve.claim_zero_log"))
        self.curve_note.text = "\n".join(notes)

    def _draw_sim(self, sv: SimulationView) -> None:
        # Same cached histograms (an eps move): nothing to send.
        if self.src_h0.data.get("top") is not sv.hist0 or \
                self.src_h1.data.get("top") is not sv.hist1:
            left, right = sv.edges[:-1], sv.edges[1:]
            self.src_h0.data = dict(left=left, right=right, top=sv.hist0)
            self.src_h1.data = dict(left=left, right=right, top=sv.hist1)
        if self.fig_sim is not None:
            self.fig_sim.xaxis.axis_label = self.fig_dens.xaxis.axis_label
            self.fig_sim.yaxis.axis_label = self.fig_dens.yaxis.axis_label

    def on_key(self, key: str, tour_panel: Any) -> None:
        """Keyboard shortcuts (KeyBridge): digits load a preset, arrows move the tour."""
        if key.isdigit() and 1 <= int(key) <= len(PRESETS):
            if self.tour is not None and self.tour.step:
                self.tour.go(0)
            self._safe(self.state.load_preset, PRESETS[int(key) - 1].key)
        elif tour_panel is not None:
            tour_panel.on_key(key)

    # ---- layout ---------------------------------------------------------------------------
    def _label(self, key: str, **fmt: Any) -> str:
        return f'<label class="dp-label">{html.escape(self._tr(key, **fmt))}</label>'

    def sidebar(self) -> list[Any]:
        def field(control: str, key: str) -> Any:
            return self._inputs[control]  # its error pane is placed when needed

        self._inputs["data"].disabled = not self.state.data_editable
        items = [
            pn.pane.HTML(f"<h3>{html.escape(self._tr('lab.side.presets'))}</h3>", margin=(0, 10)),
            pn.FlexBox(*self.preset_buttons, sizing_mode="stretch_width"),
            pn.pane.HTML(f"<h3>{html.escape(self._tr('lab.side.release'))}</h3>", margin=(0, 10)),
            self.query,
            field("n", "lab.ctl.n"),
            field("B", "lab.ctl.B"),
            field("sigma", "lab.ctl.sigma"),
            self.sigma_slider,
            field("eps", "lab.ctl.eps"),
            self.eps_slider,
            field("delta", "lab.ctl.delta"),
            self.delta_slider,
            pn.pane.HTML(f"<h3>{html.escape(self._tr('lab.side.neighbour'))}</h3>", margin=(0, 10)),
            field("data", "lab.ctl.data"),
            field("record", "lab.ctl.record"),
            field("replacement", "lab.ctl.replacement"),
            pn.pane.HTML(f"<h3>{html.escape(self._tr('lab.side.curve'))}</h3>", margin=(0, 10)),
            field("eps_lo", "lab.ctl.eps_lo"),
            field("eps_hi", "lab.ctl.eps_hi"),
            pn.pane.HTML(self._label("lab.ctl.scale"), margin=(0, 10)), self.scale,
            pn.pane.HTML(self._label("lab.ctl.overlays"), margin=(0, 10)), self.overlays,
            pn.pane.HTML(f"<h3>{html.escape(self._tr('lab.side.sim'))}</h3>", margin=(0, 10)),
            field("sim_n", "lab.ctl.sim_n"),
            self.resample,
        ]
        self._side = pn.Column(*items, sizing_mode="stretch_width", margin=0)
        self._show_errors()
        return [self._side]

    def _fold(self, key: str, body: str, *, folded: bool | None = None) -> str:
        """``body`` inside a ``<details>``: closed in the projector view, open otherwise."""
        closed = self._large if folded is None else folded
        return (f'<details class="dp-fold"{"" if closed else " open"}><summary>'
                f"{html.escape(self._tr(key))}</summary>{body}</details>")

    def _current_cert(self) -> Any:
        s = self.state
        return s.certification()

    def exports(self) -> export.ExportBar:
        """Save buttons: each figure as PNG (in the browser), the certification as JSON and
        Markdown, the curve as CSV. Files are made at the click from the current state."""
        figures = {"png-density": ("densities", self.fig_dens, self.leg_dens),
                   "png-curve": ("curve", self.fig_curve, self.leg_curve)}

        def make(kind: str) -> export.ExportFile:
            cert = self._current_cert()
            stem = export.file_stem(cert)
            if kind in figures:
                name, fig, entries = figures[kind]
                return export.ExportFile(
                    f"{stem}-{name}.png", export.certification_json(cert), fig.id,
                    tuple(e.as_dict() for e in entries if e.renderer.visible))
            if kind == "json":
                return export.ExportFile(f"{stem}.json", export.certification_json(cert))
            if kind == "md":
                return export.ExportFile(
                    f"{stem}.md", export.certification_markdown(self.state, cert, self.lang))
            return export.ExportFile(f"{stem}-curve.csv", export.curve_csv(self.state))

        items = [
            {"kind": "png-density", "label": self._tr("lab.export.png_dens"),
             "cls": "dp-export-png dp-export-png-density"},
            {"kind": "png-curve", "label": self._tr("lab.export.png_curve"),
             "cls": "dp-export-png dp-export-png-curve"},
            {"kind": "json", "label": self._tr("lab.export.json"), "cls": "dp-export-json"},
            {"kind": "md", "label": self._tr("lab.export.md"), "cls": "dp-export-md"},
            {"kind": "csv", "label": self._tr("lab.export.csv"), "cls": "dp-export-csv"},
        ]
        return export.ExportBar(make=make, heading=self._tr("lab.export.heading"),
                                hint=self._tr("lab.export.hint"), items=items,
                                sizing_mode="stretch_width", css_classes=["dp-exports"],
                                colours={"background": self.pal.background,
                                         "text": self.pal.text},
                                font_px=20 if self._large else 15)

    def first_paint(self) -> str:
        """The card as server-rendered HTML for the page's first paint (app/first_paint.py):
        the live card's own text, so both show the same numbers; '' while the tour conceals
        the card (the student predicts first)."""
        if self.tour is not None and self.tour.concealed:
            return ""
        return first_paint_html(self.state, self.lang, large=self._large, dark=self._dark,
                                card=self.card.object)

    def main(self) -> list[Any]:
        intro = pn.pane.HTML(
            self._fold("lab.fold.intro",
                       f'<p class="dp-intro">{html.escape(self._tr("lab.intro"))}</p>')
            if self._large else
            f'<p class="dp-intro">{html.escape(self._tr("lab.intro"))}</p>',
            sizing_mode="stretch_width", stylesheets=[CARD_CSS])
        dens = pn.pane.Bokeh(self.fig_dens, sizing_mode="stretch_width")
        curve_fig = pn.pane.Bokeh(self.fig_curve, sizing_mode="stretch_width")
        curve_head = pn.pane.HTML(f"<h2>{html.escape(self._tr('lab.curve.heading'))}</h2>"
                                  f"<p>{html.escape(self._tr('lab.curve.tap_hint'))}</p>",
                                  stylesheets=[CARD_CSS], sizing_mode="stretch_width")
        sim_head = pn.pane.HTML(f"<h2>{html.escape(self._tr('lab.sim.heading'))}</h2>",
                                stylesheets=[CARD_CSS], sizing_mode="stretch_width")
        sim_fig = self.sim_figure()  # built when scrolled to (issue 11)
        if self._large:
            # Projector: card strip, then the two linked plots side by side; every table and
            # the simulation are folded (<details> / a collapsed card) below them.
            plots = pn.FlexBox(
                pn.Column(dens, self.dens_legend, sizing_mode="stretch_width", min_width=300,
                          styles={"flex": "1 1 600px"}),
                pn.Column(curve_fig, self.curve_legend, sizing_mode="stretch_width",
                          min_width=300, styles={"flex": "1 1 600px"}),
                sizing_mode="stretch_width", gap="16px")
            texts = pn.FlexBox(
                pn.Column(self.dens_text, sizing_mode="stretch_width", min_width=300,
                          styles={"flex": "1 1 600px"}),
                pn.Column(self.curve_text, sizing_mode="stretch_width", min_width=300,
                          styles={"flex": "1 1 600px"}),
                sizing_mode="stretch_width", gap="16px")
            sim = pn.Card(sim_fig, self.sim_text, title=self._tr("lab.sim.heading"),
                          collapsed=True, sizing_mode="stretch_width",
                          css_classes=["dp-sim-card"])
            return [self.address.pane, self.notice, self.card, plots, texts, self.exports(), sim,
                    intro]
        top = pn.FlexBox(
            pn.Column(self.card, sizing_mode="stretch_width", min_width=280,
                      styles={"flex": "1 1 400px"}),
            pn.Column(dens, self.dens_legend, self.dens_text, sizing_mode="stretch_width",
                      min_width=280, styles={"flex": "1.3 1 480px"}),
            sizing_mode="stretch_width", gap="16px")
        curve = pn.Column(curve_head, curve_fig, self.curve_legend, self.curve_text,
                          sizing_mode="stretch_width")
        sim = pn.Column(sim_head, sim_fig, self.sim_text, sizing_mode="stretch_width")
        return [self.address.pane, self.notice, intro, top, curve, self.exports(), sim]


def _url_args() -> dict[str, str]:
    args = pn.state.session_args or {}
    out: dict[str, str] = {}
    for k, v in args.items():
        if v:
            raw = v[0]
            out[k] = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    return out


def first_paint_html(state: LabState, lang: str, *, large: bool, dark: bool,
                     card: str | None = None) -> str:
    """The /lab first-paint fragment for ``state``: the certification card exactly as
    :meth:`LabPage.refresh_card` writes it (``card``, when the page has it already), laid out
    as :meth:`LabPage.main` places it."""
    if card is None:
        card = card_html(state, state.certification(), lang, folded=large)
    # The intro, below the room of the tour's start button (both above the card in main()).
    intro = "" if large else ('<div class="dp-first-paint-spacer"></div><p class="dp-intro">'
                              f'{html.escape(t("lab.intro", lang))}</p>')
    body = (f'{intro}<div class="dp-first-paint-row"><div class="dp-first-paint-card">'
            f'{card}</div><div class="dp-first-paint-rest"></div></div>')
    return first_paint.fragment(body, css=_first_paint_css(large, dark),
                                loading=t("lab.first_paint.loading", lang),
                                failed=t("lab.first_paint.failed", lang),
                                label=t("lab.first_paint.label", lang),
                                classes="dp-large" if large else "")


@functools.cache
def _first_paint_css(large: bool, dark: bool) -> str:
    pal = layout.palette(dark)
    # Until the page's own style sheets arrive (a streamed first paint): its font and colours,
    # and the card where the main area will start (sidebar 480/380 px; on phones the header
    # wraps and the sidebar is folded).
    sidebar = 480 if large else 380
    early = (f".dp-first-paint {{ font-family: {layout.FONT_STACK}; color: {pal.text}; }}\n"
             f".dp-first-paint-early {{ background: {pal.background}; min-height: 100vh;\n"
             f"  padding-left: calc({sidebar}px + 42px); }}\n"
             f"@media (max-width: {layout.PHONE_MAX_PX}px) {{\n"
             f"  .dp-first-paint-early {{ padding-left: 16px; padding-top: 170px; }} }}")
    return "\n".join([CARD_CSS, card_theme_css(pal), *([PROJECTOR_CSS] if large else []),
                      FIRST_PAINT_CSS, early])


def early_first_paint(args: dict[str, str], accept_language: str | None
                      ) -> first_paint.Early | None:
    """What /lab can show before its page is built (app/first_paint.py streams it first);
    None when the page would show no first card (the guided tour conceals it)."""
    if args.get("tour"):
        return None
    lang = pick_language(args.get("lang"), accept_language)
    large = args.get("size") == "large"
    dark = args.get("theme") == "dark"
    state = LabState()
    state.apply_url(args)
    key = ("/lab", lang, "large" if large else "normal", "dark" if dark else "default")
    return first_paint.Early(key, first_paint_html(state, lang, large=large, dark=dark), lang)


def create_page(lang: str | None = None) -> pn.template.FastListTemplate:
    """The lab page for the current session (language from ?lang or Accept-Language)."""
    lang = lang or request_language()
    state = LabState()
    args = _url_args()
    state.apply_url(args)
    # Unknown page options (theme, size, lang) join the lab's own notice box.
    bad = [("lab.url.bad", {"name": n, "value": v}) for n, v in layout.bad_options()]
    if bad:
        state.notices = [*state.notices, *bad]
    lab = LabPage(state=state, lang=lang, large=layout.is_large(), dark=layout.is_dark())
    extra = attach_tour(lab, args.get("tour"))
    side = lab.sidebar()
    if layout.is_large() and len(extra) == 3:
        # Projector: the step panel heads the sidebar, so the card, the densities and the
        # curve keep the whole main screen (issue 8's one-screen view).
        bridge, opener, panel = extra
        extra, side = [bridge], [opener, panel, *side]
    return layout.page(lang=lang, title=t("lab.title", lang), path="/lab",
                       main=[*extra, *lab.main()], sidebar=side,
                       sidebar_width=480 if layout.is_large() else 380,
                       option_notice_shown=False, first_paint=lab.first_paint())


def attach_tour(lab: LabPage, tour_arg: str | None) -> list[Any]:
    """The guided tour (step panel, opener, keyboard bridge) wired to ``lab``.

    ``tour_arg``: the ``tour`` URL value (a step number); a bad value opens nothing and adds
    the lab's usual notice. Returns the objects to put above the lab's main area.
    """
    from app import tour as tour_mod

    try:
        steps = lessons_tour(lab.lang)
    except (OSError, KeyError, ValueError):
        log.warning("lab: the guided tour could not be loaded", exc_info=True)
        steps = ()
    bridge = tour_mod.KeyBridge(help_html=tour_mod.help_html(lab.lang),
                                close_label=t("tour.help.close", lab.lang),
                                height=0, width=0, margin=0)
    if not steps:
        bridge.param.watch(lambda e: lab.on_key(e.new.split("#", 1)[0], None), "event")
        return [bridge]
    ts = tour_mod.TourState(steps, lab.state)
    panel = tour_mod.TourPanel(ts, lab.lang)
    lab.tour = ts

    def changed(*_: Any) -> None:
        lab.refresh_card()
        lab.address.update(tour=str(ts.step) if ts.step else "")

    ts.param.watch(changed, ["step", "revealed"])
    bridge.param.watch(lambda e: lab.on_key(e.new.split("#", 1)[0], panel), "event")
    if tour_arg:
        try:
            k = int(tour_arg)
            if not 0 <= k <= ts.total:
                raise ValueError(k)
            ts.go(k)
        except ValueError:
            lab.state.notices = [*lab.state.notices,
                                 ("lab.url.bad", {"name": "tour", "value": tour_arg[:40]})]
    return [bridge, panel.opener, panel.panel]


def lessons_tour(lang: str) -> tuple[Any, ...]:
    import lessons

    return lessons.tour(lang)
