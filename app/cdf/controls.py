"""The /cdf controls: data source, upload, release, degree, teacher view, and their messages.

Every control writes into :class:`app.cdf.state.CDFState` through ``set_input`` (which checks);
a rejected value leaves the state as it was, with one message under its control.

This module builds the sidebar's widgets, wires each to its state name, takes every value into
the state (``_input``), shows the rejections under their controls and syncs the widgets back
from the state. Two parts with their own concerns are mixins of :class:`CDFControls`: the
values released only once they settle (the ε slider, the selects that spend; their notes) in
:mod:`app.cdf.controls_settle`, and the uploaded file's widgets and actions in
:mod:`app.cdf.controls_upload`.
"""

from __future__ import annotations

import html
import logging
from typing import TYPE_CHECKING, Any

import panel as pn
import param

from app.cdf import views
from app.cdf.controls_settle import SETTLING_SELECTS, SettlingControls
from app.cdf.controls_upload import UploadControls
from app.cdf.inputs import DATASETS, METHOD_CHOICES, STREAM_MODES, UPLOAD
from app.cdf.panes import text_pane
from app.shell import assets
from app.shell.numbers import fmt_input
from app.shell.widgets import (
    ImmediateIntSlider,
    ImmediateSlider,
    ImmediateText,
    show_field_error,
)

if TYPE_CHECKING:
    from app.cdf.records import Message
    from app.cdf.state import CDFState
    from app.shell.svgplot import LinePlot
    from app.shell.widgets import TextPane

log = logging.getLogger(__name__)

# Labels and button texts that wrap on a phone in projector type (Bokeh keeps them on one line).
WRAP_CSS = assets.text("dplab-cdf-wrap.css")

CONTROLS = ("dataset", "n", "eps", "delta", "method", "noise_seed", "upload", "upload_lo",
            "upload_hi", "stream_parts", "lattice_h")


