"""Text views of the /cdf page: pure functions (state, lang) -> HTML, unit-tested without Panel.

Every number shown here comes from :class:`app.cdf.state.CDFState` (which gets it from dpcore)
and carries its unit; every string comes from the message catalogues (``cdf.*``).  Stable CSS
classes for outside checks: dp-cdf-eps, dp-cdf-delta (this release), dp-cdf-total-eps,
dp-cdf-total-delta (the ledger of the current data source), dp-cdf-degree (degree in use),
dp-cdf-ks, dp-cdf-w1, dp-cdf-energy, dp-cdf-table, dp-cdf-compare, dp-cdf-degree-table,
dp-cdf-stream-table, dp-cdf-sources.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Mapping
from typing import Any

from app.cdf.inputs import METHODS, UPLOAD
from app.cdf.records import (
    DataUnavailable,
    Message,
    MethodRow,
    ReleaseShape,
    StreamStep,
)
from app.cdf.state import CDFState
from app.shell import assets
from app.shell.i18n import catalogue, t
from dpcore.cdf import Release

CSS = assets.text("dplab-cdf.css")


# ---------------------------------------------------------------------------------------------
# formatting
# ---------------------------------------------------------------------------------------------
def e(s: object) -> str:
    return html.escape(str(s))


# No message is swapped: ``hide`` of the views below maps a message key to the one shown
# instead while the guided tour waits for a prediction (app/cdf/tour.py CONCEAL).
NO_SWAP: Mapping[str, str] = {}


def ts(key: str, lang: str, hide: Mapping[str, str], **fmt: Any) -> str:
    """The message ``key``, or the one ``hide`` shows in its place."""
    return t(hide.get(key, key), lang, **fmt)


def g(x: float, digits: int = 4) -> str:
    """Significant digits; scientific notation below 1e-4 (as a student reads it)."""
    if x == 0:
        return "0"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return f"{x:.{digits}g}"


def n_text(k: int, lang: str) -> str:
    return f"{k:,}"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def tp(key: str, count: int, lang: str, **fmt: Any) -> str:
    """A message with the right plural form: ``key.one`` for 1, ``key.other`` otherwise."""
    return t(f"{key}.{'one' if count == 1 else 'other'}", lang, count=f"{count:,}", **fmt)


def msg(m: Message, lang: str) -> str:
    key, fmt = m
    fmt = dict(fmt)
    if "kinds" in fmt:
        fmt["kinds"] = ", ".join(t(f"cdf.up.kind.{k}", lang) for k in str(fmt["kinds"]).split("/"))
    if "family" in fmt:
        fmt["family"] = t(f"cdf.data.{fmt['family']}.short", lang)
    if "name" in fmt and key == "cdf.source.real":
        fmt["name"] = t(f"cdf.data.{fmt['name']}.short", lang)
    if "name" in fmt and key in ("cdf.err.value", "cdf.err.range", "cdf.err.range_int",
                                 "cdf.err.input", "cdf.err.unknown", "cdf.err.empty",
                                 "cdf.err.too_large"):
        fmt["name"] = t(f"cdf.name.{fmt['name']}", lang) if f"cdf.name.{fmt['name']}" in _keys(
            lang) else fmt["name"]
    if "count" in fmt and f"{key}.one" in _keys(lang):
        count = int(fmt.pop("count"))
        return tp(key, count, lang, **fmt)
    return t(key, lang, **fmt)


def _keys(lang: str) -> dict[str, str]:

    return catalogue(lang)


def unit_text(unit: str, lang: str) -> str:
    """A unit in the page's language ('' -> 'no unit')."""
    if not unit:
        return t("cdf.unit.none", lang)
    key = f"cdf.unit.{unit}"
    return t(key, lang) if key in _keys(lang) else unit


def unit_suffix(unit: str, lang: str) -> str:
    return f" {e(unit_text(unit, lang))}" if unit else ""


def method_name(m: str, lang: str) -> str:
    return t(f"cdf.method.{m}", lang)


def method_short(m: str, lang: str) -> str:
    return t(f"cdf.method.{m}.short", lang)


def error_html(m: Message, lang: str) -> str:
    return f'<p class="dp-warn dp-error" role="alert">⚠ {e(msg(m, lang))}</p>'


