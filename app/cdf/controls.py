"""The /cdf controls: data source, upload, release, degree, teacher view, and their messages.

Every control writes into :class:`app.cdf.state.CDFState` through ``set_input`` (which checks);
a rejected value leaves the state as it was, with one message under its control.

This module builds the sidebar's parts (app/cdf/parts.py: plain objects with a widget's
attributes, shown as ONE component, app/cdf/sidebar.py) and the main area's widgets (the
degree slider and its box, the stream's controls, two buttons), wires each to its state name,
takes every value into the state (``_input``), shows the rejections under their controls and
syncs the controls back from the state. Two parts with their own concerns are mixins of
:class:`CDFControls`: the values released only once they settle (the ε slider, the selects
that spend; their notes) in :mod:`app.cdf.controls_settle`, and the uploaded file's parts and
actions in :mod:`app.cdf.controls_upload`.
"""

from __future__ import annotations

import contextlib
import html
import logging
from typing import TYPE_CHECKING, Any

import panel as pn
import param

from app.cdf import views
from app.cdf.component import PartsPanel
from app.cdf.controls_settle import SETTLING_SELECTS, SettlingControls
from app.cdf.controls_upload import UploadControls
from app.cdf.inputs import DATASETS, METHOD_CHOICES, STREAM_MODES, UPLOAD
from app.cdf.parts import (
    Action,
    Bar,
    Check,
    Choice,
    Field,
    Html,
    Part,
    Radio,
    Slider,
    Text,
    route,
)
from app.cdf.sidebar import EpsSlider, SidebarPanel
from app.shell import assets, options, theme
from app.shell.numbers import fmt_input

if TYPE_CHECKING:
    from app.cdf.panes import Slot
    from app.cdf.records import Message
    from app.cdf.state import CDFState
    from app.shell.svgplot import LinePlot
    from app.shell.widgets import TextPane

log = logging.getLogger(__name__)

# The main area's components of parts: the look of the Panel widgets they replace.
MAIN_CSS = assets.text("dplab-cdf-main-controls.css")


