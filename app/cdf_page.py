"""The private CDF page (/cdf): data sources, releases, a degree slider that teaches, the ledger.

State: :class:`app.cdf_state.CDFState` (param only; unit-tested in tests/test_cdf_page_state.py
and tests/test_cdf_fuzz.py).  Text views: :mod:`app.cdf_views` (pure HTML).  This module only
builds the widgets and Bokeh figures of one session and keeps them in step with the state.

URL (fixed names, both ways): data, n, eps, delta, method (auto|pp|mp|hq|aq|all), degree (an
integer or auto), seed (noise); lang, size, theme are the template's; extra names dseed (class
data), teacher (0/1), stream (batches|sites), parts, batches.  An uploaded file is never in the
address (it lives in this session only).

Stable CSS classes: dp-cdf-eps, dp-cdf-delta, dp-cdf-total-eps, dp-cdf-total-delta,
dp-cdf-degree, dp-cdf-ks, dp-cdf-degree-slider (keyboard arrows move it), dp-cdf-auto,
dp-cdf-teacher, dp-cdf-plot, dp-cdf-degree-plot, dp-cdf-stream-plot, dp-cdf-table, ...
"""

from __future__ import annotations

import html
import logging
from typing import Any

import numpy as np

from app import cdf_views as views
from app.cdf_state import (
    DATASETS,
    METHOD_CHOICES,
    METHODS,
    PLOT_POINTS,
    STREAM_MODES,
    UPLOAD,
    CDFState,
    DataUnavailable,
    Message,
    fmt_url,
)
from app.cdf_views import metrics_html, privacy_html, table_html
from app.shell import assets, exportbar, options, theme, widgets

__all__ = ["CDFPage", "CDFState", "create_page", "metrics_html", "privacy_html", "table_html"]

log = logging.getLogger(__name__)

# Okabe-Ito colours, each with its own dash pattern (colour is never the only signal).
STYLE = {
    "pp": ("#0072b2", "solid"),
    "auto": ("#009e73", "dashdot"),
    "mp": ("#cc79a7", "dotdash"),
    "hq": ("#e69f00", "dashed"),
    "aq": ("#d55e00", "dotted"),
}
C_REF = "#6b6b6b"
# The address is rewritten once the input has paused this long (each rewrite is a browser
# history entry and costs the browser ~10 ms; a held arrow key makes ~30 changes a second).
URL_PAUSE_MS = 250
CONTROLS = ("dataset", "n", "eps", "delta", "method", "noise_seed", "upload", "upload_lo",
            "upload_hi", "stream_parts")


def _html(text: str = "", **kw: Any) -> Any:

    kw.setdefault("sizing_mode", "stretch_width")
    return widgets.TextPane(text, stylesheets=[assets.text("dplab-card.css"), views.CSS], **kw)