# ---------------------------------------------------------------------------------------------
# cards
# ---------------------------------------------------------------------------------------------
def metrics_html(state: CDFState, lang: str) -> str:
    m = state.metrics()
    unit = state.unit()
    none = e(t("cdf.unit.none", lang))
    if state.is_synthetic:
        ref = t("cdf.ref.population", lang)
    else:
        ref = t("cdf.ref.empirical", lang)
    w1_unit = unit_suffix(unit, lang) if unit else f" ({none})"
    en_unit = (f" √{e(unit_text(unit, lang))}" if unit else f" ({none})")
    return f"""
    <section class="dp-card" aria-labelledby="dp-cdf-metrics-title">
      <h2 id="dp-cdf-metrics-title">{e(t("cdf.metrics.title", lang))}</h2>
      <p class="dp-muted">{e(t("cdf.metrics.against", lang, reference=ref))}</p>
      <dl class="dp-grid">
        <dt>{e(t("cdf.metrics.ks", lang))}</dt>
        <dd><span class="dp-cdf-ks">{g(m.ks)}</span> ({none})</dd>
        <dt>{e(t("cdf.metrics.w1", lang))}</dt>
        <dd><span class="dp-cdf-w1">{g(m.w1)}</span>{w1_unit}</dd>
        <dt>{e(t("cdf.metrics.energy", lang))}</dt>
        <dd><span class="dp-cdf-energy">{g(m.energy)}</span>{en_unit}</dd>
      </dl>
      <p class="dp-note dp-muted">{e(t("cdf.metrics.not_private", lang))}</p>
    </section>"""


def _mechanism(rel: Release, lang: str) -> str:
    return t(f"cdf.mech.{rel.mechanism}", lang)


def _total_row(state: CDFState, lang: str) -> str:
    led = state.ledger()
    comp = led.composition
    rule = t(f"cdf.rule.{led.rule}", lang)
    detail = ""
    if led.rule in ("gdp", "mixed"):
        detail = t("cdf.rule.gdp_detail", lang, mu=g(comp.mu, 6), delta=g(state.delta, 6))
    basic = t("cdf.rule.basic_compare", lang, eps=g(comp.basic_eps, 6),
              delta=g(comp.basic_delta, 6))
    label = e(state.source_label(led.source)[0])
    label = e(msg(state.source_label(led.source), lang))
    exposed = ""
    if led.exposed != led.releases:
        exposed = (f'<div class="dp-muted">'
                   f'{e(tp("cdf.privacy.exposed", led.exposed, lang))}</div>')
    detail_html, basic_html = _nowrap_numbers(e(detail)), _nowrap_numbers(e(basic))
    return f"""
        <dt>{e(t("cdf.privacy.source", lang))}</dt><dd>{label}</dd>
        <dt>{e(tp("cdf.privacy.total", led.releases, lang))}</dt>
        <dd class="dp-big">ε = <span class="dp-cdf-total-eps">{g(led.total.eps, 6)}</span>,
            δ = <span class="dp-cdf-total-delta">{g(led.total.delta, 6)}</span></dd>
        <dt>{e(t("cdf.privacy.rule", lang))}</dt>
        <dd><span class="dp-cdf-rule">{e(rule)}</span>{exposed}
          <div class="dp-muted">{detail_html}</div>
          <div class="dp-muted dp-cdf-basic">{basic_html}</div></dd>"""


# A number in running text: 7, 0.25, 1e-06, 1,000, 3.5e+20 (never broken inside: dplab-cdf.css).
_NUMBER = re.compile(r"(?<![\w.])[-−]?\d(?:[\d,.]*\d)?(?:e[-+]\d+)?(?![0-9A-Za-z])")


def _nowrap_numbers(text: str) -> str:
    """Escaped ``text`` with each number in a ``dp-cdf-num`` span (white-space: nowrap)."""
    return _NUMBER.sub(lambda m: f'<span class="dp-cdf-num">{m.group(0)}</span>', text)


def _off_lattice(rel: Release, lang: str) -> str:
    """Teacher view only: the exact number of records rounded onto the lattice (NOT private)."""
    if "n_off_lattice" not in rel.extra:
        return ""
    count = int(rel.extra["n_off_lattice"])
    text = t("cdf.teacher.off_lattice", lang, count=n_text(count, lang),
             h=g(float(rel.extra["granularity"]), 6))
    return f'<br><span class="dp-cdf-off-lattice">{e(text)}</span>'


