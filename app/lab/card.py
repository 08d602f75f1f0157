"""The certification card of /lab: pure HTML from a dpcore Certification (unit-tested).

Fixed class names that outside checks read: dp-verdict, dp-required-delta, dp-log10-delta,
dp-sensitivity, dp-delta-no-one (the δ ≥ 1/n warning beside the verdict), dp-delta-large (the
soft note from n·δ ≥ 0.01, dpcore's ``n_delta_level`` "large"). Its look is
assets/dplab-card.css (shared with /cdf), the projector strip assets/dplab-card-projector.css,
the theme colours :func:`card_theme_css`.
"""

from __future__ import annotations

import functools
import html
import logging
from decimal import Decimal, InvalidOperation

from app.lab.state import LabState, plain
from app.lab.values import LabValues
from app.shell import assets, theme
from app.shell.i18n import t
from app.shell.numbers import fmt_delta, fmt_input, fmt_log10, fmt_num, underflow_approx
from dpcore import queries
from dpcore.certify import N_DELTA_SOFT, Certification

log = logging.getLogger(__name__)


# ---------------------------------------------------------------------------------------------
# the certification card (pure HTML from a Certification; unit-tested)
# ---------------------------------------------------------------------------------------------
def unit_label(lang: str, unit: str) -> str:
    return t(f"common.unit.{unit}", lang)


def _sens_formula(query: str, n: int, B: float, lang: str) -> str:
    """"Δ = B / n = 1 / 4 — why": the query's rule (dpcore.queries) in symbols, then, when it
    has any, with the numbers."""
    rule = queries.lookup(query).formula
    text = "Δ = " + rule.format(B="B", n="n")
    if "{" in rule:
        text += " = " + rule.format(B=fmt_input(B), n=str(n))
    return text + " — " + t(f"lab.card.sens_why.{query}", lang)


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


def verdict_kind(cert: Certification) -> str:
    kind = getattr(cert, "verdict", "pass" if cert.passes else "fail")
    return kind if kind in VERDICTS else "fail"


def delta_no_one(cert: Certification) -> dict[str, str] | None:
    """The fields of ``lab.card.delta_no_one`` when the claimed δ ≥ 1/n, else None.

    A claim this large can pass and still protect no one: publishing each record as it is with
    probability δ is (0, δ)-DP and publishes n·δ records on average. Decided exactly from the
    claim's decimal text (δ = 0.25 at n = 4 is δ = 1/n); ``inv_n`` = 1/n and ``expected`` = n·δ
    with 4 significant digits.
    """
    n = int(cert.n)
    if n < 1:
        return None
    text = getattr(cert, "claimed_text", "") or repr(float(cert.claimed_delta))
    try:
        d = Decimal(text)
    except (InvalidOperation, ValueError):
        d = Decimal(float(cert.claimed_delta))
    if not d.is_finite() or d * n < 1:
        return None
    return {"inv_n": fmt_num(1 / n, 4), "expected": fmt_num(float(d * n), 4)}


def delta_large(cert: Certification) -> dict[str, str] | None:
    """The fields of ``lab.card.delta_large`` when 0.01 ≤ n·δ < 1 (dpcore decides it exactly
    from the claim's text: ``Certification.n_delta_level == "large"``), else None."""
    if getattr(cert, "n_delta_level", "small") != "large":
        return None
    n = int(cert.n)
    text = getattr(cert, "claimed_text", "") or repr(float(cert.claimed_delta))
    try:
        nd = float(Decimal(text) * n)
    except (InvalidOperation, ValueError):
        nd = float(cert.claimed_delta) * n
    return {"inv_n": fmt_num(1 / n, 4), "expected": fmt_num(nd, 4),
            "soft": fmt_num(float(N_DELTA_SOFT), 2)}


def delta_large_html(cert: Certification, lang: str, *, short: bool = False) -> str:
    """The soft note beside the verdict (class ``dp-delta-large``), or ""."""
    fields = delta_large(cert)
    if fields is None:
        return ""
    key = "lab.card.delta_large_short" if short else "lab.card.delta_large"
    title = (f' title="{html.escape(t("lab.card.delta_large", lang, **fields))}"'
             if short else "")
    return (f'<span class="dp-delta-large"{title}><span aria-hidden="true">ⓘ</span> '
            f"{html.escape(t(key, lang, **fields))}</span>")


def delta_no_one_html(cert: Certification, lang: str, *, short: bool = False) -> str:
    """The δ ≥ 1/n warning beside the verdict (class ``dp-delta-no-one``), or ""."""
    fields = delta_no_one(cert)
    if fields is None:
        return ""
    key = "lab.card.delta_no_one_short" if short else "lab.card.delta_no_one"
    # The short form leaves out the numbers; the full text stays in the title (hover).
    title = (f' title="{html.escape(t("lab.card.delta_no_one", lang, **fields))}"'
             if short else "")
    return (f'<span class="dp-delta-no-one"{title}><span aria-hidden="true">⚠</span> '
            f"{html.escape(t(key, lang, **fields))}</span>")