class CDFPage:
    """Widgets, three Bokeh figures updated in place, and the text views of one CDFState."""

    def __init__(self, state: CDFState | None = None, lang: str = "ko", large: bool = False,
                 notices: list[Message] | None = None) -> None:
        self.state = state or CDFState()
        self.lang = lang
        self.large = large
        self._syncing = False
        self._pending: set[str] = set()
        self._later_scheduled = False
        self._errors: dict[str, Message] = {}
        self._upload_error: Message | None = None
        self._notices = list(notices or [])
        self._build_widgets()
        self._build_figures()
        self.state.param.watch(self._on_state, [p for p in self.state.param if p != "name"])
        self.refresh(None)

    def tr(self, key: str, **fmt: Any) -> str:
        from app.shell.i18n import t

        return t(key, self.lang, **fmt)

    # ---- widgets ------------------------------------------------------------------------------
    def _build_widgets(self) -> None:
        import panel as pn

        from app.cdf_widgets import UploadBox

        class Slider(pn.widgets.IntSlider):
            _debounce = 0  # each key press is final; Panel's 50 ms batching is pure latency

        class FSlider(pn.widgets.FloatSlider):
            _debounce = 0

        class Text(pn.widgets.TextInput):
            _debounce = 0

        s = self.state
        wide: dict[str, Any] = {"sizing_mode": "stretch_width"}
        self.w_dataset = pn.widgets.Select(name=self.tr("cdf.ctl.dataset"),
                                           options=self._dataset_options(), value=s.dataset,
                                           css_classes=["dp-cdf-dataset"], **wide)
        self.w_n = Text(name=self.tr("cdf.ctl.n"), value=str(s.n), css_classes=["dp-cdf-n"],
                        **wide)
        self.w_new_data = pn.widgets.Button(name=self.tr("cdf.ctl.new_data"), button_type="default",
                                            css_classes=["dp-cdf-new-data"], **wide)
        self.w_method = pn.widgets.Select(
            name=self.tr("cdf.ctl.method"), value=s.method,
            options={self.tr(f"cdf.method.{m}"): m for m in METHOD_CHOICES},
            css_classes=["dp-cdf-method"], **wide)
        self.w_eps = Text(name=self.tr("cdf.ctl.eps"), value=fmt_url(s.eps),
                          css_classes=["dp-cdf-eps-input"], **wide)
        self.w_eps_slider = FSlider(name=self.tr("cdf.ctl.eps_slider"), start=0.05, end=10.0,
                                    step=0.05, value=min(max(s.eps, 0.05), 10.0),
                                    css_classes=["dp-cdf-eps-slider"], **wide)
        self.w_delta = Text(name=self.tr("cdf.ctl.delta"), value=fmt_url(s.delta),
                            css_classes=["dp-cdf-delta-input"], **wide)
        self.w_seed = Text(name=self.tr("cdf.ctl.noise_seed"), value=str(s.noise_seed),
                           css_classes=["dp-cdf-seed"], **wide)
        self.w_new_noise = pn.widgets.Button(name=self.tr("cdf.ctl.new_noise"),
                                             css_classes=["dp-cdf-new-noise"], **wide)
        self.w_auto = pn.widgets.Checkbox(name=self.tr("cdf.ctl.auto_degree"), value=s.auto_degree,
                                          css_classes=["dp-cdf-auto"])
        self.w_degree = Slider(name=self.tr("cdf.ctl.degree"), start=0, end=64, value=s.degree,
                               css_classes=["dp-cdf-degree-slider"], **wide)
        self.w_teacher = pn.widgets.Checkbox(name=self.tr("cdf.ctl.teacher"), value=s.teacher,
                                             css_classes=["dp-cdf-teacher"])
        self.w_pp_view = pn.widgets.Button(name=self.tr("cdf.ctl.pp_view"), button_type="primary",
                                           css_classes=["dp-cdf-pp-view"], visible=False)
        self.w_all = pn.widgets.Button(name=self.tr("cdf.ctl.all"), css_classes=["dp-cdf-all"])
        # upload
        self.w_upload = UploadBox(
            on_file=self._on_upload, on_error=self._on_upload_error,
            button_text=self.tr("cdf.up.button"), hint_text=self.tr("cdf.up.hint"),
            busy_text=self.tr("cdf.up.busy"), sizing_mode="stretch_width")
        self.w_column = pn.widgets.Select(name=self.tr("cdf.up.column"), options=[],
                                          css_classes=["dp-cdf-column"], visible=False, **wide)
        self.w_lo = Text(name=self.tr("cdf.up.lo"), value="", css_classes=["dp-cdf-lo"],
                         visible=False, **wide)
        self.w_hi = Text(name=self.tr("cdf.up.hi"), value="", css_classes=["dp-cdf-hi"],
                         visible=False, **wide)
        self.w_unit = Text(name=self.tr("cdf.up.unit"), value="", css_classes=["dp-cdf-unit"],
                           visible=False, **wide)
        self.w_range = pn.widgets.Button(name=self.tr("cdf.up.use_range"),
                                         css_classes=["dp-cdf-use-range"], visible=False, **wide)
        self.w_forget = pn.widgets.Button(name=self.tr("cdf.up.forget"),
                                          css_classes=["dp-cdf-forget"], visible=False, **wide)
        # stream
        self.w_stream_mode = pn.widgets.RadioButtonGroup(
            name=self.tr("cdf.stream.mode"), value=s.stream_mode,
            options={self.tr(f"cdf.stream.mode.{m}"): m for m in STREAM_MODES},
            button_type="primary", button_style="outline", css_classes=["dp-cdf-stream-mode"])
        self.w_parts = Text(name=self.tr("cdf.stream.parts"), value=str(s.stream_parts),
                            css_classes=["dp-cdf-parts"], sizing_mode="stretch_width",
                            min_width=160, max_width=320)
        self.w_add = pn.widgets.Button(name=self.tr("cdf.stream.add.batches"),
                                       button_type="primary", css_classes=["dp-cdf-add-batch"])
        self.w_reset = pn.widgets.Button(name=self.tr("cdf.stream.reset"),
                                         css_classes=["dp-cdf-stream-reset"])

        # error lines under the controls
        self.err: dict[str, Any] = {c: _html("", margin=(0, 10), css_classes=[f"dp-cdf-err-{c}"])
                                    for c in CONTROLS}
        self.secret_note = _html(f'<p class="dp-cdf-secret">{html.escape(self.tr("cdf.secret"))}'
                                 "</p>", margin=0)
        self.teacher_note = _html(f'<p class="dp-muted dp-cdf-small">'
                                  f'{html.escape(self.tr("cdf.teacher.reason"))}</p>',
                                  margin=(0, 10))
        self.range_note = _html(f'<p class="dp-warn dp-cdf-small">'
                                f'{html.escape(self.tr("cdf.up.range_warning"))}</p>',
                                margin=(0, 10), visible=False)
        self.data_note = _html("", margin=(0, 10))
        self.upload_status = _html("", margin=(0, 10), css_classes=["dp-cdf-upload-status"])

        def watch(widget: Any, name: str, attr: str = "value") -> None:
            widget.param.watch(lambda ev: self._input(name, ev.new), attr)

        watch(self.w_dataset, "dataset")
        watch(self.w_n, "n")
        watch(self.w_method, "method")
        watch(self.w_eps, "eps")
        watch(self.w_delta, "delta")
        watch(self.w_seed, "noise_seed")
        watch(self.w_parts, "stream_parts")
        watch(self.w_column, "upload_column")
        watch(self.w_lo, "upload_lo")
        watch(self.w_hi, "upload_hi")
        watch(self.w_unit, "upload_unit")
        watch(self.w_stream_mode, "stream_mode")
        watch(self.w_teacher, "teacher")
        self.w_eps_slider.param.watch(lambda ev: self._input("eps", round(ev.new, 4)),
                                      "value_throttled")
        self.w_auto.param.watch(lambda ev: self._input("auto_degree", ev.new), "value")
        self.w_degree.param.watch(lambda ev: self._on_degree(int(ev.new)), "value")
        self.w_new_data.on_click(lambda _: self._safe(self.state.new_class_data))
        self.w_new_noise.on_click(lambda _: self._safe(self.state.new_noise))
        self.w_pp_view.on_click(lambda _: self._input("method", "pp"))
        self.w_all.on_click(lambda _: self._input("method", "all"))
        self.w_range.on_click(lambda _: self._safe(self._use_range))
        self.w_forget.on_click(lambda _: self._safe(self._forget))
        self.w_add.on_click(lambda _: self._input("stream_steps", self.state.stream_steps + 1))
        self.w_reset.on_click(lambda _: self._input("stream_steps", 0))

    def _dataset_options(self) -> dict[str, str]:
        opts = {self.tr(f"cdf.data.{d}"): d for d in DATASETS}
        up = self.state.upload
        if up is not None:
            opts[self.tr("cdf.data.upload", name=up.filename)] = UPLOAD
        return opts

    # ---- figures ------------------------------------------------------------------------------
    def _build_figures(self) -> None:
        import panel as pn
        from bokeh.core.properties import value
        from bokeh.models import ColumnDataSource, Label, Legend, LegendItem, Range1d, Span
        from bokeh.plotting import figure


        height = 520 if self.large else 420
        fs = "17pt" if self.large else "12pt"
        tools = "pan,wheel_zoom,box_zoom,reset,save"
        # --- the CDFs
        self.src = ColumnDataSource({"x": [], "ref": [], "priv": [],
                                     **{m: [] for m in METHODS}}, name="dp-cdf-src")
        f = figure(height=height, sizing_mode="stretch_width", y_range=(-0.02, 1.02),
                   tools=tools, title=self.tr("cdf.plot.title"),
                   x_axis_label=self.tr("cdf.plot.x"), y_axis_label=self.tr("cdf.plot.y"))
        r_ref = f.line("x", "ref", source=self.src, line_width=3, line_dash="dashed", color=C_REF)
        self.r_priv = f.line("x", "priv", source=self.src, line_width=3, color="#0072b2")
        self.r_meth = {}
        for m in METHODS:
            col, dash = STYLE[m]
            self.r_meth[m] = f.line("x", m, source=self.src, line_width=3, color=col,
                                    line_dash=dash)
        self.legend = Legend(items=[LegendItem(label=value(self.tr("cdf.legend.reference")),
                                               renderers=[r_ref])],
                             orientation="horizontal", location="center")
        self.legend.ncols = 1  # one column: fits a 390 px phone (labels are long)
        f.add_layout(self.legend, "below")
        f.css_classes = ["dp-cdf-plot"]
        self.fig = theme.large_type(f, self.large)
        # --- error against degree
        self.src_deg = ColumnDataSource({"k": [], "trunc": [], "noise": [], "expected": [],
                                         "realised": []})
        self.src_deg_marks = ColumnDataSource({"k": [], "y": [], "what": []})
        d = figure(height=height - 60, sizing_mode="stretch_width", y_axis_type="log",
                   y_range=Range1d(1e-6, 1.0),
                   tools=tools, title=self.tr("cdf.dplot.title"),
                   x_axis_label=self.tr("cdf.dplot.x"), y_axis_label=self.tr("cdf.dplot.y"))
        it = []
        it.append((self.tr("cdf.dplot.expected"),
                   [d.line("k", "expected", source=self.src_deg, line_width=4, color="#1b1b1b")]))
        it.append((self.tr("cdf.dplot.trunc"),
                   [d.line("k", "trunc", source=self.src_deg, line_width=3, color="#d55e00",
                           line_dash="dashed")]))
        it.append((self.tr("cdf.dplot.noise"),
                   [d.line("k", "noise", source=self.src_deg, line_width=3, color="#0072b2",
                           line_dash="dotted")]))
        r_real = d.line("k", "realised", source=self.src_deg, line_width=2, color="#009e73",
                        line_dash="dotdash")
        r_real_pts = d.scatter("k", "realised", source=self.src_deg, size=6, color="#009e73",
                               marker="circle")
        it.append((self.tr("cdf.dplot.realised"), [r_real, r_real_pts]))
        r_auto = d.scatter("k", "y", source=self.src_deg_marks, size=16, marker="diamond",
                           color="#1b1b1b", line_color="white", line_width=2)
        it.append((self.tr("cdf.dplot.mark_auto_legend"), [r_auto]))
        self.deg_span = Span(location=0, dimension="height", line_color="#444", line_width=3)
        d.add_layout(self.deg_span)
        self.deg_label = Label(x=0, y=10, x_units="data", y_units="screen", text="",
                               text_font_size=fs, x_offset=6, background_fill_color="white",
                               background_fill_alpha=0.85)
        d.add_layout(self.deg_label)
        leg = Legend(items=[LegendItem(label=value(lab), renderers=r) for lab, r in it],
                     orientation="horizontal", location="center")
        leg.ncols = 1
        d.add_layout(leg, "below")
        d.css_classes = ["dp-cdf-degree-plot"]
        self.fig_deg = theme.large_type(d, self.large)
        # --- stream
        self.src_stream = ColumnDataSource({"x": [], "pp": [], "aq": [], "ref": []})
        st = figure(height=height - 60, sizing_mode="stretch_width", y_range=(-0.02, 1.02),
                    tools=tools, title=self.tr("cdf.stream.plot"),
                    x_axis_label=self.tr("cdf.plot.x"), y_axis_label=self.tr("cdf.plot.y"))
        s_ref = st.line("x", "ref", source=self.src_stream, line_width=3, line_dash="dashed",
                        color=C_REF)
        s_pp = st.line("x", "pp", source=self.src_stream, line_width=3, color=STYLE["pp"][0])
        s_aq = st.line("x", "aq", source=self.src_stream, line_width=3, color=STYLE["aq"][0],
                       line_dash="dotted")
        sleg = Legend(items=[LegendItem(label=value(self.tr(k)), renderers=[r]) for k, r in (
            ("cdf.stream.legend.pp", s_pp), ("cdf.stream.legend.aq", s_aq),
            ("cdf.legend.reference", s_ref))],
                      orientation="horizontal", location="center")
        sleg.ncols = 1
        st.add_layout(sleg, "below")
        st.css_classes = ["dp-cdf-stream-plot"]
        self.fig_stream = theme.large_type(st, self.large)

        self.plot = pn.pane.Bokeh(self.fig, sizing_mode="stretch_width")
        self.plot_deg = pn.pane.Bokeh(self.fig_deg, sizing_mode="stretch_width")
        self.plot_stream = pn.pane.Bokeh(self.fig_stream, sizing_mode="stretch_width",
                                         visible=False)
        self.notice = _html("", css_classes=["dp-cdf-notices"])
        self.error = _html("", css_classes=["dp-cdf-error"])
        self.auto_box = _html("", css_classes=["dp-cdf-auto-box"])
        self.metrics = _html("", css_classes=["dp-cdf-metrics-pane"])
        self.privacy = _html("", css_classes=["dp-cdf-privacy-pane"])
        self.sources = _html("", css_classes=["dp-cdf-sources-pane"])
        self.table = _html("", css_classes=["dp-cdf-table-pane"])
        self.compare = _html("", css_classes=["dp-cdf-compare-pane"])
        self.degree_status = _html("", css_classes=["dp-cdf-degree-status-pane"])
        self.degree_side = _html("", margin=(0, 10), css_classes=["dp-cdf-degree-side"])
        self.degree_table = _html("", css_classes=["dp-cdf-degree-table-pane"])
        self.stream_text = _html("", css_classes=["dp-cdf-stream-pane"])
        self.stream_err = _html("", css_classes=["dp-cdf-stream-err"])

    # ---- input handling -----------------------------------------------------------------------
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
                   "auto_degree": "method", "teacher": "method"}.get(name, name)
        try:
            problem = self.state.set_input(name, value)
        except Exception:
            log.warning("cdf: input %s rejected", name, exc_info=True)
            problem = ("cdf.err.internal", {})
        if problem is None:
            self._errors.pop(control, None)
        else:
            self._errors[control] = problem
        self._show_errors()

    def _on_degree(self, k: int) -> None:
        if self._syncing:
            return
        info = self.state.degree_info()
        if info.available and self.state.auto_degree and k == info.in_use:
            return
        self._input("degree", k)

    def _show_errors(self) -> None:
        for c, pane in self.err.items():
            m = self._errors.get(c)
            text = views.error_html(m, self.lang) if m else ""
            if pane.object != text:
                pane.object = text

    def _on_upload(self, filename: str, payload: bytes) -> None:
        problem = self.state.load_upload(filename, payload)
        self._upload_error = problem
        self._errors.pop("upload", None)
        self._sync_widgets()
        self._refresh_upload()

    def _on_upload_error(self, key: str, fmt: dict[str, Any]) -> None:
        self._upload_error = (key, fmt)
        self._refresh_upload()

    def _use_range(self) -> None:
        r = self.state.data_range()
        if r is None:
            return
        lo, hi = r
        if lo == hi:  # every record equal: widen so that lo < hi (still taken from the data)
            lo, hi = lo - 0.5, hi + 0.5
        self.state.param.update(upload_lo=lo, upload_hi=hi)
        self.range_note.visible = True

    def _forget(self) -> None:
        self.state.forget_upload()
        self._upload_error = None
        self.range_note.visible = False
        self._sync_widgets()
        self._refresh_upload()
        self.refresh(None)

    # ---- state -> page ------------------------------------------------------------------------
    def _on_state(self, *events: Any) -> None:
        import panel as pn

        names = {ev.name for ev in events}
        doc = pn.state.curdoc
        if doc is None or doc.session_context is None:
            self._safe(self.refresh, names)
            return
        # Button clicks arrive as Bokeh events, outside Panel's hold: without unlocked() their
        # model changes could wait in the document until the next event (measured: 1-2 of 15
        # "new noise" clicks showed nothing until the next click).  unlocked() sends them now.
        with pn.io.unlocked():
            self._safe(self.refresh, names)

    def _sync_widgets(self) -> None:
        s = self.state
        self._syncing = True
        try:
            self.w_dataset.options = self._dataset_options()
            self.w_dataset.value = s.dataset
            n_shown = str(s.n) if s.is_synthetic else (str(s.data_n()) if s.data_n() else "")
            for w, v, c in ((self.w_n, n_shown, "n"), (self.w_eps, fmt_url(s.eps), "eps"),
                            (self.w_delta, fmt_url(s.delta), "delta"),
                            (self.w_seed, str(s.noise_seed), "noise_seed"),
                            (self.w_parts, str(s.stream_parts), "stream_parts")):
                if c not in self._errors and w.value != v:
                    w.value = v
            self.w_eps_slider.value = min(max(s.eps, 0.05), 10.0)
            self.w_method.value = s.method
            self.w_auto.value = s.auto_degree
            self.w_teacher.value = s.teacher
            self.w_stream_mode.value = s.stream_mode
            self.w_n.disabled = not s.is_synthetic
            self.w_new_data.disabled = not s.is_synthetic
            up = s.upload
            show_up = up is not None
            for w in (self.w_column, self.w_lo, self.w_hi, self.w_unit, self.w_range,
                      self.w_forget):
                w.visible = show_up
            if up is not None:
                labels = {}
                for c in up.columns:
                    mark = "" if c.usable else " ⚠"
                    labels[f"{c.name}{mark}"] = c.name
                self.w_column.options = labels
                if s.upload_column in up.names:
                    self.w_column.value = s.upload_column
                lo = "" if s.upload_lo is None else fmt_url(s.upload_lo)
                hi = "" if s.upload_hi is None else fmt_url(s.upload_hi)
                if "upload_lo" not in self._errors and self.w_lo.value != lo:
                    self.w_lo.value = lo
                if "upload_hi" not in self._errors and self.w_hi.value != hi:
                    self.w_hi.value = hi
                if self.w_unit.value != s.upload_unit:
                    self.w_unit.value = s.upload_unit
            self.w_add.name = self.tr(f"cdf.stream.add.{s.stream_mode}")
            self.w_add.disabled = s.stream_steps >= s.stream_parts
        finally:
            self._syncing = False

    def _sync_degree(self) -> Any:
        info = self.state.degree_info()
        self._syncing = True
        try:
            self.w_degree.disabled = not info.available
            self.w_auto.disabled = not info.available
            if info.available:
                if self.w_degree.end != info.k_max:
                    self.w_degree.end = max(1, info.k_max)
                if self.w_degree.value != info.in_use:
                    self.w_degree.value = info.in_use
            self.w_auto.value = self.state.auto_degree
        finally:
            self._syncing = False
        return info

    def _refresh_upload(self) -> None:
        self.upload_status.object = views.upload_status_html(self.state, self.lang,
                                                             self._upload_error)

    def refresh(self, names: set[str] | None) -> None:
        """Recompute the views touched by ``names`` (None: everything) and write the address."""
        s = self.state
        light = names is not None and names <= {"degree", "auto_degree"}
        if names is not None and names <= {"teacher"}:
            self._sync_widgets()
            self._refresh_cards()
            self._write_url()
            return
        if names is not None and names <= {"stream_mode", "stream_parts", "stream_steps"}:
            self._sync_widgets()
            self._refresh_stream()
            self._refresh_cards()
            self._write_url()
            return
        if not light:
            self._sync_widgets()
            self.data_note.object = views.data_note_html(s, self.lang)
            self._refresh_upload()
        info = self._sync_degree()
        try:
            s.data()
        except DataUnavailable as exc:
            self._show_unavailable((exc.key, exc.fmt))
            self._write_url()
            return
        self.error.object = ""
        if not light:
            s.stream()  # may add stream releases: computed before the ledger cards
        self._refresh_curves(info)
        if not light:  # a degree change is post-processing: the ledger cannot change
            self._refresh_cards()
        self.degree_side.object = views.degree_side_html(s, info, self.lang)
        self.notice.object = views.notices_html(self._notices, self.lang)
        # The plot, its table, the cards and the degree in use go out first; the error-vs-degree
        # plot and the stream follow in a second message, so the browser paints the first part
        # without waiting for two more canvases.
        self._later("degree")
        if not light:
            self._later("stream")
        self._write_url()

    def _later(self, what: str) -> None:
        import panel as pn

        doc = pn.state.curdoc
        if doc is None or doc.session_context is None:
            self._run_later_one(what)
            return
        self._pending.add(what)
        if not self._later_scheduled:
            self._later_scheduled = True
            doc.add_next_tick_callback(self._run_later)

    def _run_later(self) -> None:
        import panel as pn

        pending, self._pending = self._pending, set()
        self._later_scheduled = False
        try:
            with pn.io.unlocked():
                for what in sorted(pending):
                    self._run_later_one(what)
        except Exception:
            log.warning("cdf: deferred update skipped", exc_info=True)

    def _run_later_one(self, what: str) -> None:
        try:
            self.state.data()
        except DataUnavailable:
            return
        if what == "degree":
            self._refresh_degree(self.state.degree_info())
        else:
            self._refresh_stream()

    def _show_unavailable(self, m: Message) -> None:
        self.error.object = views.error_html(m, self.lang)
        self.src.data = {"x": [], "ref": [], "priv": [], **{k: [] for k in METHODS}}
        for pane in (self.metrics, self.privacy, self.table, self.compare, self.degree_table,
                     self.degree_status, self.degree_side, self.auto_box, self.stream_text):
            pane.object = ""
        self.sources.object = views.sources_html(self.state, self.lang)
        self.plot_deg.visible = self.fig_deg.visible = False
        self.plot_stream.visible = self.fig_stream.visible = False

    def _refresh_curves(self, info: Any) -> None:
        from bokeh.core.properties import value
        from bokeh.models import LegendItem

        s = self.state
        d = s.data()
        lo, hi = d.bounds
        pts = np.linspace(lo, hi, PLOT_POINTS)
        data: dict[str, Any] = {"x": pts, "ref": np.asarray(d.ref.reference(pts), dtype=float)}
        rows = s.compare() if s.method == "all" else None
        shown = [r.method for r in rows] if rows else [s.method]
        nan = np.full(pts.size, np.nan)
        for m in METHODS:
            data[m] = nan
        if rows:
            for r in rows:
                data[r.method] = r.est(pts)
            data["priv"] = nan
        else:
            data["priv"] = s.current()(pts)
        self.src.data = data
        for m, r in self.r_meth.items():
            r.visible = bool(rows) and m in shown
        self.r_priv.visible = not rows
        key = tuple(shown) if rows else ()
        if getattr(self, "_legend_key", None) != key:
            self._legend_key = key
            if rows:
                items = [LegendItem(label=value(views.method_short(m, self.lang)),
                                    renderers=[self.r_meth[m]]) for m in shown]
            else:
                items = [LegendItem(label=value(self.tr("cdf.legend.private")),
                                    renderers=[self.r_priv])]
            self.legend.items = [*items, self.legend.items[-1]]
        unit = s.unit()
        self.fig.xaxis.axis_label = self.tr("cdf.plot.x") + (
            f" ({views.unit_text(unit, self.lang)})" if unit else "")
        self.table.object = table_html(s, self.lang, rows)
        self.metrics.object = metrics_html(s, self.lang) if not rows else ""
        self.compare.object = views.compare_html(s, rows, self.lang) if rows else ""
        self.w_all.visible = not rows
        # auto chose the histogram: say why and offer the PP view of the same budget
        plan = s.auto_plan()
        hist = plan is not None and plan.method == "hq"
        self.auto_box.object = (views.degree_status_html(s, info, self.lang) if hist else "")
        self.w_pp_view.visible = hist

    def _refresh_cards(self) -> None:
        s = self.state
        try:
            self.privacy.object = privacy_html(s, self.lang)
        except DataUnavailable:
            self.privacy.object = ""
        self.sources.object = views.sources_html(s, self.lang)

    def _refresh_degree(self, info: Any) -> None:
        s = self.state
        self.degree_status.object = views.degree_status_html(s, info, self.lang)
        errs = s.degree_errors() if info.available else None
        self.plot_deg.visible = self.fig_deg.visible = errs is not None
        if errs is None:
            self.degree_table.object = ""
            self._deg_errs = None
            return
        if errs is not getattr(self, "_deg_errs", None):  # a new release: new curves
            self._deg_errs = errs
            # log axis: an estimated truncation error <= 0 is not drawn (the table shows 0)
            trunc = np.where(errs.trunc_est > 0, errs.trunc_est, np.nan)
            real = np.where(errs.realised > 0, errs.realised, np.nan)
            self.src_deg.data = {"k": errs.k, "trunc": trunc, "noise": errs.noise,
                                 "expected": errs.expected, "realised": real}
            self.src_deg_marks.data = {"k": [info.auto_k], "y": [errs.expected[info.auto_k]],
                                       "what": ["auto"]}
            finite = real[np.isfinite(real)]
            lo = min(float(errs.noise[0]), float(finite.min()) if finite.size else np.inf) / 4
            hi = max(float(errs.expected[0]), float(finite.max()) if finite.size else 0.0) * 3
            self.fig_deg.y_range.start, self.fig_deg.y_range.end = max(lo, 1e-300), hi
        # a degree move only moves the marker (one repaint of this plot)
        self.deg_span.location = info.in_use
        self.deg_label.x = info.in_use
        self.deg_label.text = f"K = {info.in_use}"
        self.degree_table.object = views.degree_table_html(errs, info, self.lang)

    def _refresh_stream(self) -> None:
        s = self.state
        problem = s.stream_problem()
        self.stream_err.object = views.error_html(problem, self.lang) if problem else ""
        steps = s.stream() if problem is None else []
        self.stream_text.object = views.stream_html(s, steps, self.lang)
        est = s.stream_estimates() if steps else None
        self.plot_stream.visible = self.fig_stream.visible = est is not None
        if est is None:
            return
        d = s.data()
        lo, hi = d.bounds
        pts = np.linspace(lo, hi, PLOT_POINTS)
        ref = np.asarray(s.stream_reference()(pts), dtype=float)
        self.src_stream.data = {"x": pts, "pp": est[0](pts), "aq": est[1](pts), "ref": ref}
        unit = s.unit()
        self.fig_stream.xaxis.axis_label = self.tr("cdf.plot.x") + (
            f" ({views.unit_text(unit, self.lang)})" if unit else "")

    def _write_url(self) -> None:
        """Write the state into the address; during a burst of moves at most every 250 ms."""
        import panel as pn

        doc = pn.state.curdoc
        if doc is None or pn.state.location is None:
            return
        self._location = pn.state.location
        if doc.session_context is None:
            self._flush_url()
            return
        if not getattr(self, "_url_pending", False):
            self._url_pending = True
            doc.add_timeout_callback(self._flush_url, URL_PAUSE_MS)

    def _flush_url(self) -> None:
        import panel as pn

        self._url_pending = False
        loc = getattr(self, "_location", None) or pn.state.location
        if loc is not None:
            self._location = loc
            loc.update_query(**self.state.url_query())

    # ---- layout -------------------------------------------------------------------------------
    def sidebar(self) -> list[Any]:
        import panel as pn

        def h(key: str) -> Any:
            return pn.pane.HTML(f"<h3>{html.escape(self.tr(key))}</h3>", margin=(0, 10))

        return [
            h("cdf.side.data"),
            self.w_dataset, self.err["dataset"],
            self.w_n, self.err["n"],
            self.data_note,
            self.w_new_data,
            h("cdf.side.upload"),
            self.w_upload, self.upload_status,
            self.w_column, self.w_lo, self.err["upload_lo"], self.w_hi, self.err["upload_hi"],
            self.w_range, self.range_note, self.w_unit, self.w_forget, self.err["upload"],
            h("cdf.side.release"),
            self.w_method, self.err["method"],
            self.w_eps, self.err["eps"], self.w_eps_slider,
            self.w_delta, self.err["delta"],
            self.w_seed, self.err["noise_seed"], self.secret_note, self.w_new_noise,
            h("cdf.side.degree"),
            self.degree_side,
            self.w_auto, self.w_degree,
            h("cdf.side.teacher"),
            self.w_teacher, self.teacher_note,
        ]

    def export_csv(self) -> Any:
        """The shown private CDF as CSV (grid in data units, values) with its (ε, δ) on top.

        Only the private curve: the reference CDF is not private and is not written.
        """

        st = self.state
        est = st.current()
        pts, f_priv, _ = st.curves()
        header = [f"data={st.dataset} method={st.method} seed={st.noise_seed}",
                  self.tr("cdf.export.note")]
        text = exportbar.cdf_csv(pts.tolist(), f_priv.tolist(), eps=float(est.eps),
                              delta=float(est.delta), header=header)
        return exportbar.ExportFile(f"dplab-cdf-{st.dataset}-{st.method}.csv", text)

    def exports(self) -> Any:

        items = [{"kind": "csv", "label": self.tr("cdf.export.csv"), "cls": "dp-export-csv"}]
        return exportbar.ExportBar(make=lambda kind: self.export_csv(), items=items,
                                heading=self.tr("cdf.export.heading"),
                                hint=self.tr("cdf.export.hint"),
                                sizing_mode="stretch_width", css_classes=["dp-exports"])

    def main(self) -> list[Any]:
        import panel as pn

        intro = pn.pane.Markdown(self.tr("cdf.intro"), sizing_mode="stretch_width")

        def h2(key: str) -> Any:
            return _html(f"<h2>{html.escape(self.tr(key))}</h2>")

        deg_intro = _html(f"<p>{html.escape(self.tr('cdf.dplot.intro'))}</p>")
        stream_intro = _html(f"<p>{html.escape(self.tr('cdf.stream.intro'))}</p>")
        cards = pn.FlexBox(
            pn.Column(self.metrics, sizing_mode="stretch_width", min_width=280,
                      styles={"flex": "1 1 380px"}),
            pn.Column(self.privacy, sizing_mode="stretch_width", min_width=280,
                      styles={"flex": "1.2 1 420px"}),
            sizing_mode="stretch_width", gap="16px")
        return [
            self.notice, intro, self.error,
            self.auto_box, self.w_pp_view,
            self.plot, self.table, self.w_all,
            self.compare, cards, self.sources,
            h2("cdf.dplot.heading"), deg_intro, self.degree_status, self.plot_deg,
            self.degree_table,
            h2("cdf.stream.heading"), stream_intro,
            pn.FlexBox(self.w_stream_mode, self.w_parts, sizing_mode="stretch_width"),
            self.err["stream_parts"],
            pn.FlexBox(self.w_add, self.w_reset, sizing_mode="stretch_width"), self.stream_err,
            self.plot_stream, self.stream_text,
            self.exports(),
        ]