class CDFControls(SettlingControls, UploadControls):
    """Controls of :class:`app.cdf.page.CDFPage` (a mixin: it reads the page's state and
    language)."""

    if TYPE_CHECKING:  # what the page (or state) class provides
        state: CDFState
        lang: str
        _errors: dict[str, Message]
        error: Slot
        degree_side: TextPane
        stale_note: TextPane
        stream_text: Text
        plot_col: pn.Column
        plot: LinePlot

        def tr(self, key: str, **fmt: Any) -> str: ...
        def refresh(self, names: set[str] | None) -> None: ...
        def _refresh_upload(self) -> None: ...

    def _build_widgets(self) -> None:
        s = self.state
        # the sidebar's parts, in its order (app/cdf/parts.py; one component: app/cdf/sidebar.py)
        bar = self.bar = Bar()
        self._side_items: list[Any] = []

        def add(part: Any) -> Any:
            self._side_items.append(part)
            return part

        def head(key: str) -> Any:
            return add(Html(bar, f"h_{key.rsplit('.', 1)[-1]}",
                            f'<h2 class="dp-side-heading">{html.escape(self.tr(key))}</h2>'))

        def err(c: str) -> Any:
            self.err[c] = add(Html(bar, f"err_{c}", "", css_classes=[f"dp-cdf-err-{c}"]))
            return self.err[c]

        def field(key: str, label_key: str, value: str, cls: str, **kw: Any) -> Any:
            return add(Field(bar, key, label=self.tr(label_key), value=value,
                             css_classes=[cls], **kw))

        def note(key: str, text: str, **kw: Any) -> Any:
            return add(Html(bar, key, text, **kw))

        self.err: dict[str, Any] = {}
        head("cdf.side.data")
        self.w_dataset = add(Choice(bar, "dataset", label=self.tr("cdf.ctl.dataset"),
                                    options=self._dataset_options(), value=s.dataset,
                                    css_classes=["dp-cdf-dataset"]))
        self._build_settle_notes()
        add(self.select_notes["dataset"])
        err("dataset")
        self.w_n = field("n", "cdf.ctl.n", str(s.n), "dp-cdf-n")
        err("n")
        self.data_note = note("data_note", "")
        self.w_new_data = add(Action(bar, "new_data", label=self.tr("cdf.ctl.new_data"),
                                     css_classes=["dp-cdf-new-data"]))
        head("cdf.side.upload")
        self._build_upload_widgets(add, field, note)
        err("upload_lo")
        self.w_hi = field("upload_hi", "cdf.up.hi", "", "dp-cdf-hi", visible=False)
        err("upload_hi")
        self.w_range = add(Action(bar, "use_range", label=self.tr("cdf.up.use_range"),
                                  css_classes=["dp-cdf-use-range"], visible=False))
        self.range_note = note("range_note", f'<p class="dp-warn dp-cdf-small">'
                               f'{html.escape(self.tr("cdf.up.range_warning"))}</p>',
                               visible=False)
        # a column of whole numbers: the value spacing is OFFERED (off until accepted, one click)
        self.spacing_note = note("spacing_note", "", visible=False,
                                 css_classes=["dp-cdf-spacing-suggest"])
        self.w_spacing = add(Action(bar, "accept_spacing",
                                    label=self.tr("cdf.up.spacing.accept", h="1"),
                                    css_classes=["dp-cdf-accept-spacing"], visible=False))
        self.w_unit = field("upload_unit", "cdf.up.unit", "", "dp-cdf-unit", visible=False,
                            decimal=False)
        self.w_forget = add(Action(bar, "forget", label=self.tr("cdf.up.forget"),
                                   css_classes=["dp-cdf-forget"], visible=False))
        err("upload")
        head("cdf.side.lattice")
        # public value spacing (real data and uploads)
        self.w_lattice = add(Check(bar, "lattice", label=self.tr("cdf.ctl.lattice"),
                                   value=s.lattice, css_classes=["dp-cdf-lattice"]))
        self.w_h = field("lattice_h", "cdf.ctl.lattice_h", fmt_input(s.lattice_h),
                         "dp-cdf-lattice-h")
        err("lattice_h")
        self.lattice_note = note("lattice_note", "", css_classes=["dp-cdf-lattice-pane"])
        head("cdf.side.release")
        self.w_method = add(Choice(
            bar, "method", label=self.tr("cdf.ctl.method"), value=s.method,
            options={self.tr(f"cdf.method.{m}"): m for m in METHOD_CHOICES},
            css_classes=["dp-cdf-method"]))
        add(self.select_notes["method"])
        err("method")
        self.w_eps = field("eps", "cdf.ctl.eps", fmt_input(s.eps), "dp-cdf-eps-input")
        err("eps")
        self.w_eps_slider = add(EpsSlider(bar, "eps_slider", name=self.tr("cdf.ctl.eps_slider"),
                                          start=0.05, end=10.0, step=0.05,
                                          value=min(max(s.eps, 0.05), 10.0),
                                          css_classes=["dp-cdf-eps-slider"]))
        add(self.eps_note)
        self.w_delta = field("delta", "cdf.ctl.delta", fmt_input(s.delta), "dp-cdf-delta-input")
        err("delta")
        self.w_seed = field("noise_seed", "cdf.ctl.noise_seed", str(s.noise_seed), "dp-cdf-seed")
        err("noise_seed")
        self.secret_note = note("secret", f'<p class="dp-cdf-secret">'
                                f'{html.escape(self.tr("cdf.secret"))}</p>')
        self.w_new_noise = add(Action(bar, "new_noise", label=self.tr("cdf.ctl.new_noise"),
                                      css_classes=["dp-cdf-new-noise"]))
        head("cdf.side.teacher")
        self.w_teacher = add(Check(bar, "teacher", label=self.tr("cdf.ctl.teacher"),
                                   value=s.teacher, css_classes=["dp-cdf-teacher"]))
        self.teacher_note = note("teacher_note", f'<p class="dp-muted dp-cdf-small">'
                                 f'{html.escape(self.tr("cdf.teacher.reason"))}</p>')

        # the main area's controls: parts of two components of their own (the degree box,
        # the stream's), whose bars send along the sidebar's batches (app/cdf/parts.py)
        dbar = self.degree_bar = Bar(along=bar)
        self.w_auto = Check(dbar, "auto_degree", label=self.tr("cdf.ctl.auto_degree"),
                            value=s.auto_degree, css_classes=["dp-cdf-auto"])
        self.w_degree = Slider(dbar, "degree", label=self.tr("cdf.ctl.degree"), start=0, end=64,
                               value=s.degree, css_classes=["dp-cdf-degree-slider"])
        # the two buttons of the main area, each in one component with the texts above or
        # under it (a group, app/cdf/panes.py): "show the polynomial curve" under the notices
        # and the introduction; "compare all methods" above the cards. Their long labels wrap
        # (unwrapped, the English one made the page 424 px wide at 390 px, issue 39).
        hbar = self.head_bar = Bar(along=bar)
        self.head_text = Text(hbar, "text", css_classes=["dp-cdf-head"])
        self.w_pp_view = Action(hbar, "pp_view", label=self.tr("cdf.ctl.pp_view"), primary=True,
                                css_classes=["dp-cdf-pp-view"], visible=False)
        cbar = self.cards_bar = Bar(along=bar)
        self.w_all = Action(cbar, "all", label=self.tr("cdf.ctl.all"), light=True,
                            css_classes=["dp-cdf-all"])
        self.cards_text = Text(cbar, "text", css_classes=["dp-cdf-cards-group"])
        # stream: its modes and number of batches, the error line under them, its two
        # buttons, and the line that says why no batch can be added
        sbar = self.stream_bar = Bar(along=bar)
        self.w_stream_mode = Radio(
            sbar, "stream_mode", label=self.tr("cdf.stream.mode"), value=s.stream_mode,
            options={self.tr(f"cdf.stream.mode.{m}"): m for m in STREAM_MODES},
            css_classes=["dp-cdf-stream-mode"])
        self.w_parts = Field(sbar, "stream_parts", label=self.tr("cdf.stream.parts"),
                             value=str(s.stream_parts), css_classes=["dp-cdf-parts"])
        self.err["stream_parts"] = Html(sbar, "err_stream_parts", "",
                                        css_classes=["dp-cdf-err-stream_parts"])
        self.w_add = Action(sbar, "add_batch", label=self.tr("cdf.stream.add.batches"),
                            primary=True, css_classes=["dp-cdf-add-batch"])
        self.w_reset = Action(sbar, "stream_reset", label=self.tr("cdf.stream.reset"),
                              light=True, css_classes=["dp-cdf-stream-reset"])
        self.stream_err = Html(sbar, "stream_err", "", css_classes=["dp-cdf-stream-err"])

        def watch(part: Part, name: str, attr: str = "value") -> None:
            part.watch(lambda ev: self._input(name, ev.new), attr)

        for name in SETTLING_SELECTS:
            self._select(name).watch(
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
        parts: dict[str, Field] = {
            "n": self.w_n, "eps": self.w_eps, "delta": self.w_delta, "noise_seed": self.w_seed,
            "lattice_h": self.w_h, "upload_lo": self.w_lo, "upload_hi": self.w_hi,
            "upload_unit": self.w_unit, "stream_parts": self.w_parts}

        def editing(name: str, f: Field) -> None:
            f.watch(lambda ev: self._typed(name, f, ev.new), "value_input")
            f.watch(lambda _ev: self._editing.discard(name), "value")

        for name, f in parts.items():  # (the browser keeps a field being typed in itself)
            editing(name, f)
        self.w_auto.watch(lambda ev: self._input("auto_degree", ev.new), "value")
        self.w_degree.watch(lambda ev: self._on_degree(int(ev.new)), "value")
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
                fields[c].error = views.msg(m, self.lang) if m else ""
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
        """The sidebar's parts in their order (app/cdf/parts.py; the page shows them as one
        component, :meth:`sidebar_panel`)."""
        return list(self._side_items)

    def _panel_classes(self, *cls: str) -> dict[str, Any]:
        """The host classes and style sheets of a component of parts (dark, projector)."""
        classes = [*cls, *(["dp-dark"] if theme.is_dark() else []),
                   *(["dp-large"] if options.is_large() else [])]
        sheets = [assets.text("dplab-cdf-dark.css")] if theme.is_dark() else []
        return {"css_classes": classes, "stylesheets": sheets}

    def sidebar_panel(self) -> SidebarPanel:
        """The sidebar as one component (made once per page: its markup is the parts' HTML as
        they are now; what changes after goes in its values and texts)."""
        panel = getattr(self, "_side_panel", None)
        if panel is not None:
            return panel
        panel = SidebarPanel(on_message=self._side_message, on_file=self._on_upload,
                             on_error=self._on_upload_error, busy_text=self.tr("cdf.up.busy"),
                             sizing_mode="stretch_width", margin=0,
                             **self._panel_classes("dp-cdf-controls"))
        self._side_panel = panel.bind(self.bar, self._side_items)
        return panel

    def head_panel(self) -> PartsPanel:
        """The notices, the introduction and what is said above the curve (one text, drawn by
        the page's ``main()``), and the "polynomial curve" button, as one component."""
        return self._main_panel("head", self.head_bar, [self.head_text, self.w_pp_view])

    def cards_panel(self) -> PartsPanel:
        """The "compare all methods" button, and the methods compared, the two cards and the
        data sources (one text, drawn by the page's ``main()``), as one component."""
        return self._main_panel("cards", self.cards_bar, [self.w_all, self.cards_text])

    def degree_panel(self) -> PartsPanel:
        """The degree box's controls as one component (the automatic-degree box, the slider;
        made once per page)."""
        return self._main_panel("degree", self.degree_bar, [self.w_auto, self.w_degree])

    def stream_panel(self) -> PartsPanel:
        """The stream's controls as one component (made once per page): its modes and number
        of batches, the error line under them, its two buttons, why no batch can be added and
        what the stream released (the controls are left out of print, the texts are not)."""
        row = '<div class="dp-cdf-stream-ctl">'
        order = [row, self.w_stream_mode, self.w_parts, "</div>", self.err["stream_parts"],
                 row, self.w_add, self.w_reset, "</div>", self.stream_err, self.stream_text]
        return self._main_panel("stream", self.stream_bar, order)

    def _main_panel(self, name: str, bar: Bar, order: list[Any]) -> PartsPanel:
        panels: dict[str, PartsPanel] = self.__dict__.setdefault("_main_panels", {})
        panel = panels.get(name)
        if panel is None:
            text = ["dp-cdf-text-ctl"] if name in ("head", "cards") else []
            look = self._panel_classes("dp-cdf-main-ctl", f"dp-cdf-{name}-ctl", *text)
            look["stylesheets"].insert(0, MAIN_CSS)
            panel = PartsPanel(on_message=lambda msg: self._parts_message(bar, msg),
                               sizing_mode="stretch_width", margin=0, **look)
            panels[name] = panel.bind(bar, order)
        return panel

    def _side_message(self, msg: Any) -> None:
        """One commit from the sidebar (app/cdf/parts.py route), or a part of a file being
        sent."""
        self._parts_message(self.bar, msg, self._settle_notes())

    def _parts_message(self, bar: Bar, msg: Any, notes: dict[str, Any] | None = None) -> None:
        """One commit from a component of parts (app/cdf/parts.py route), or (the sidebar's) a
        part of a file being sent: the changes it makes on the whole page are sent as one."""
        doc = pn.state.curdoc
        live = doc is not None and doc.session_context is not None
        # (a Bokeh event: its model changes are sent now, as the scheduler's, app/shell/refresh.py)
        with pn.io.unlocked() if live else contextlib.nullcontext(), self.bar.batch():
            try:
                if isinstance(msg, dict) and "k" in msg:
                    route(bar, msg, notes)
                elif bar is self.bar:
                    self.sidebar_panel().take_file(msg)
            except Exception:  # never let an exception reach the browser; keep the page working
                log.warning("cdf: a control message failed: %r", msg, exc_info=True)
                self.error.object = views.error_html(("cdf.err.internal", {}), self.lang)
            bar.changed()  # (the number of the commit taken goes back: sliders in flight)
