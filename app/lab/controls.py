"""The lab's controls as ONE component: presets, text fields, sliders, choices and their errors.

The sidebar used to be 27 Bokeh models (eleven text inputs, three noUi sliders, a select, a
radio group, a checkbox group, two buttons, seven headings), ~40 % of a page build's CPU and
most of its Python objects. It is now one :class:`ControlPanel`:

- its markup is made here, on the server, by :func:`controls_html` (labels, names, ``for``/``id``
  pairs, the state's values): the same string the browser shows, so every control has its
  accessible name from the start;
- what changes is one small dict, :func:`control_values` (field texts, slider positions,
  choices, the labels that carry a unit), and the error messages, :func:`error_messages`;
- the browser (``assets/dplab-lab-controls.js``) sends one message per commit: a text on Enter or
  when the field is left, a slider on its release (a key press is one), a choice on change.

Every message goes to :meth:`LabSidebar.receive`, which writes the state through its setters
(they validate); a rejected text stays visible with its message at the field until the student
fixes it (the server leaves it out of ``values``). Stable classes for outside checks:
``dp-input-<control>`` around each field, ``dp-error-<control>`` for its message,
``dp-slider-sigma|eps|delta``, ``dp-input-query``, ``dp-scale``, ``dp-overlays``,
``dp-resample``, ``dp-presets`` with ``dp-preset-<key>``; σ from what people care about (issue
41, 3): ``dp-calib-tpr``, ``dp-calib-fpr``, ``dp-calib-error`` (the fields),
``dp-calib-tpr-apply``, ``dp-calib-error-apply`` (around their buttons) and
``dp-calib-result`` (the σ set, what it promises and ε at the claimed δ).

Before the page is live (issue 39, 4) the first HTML carries a copy of the controls,
:func:`first_paint_controls` (placed by app/lab/first_paint.py): the same markup, inert until
its script has run, that says "connecting" (a status text in the reader's language and
``aria-busy`` on its group) and keeps what the student does with it; the live component takes
the kept values over when it starts, removes the copy and sends the last value of each control
as one commit (the script is the first part of ``assets/dplab-lab-controls.js``).
"""

from __future__ import annotations

import functools
import html
import logging
import math
import re
from collections.abc import Callable
from decimal import ROUND_CEILING, Context, Decimal
from typing import TYPE_CHECKING, Any, ClassVar

import param

from app.lab.card import unit_label
from app.lab.state import CALIB_GROUPS, PRESET_BY_KEY, PRESETS, plain
from app.shell import assets, svgplot
from app.shell.address import AddressQuery
from app.shell.i18n import t
from app.shell.numbers import fmt_input, pct_text
from app.shell.plainjs import PlainJS
from dpcore import queries

if TYPE_CHECKING:
    from app.lab.state import LabState
    from app.lab.values import LabValues

log = logging.getLogger(__name__)

SIGMA_LOG_RANGE = (-3.0, 3.0)
EPS_SLIDER_MAX = 20.0
DELTA_LOG_RANGE = (-30.0, 0.0)


def sigma_at(x: float) -> float:
    """σ for the σ slider at ``x`` (log10 σ): 4 significant digits."""
    return float(f"{10.0 ** x:.4g}")


def delta_at(x: float) -> float:
    """δ for the δ slider at ``x`` (log10 δ; 0 and above is δ = 1): 3 significant digits."""
    return float(f"{10.0 ** x:.3g}") if x < 0 else 1.0


def eps_at(x: float) -> float:
    """ε for the ε slider at ``x``: 4 decimals (the slider's step is 0.05)."""
    return round(x, 4)


# Slider -> the value it sets at a position.
SLIDER_AT: dict[str, Callable[[float], float]] = {"sigma": sigma_at, "eps": eps_at,
                                                 "delta": delta_at}


def delta_log(delta: float) -> float:
    """The δ slider's position for ``delta`` (clamped to the slider's range)."""
    if delta <= 0:
        return DELTA_LOG_RANGE[0]
    return min(DELTA_LOG_RANGE[1], max(DELTA_LOG_RANGE[0], math.log10(delta)))