def lattice_note_html(state: CDFState, lang: str) -> str:
    """Under the value-spacing option: what it means, whether it is in use, and why not."""
    if state.is_synthetic:
        return f'<p class="dp-muted dp-cdf-small dp-cdf-lattice-note">{e(t("cdf.gran.synthetic", lang))}</p>'  # noqa: E501
    bounds = state.data_bounds()
    if bounds is None:
        return ""
    lo, hi = bounds
    parts = [t("cdf.gran.about", lang, lo=g(lo, 6), hi=g(hi, 6))]
    problem = state.lattice_problem()
    if problem is not None:
        return (f'<p class="dp-cdf-small dp-cdf-lattice-note">{e(parts[0])}</p>'
                f'<p class="dp-warn dp-error dp-cdf-lattice-problem" role="alert">⚠ '
                f'{e(t("cdf.gran.not_used", lang, reason=msg(problem, lang)))}</p>')
    h = state.granularity()
    if h is not None:
        size = round((hi - lo) / h) + 1
        parts.append(t("cdf.gran.used", lang, h=g(h, 6), size=n_text(size, lang)))
        parts.append(t("cdf.gran.rounding", lang))
    return f'<p class="dp-cdf-small dp-cdf-lattice-note">{e(" ".join(parts))}</p>'


def privacy_html(state: CDFState, lang: str) -> str:
    """This release's guarantee, the data source's ledger, clip counts (teacher view only)."""
    rel = state.current().release
    rows = []
    if state.method == "all":
        rows.append(f"<dt>{e(t('cdf.privacy.this_all', lang))}</dt><dd>"
                    f"{e(tp('cdf.privacy.each', len(METHODS), lang))}: ε = "
                    f'<span class="dp-cdf-eps">{g(rel.eps, 6)}</span>, δ ≤ '
                    f'<span class="dp-cdf-delta">{g(state.delta, 6)}</span></dd>')
    else:
        rows.append(f"<dt>{e(t('cdf.privacy.this', lang))}</dt><dd>ε = "
                    f'<span class="dp-cdf-eps">{g(rel.eps, 6)}</span>, δ = '
                    f'<span class="dp-cdf-delta">{g(rel.delta, 6)}</span></dd>')
        mu = ""
        if rel.mechanism in ("gaussian", "gaussian_split"):
            mu = "; " + t("cdf.privacy.mu", lang, mu=g(rel.sensitivity / rel.noise_scale, 6))
        rows.append(
            f"<dt>{e(t('cdf.privacy.mechanism', lang))}</dt><dd>{e(_mechanism(rel, lang))}; "
            f"{e(tp('cdf.privacy.released', int(rel.values.size), lang))}; "
            f"{e(t('cdf.privacy.sensitivity', lang, norm=rel.norm, value=g(rel.sensitivity, 6)))}"
            f"{e(mu)}</dd>")
        shape = state.shape_of(state.current())
        rows.append(f"<dt>{e(t('cdf.privacy.structure', lang))}</dt>"
                    f'<dd class="dp-cdf-structure">{e(shape_text(shape, lang))}</dd>')
    rows.append(_total_row(state, lang))
    if state.teacher:
        clip = (f'<div class="dp-cdf-teacher-box dp-cdf-clip" role="note">'
                f"<strong>{e(t('cdf.teacher.title', lang))}</strong> "
                f"{e(t('cdf.teacher.clipped', lang, below=n_text(rel.n_below, lang), above=n_text(rel.n_above, lang), n=n_text(rel.n, lang)))}"  # noqa: E501
                f"{_off_lattice(rel, lang)}"
                f"<br>{e(t('cdf.teacher.why', lang))}</div>")
    else:
        clip = f'<p class="dp-muted dp-cdf-clip-hidden">{e(t("cdf.teacher.hidden", lang))}</p>'
    return f"""
    <section class="dp-card" aria-labelledby="dp-cdf-privacy-title">
      <h2 id="dp-cdf-privacy-title">{e(t("cdf.privacy.title", lang))}</h2>
      <dl class="dp-grid">{"".join(rows)}</dl>
      {clip}
      <p class="dp-note">{e(t("cdf.privacy.what_private", lang))}</p>
    </section>"""


