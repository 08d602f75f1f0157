"""Text equivalents of the lab's three plots (pure HTML; unit-tested).

Every number a figure draws is also here, with its unit, so a screen reader (or a student who
prefers tables) gets the same content.
"""

from __future__ import annotations

import html
import math

from app.lab.compute import (
    CurveView,
    DensityView,
    SimulationView,
    TradeoffView,
    cap_at,
    tpr_at,
)
from app.shell.i18n import t
from app.shell.numbers import fmt_delta, fmt_input, fmt_log10, fmt_num, fmt_prob


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
          <dt>e<sup>ε</sup>·P₁ = e<sup>ε</sup>·Pr[N(Δ, σ²) &lt; t]</dt>
          <dd class="dp-p1-scaled">{fmt_prob(dv.p1_scaled, dv.log_p1_scaled)}</dd>
          <dt>δ = P₀ − e<sup>ε</sup>·P₁</dt><dd>{html.escape(t("lab.dens.delta_is", lang))}</dd>
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
        <thead><tr><th>{html.escape(t("lab.sim.col_event", lang))}</th>
          <th>{html.escape(t("lab.sim.count", lang))}</th>
          <th>{html.escape(t("lab.sim.freq", lang))}</th>
          <th>{html.escape(t("lab.sim.ci", lang))}</th>
          <th>{html.escape(t("lab.sim.exact", lang))}</th>
          <th>{html.escape(t("lab.sim.col_check", lang))}</th></tr></thead>
        <tbody>{row("D: y &lt; t", sv.k0, sv.f0, sv.ci0, sv.p0, sv.log_p0)}
               {row("D′: y &lt; t", sv.k1, sv.f1, sv.ci1, sv.p1, sv.log_p1)}</tbody></table>
      <p class="dp-muted">{html.escape(t("lab.sim.honest", lang))}</p>
    </div>"""


# The rows of the attacker's table (FPR values a reader compares).
ATTACK_ROWS = (1e-3, 0.01, 0.05, 0.1, 0.25, 0.5)


def tradeoff_text(tv: TradeoffView, eps: float, delta: float, delta_text: str, verdict: str,
                  base: int, lang: str) -> str:
    """The attacker's view in words and numbers: the attacker at the chosen FPR (catches in
    ``base`` trials, `.dp-attack-tpr`), its edge over guessing (`.dp-attack-advantage`), the
    largest edge, what the claim allows there, the card's verdict read on the curve, and a
    table of the curve and the claim's cap at a few FPRs."""
    # "at most": catches and edges are rounded up, false alarms to the nearest whole number
    fa = round(tv.fpr * base)
    hits = math.ceil(tv.tpr_at * base - 1e-9)
    edge = math.ceil(tv.adv_at * base - 1e-9)
    words = t("lab.attack.words_one" if fa == 1 else "lab.attack.words", lang, fa=f"{fa:,}",
              base=f"{base:,}", hits=f"{hits:,}")
    exact = t("lab.attack.tpr_exact", lang, tpr=fmt_num(tv.tpr_at, 10), fpr=fmt_input(tv.fpr))
    adv = t("lab.attack.adv", lang, adv=f"{edge:,}", base=f"{base:,}",
            advx=fmt_num(tv.adv_at, 10), best=fmt_num(tv.best_adv, 10),
            bestfpr=fmt_num(tv.best_fpr, 10))
    key = {"pass": "lab.attack.inside", "fail": "lab.attack.outside"}.get(
        verdict, "lab.attack.too_close")
    cap_label = t("lab.attack.cap_at", lang, eps=fmt_input(eps), delta=delta_text)
    rows = []
    for a, tpr in zip(ATTACK_ROWS, tpr_at(ATTACK_ROWS, tv.mu), strict=True):
        rows.append(f"<tr><td>{fmt_input(a)}</td><td>{fmt_num(tpr, 8)}</td>"
                    f"<td>{fmt_num(cap_at(a, eps, delta), 8)}</td></tr>")
    head = "".join(f"<th scope=\"col\">{html.escape(t(k, lang))}</th>"
                   for k in ("lab.attack.col_fpr", "lab.attack.col_tpr", "lab.attack.col_cap"))
    return (f'<div class="dp-text dp-attack-text">'
            f'<p class="dp-attack-tpr">{html.escape(words)} ({html.escape(exact)}).</p>'
            f'<p class="dp-attack-advantage">{html.escape(adv)}</p>'
            f'<p>μ = Δ/σ = <span class="dp-attack-mu">{fmt_num(tv.mu, 10)}</span></p>'
            f'<p>{html.escape(cap_label)}: '
            f'<span class="dp-attack-cap">TPR ≤ {fmt_num(tv.cap_at, 10)}</span></p>'
            f'<p class="dp-attack-verdict">{html.escape(t(key, lang))}</p>'
            f'<table class="dp-table"><caption>{html.escape(t("lab.attack.table", lang))}'
            f'</caption><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
            "</div>")