# A slider move keeps the data set: its neighbours' block is the same for every move and
# student of a process (one entry per data set, record, replacement and language).
@functools.lru_cache(maxsize=256)
def _neighbours_html(query: str, data: tuple[float, ...], B: float, record: int,
                     replacement: float, lang: str, unit_key: str, sensitivity: float) -> str:
    unit = unit_label(lang, unit_key)
    u = html.escape(unit)
    try:
        rows = list(data)
        d_prime = list(queries.neighbour(rows, record - 1, replacement, B))
        f_d = queries.value(query, rows, B)
        f_dp = queries.value(query, d_prime, B)
        loc = queries.local_difference(query, rows, record - 1, replacement, B)

        def show(ds: list[float] | tuple[float, ...]) -> str:
            items = ", ".join(fmt_input(v) for v in ds[:12])
            return f"({items}{', …' if len(ds) > 12 else ''})"

        return f"""
        <h3>{t("lab.card.neighbours", lang)}</h3>
        <dl class="dp-grid">
          <dt>D</dt><dd>{show(data)}</dd>
          <dt>D′</dt><dd>{show(d_prime)} <span class="dp-muted">{html.escape(t(
            "lab.card.replaced", lang, i=record, v=fmt_input(replacement)))}</span></dd>
          <dt>f(D)</dt><dd>{fmt_num(f_d)} {u}</dd>
          <dt>f(D′)</dt><dd>{fmt_num(f_dp)} {u}</dd>
          <dt>|f(D) − f(D′)|</dt><dd class="dp-local-difference">{fmt_num(loc)} {u}</dd>
        </dl>
        <p class="dp-note">{html.escape(t("lab.card.global_why", lang, local=fmt_num(loc),
                                         sens=fmt_num(sensitivity), unit=unit))}</p>"""
    except ValueError as exc:  # cannot happen for a validated state; never show a traceback
        log.info("neighbour view skipped: %s", exc)
        return ""


def card_html(state: LabState | LabValues, cert: Certification, lang: str, *,
              folded: bool = False) -> str:
    """Certification card. ``cert`` is a dpcore Certification for the state's release.

    ``folded``: the secondary parts (flags, errors, calibration, neighbours) start closed
    (projector view). While ``state.errors`` holds a rejected input the card carries the class
    ``dp-stale`` and says that it shows the last valid values.
    """
    state = plain(state)
    unit = unit_label(lang, cert.unit)
    u = html.escape(unit)
    kind = verdict_kind(cert)
    word_key, mark = VERDICTS[kind]
    verdict_word = t(word_key, lang)
    reason = t(f"lab.reason.{cert.reason}", lang)
    yes, no = t("common.yes", lang), t("common.no", lang)

    # The student's own neighbours (local view) next to the global sensitivity.
    local = _neighbours_html(state.query, tuple(state.data), state.B, state.record,
                             state.replacement, lang, cert.unit, cert.sensitivity)

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
    # (a rejected calibration input changes nothing the card shows: app/lab/state.py)
    release_errors = [c for c in state.errors if not c.startswith("calib_")]
    if release_errors:
        fields = ", ".join(FIELD_SYMBOLS.get(c, c) for c in release_errors)
        stale = (f'<p class="dp-stale-note" role="status"><span aria-hidden="true">⚠</span> '
                 f'{html.escape(t("lab.card.stale", lang, fields=fields))}</p>')
    sens_formula = _sens_formula(cert.query, cert.n, cert.B, lang)
    required = fmt_delta(cert.required_delta)
    no_one = (delta_no_one_html(cert, lang, short=folded)
              or delta_large_html(cert, lang, short=folded))
    return f"""
    <section class="dp-card{' dp-stale' if stale else ''}" aria-labelledby="dp-card-title">
      <h2 id="dp-card-title">{html.escape(t("lab.card.title", lang))}</h2>
      {stale}
      <div class="dp-card-top">
      <p class="dp-verdict-box {"fail too_close" if kind == "too_close" else kind}" role="status">
        <span class="dp-verdict">{mark} {html.escape(verdict_word)}</span>
        <span class="dp-reason">{html.escape(reason)}</span>{no_one}</p>
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


CARD_CSS = assets.text("dplab-card.css")


# Projector view: the verdict box beside the main numbers (one strip above the two plots).
PROJECTOR_CSS = assets.text("dplab-card-projector.css")


def card_theme_css(pal: theme.Palette) -> str:
    """Verdict and warning colours of the theme (text ≥ 4.5:1 against the page background)."""
    return f"""
.dp-verdict-box.pass {{ border-color: {pal.passed}; }}
.dp-verdict-box.fail {{ border-color: {pal.failed}; }}
.pass .dp-verdict {{ color: {pal.passed}; }}
.fail .dp-verdict {{ color: {pal.failed}; }}
.dp-error {{ color: {pal.failed}; }}
.dp-warn, .dp-notice, .dp-stale-note, .dp-badge, .dp-delta-no-one, .dp-delta-large {{
  border-color: {pal.claim}; }}
"""
