"""The /cdf figures: the private and reference CDFs, error against degree, and the stream.

Built once per session and updated in place. Each method has its own colour *and* dash
(Okabe–Ito colours; colour is never the only signal).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import panel as pn
from bokeh.core.properties import value
from bokeh.models import ColumnDataSource, Label, Legend, LegendItem, Range1d, Span
from bokeh.plotting import figure

from app.cdf import views, views_degree
from app.cdf.inputs import METHODS, PLOT_POINTS
from app.cdf.panes import text_pane
from app.cdf.views import metrics_html, table_html
from app.shell import theme
from app.shell.figures import print_figure

if TYPE_CHECKING:
    from collections.abc import Mapping

    from app.cdf.state import CDFState

# Okabe-Ito colours, each with its own dash pattern (colour is never the only signal).
STYLE = {
    "pp": ("#0072b2", "solid"),
    "auto": ("#009e73", "dashdot"),
    "mp": ("#cc79a7", "dotdash"),
    "hq": ("#a86f00", "dashed"),  # Okabe-Ito orange #e69f00 darkened: 2.25:1 -> 4.25:1 on white
    "aq": ("#d55e00", "dotted"),
}


C_REF = "#6b6b6b"


class CDFFigures:
    """Figures of :class:`app.cdf.page.CDFPage` (a mixin: it reads the page's state and
    language)."""

    if TYPE_CHECKING:  # what the page (or state) class provides
        state: CDFState
        lang: str
        large: bool
        w_all: pn.widgets.Button
        w_pp_view: pn.widgets.Button
        hide: Mapping[str, str]  # messages swapped while the tour waits (app/cdf/tour.py)

        def tr(self, key: str, **fmt: Any) -> str: ...

    def _build_figures(self) -> None:

        # Each figure's drawing area stays >= 250 px tall at 1366x768 (legends inside the CDF
        # plot, two columns under the error plot); the CDF plot and the degree column sit side
        # by side on the first screen (app/cdf/page.py main()).
        height = 500 if self.large else 380
        fs = "17pt" if self.large else "12pt"
        pal = theme.palette()  # near-black ink would vanish on the dark background
        tools = "pan,wheel_zoom,box_zoom,reset,save"
        # --- the CDFs
        self.src = ColumnDataSource({"x": [], "ref": [], "priv": [],
                                     **{m: [] for m in METHODS}}, name="dp-cdf-src")
        # explicit ranges: an auto range over still-empty sources makes BokehJS log "could not
        # set initial ranges" at every render (set from the data bounds in _refresh_curves)
        f = figure(height=height, sizing_mode="stretch_width", y_range=Range1d(-0.02, 1.02),
                   x_range=Range1d(0.0, 1.0), tools=tools, title=self.tr("cdf.plot.title"),
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
                             location="top_left", background_fill_alpha=0.9)
        # inside, in the empty upper left of a CDF: the drawing area keeps its height
        f.add_layout(self.legend)
        f.css_classes = ["dp-cdf-plot"]
        self.fig = print_figure(theme.large_type(f, self.large))
        # --- error against degree
        self.src_deg = ColumnDataSource({"k": [], "trunc": [], "noise": [], "expected": [],
                                         "realised": []})
        self.src_deg_marks = ColumnDataSource({"k": [], "y": [], "what": []})
        d = figure(height=height + 20, sizing_mode="stretch_width", y_axis_type="log",
                   y_range=Range1d(1e-6, 1.0), x_range=Range1d(0, 64),
                   tools=tools, title=self.tr("cdf.dplot.title"),
                   x_axis_label=self.tr("cdf.dplot.x"), y_axis_label=self.tr("cdf.dplot.y"))
        it = []
        it.append((self.tr("cdf.dplot.expected"),
                   [d.line("k", "expected", source=self.src_deg, line_width=4, color=pal.curve)]))
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
                           color=pal.curve, line_color=pal.background, line_width=2)
        it.append((self.tr("cdf.dplot.mark_auto_legend"), [r_auto]))
        self.deg_span = Span(location=0, dimension="height", line_color=pal.marker, line_width=3)
        d.add_layout(self.deg_span)
        self.deg_label = Label(x=0, y=10, x_units="data", y_units="screen", text="",
                               text_font_size=fs, x_offset=6, background_fill_color=pal.label_bg,
                               text_color=pal.text,
                               background_fill_alpha=0.85)
        d.add_layout(self.deg_label)
        # inside, upper right (empty on a log error plot: the errors fall with K first); under
        # the plot five long labels either squash it or run past a phone's width
        leg = Legend(items=[LegendItem(label=value(lab), renderers=r) for lab, r in it],
                     location="top_right", background_fill_alpha=0.85)
        d.add_layout(leg)
        d.css_classes = ["dp-cdf-degree-plot"]
        self.fig_deg = print_figure(theme.large_type(d, self.large))
        leg.label_text_font_size = "14pt" if self.large else "10pt"
        leg.glyph_height = leg.label_height = 16
        leg.spacing = 0
        # --- stream
        self.src_stream = ColumnDataSource({"x": [], "pp": [], "aq": [], "ref": []})
        st = figure(height=height, sizing_mode="stretch_width", y_range=Range1d(-0.02, 1.02),
                    x_range=Range1d(0.0, 1.0), tools=tools, title=self.tr("cdf.stream.plot"),
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
        self.fig_stream = print_figure(theme.large_type(st, self.large))

        self.plot = pn.pane.Bokeh(self.fig, sizing_mode="stretch_width")
        # while a plot input is rejected: a note above the plot and a dashed frame around it
        self.stale_note = text_pane("", margin=(0, 0, 4, 0), css_classes=["dp-cdf-stale-pane"])
        self.plot_col = pn.Column(self.stale_note, self.plot, sizing_mode="stretch_width",
                                  min_width=300, margin=0, styles={"flex": "1.15 1 420px"},
                                  css_classes=["dp-cdf-plot-col"])
        # "all methods": one small plot per method next to the reference (built on first use)
        self.multiples = pn.FlexBox(sizing_mode="stretch_width", visible=False,
                                    css_classes=["dp-cdf-multiples"])
        self._multi_built = False
        self.plot_deg = pn.pane.Bokeh(self.fig_deg, sizing_mode="stretch_width")
        self.plot_stream = pn.pane.Bokeh(self.fig_stream, sizing_mode="stretch_width",
                                         visible=False)
        self.notice = text_pane("", margin=(0, 10), css_classes=["dp-cdf-notices"])
        self.error = text_pane("", margin=(0, 10), css_classes=["dp-cdf-error"])
        self.auto_box = text_pane("", margin=(0, 10), css_classes=["dp-cdf-auto-box"])
        self.metrics = text_pane("", css_classes=["dp-cdf-metrics-pane"])
        self.privacy = text_pane("", css_classes=["dp-cdf-privacy-pane"])
        self.sources = text_pane("", css_classes=["dp-cdf-sources-pane"])
        self.table = text_pane("", css_classes=["dp-cdf-table-pane"])
        self.compare = text_pane("", css_classes=["dp-cdf-compare-pane"])
        self.degree_status = text_pane("", css_classes=["dp-cdf-degree-status-pane"])
        self.degree_side = text_pane("", margin=(0, 10), css_classes=["dp-cdf-degree-side"])
        self.degree_table = text_pane("", css_classes=["dp-cdf-degree-table-pane"])
        self.stream_text = text_pane("", css_classes=["dp-cdf-stream-pane"])
        self.stream_err = text_pane("", css_classes=["dp-cdf-stream-err"])

    def _build_multiples(self) -> None:
        """One plot per method (its curve and the reference), each >= 250 px tall: six curves
        on one plot nearly coincide, and here each is told apart by its title too."""
        self._multi_built = True
        self._multi_figs = []
        panes = []
        tools = "pan,wheel_zoom,box_zoom,reset,save"
        for m in METHODS:
            col, dash = STYLE[m]
            f = figure(height=360 if self.large else 300, sizing_mode="stretch_width",
                       min_width=280, y_range=Range1d(-0.02, 1.02),
                       x_range=Range1d(self.fig.x_range.start, self.fig.x_range.end),
                       tools=tools, title=views.method_short(m, self.lang),
                       x_axis_label=self.fig.xaxis.axis_label,
                       y_axis_label=self.tr("cdf.plot.y"))
            r_ref = f.line("x", "ref", source=self.src, line_width=3, line_dash="dashed",
                           color=C_REF)
            r = f.line("x", m, source=self.src, line_width=3, color=col, line_dash=dash)
            leg = Legend(items=[LegendItem(label=value(views.method_short(m, self.lang)),
                                           renderers=[r]),
                                LegendItem(label=value(self.tr("cdf.legend.reference")),
                                           renderers=[r_ref])],
                         location="top_left", background_fill_alpha=0.9)
            f.add_layout(leg)
            f.css_classes = ["dp-cdf-multiple", f"dp-cdf-multiple-{m}"]
            self._multi_figs.append(print_figure(theme.large_type(f, self.large)))
            panes.append(pn.pane.Bokeh(f, sizing_mode="stretch_width", min_width=280,
                                       styles={"flex": "1 1 380px"}))
        self.multiples.objects = panes

    def _refresh_curves(self, info: Any) -> None:
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
        self.fig.x_range.start, self.fig.x_range.end = float(lo), float(hi)
        if rows and not self._multi_built:
            self._build_multiples()
        self.multiples.visible = bool(rows)
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
        for small in self._multi_figs if self._multi_built else ():
            small.x_range.start, small.x_range.end = float(lo), float(hi)
            small.xaxis.axis_label = self.fig.xaxis.axis_label
        self.table.object = table_html(s, self.lang, rows)
        self.metrics.object = metrics_html(s, self.lang) if not rows else ""
        self.compare.object = views.compare_html(s, rows, self.lang) if rows else ""
        self.w_all.visible = not rows
        # auto: say what it chose (tree or histogram) and why, and offer the PP view
        auto = s.method == "auto"
        self.auto_box.object = (views.auto_choice_html(s, self.lang, self.hide) if auto
                                else "")
        self.w_pp_view.visible = auto and not info.available

    def _refresh_degree(self, info: Any) -> None:
        s = self.state
        self.degree_status.object = views_degree.degree_status_html(s, info, self.lang)
        errs = s.degree_errors() if info.available else None
        self.plot_deg.visible = self.fig_deg.visible = errs is not None
        if errs is None:
            self.degree_table.object = ""
            self._deg_errs = None
            return
        shown: object = getattr(self, "_deg_errs", None)
        if errs is not shown:  # a new release: new curves
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
            lo = max(lo, 1e-300)
            # head room above the curves for the legend (the top ~third of the plot)
            hi = hi * (hi / lo) ** 0.55 if hi > lo else hi * 10
            self.fig_deg.y_range.start, self.fig_deg.y_range.end = lo, hi
            self.fig_deg.x_range.start = -0.5
            self.fig_deg.x_range.end = float(errs.k[-1]) + 0.5 if len(errs.k) else 1.0
        # a degree move only moves the marker (one repaint of this plot)
        self.deg_span.location = info.in_use
        self.deg_label.x = info.in_use
        self.deg_label.text = f"K = {info.in_use}"
        self.degree_table.object = views_degree.degree_table_html(errs, info, self.lang, self.hide)

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
        self.fig_stream.x_range.start, self.fig_stream.x_range.end = float(lo), float(hi)
        unit = s.unit()
        self.fig_stream.xaxis.axis_label = self.tr("cdf.plot.x") + (
            f" ({views.unit_text(unit, self.lang)})" if unit else "")