# Text field -> its text for a state (in the sidebar's order).
FIELD_TEXTS: dict[str, Callable[[LabValues], str]] = {
    "n": lambda s: str(s.n), "B": lambda s: fmt_input(s.B),
    "sigma": lambda s: fmt_input(s.sigma), "eps": lambda s: fmt_input(s.eps),
    "delta": lambda s: s.delta_text, "data": lambda s: s.data_text,
    "record": lambda s: str(s.record), "replacement": lambda s: fmt_input(s.replacement),
    "eps_lo": lambda s: fmt_input(s.eps_lo), "eps_hi": lambda s: fmt_input(s.eps_hi),
    "sim_n": lambda s: str(s.sim_n),
    "calib_tpr": lambda s: fmt_input(s.calib_tpr), "calib_fpr": lambda s: fmt_input(s.calib_fpr),
    "calib_error": lambda s: fmt_input(s.calib_error)}
# Fields whose label names the query's unit (it changes with the query).
UNIT_LABELS = ("sigma", "replacement", "calib_error")
# Slider -> (range, step, the text field it sits under).
SLIDERS: dict[str, tuple[tuple[float, float], float]] = {
    "sigma": (SIGMA_LOG_RANGE, 0.01), "eps": ((0.0, EPS_SLIDER_MAX), 0.05),
    "delta": (DELTA_LOG_RANGE, 0.1)}


def slider_positions(s: LabState | LabValues) -> dict[str, list[float]]:
    """Slider -> [position, the state's value it stands for]. The browser moves a slider only
    when its own position does not already give that value (a log slider's position and log10
    of the rounded σ differ in the last digits; sending that back moved a handle that a held
    arrow key had already taken further). σ outside the slider's range leaves it alone
    (value None)."""
    ls = math.log10(s.sigma)
    inside = SIGMA_LOG_RANGE[0] <= ls <= SIGMA_LOG_RANGE[1]
    return {"sigma": [ls if inside else 0.0, s.sigma if inside else -1.0],
            "eps": [min(s.eps, EPS_SLIDER_MAX), min(s.eps, EPS_SLIDER_MAX)],
            "delta": [delta_log(s.delta), s.delta]}


def up_text(x: float, digits: int = 4) -> str:
    """``x`` rounded UP to ``digits`` significant digits (an ε shown for a claim must not be
    below the ε that holds)."""
    d = Context(prec=digits, rounding=ROUND_CEILING).plus(Decimal(x))
    return fmt_input(float(d)) if float(d) >= x else fmt_input(math.nextafter(float(d), math.inf))


def calibration_text(s: LabState | LabValues, lang: str) -> str:
    """The line under the calibrations: the σ the last one set (all its digits, its unit),
    what it promises, and ε at the claimed δ; "" once σ has moved on (or none was made)."""
    c = s.calibration_now()
    if c is None:
        return ""
    unit = unit_label(lang, queries.unit_key(s.query))
    sigma = fmt_input(c["sigma"])
    if c["kind"] == "tpr":
        head = t("lab.calib.done_tpr", lang, sigma=sigma, unit=unit,
                 tpr=pct_text(fmt_input(c["tpr"]), lang), fpr=pct_text(fmt_input(c["fpr"]), lang))
    else:
        head = t("lab.calib.done_error", lang, sigma=sigma, unit=unit,
                 hw=fmt_input(c["half_width"]))
    eps = c["eps"]
    if eps is None:
        tail = t("lab.calib.eps_none", lang, delta=c["delta"])
    elif math.isinf(eps):
        tail = t("lab.calib.eps_inf", lang, delta=c["delta"])
    else:
        tail = t("lab.calib.eps", lang, delta=c["delta"], eps=up_text(eps))
    return f"{head} {tail}"


def control_values(s: LabState | LabValues, lang: str) -> dict[str, Any]:
    """What the controls show for state ``s`` (one small dict, sent when it changes). A field
    whose text was rejected is left out: it keeps the student's text next to its message."""
    s = plain(s)
    unit = unit_label(lang, queries.unit_key(s.query))
    return {
        "calib": calibration_text(s, lang),
        "fields": {c: text(s) for c, text in FIELD_TEXTS.items() if c not in s.errors},
        "sliders": slider_positions(s),
        "query": s.query, "scale": s.scale, "overlays": list(s.overlays),
        "disabled": [] if s.data_editable else ["data"],
        "labels": {c: t(f"lab.ctl.{c}", lang, unit=unit) for c in UNIT_LABELS},
    }