def sources_html(state: CDFState, lang: str) -> str:
    """Every data source used in this session, each with its own ledger."""
    try:
        current = state.data().source
    except DataUnavailable:
        current = None
    rows = []
    for src in state.sources():
        led = state.ledger(src)
        cls = ' class="dp-cdf-current-row"' if src == current else ""
        rows.append(
            f"<tr{cls}><td>{e(msg(state.source_label(src), lang))}</td>"
            f"<td>{led.releases:,}</td><td>{g(led.total.eps, 6)}</td>"
            f"<td>{g(led.total.delta, 6)}</td><td>{e(t(f'cdf.rule.{led.rule}', lang))}</td></tr>")
    if not rows:
        return ""
    return f"""
    <div class="dp-cdf-scroll"><table class="dp-cdf-sources">
      <caption>{e(t("cdf.sources.caption", lang, delta=g(state.delta, 6)))}</caption>
      <thead><tr><th scope="col">{e(t("cdf.sources.source", lang))}</th>
        <th scope="col">{e(t("cdf.sources.releases", lang))}</th>
        <th scope="col">ε</th><th scope="col">δ</th>
        <th scope="col">{e(t("cdf.sources.rule", lang))}</th></tr></thead>
      <tbody>{"".join(rows)}</tbody>
    </table></div>"""


def table_html(state: CDFState, lang: str, rows: list[MethodRow] | None = None) -> str:
    """Text equivalent of the plot: the CDFs where the reference reaches 10..90 %."""
    unit = state.unit()
    u = e(unit_text(unit, lang))
    ref = e(t("cdf.legend.reference", lang))
    pts = state.table_points()
    if rows:
        heads = "".join(f'<th scope="col">{e(method_short(r.method, lang))}</th>' for r in rows)
        body = []
        for x, _, fr in pts:
            vals = "".join(f"<td>{g(float(r.est([x])[0]))}</td>" for r in rows)
            body.append(f"<tr><td>{g(x, 5)}</td>{vals}<td>{g(fr)}</td></tr>")
    else:
        heads = f'<th scope="col">{e(t("cdf.legend.private", lang))}</th>'
        body = [f"<tr><td>{g(x, 5)}</td><td>{g(fp)}</td><td>{g(fr)}</td></tr>"
                for x, fp, fr in pts]
    return f"""
    <div class="dp-cdf-scroll"><table class="dp-cdf-table">
      <caption>{e(t("cdf.table.caption", lang))}</caption>
      <thead><tr><th scope="col">x ({u})</th>{heads}<th scope="col">{ref}</th></tr></thead>
      <tbody>{"".join(body)}</tbody>
    </table></div>"""


def compare_html(state: CDFState, rows: list[MethodRow], lang: str) -> str:
    """Methods side by side: KS, W1, energy, time, guarantee (each method its own release)."""
    unit = state.unit()
    none = t("cdf.unit.none", lang)
    w_unit = unit_text(unit, lang) if unit else none
    en_unit = f"√{unit_text(unit, lang)}" if unit else none
    body = []
    for r in rows:
        rel = r.est.release
        deg = f" (K = {r.est.degree})" if r.est.degree is not None else ""
        if r.method == "auto":
            sh = state.shape_of(r.est)
            deg = " " + (t("cdf.compare.auto_tree", lang, leaves=n_text(sh.leaves, lang))
                         if sh.kind == "tree" else t("cdf.compare.auto_hq", lang, bins=sh.bins))
        # the PP row carries the page's fixed classes (its degree slider is live here)
        ks, w1, en = (("dp-cdf-ks", "dp-cdf-w1", "dp-cdf-energy") if r.method == "pp"
                      else ("", "", ""))
        body.append(
            f"<tr><td>{e(method_short(r.method, lang))}{e(deg)}</td>"
            f'<td><span class="dp-cdf-compare-ks {ks}">{g(r.metrics.ks)}</span></td>'
            f'<td><span class="{w1}">{g(r.metrics.w1)}</span></td>'
            f'<td><span class="{en}">{g(r.metrics.energy)}</span></td><td>{ms(r.seconds)}</td>'
            f"<td>{g(rel.eps, 6)}</td><td>{g(rel.delta, 6)}</td></tr>")
    return f"""
    <div class="dp-cdf-scroll"><table class="dp-cdf-compare">
      <caption>{e(t("cdf.compare.caption", lang))}</caption>
      <thead><tr><th scope="col">{e(t("cdf.compare.method", lang))}</th>
        <th scope="col">KS ({e(none)})</th><th scope="col">W1 ({e(w_unit)})</th>
        <th scope="col">{e(t("cdf.compare.energy", lang))} ({e(en_unit)})</th>
        <th scope="col">{e(t("cdf.compare.time", lang))}</th>
        <th scope="col">ε</th><th scope="col">δ</th></tr></thead>
      <tbody>{"".join(body)}</tbody>
    </table></div>
    <p class="dp-muted">{e(t("cdf.compare.note", lang))}</p>"""