class CDFControls(SettlingControls, UploadControls):
    """Controls of :class:`app.cdf.page.CDFPage` (a mixin: it reads the page's state and
    language)."""

    if TYPE_CHECKING:  # what the page (or state) class provides
        state: CDFState
        lang: str
        _errors: dict[str, Message]
        error: TextPane
        degree_side: TextPane
        stale_note: TextPane
        plot_col: pn.Column
        plot: LinePlot

        def tr(self, key: str, **fmt: Any) -> str: ...
        def refresh(self, names: set[str] | None) -> None: ...
        def _refresh_upload(self) -> None: ...

    def _build_widgets(self) -> None:
        s = self.state
        wide: dict[str, Any] = {"sizing_mode": "stretch_width"}
        self.w_dataset = pn.widgets.Select(label=self.tr("cdf.ctl.dataset"),
                                           options=self._dataset_options(), value=s.dataset,
                                           css_classes=["dp-cdf-dataset"], **wide)
        self.w_n = ImmediateText(label=self.tr("cdf.ctl.n"), value=str(s.n),
                                 css_classes=["dp-cdf-n"],
                        **wide)
        self.w_new_data = pn.widgets.Button(label=self.tr("cdf.ctl.new_data"), color="default",
                                            css_classes=["dp-cdf-new-data"], **wide)
        self.w_method = pn.widgets.Select(
            label=self.tr("cdf.ctl.method"), value=s.method,
            options={self.tr(f"cdf.method.{m}"): m for m in METHOD_CHOICES},
            css_classes=["dp-cdf-method"], **wide)
        self.w_eps = ImmediateText(label=self.tr("cdf.ctl.eps"), value=fmt_input(s.eps),
                          css_classes=["dp-cdf-eps-input"], **wide)
        self.w_eps_slider = ImmediateSlider(label=self.tr("cdf.ctl.eps_slider"), start=0.05,
                                            end=10.0,
                                    step=0.05, value=min(max(s.eps, 0.05), 10.0),
                                    css_classes=["dp-cdf-eps-slider"],
                                    stylesheets=[assets.text("dplab-cdf-slider.css")], **wide)
        self.w_delta = ImmediateText(label=self.tr("cdf.ctl.delta"), value=fmt_input(s.delta),
                            css_classes=["dp-cdf-delta-input"], **wide)
        self.w_seed = ImmediateText(label=self.tr("cdf.ctl.noise_seed"), value=str(s.noise_seed),
                           css_classes=["dp-cdf-seed"], **wide)
        self.w_new_noise = pn.widgets.Button(label=self.tr("cdf.ctl.new_noise"),
                                             css_classes=["dp-cdf-new-noise"], **wide)
        self.w_auto = pn.widgets.Checkbox(label=self.tr("cdf.ctl.auto_degree"), value=s.auto_degree,
                                          css_classes=["dp-cdf-auto"])
        self._build_settle_notes()
        self.w_degree = ImmediateIntSlider(label=self.tr("cdf.ctl.degree"), start=0, end=64,
                                           value=s.degree,
                                           css_classes=["dp-cdf-degree-slider"],
                                           stylesheets=[assets.text("dplab-cdf-slider.css")],
                                           **wide)
        self.w_teacher = pn.widgets.Checkbox(label=self.tr("cdf.ctl.teacher"), value=s.teacher,
                                             css_classes=["dp-cdf-teacher"])
        # public value spacing (real data and uploads)
        self.w_lattice = pn.widgets.Checkbox(label=self.tr("cdf.ctl.lattice"), value=s.lattice,
                                             css_classes=["dp-cdf-lattice"])
        self.w_h = ImmediateText(label=self.tr("cdf.ctl.lattice_h"), value=fmt_input(s.lattice_h),
                                 css_classes=["dp-cdf-lattice-h"], **wide)
        self.lattice_note = text_pane("", margin=(0, 10), css_classes=["dp-cdf-lattice-pane"])
        # its long label wraps on a phone (dplab-cdf.css) instead of running off the screen
        self.w_pp_view = pn.widgets.Button(label=self.tr("cdf.ctl.pp_view"), color="primary",
                                           css_classes=["dp-cdf-pp-view"], visible=False,
                                           stylesheets=[views.CSS], max_width=900,
                                           sizing_mode="stretch_width")
        # its long label wraps too: unwrapped, the English one made the page 424 px wide at
        # 390 px (issue 39)
        self.w_all = pn.widgets.Button(label=self.tr("cdf.ctl.all"), css_classes=["dp-cdf-all"],
                                       stylesheets=[views.CSS], max_width=900,
                                       sizing_mode="stretch_width")
        self._build_upload_widgets()
        # stream
        self.w_stream_mode = pn.widgets.RadioButtonGroup(
            label=self.tr("cdf.stream.mode"), value=s.stream_mode,
            options={self.tr(f"cdf.stream.mode.{m}"): m for m in STREAM_MODES},
            color="primary", variant="outline", css_classes=["dp-cdf-stream-mode"])
        self.w_parts = ImmediateText(label=self.tr("cdf.stream.parts"), value=str(s.stream_parts),
                            css_classes=["dp-cdf-parts"], sizing_mode="stretch_width",
                            min_width=160, max_width=320)
        self.w_add = pn.widgets.Button(label=self.tr("cdf.stream.add.batches"),
                                       color="primary", css_classes=["dp-cdf-add-batch"])
        self.w_reset = pn.widgets.Button(label=self.tr("cdf.stream.reset"),
                                         css_classes=["dp-cdf-stream-reset"])

        # their labels wrap in projector type on a phone (dplab-cdf-wrap.css)
        for w in (self.w_dataset, self.w_n, self.w_method, self.w_eps, self.w_delta, self.w_seed,
                  self.w_h, self.w_column, self.w_lo, self.w_hi, self.w_unit,
                  self.w_stream_mode, self.w_parts):
            w.stylesheets = [*w.stylesheets, WRAP_CSS]

        # error lines under the controls
        self.err: dict[str, Any] = {c: text_pane("", margin=(0, 10),
                                                 css_classes=[f"dp-cdf-err-{c}"])
                                    for c in CONTROLS}
        self.secret_note = text_pane(f'<p class="dp-cdf-secret">'
                                     f'{html.escape(self.tr("cdf.secret"))}'
                                 "</p>", margin=0)
        self.teacher_note = text_pane(f'<p class="dp-muted dp-cdf-small">'
                                  f'{html.escape(self.tr("cdf.teacher.reason"))}</p>',
                                  margin=(0, 10))
        self.range_note = text_pane(f'<p class="dp-warn dp-cdf-small">'
                                f'{html.escape(self.tr("cdf.up.range_warning"))}</p>',
                                margin=(0, 10), visible=False)
        self.data_note = text_pane("", margin=(0, 10))
        self.upload_status = text_pane("", margin=(0, 10), css_classes=["dp-cdf-upload-status"])

        def watch(widget: Any, name: str, attr: str = "value") -> None:
            widget.param.watch(lambda ev: self._input(name, ev.new), attr)

        for name in SETTLING_SELECTS:
            self._select(name).param.watch(
                lambda ev, name=name: self._select_changed(name, ev.new), "value")
        watch(self.w_n, "n")
        watch(self.w_eps, "eps")
        watch(self.w_delta, "delta")
        watch(self.w_seed, "noise_seed")
        watch(self.w_parts, "stream_parts")
        watch(self.w_lo, "upload_lo")
        watch(self.w_hi, "upload_hi")
        watch(self.w_unit, "upload_unit")
        watch(self.w_stream_mode, "stream_mode")
        watch(self.w_teacher, "teacher")
        watch(self.w_lattice, "lattice")
        watch(self.w_h, "lattice_h")
        self.w_eps_slider.param.watch(lambda ev: self._eps_slid(round(ev.new, 4)),
                                      "value_throttled")
        # a field holding typed text not yet committed is being edited (never overwritten)
        self._editing: set[str] = set()
        fields = {"n": self.w_n, "eps": self.w_eps, "delta": self.w_delta,
                  "noise_seed": self.w_seed, "stream_parts": self.w_parts, "lattice_h": self.w_h,
                  "upload_lo": self.w_lo, "upload_hi": self.w_hi, "upload_unit": self.w_unit}
        for name, w in fields.items():
            w.param.watch(lambda ev, name=name, w=w: self._typed(name, w, ev.new), "value_input")
            w.param.watch(lambda _ev, name=name: self._editing.discard(name),
                          ["value", "enter_pressed"])
        self.w_auto.param.watch(lambda ev: self._input("auto_degree", ev.new), "value")
        self.w_degree.param.watch(lambda ev: self._on_degree(int(ev.new)), "value")
        self.w_new_data.on_click(lambda _: self._safe(self.state.new_class_data))
        self.w_new_noise.on_click(lambda _: self._safe(self.state.new_noise))
        self.w_pp_view.on_click(lambda _: self._input("method", "pp"))
        self.w_all.on_click(lambda _: self._input("method", "all"))
        self.w_range.on_click(lambda _: self._safe(self._use_range))
        self.w_forget.on_click(lambda _: self._safe(self._forget))
        self.w_spacing.on_click(lambda _: self._safe(self._accept_spacing))
        self.w_add.on_click(lambda _: self._input("stream_steps", self.state.stream_steps + 1))
        self.w_reset.on_click(lambda _: self._input("stream_steps", 0))

    def _dataset_options(self) -> dict[str, str]:
        opts = {self.tr(f"cdf.data.{d}"): d for d in DATASETS}
        up = self.state.upload
        if up is not None:
            opts[self.tr("cdf.data.upload", name=up.filename)] = UPLOAD
        return opts

    def _safe(self, fn: Any, *args: Any) -> None:
        try:
            fn(*args)
        except Exception:  # never let an exception reach the browser; keep the page working
            log.warning("cdf: action rejected", exc_info=True)
            self.error.object = views.error_html(("cdf.err.internal", {}), self.lang)

    def _input(self, name: str, value: Any) -> None:
        if self._syncing:
            return
        control = {"upload_column": "upload", "upload_unit": "upload",
                   "stream_steps": "stream_parts", "stream_mode": "stream_parts",
                   "auto_degree": "method", "teacher": "method",
                   "lattice": "lattice_h"}.get(name, name)
        if name == "eps" and self.eps_pending is not None:
            self._settle_gen += 1  # a typed ε replaces the slider's pending one
            self._set_pending(None)
        if name in self.select_pending:
            # a button ("show the polynomial curve", "compare all") replaces a pending choice
            self._select_gen[name] += 1
            self._set_select_pending(name, None)
        other = {"upload_lo": "upload_hi", "upload_hi": "upload_lo"}.get(name)
        try:
            # one change of the state for both bounds (one release, not one per bound)
            with param.parameterized.batch_call_watchers(self.state):
                problem = self.state.set_input(name, value)
                if problem is None and other in self._errors:
                    # the other bound's field holds a rejected text (e.g. a lower bound above
                    # the old upper one): check it again against this one; its field is never
                    # overwritten with the server's value
                    field = self.w_hi if other == "upload_hi" else self.w_lo
                    again = self.state.set_input(other, field.value)
                    if again is None:
                        self._errors.pop(other, None)
                    else:
                        self._errors[other] = again
        except Exception:
            log.warning("cdf: input %s rejected", name, exc_info=True)
            problem = ("cdf.err.internal", {})
        if problem is None:
            self._errors.pop(control, None)
            if other is not None:
                self._sync_widgets()
        else:
            self._errors[control] = problem
        self._show_errors()

    def _typed(self, name: str, widget: Any, text: str) -> None:
        if text != widget.value:
            self._editing.add(name)
        else:
            self._editing.discard(name)

    def _error_fields(self) -> dict[str, Any]:
        """The text field each error line belongs to (the other lines are not one field's)."""
        return {"n": self.w_n, "eps": self.w_eps, "delta": self.w_delta,
                "noise_seed": self.w_seed, "upload_lo": self.w_lo, "upload_hi": self.w_hi,
                "stream_parts": self.w_parts, "lattice_h": self.w_h}

    def _on_degree(self, k: int) -> None:
        if self._syncing:
            return
        info = self.state.degree_info()
        if info.available and self.state.auto_degree and k == info.in_use:
            return
        self._input("degree", k)

    def _show_errors(self) -> None:
        fields = self._error_fields()
        for c, pane in self.err.items():
            m = self._errors.get(c)
            text = views.error_html(m, self.lang) if m else ""
            if pane.object != text:
                pane.object = text
            if c in fields:  # aria-invalid, described by the message (screen readers)
                show_field_error(fields[c], views.msg(m, self.lang) if m else "")
        # the plot keeps the last valid state while an input is rejected: say so on it
        stale = views.stale_html(list(self._errors), self.lang)
        if self.stale_note.object != stale:
            self.stale_note.object = stale
        classes = ["dp-cdf-plot-col", *(["dp-cdf-stale"] if stale else [])]
        if self.plot_col.css_classes != classes:
            self.plot_col.css_classes = classes
            # a dashed frame and a faded plot besides the words (inline: the column's host
            # element is outside every style sheet of ours)
            frame = "3px dashed #d55e00" if stale else "none"
            self.plot_col.styles = {"flex": "1.15 1 420px", "outline": frame,
                                    "outline-offset": "2px"}
            self.plot.styles = {"opacity": "0.6" if stale else "1"}

    def _sync_widgets(self) -> None:
        s = self.state
        self._syncing = True
        try:
            pend = self.select_pending  # a pending choice stays where it was put
            self.w_dataset.options = self._dataset_options()
            self.w_dataset.value = pend.get("dataset", s.dataset)
            n_shown = str(s.n) if s.is_synthetic else (str(s.data_n()) if s.data_n() else "")
            for w, v, c in ((self.w_n, n_shown, "n"), (self.w_eps, fmt_input(s.eps), "eps"),
                            (self.w_delta, fmt_input(s.delta), "delta"),
                            (self.w_seed, str(s.noise_seed), "noise_seed"),
                            (self.w_parts, str(s.stream_parts), "stream_parts"),
                            (self.w_h, fmt_input(s.lattice_h), "lattice_h")):
                if c not in self._errors and c not in self._editing and w.value != v:
                    w.value = v
            if self.eps_pending is None:  # a pending slider value stays where it was put
                self.w_eps_slider.value = min(max(s.eps, 0.05), 10.0)
            n_key = ("cdf.ctl.n" if s.is_synthetic
                     else "cdf.ctl.n_upload" if s.dataset == UPLOAD else "cdf.ctl.n_real")
            if self.w_n.name != self.tr(n_key):
                self.w_n.name = self.tr(n_key)
            self.w_method.value = pend.get("method", s.method)
            self.w_auto.value = s.auto_degree
            self.w_teacher.value = s.teacher
            self.w_lattice.value = s.lattice
            self.w_lattice.visible = not s.is_synthetic
            self.w_h.visible = not s.is_synthetic
            self.w_h.disabled = not s.lattice
            self.w_stream_mode.value = s.stream_mode
            self.w_n.disabled = not s.is_synthetic
            self.w_new_data.disabled = not s.is_synthetic
            self._sync_upload_fields()
            self.w_add.label = self.tr(f"cdf.stream.add.{s.stream_mode}")
            self.w_add.disabled = s.stream_steps >= s.stream_parts
            self._sync_spacing()
        finally:
            self._syncing = False

    def _sync_degree(self) -> Any:
        info = self.state.degree_info()
        self._syncing = True
        try:
            self.w_degree.disabled = not info.available
            self.w_auto.disabled = not info.available
            # the slider's own label says when the shown release has no degree (the reason is
            # in the note right under it, views.degree_side_html)
            label = self.tr("cdf.ctl.degree" if info.available else "cdf.ctl.degree_na")
            if self.w_degree.label != label:
                self.w_degree.label = label
            # no number next to a slider that does nothing (it would read as a degree in use)
            self.w_degree.show_value = info.available
            if info.available:
                if self.w_degree.end != info.k_max:
                    self.w_degree.end = max(1, info.k_max)
                if self.w_degree.value != info.in_use:
                    self.w_degree.value = info.in_use
            self.w_auto.value = self.state.auto_degree
        finally:
            self._syncing = False
        return info

    def sidebar(self) -> list[Any]:
        def h(key: str) -> Any:
            return pn.pane.HTML(f'<h2 class="dp-side-heading">{html.escape(self.tr(key))}</h2>',
                                margin=(0, 10))

        return [
            h("cdf.side.data"),
            self.w_dataset, self.select_notes["dataset"], self.err["dataset"],
            self.w_n, self.err["n"],
            self.data_note,
            self.w_new_data,
            h("cdf.side.upload"),
            self.w_upload, self.upload_status,
            self.w_column, self.select_notes["upload_column"],
            self.w_lo, self.err["upload_lo"], self.w_hi, self.err["upload_hi"],
            self.w_range, self.range_note, self.spacing_note, self.w_spacing,
            self.w_unit, self.w_forget, self.err["upload"],
            h("cdf.side.lattice"),
            self.w_lattice, self.w_h, self.err["lattice_h"], self.lattice_note,
            h("cdf.side.release"),
            self.w_method, self.select_notes["method"], self.err["method"],
            self.w_eps, self.err["eps"], self.w_eps_slider, self.eps_note,
            self.w_delta, self.err["delta"],
            self.w_seed, self.err["noise_seed"], self.secret_note, self.w_new_noise,
            h("cdf.side.teacher"),
            self.w_teacher, self.teacher_note,
        ]
