"""The lab's controls: presets, text fields, sliders, their error messages, and the sidebar.

Every control writes into :class:`app.lab.state.LabState` through its setters (which validate);
a rejected text stays visible with its message at the field until the student fixes it.
"""

from __future__ import annotations

import html
import logging
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import panel as pn

from app.lab.card import CARD_CSS, unit_label
from app.lab.state import PRESETS
from app.shell import widgets
from app.shell.numbers import fmt_input
from app.shell.options import is_dark
from app.shell.widgets import ImmediateSlider, ImmediateText
from dpcore import queries

if TYPE_CHECKING:
    from app.lab.state import LabState

log = logging.getLogger(__name__)

SIGMA_LOG_RANGE = (-3.0, 3.0)


def sigma_at(x: float) -> float:
    """σ for the σ slider at ``x`` (log10 σ): 4 significant digits."""
    return float(f"{10.0 ** x:.4g}")


def delta_at(x: float) -> float:
    """δ for the δ slider at ``x`` (log10 δ; 0 and above is δ = 1): 3 significant digits."""
    return float(f"{10.0 ** x:.3g}") if x < 0 else 1.0


EPS_SLIDER_MAX = 20.0
DELTA_LOG_RANGE = (-30.0, 0.0)

# State parameter -> the text fields that show it, for the changes a slider move makes (σ; ε
# with the curve's range that follows it). Any other change compares every control.
SYNC_NARROW: dict[str, tuple[str, ...]] = {
    "sigma": ("sigma",), "eps": ("eps",), "eps_lo": ("eps_lo",), "eps_hi": ("eps_hi",)}

# Text field -> its text for a state.
FIELD_TEXTS: dict[str, Callable[[LabState], str]] = {
    "n": lambda s: str(s.n), "B": lambda s: fmt_input(s.B),
    "sigma": lambda s: fmt_input(s.sigma), "eps": lambda s: fmt_input(s.eps),
    "delta": lambda s: s.delta_text, "data": lambda s: s.data_text,
    "record": lambda s: str(s.record), "replacement": lambda s: fmt_input(s.replacement),
    "eps_lo": lambda s: fmt_input(s.eps_lo), "eps_hi": lambda s: fmt_input(s.eps_hi),
    "sim_n": lambda s: str(s.sim_n)}