def _atoms_text(atoms: tuple[str, ...]) -> str:
    """MP's chosen atoms, grouped by family: ('legendre[0]', 'legendre[1]', 'bspline32[12]')
    -> 'legendre 0–1, bspline32 12'."""
    fams: dict[str, list[int]] = {}
    other: list[str] = []
    for a in atoms:
        name, _, rest = a.partition("[")
        if rest.endswith("]") and rest[:-1].isdigit():
            fams.setdefault(name, []).append(int(rest[:-1]))
        else:
            other.append(a)
    parts = []
    for name, idx in fams.items():
        idx = sorted(set(idx))
        runs: list[str] = []
        start = prev = idx[0]
        for i in [*idx[1:], None]:
            if i is not None and i == prev + 1:
                prev = i
                continue
            runs.append(str(start) if start == prev else f"{start}–{prev}")
            if i is not None:
                start = prev = i
        parts.append(f"{name} {', '.join(runs)}")
    return "; ".join([*parts, *other])


def shape_text(shape: ReleaseShape, lang: str) -> str:
    """One line on what a release is made of (public: from its record, never the data)."""
    if shape.kind == "tree":
        text = t("cdf.shape.tree", lang, b=shape.branching, depth=shape.depth,
                 leaves=n_text(shape.leaves, lang), sd=g(shape.noise_sd, 3))
    elif shape.kind == "hq":
        text = t("cdf.shape.hq", lang, bins=shape.bins, scale=g(shape.noise_scale, 3))
    elif shape.kind == "pp":
        text = t("cdf.shape.pp", lang, kmax=shape.k_max, k=shape.degree,
                 sd=g(shape.noise_scale, 3))
    elif shape.kind == "mp":
        text = t("cdf.shape.mp", lang, count=len(shape.atoms), dict=shape.dictionary,
                 kmax=shape.k_max, atoms=_atoms_text(shape.atoms))
    else:
        text = t("cdf.shape.aq", lang, q=shape.quantiles)
    if shape.granularity is not None:
        text += "; " + t("cdf.shape.lattice", lang, h=g(shape.granularity, 6),
                         size=n_text(shape.lattice_size, lang), group=shape.group)
    return text


def stream_html(state: CDFState, steps: list[StreamStep], lang: str) -> str:
    """The stream / sites table: error and privacy of PP (merge) and AQ (re-run) per step."""
    mode = state.stream_mode
    if not steps:
        return f'<p class="dp-muted">{e(t(f"cdf.stream.empty.{mode}", lang))}</p>'
    body = []
    for s in steps:
        body.append(
            f"<tr><td>{s.batch}</td><td>{s.seen:,}</td>"
            f"<td>{g(s.pp.ks)}</td><td>{g(s.pp_cost.eps, 4)}</td><td>{s.batch_size:,}</td>"
            f"<td>{ms(s.pp_seconds)}</td>"
            f"<td>{g(s.aq.ks)}</td><td>{g(s.aq_cost.eps, 4)}</td><td>{s.seen:,}</td>"
            f"<td>{ms(s.aq_seconds)}</td></tr>")
    last = steps[-1]
    summary = tp(f"cdf.stream.summary.{mode}", last.batch, lang, pp_eps=g(last.pp_cost.eps, 4),
                aq_eps=g(last.aq_cost.eps, 4), pp_n=f"{last.batch_size:,}",
                aq_n=f"{last.seen:,}")
    return f"""
    <p class="dp-cdf-stream-summary">{e(summary)}</p>
    <div class="dp-cdf-scroll"><table class="dp-cdf-stream-table">
      <caption>{e(t(f"cdf.stream.caption.{mode}", lang, delta=g(state.delta, 6)))}</caption>
      <thead>
        <tr><th scope="col" rowspan="2">{e(t(f"cdf.stream.col.step.{mode}", lang))}</th>
          <th scope="col" rowspan="2">{e(t("cdf.stream.col.seen", lang))}</th>
          <th scope="colgroup" colspan="4">{e(t("cdf.stream.col.pp", lang))}</th>
          <th scope="colgroup" colspan="4">{e(t("cdf.stream.col.aq", lang))}</th></tr>
        <tr><th scope="col">KS</th><th scope="col">{e(t("cdf.stream.col.eps", lang))}</th>
          <th scope="col">{e(t("cdf.stream.col.touched", lang))}</th>
          <th scope="col">{e(t("cdf.compare.time", lang))}</th>
          <th scope="col">KS</th><th scope="col">{e(t("cdf.stream.col.eps", lang))}</th>
          <th scope="col">{e(t("cdf.stream.col.touched", lang))}</th>
          <th scope="col">{e(t("cdf.compare.time", lang))}</th></tr></thead>
      <tbody>{"".join(body)}</tbody>
    </table></div>
    <p class="dp-muted">{e(t(f"cdf.stream.explain.{mode}", lang))}</p>"""