def error_messages(s: LabState, lang: str) -> dict[str, str]:
    """Control -> its error message in ``lang`` (the rejected inputs of ``s``)."""
    return {c: t(key, lang, **fmt) for c, (key, fmt) in s.errors.items()}


def _e(text: str) -> str:
    return html.escape(text, quote=True)


# The calibration fields' own stable classes (besides dp-input-<control>).
CALIB_CLASSES = {"calib_tpr": "dp-calib-tpr", "calib_fpr": "dp-calib-fpr",
                 "calib_error": "dp-calib-error"}


def _field(c: str, label: str, value: str, *, disabled: bool = False,
           wide: bool = False) -> str:
    extra = " disabled" if disabled else ""
    mode = "" if c == "data" else ' inputmode="decimal"'
    cls = f" {CALIB_CLASSES[c]}" if c in CALIB_CLASSES else ""
    return (f'<div class="dp-field dp-input-{c}{cls}{" dp-wide" if wide else ""}">'
            f'<label for="dpc-{c}">{_e(label)}</label>'
            f'<input id="dpc-{c}" type="text" data-control="{c}" value="{_e(value)}"'
            f' autocomplete="off" spellcheck="false"{mode}{extra}></div>'
            f'<div class="dp-error-{c}" id="dpc-{c}-err"></div>')


# The sliders' fixed class names (outside checks and the load client find them by these).
SLIDER_CLASSES = {"sigma": "dp-slider-sigma", "eps": "dp-slider-eps", "delta": "dp-slider-delta"}


def _slider(c: str, label: str, x: float, text: str) -> str:
    (lo, hi), step = SLIDERS[c]
    return (f'<div class="dp-slider {SLIDER_CLASSES[c]}">'
            f'<label for="dpc-{c}-s">{_e(label)}</label>'
            f'<output class="dp-slider-value" for="dpc-{c}-s">{_e(text)}</output>'
            f'<input id="dpc-{c}-s" type="range" data-slider="{c}" min="{lo:g}" max="{hi:g}"'
            f' step="{step:g}" value="{x:.6g}" aria-valuetext="{_e(text)}"></div>')


def slider_text(c: str, x: float) -> str:
    """What a slider's readout says at position ``x`` (the value it sets, not its log)."""
    if c == "sigma":
        return f"σ = {sigma_at(x):g}"
    if c == "delta":
        return f"δ = {delta_at(x):g}"
    return f"ε = {eps_at(x):g}"