class LabControls:
    """Controls of :class:`app.lab.page.LabPage` (a mixin: it reads the page's state and
    language)."""

    if TYPE_CHECKING:  # what the page (or state) class provides
        state: LabState
        lang: str

        def _tr(self, key: str, **fmt: Any) -> str: ...

    def _text(self, control: str, value: str, label: str) -> tuple[ImmediateText, pn.pane.HTML]:
        w = ImmediateText(value=value, label=label, sizing_mode="stretch_width",
                                 css_classes=[f"dp-input-{control}"])
        err = widgets.TextPane("", css_classes=[f"dp-error-{control}"], stylesheets=[CARD_CSS],
                              margin=(0, 10), sizing_mode="stretch_width")
        w.param.watch(lambda e, c=control: self._on_text(c, e.new), "value")
        self._inputs[control] = w
        self._errors[control] = err
        return w, err

    def _build_widgets(self) -> None:
        s = self.state
        self._inputs: dict[str, ImmediateText] = {}
        self._errors: dict[str, pn.pane.HTML] = {}
        self._errors_shown = True  # until the first _show_errors has looked
        self.presets = widgets.ButtonColumn(
            on_click=lambda key: self._safe(self.state.load_preset, key),
            items=[{"key": p.key, "label": self._tr(f"lab.preset.{p.key}"),
                    "cls": f"dp-preset-{p.key}"} for p in PRESETS],
            label=self._tr("lab.side.presets"), sizing_mode="stretch_width", margin=0,
            css_classes=["dp-presets", *(["dp-dark"] if is_dark() else [])])
        self.query = pn.widgets.Select(
            label=self._tr("lab.ctl.query"),
            options={self._tr(f"common.query.{q}"): q for q in queries.QUERIES},
            value=s.query, sizing_mode="stretch_width", css_classes=["dp-input-query"])
        self.query.param.watch(lambda e: self._safe(self._set_query, e.new), "value")
        self._errors["query"] = widgets.TextPane("", css_classes=["dp-error-query"],
                                                stylesheets=[CARD_CSS], margin=(0, 10))
        unit = unit_label(self.lang, queries.unit_key(s.query))
        for c, v in (("n", str(s.n)), ("B", fmt_input(s.B)), ("sigma", fmt_input(s.sigma)),
                     ("eps", fmt_input(s.eps)), ("delta", s.delta_text), ("data", s.data_text),
                     ("record", str(s.record)), ("replacement", fmt_input(s.replacement)),
                     ("eps_lo", fmt_input(s.eps_lo)), ("eps_hi", fmt_input(s.eps_hi)),
                     ("sim_n", str(s.sim_n))):
            self._text(c, v, self._tr(f"lab.ctl.{c}", unit=unit))
        self.sigma_slider = ImmediateSlider(
            label=self._tr("lab.ctl.sigma_slider"), start=SIGMA_LOG_RANGE[0],
            end=SIGMA_LOG_RANGE[1], step=0.01, value=math.log10(s.sigma),
            sizing_mode="stretch_width", css_classes=["dp-slider-sigma"], format="0[.]00")
        self.eps_slider = ImmediateSlider(
            label=self._tr("lab.ctl.eps_slider"), start=0.0, end=EPS_SLIDER_MAX, step=0.05,
            value=min(s.eps, EPS_SLIDER_MAX), sizing_mode="stretch_width",
            css_classes=["dp-slider-eps"])
        self.delta_slider = ImmediateSlider(
            label=self._tr("lab.ctl.delta_slider"), start=DELTA_LOG_RANGE[0],
            end=DELTA_LOG_RANGE[1], step=0.1, value=self._delta_log(s.delta),
            sizing_mode="stretch_width", css_classes=["dp-slider-delta"])
        self.sigma_slider.param.watch(
            lambda e: self._slider("sigma", sigma_at(e.new)), "value_throttled")
        self.eps_slider.param.watch(lambda e: self._slider("eps", round(e.new, 4)),
                                    "value_throttled")
        self.delta_slider.param.watch(
            lambda e: self._slider("delta", delta_at(e.new)), "value_throttled")
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
        self.notice = widgets.TextPane("", stylesheets=[CARD_CSS], sizing_mode="stretch_width",
                                      css_classes=["dp-notices"], visible=False)

    @staticmethod
    def _delta_log(delta: float) -> float:
        if delta <= 0:
            return DELTA_LOG_RANGE[0]
        return min(DELTA_LOG_RANGE[1], max(DELTA_LOG_RANGE[0], math.log10(delta)))

    def _safe(self, fn: Callable[..., object], *args: object) -> None:
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
        # The common case on every move: nothing to show and nothing shown.
        if not errs and not self._errors_shown:
            return
        self._errors_shown = bool(errs)
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
        # panes and their wrappers were ~20 % of the page's Bokeh models.
        side = getattr(self, "_side", None)
        if side is None or any(o is pane for o in side.objects):
            return
        widget = self.query if control == "query" else self._inputs[control]
        at = next(i for i, o in enumerate(side.objects) if o is widget)
        side.insert(at + 1, pane)

    def _sync_widgets(self, names: set[str] | None = None) -> None:
        """Set every control to the state's value where it differs. ``names``: the state
        parameters that changed (None: any); a slider move changes only what
        :data:`SYNC_NARROW` lists, and only the controls showing those are compared."""
        s = self.state
        narrow = names is not None and bool(names) and names <= SYNC_NARROW.keys()
        shown = ({c for n in names for c in SYNC_NARROW[n]} if narrow and names is not None
                 else None)
        self._syncing = True
        try:
            errors = s.errors
            for c, text in FIELD_TEXTS.items():
                if shown is not None and c not in shown:
                    continue
                w = self._inputs[c]
                v = text(s)
                # A rejected text stays visible (with its message) until the student fixes it.
                if c not in errors and w.value != v:
                    w.value = v
            # Compared first: setting a parameter, even to its value, costs param's machinery
            # on every move.
            wanted: list[tuple[Any, str, Any]] = []
            if shown is None:
                unit = unit_label(self.lang, queries.unit_key(s.query))
                wanted += [
                    (self._inputs["data"], "disabled", not s.data_editable),
                    (self.query, "value", s.query), (self.scale, "value", s.scale),
                    (self.overlays, "value", list(s.overlays)),
                    *((self._inputs[c], "label", self._tr(f"lab.ctl.{c}", unit=unit))
                      for c in ("sigma", "replacement")),
                ]
            if shown is None or "eps" in shown:
                wanted.append((self.eps_slider, "value", min(s.eps, EPS_SLIDER_MAX)))
            # A log slider whose position already gives the state's value stays where the
            # student left it: its value and log10 of the rounded σ (or δ) differ in the
            # last digits, and sending that back moved a handle that a held arrow key had
            # already taken further (presses were lost).
            if shown is None and delta_at(float(self.delta_slider.value or 0.0)) != s.delta:
                wanted.append((self.delta_slider, "value", self._delta_log(s.delta)))
            if shown is None or "sigma" in shown:
                ls = math.log10(s.sigma)
                if SIGMA_LOG_RANGE[0] <= ls <= SIGMA_LOG_RANGE[1] and \
                        sigma_at(float(self.sigma_slider.value or 0.0)) != s.sigma:
                    wanted.append((self.sigma_slider, "value", ls))
            for obj, name, v in wanted:
                if getattr(obj, name) != v:
                    setattr(obj, name, v)
        finally:
            self._syncing = False

    def _label(self, key: str, **fmt: Any) -> str:
        return f'<label class="dp-label">{html.escape(self._tr(key, **fmt))}</label>'

    def sidebar(self) -> list[Any]:
        def field(control: str, key: str) -> Any:
            return self._inputs[control]  # its error pane is placed when needed

        self._inputs["data"].disabled = not self.state.data_editable

        def head(key: str) -> pn.pane.HTML:  # level 2: the page's h1 is the title
            return pn.pane.HTML(f'<h2 class="dp-side-heading">{html.escape(self._tr(key))}</h2>',
                                margin=(0, 10))

        items = [
            head("lab.side.presets"),
            self.presets,
            head("lab.side.release"),
            self.query,
            field("n", "lab.ctl.n"),
            field("B", "lab.ctl.B"),
            field("sigma", "lab.ctl.sigma"),
            self.sigma_slider,
            field("eps", "lab.ctl.eps"),
            self.eps_slider,
            field("delta", "lab.ctl.delta"),
            self.delta_slider,
            head("lab.side.neighbour"),
            field("data", "lab.ctl.data"),
            field("record", "lab.ctl.record"),
            field("replacement", "lab.ctl.replacement"),
            head("lab.side.curve"),
            field("eps_lo", "lab.ctl.eps_lo"),
            field("eps_hi", "lab.ctl.eps_hi"),
            pn.pane.HTML(self._label("lab.ctl.scale"), margin=(0, 10)), self.scale,
            pn.pane.HTML(self._label("lab.ctl.overlays"), margin=(0, 10)), self.overlays,
            head("lab.side.sim"),
            field("sim_n", "lab.ctl.sim_n"),
            self.resample,
        ]
        self._side = pn.Column(*items, sizing_mode="stretch_width", margin=0)
        self._show_errors()
        return [self._side]