def upload_status_html(state: CDFState, lang: str, error: Message | None = None) -> str:
    """What happened to the upload, the column's problem if any, and the bounds warning."""
    parts = []
    if error is not None:
        parts.append(error_html(error, lang))
    up = state.upload
    if up is not None:
        parts.append(
            f'<p class="dp-cdf-small dp-cdf-upload-ok">'
            f"{e(tp('cdf.up.loaded', up.rows, lang, name=up.filename, cols=len(up.columns)))}"
            f"</p>")
        if state.dataset == UPLOAD:
            prob = state.upload_problem()
            if prob is not None:
                parts.append(error_html(prob, lang))
            else:
                parts.append(_none_inside_html(state, lang))
    return "".join(parts)


def _none_inside_html(state: CDFState, lang: str) -> str:
    """A neutral note when the public bounds leave out every record of the upload (each one
    clipped to an end): the release would otherwise look like a plain step with no word why."""
    try:
        d = state.data()
    except DataUnavailable:
        return ""
    lo, hi = d.bounds
    if d.n == 0 or bool(((d.x >= lo) & (d.x <= hi)).any()):
        return ""
    text = t("cdf.up.none_inside", lang, lo=g(lo, 6), hi=g(hi, 6))
    return f'<p class="dp-cdf-info dp-cdf-small dp-cdf-none-inside" role="note">{e(text)}</p>'


# Inputs whose rejection leaves the main plot and its figures at the last valid values.
STALE_CONTROLS = ("dataset", "n", "eps", "delta", "method", "noise_seed", "upload_lo",
                  "upload_hi", "lattice_h")


def stale_html(errors: list[str], lang: str) -> str:
    """Above the plot while an input is rejected: the plot shows the last valid state ('' when
    no plot input is rejected).  Text, not colour alone (as /lab's stale card)."""
    bad = [c for c in STALE_CONTROLS if c in errors]
    if not bad:
        return ""
    names = ", ".join(t(f"cdf.name.{c}", lang) for c in bad)
    return (f'<p class="dp-stale-note dp-cdf-stale-note" role="status">'
            f'<span aria-hidden="true">⚠</span> {e(t("cdf.stale", lang, fields=names))}</p>')


def notices_html(notices: list[Message], lang: str) -> str:
    if not notices:
        return ""
    items = "".join(f"<li>{e(msg(m, lang))}</li>" for m in notices)
    return (f'<div class="dp-notice" role="alert"><strong>{e(t("cdf.url.title", lang))}</strong>'
            f"<ul>{items}</ul></div>")


def data_note_html(state: CDFState, lang: str) -> str:
    """One line on the current data: n, bounds, unit, and what the reference is."""
    try:
        d = state.data()
    except DataUnavailable as exc:
        return error_html((exc.key, exc.fmt), lang)
    lo, hi = d.bounds
    fields = {"n": n_text(d.n, lang), "lo": g(lo, 6), "hi": g(hi, 6),
              "unit": unit_text(state.unit(), lang)}
    if d.synthetic:
        text = t("cdf.data.note_syn", lang, seed=state.data_seed, **fields)
    else:
        text = t("cdf.data.note", lang, **fields)
    return f'<p class="dp-cdf-small dp-cdf-data-note">{e(text)}</p>'