def controls_html(s: LabState | LabValues, lang: str) -> str:
    """The sidebar's markup for state ``s`` in ``lang`` (escaped; no script, no style)."""
    s = plain(s)

    def tr(key: str, **fmt: Any) -> str:
        return t(key, lang, **fmt)

    unit = unit_label(lang, queries.unit_key(s.query))
    pos = slider_positions(s)

    def field(c: str, **kw: Any) -> str:
        return _field(c, tr(f"lab.ctl.{c}", unit=unit), FIELD_TEXTS[c](s), **kw)

    def slider(c: str) -> str:
        return _slider(c, tr(f"lab.ctl.{c}_slider"), pos[c][0], slider_text(c, pos[c][0]))

    def head(key: str) -> str:  # level 2: the page's h1 is the title
        return f'<h2 class="dp-side-heading">{_e(tr(key))}</h2>'

    def calib_group(kind: str, *fields: str) -> str:
        return (f'<div class="dp-calib dp-calib-{kind}-group" role="group"'
                f' aria-labelledby="dpc-calib-{kind}-h">'
                f'<h3 class="dp-calib-head" id="dpc-calib-{kind}-h">'
                f'{_e(tr(f"lab.calib.{kind}_head"))}</h3>{"".join(fields)}'
                f'<div class="dp-calib-apply dp-calib-{kind}-apply"><button type="button"'
                f' class="dp-btn" data-calib="{kind}">{_e(tr(f"lab.calib.apply_{kind}"))}'
                f'</button></div></div>')

    presets = "".join(
        f'<div class="dp-preset-{p.key}"><button type="button" class="dp-btn"'
        f' data-preset="{p.key}">{_e(tr(f"lab.preset.{p.key}"))}</button></div>'
        for p in PRESETS)
    options = "".join(
        f'<option value="{q}"{" selected" if q == s.query else ""}>'
        f'{_e(tr(f"common.query.{q}"))}</option>' for q in queries.QUERIES)
    scale = "".join(
        f'<button type="button" class="dp-btn dp-choice" data-scale="{v}"'
        f' aria-pressed="{"true" if v == s.scale else "false"}">{_e(tr(f"lab.scale.{v}"))}'
        f'</button>' for v in ("log10", "linear"))
    overlays = "".join(
        f'<label class="dp-check"><input type="checkbox" data-overlay="{v}"'
        f'{" checked" if v in s.overlays else ""}> {_e(tr(f"lab.overlay.{v}"))}</label>'
        for v in ("laplace", "classic"))
    parts = [
        head("lab.side.presets"),
        f'<div class="dp-presets" role="group" aria-label="{_e(tr("lab.side.presets"))}">'
        f'{presets}</div>',
        head("lab.side.release"),
        f'<div class="dp-field dp-input-query"><label for="dpc-query">'
        f'{_e(tr("lab.ctl.query"))}</label><select id="dpc-query" data-control="query">'
        f'{options}</select></div><div class="dp-error-query" id="dpc-query-err"></div>',
        field("n"), field("B"), field("sigma"), slider("sigma"), field("eps"), slider("eps"),
        field("delta"), slider("delta"),
        head("lab.side.calib"),
        f'<p class="dp-calib-note">{_e(tr("lab.calib.note"))}</p>',
        calib_group("tpr", field("calib_tpr"), field("calib_fpr")),
        calib_group("error", field("calib_error")),
        f'<p class="dp-calib-result" aria-live="polite">'
        f'{_e(calibration_text(s, lang))}</p>',
        head("lab.side.neighbour"),
        field("data", disabled=not s.data_editable, wide=True), field("record"),
        field("replacement"),
        head("lab.side.curve"),
        field("eps_lo"), field("eps_hi"),
        f'<div class="dp-scale" role="group" aria-labelledby="dpc-scale-l">'
        f'<span class="dp-label" id="dpc-scale-l">{_e(tr("lab.ctl.scale"))}</span>'
        f'<div class="dp-choices">{scale}</div></div>',
        f'<fieldset class="dp-overlays"><legend class="dp-label">'
        f'{_e(tr("lab.ctl.overlays"))}</legend>{overlays}</fieldset>',
        head("lab.side.sim"),
        field("sim_n"),
        f'<div class="dp-resample"><button type="button" class="dp-btn" data-resample="1">'
        f'{_e(tr("lab.ctl.resample"))}</button></div>',
    ]
    return "".join(parts)


# ---- the first paint's copy ----------------------------------------------------------------
FIRST_PAINT_ID = "dp-first-paint-controls"
# assets/dplab-lab-controls.js up to this line is the first paint's script (no export/import).
FIRST_PAINT_JS_END = "// ---- FIRST-PAINT-END"


@functools.cache
def first_paint_js() -> str:
    """The first paint's script: the first part of ``dplab-lab-controls.js``, run at once on the
    copy it follows (in a function of its own: nothing leaks into the page's globals but the
    kept values, ``window.dplabPendingControls``)."""
    src = assets.text("dplab-lab-controls.js")
    head, sep, _ = src.partition(FIRST_PAINT_JS_END)
    if not sep or re.search(r"^\s*(export|import)\b", head, re.MULTILINE) or "</" in head:
        raise ValueError("dplab-lab-controls.js: its first part cannot be inlined")
    return (f"(function () {{\n{head}\n"
            f'firstPaintControls(document.getElementById("{FIRST_PAINT_ID}"));\n}})();')