def _url_args() -> dict[str, str]:
    import panel as pn

    out: dict[str, str] = {}
    for k, v in (pn.state.session_args or {}).items():
        if v:
            raw = v[0]
            out[k] = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    return out


def create_page(lang: str | None = None) -> Any:
    """The /cdf page for the current session (language from ?lang or Accept-Language)."""
    import panel as pn

    from app.shell import template as layout
    from app.shell.i18n import request_language

    lang = lang or request_language()
    global _WARM
    if not _WARM:
        _WARM = True
        warm_up()
    state = CDFState()
    notices = state.apply_url(_url_args())
    page = CDFPage(state, lang, large=options.is_large(), notices=notices)
    if pn.state.curdoc is not None:
        # the upload lives in this session only: drop it when the session ends
        pn.state.on_session_destroyed(lambda _ctx: state.discard())
        # write the complete state into the address once the page is there
        pn.state.onload(page._flush_url)
    from app.shell.i18n import t

    return layout.page(lang=lang, title=t("cdf.title", lang), path="/cdf", main=page.main(),
                       sidebar=page.sidebar(), sidebar_width=480 if options.is_large() else 380)


_WARM = False


def warm_up() -> None:
    """Fill the process-wide caches of public numbers (dictionary, L1 bounds) once."""
    s = CDFState(n=2000)
    for m in METHODS:
        s.release(m)