def scope_css(css: str, scope: str) -> str:
    """``css`` (a shadow root's style sheet) for a copy in the page itself: every rule limited
    to ``scope`` (a selector), ``:host(X)`` read as ``scope`` being ``X``; ``@media`` and
    ``@supports`` blocks are scoped inside, other at-rules (``@keyframes``) kept as they are."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)

    def selector(sel: str) -> str:
        sel = " ".join(sel.split())
        m = re.match(r":host(?:\(([^)]*)\))?", sel)
        if m:
            return scope + (f":is({m.group(1)})" if m.group(1) else "") + sel[m.end():]
        return f"{scope} {sel}"

    def split_top(text: str) -> list[str]:  # at commas outside parentheses
        out, depth, cur = [], 0, ""
        for ch in text:
            depth += (ch == "(") - (ch == ")")
            if ch == "," and depth == 0:
                out.append(cur)
                cur = ""
            else:
                cur += ch
        return [*out, cur]

    def block_end(i: int) -> int:  # css[i] == "{": the index of its "}"
        depth = 0
        for j in range(i, len(css)):
            depth += (css[j] == "{") - (css[j] == "}")
            if depth == 0:
                return j
        raise ValueError("unbalanced braces in a style sheet")

    out, i = [], 0
    while True:
        j = css.find("{", i)
        if j < 0:
            break
        prelude, end = css[i:j].strip(), block_end(j)
        inner = css[j + 1:end]
        if prelude.startswith(("@media", "@supports")):
            out.append(f"{prelude} {{\n{scope_css(inner, scope)}}}")
        elif prelude.startswith("@"):
            out.append(f"{prelude} {{{inner}}}")
        else:
            sels = ", ".join(selector(p) for p in split_top(prelude) if p.strip())
            out.append(f"{sels} {{ {' '.join(inner.split())} }}")
        i = end + 1
    return "\n".join(out) + "\n"


@functools.cache
def first_paint_css() -> str:
    """The controls' look for the first paint's copy (it is in the page, not a shadow root)."""
    return scope_css(assets.text("dplab-lab-controls.css"), "#" + FIRST_PAINT_ID)


def first_paint_controls(s: LabState, lang: str, *, large: bool = False,
                         dark: bool = False) -> str:
    """The controls for state ``s`` as the first HTML shows them before the page is live: the
    same markup as the live component's, in a group that says it is connecting (a status in
    ``lang``, ``aria-busy``), disabled until its script (which follows it) has run."""
    cls = " ".join(["dp-fp-controls", *(["dp-dark"] if dark else []),
                    *(["dp-large"] if large else [])])
    return (f'<div id="{FIRST_PAINT_ID}" class="{cls}"><div class="dp-controls">'
            f'<p class="dp-connecting" id="dp-fp-connecting" role="status"'
            f' data-failed="{_e(t("lab.ctl.connect_failed", lang))}">'
            f'{_e(t("lab.ctl.connecting", lang))}</p>'
            f'<fieldset class="dp-fp-set" aria-label="{_e(t("common.sidebar.region", lang))}"'
            f' aria-busy="true" aria-describedby="dp-fp-connecting" disabled>'
            f'{controls_html(s, lang)}</fieldset></div></div>'
            f"<script>{first_paint_js()}</script>")


class ControlPanel(PlainJS):
    """The sidebar's controls in one Bokeh model (see the module's docstring).

    ``markup``: the controls' HTML, made once per page (:func:`controls_html`); ``values``:
    what they show (:func:`control_values`); ``errors``: control -> message. A message from the
    browser is a dict ``{"k": kind, "c": control, "v": value}`` handed to ``on_message``."""

    markup = param.String(default="", doc="The controls' HTML (server-made, escaped).")
    # JSON text, not a dict: Bokeh walks a dict's every element for models on each set
    # (~0.6 ms per follower and teacher move, app/shell/svgplot.py says more).
    values = param.String(default="{}", doc="Field texts, slider positions, choices, labels "
                          "(JSON).")
    errors = param.Dict(default={}, doc="Control -> its error message.")
    moves = param.String(default="", doc="The page's moves channel (app/lab/moves.py), where "
                         "a slider's release goes; '' when every commit goes through Bokeh.")

    _esm = assets.path("dplab-lab-controls.js")
    _stylesheets: ClassVar[list[str]] = [assets.text("dplab-lab-controls.css")]

    def __init__(self, on_message: Callable[[dict[str, Any]], None] | None = None,
                 **params: Any) -> None:
        super().__init__(**params)
        self._on_message = on_message

    def _handle_msg(self, msg: Any) -> None:
        if self._on_message is not None and isinstance(msg, dict):
            self._on_message(msg)


# Message kind -> what it may carry (anything else is dropped before it reaches the state).
TEXT_CONTROLS = frozenset(FIELD_TEXTS)


class LabSidebar:
    """The lab's controls on one :class:`LabState`: what it shows follows the state
    (:meth:`sync`), what the student commits goes into it (:meth:`receive`).

    ``safe(fn, *args)`` runs a state setter so that nothing reaches the browser as an error
    (the page's convention); ``after_preset`` runs after a preset or a digit key loaded one."""

    def __init__(self, state: LabState, lang: str, *, large: bool, dark: bool,
                 safe: Callable[..., None], address: AddressQuery | None = None,
                 before: Callable[[], None] | None = None) -> None:
        self.state, self.lang, self._safe = state, lang, safe
        self._before = before  # runs before a commit is taken (LabPage.catch_up)
        # the page's address travels in the values (assets/dplab-lab-controls.js showAddress)
        self.address = address
        cls = ["dp-lab-controls", *(["dp-dark"] if dark else []),
               *(["dp-large"] if large else [])]
        self._ack = 0  # the number of the browser's last commit taken
        self._values = control_values(state, lang)
        self.panel = ControlPanel(on_message=self.receive, markup=controls_html(state, lang),
                                  values=svgplot.encode(self._values),
                                  errors=error_messages(state, lang),
                                  sizing_mode="stretch_width", margin=0, css_classes=cls)

    # ---- the state into the controls -------------------------------------------------------
    def sync(self) -> bool:
        """Show the state: values and errors, each sent only when it changed. True when the
        values were sent."""
        s = self.state
        values = control_values(s, self.lang)
        if self.address is not None and self.address.query:
            values["addr"] = self.address.query
        if self._ack:
            values["ack"] = self._ack  # (assets/dplab-lab-controls.js: commits in flight)
        changed = values != self._values
        if changed:
            self._values = values
            self.panel.values = svgplot.encode(values)
        errors = error_messages(s, self.lang) if s.errors else {}
        if errors != self.panel.errors:
            self.panel.errors = errors
        return changed

    # ---- the student's commits into the state ----------------------------------------------
    def slide(self, c: str, x: float, n: int) -> bool:
        """A slider's release (commit ``n``) into the state and nothing else: no value, no
        error is shown (LabPage.take_quietly; app/lab/moves.py shows the state). True when it
        was not taken: a position off the slider, a text still rejected at its field (the
        session answers that), or a value the state refuses (its message is then noted)."""
        if c not in SLIDERS or not math.isfinite(x) or self.state.errors:
            return True
        (lo, hi), _step = SLIDERS[c]
        if not lo <= x <= hi:
            return True
        refused = self.state.set_value(c, SLIDER_AT[c](x)) is not None
        if not refused and n > self._ack:
            self._ack = n
        return refused

    def receive(self, msg: dict[str, Any]) -> None:
        """One commit from the browser: ``k`` text (``c``, ``v`` a string), slider (``c``,
        ``v`` its position), query / scale (``v``), overlays (``v`` a list), preset (``v``
        its key), resample. Anything malformed is ignored (logged)."""
        if self._before is not None:
            self._before()
        kind, c, v = msg.get("k"), msg.get("c"), msg.get("v")
        n = msg.get("n")
        if isinstance(n, int) and not isinstance(n, bool) and n > self._ack:
            self._ack = n  # the browser's commit number, sent back with the values
        s = self.state
        try:
            if kind == "text" and c in TEXT_CONTROLS and isinstance(v, str):
                self._safe(s.set_text, c, v[:10_000])
            elif kind == "slider" and c in SLIDERS and isinstance(v, int | float):
                x = float(v)
                value = SLIDER_AT[c](x)
                self._safe(s.set_value, c, value)
            elif kind == "query" and v in queries.QUERIES:
                self._safe(s.set_query, v)
            elif kind == "scale" and v in ("log10", "linear"):
                self._safe(setattr, s, "scale", v)
            elif kind == "overlays" and isinstance(v, list):
                self._safe(setattr, s, "overlays",
                           [o for o in ("laplace", "classic") if o in v])
            elif kind == "preset" and v in PRESET_BY_KEY:
                self._safe(s.load_preset, v)
            elif kind == "calib" and v in CALIB_GROUPS:
                self._safe(s.calibrate, v)
            elif kind == "resample":
                self._safe(setattr, s, "sim_seed", (s.sim_seed + 1) % (2**31 - 1))
            else:
                log.info("lab: a control message was ignored: %r", msg)
                return
        finally:
            # errors (and a rejected text's field) show even when nothing else changed
            sent = self.sync()
        shown = self._values["fields"].get(c) if kind == "text" else None
        if not sent and shown is not None and shown != v:
            # an accepted text that changed nothing ("1.0" for 1) is shown as the state has it
            self.panel.param.trigger("values")
