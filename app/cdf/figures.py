"""The /cdf figures: the private and reference CDFs, error against degree, and the stream.

Each figure is one model the browser draws from one message (app/shell/svgplot.py LinePlot,
assets/dplab-lines.js): the curves' values computed here by dpcore, their looks and labels.
Each method has its own colour *and* dash (Okabe–Ito colours; colour is never the only
signal).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import panel as pn

from app.cdf import views, views_auto, views_degree
from app.cdf.inputs import METHODS, PLOT_POINTS
from app.cdf.methods import STYLE
from app.cdf.panes import Slot, text_pane
from app.cdf.parts import Text
from app.cdf.views import metrics_html, table_html
from app.shell import svgplot, theme

if TYPE_CHECKING:
    from collections.abc import Mapping

    from app.cdf.parts import Action, Bar, Html
    from app.cdf.state import CDFState

# STYLE: each method's Okabe-Ito colour and dash, registered once (app/cdf/methods.py).
C_REF = "#6b6b6b"


class CDFFigures:
    """Figures of :class:`app.cdf.page.CDFPage` (a mixin: it reads the page's state and
    language)."""

    if TYPE_CHECKING:  # what the page (or state) class provides
        state: CDFState
        lang: str
        large: bool
        w_all: Action
        w_pp_view: Action
        stream_err: Html  # the stream's line under its buttons (app/cdf/controls.py)
        stream_bar: Bar  # the stream component's parts (app/cdf/controls.py)
        hide: Mapping[str, str]  # messages swapped while the tour waits (app/cdf/tour.py)

        def tr(self, key: str, **fmt: Any) -> str: ...

    def _build_figures(self) -> None:

        # Each figure's drawing area stays >= 250 px tall at 1366x768 (legends inside the CDF
        # plot, inside the error plot's empty upper right); the CDF plot and the degree column
        # sit side by side on the first screen (app/cdf/page.py main()). Each figure is one
        # model the browser draws from one message (app/shell/svgplot.py LinePlot).
        height = 500 if self.large else 380
        self._pal = pal = theme.palette()
        look = svgplot.look(pal, self.large, height)
        self._plot_height = height
        # the curves of the figure shown last (tests and the multiples read them)
        self.curves: dict[str, Any] = {}
        self.fig = svgplot.LinePlot(look=look, key="cdf", sizing_mode="stretch_width",
                                    height=height, css_classes=["dp-cdf-plot"])
        deg_look = svgplot.look(pal, self.large, height + 20)
        self.fig_deg = svgplot.LinePlot(look=deg_look, key="cdf-degree",
                                        sizing_mode="stretch_width", height=height + 20,
                                        css_classes=["dp-cdf-degree-plot"])
        self.fig_stream = svgplot.LinePlot(look=look, key="cdf-stream",
                                           sizing_mode="stretch_width", height=height,
                                           css_classes=["dp-cdf-stream-plot"], visible=False)
        self.plot = self.fig
        # while a plot input is rejected: a note above the plot and a dashed frame around it
        self.stale_note = text_pane("", margin=(0, 0, 4, 0), css_classes=["dp-cdf-stale-pane"])
        self.plot_col = pn.Column(self.stale_note, self.plot, sizing_mode="stretch_width",
                                  min_width=300, margin=0, styles={"flex": "1.15 1 420px"},
                                  css_classes=["dp-cdf-plot-col"])
        # "all methods": one small plot per method next to the reference (built on first use)
        self.multiples = pn.FlexBox(sizing_mode="stretch_width", visible=False,
                                    css_classes=["dp-cdf-multiples"])
        self._multi_figs: list[svgplot.LinePlot] = []
        self._multi_built = False
        self.plot_deg = self.fig_deg
        self.plot_stream = self.fig_stream
        # texts that share a pane with their neighbours (app/cdf/panes.py; placed by the page)
        self.notice = Slot(css_classes=["dp-cdf-notices"])
        self.error = Slot(css_classes=["dp-cdf-error"])
        self.auto_box = Slot(css_classes=["dp-cdf-auto-box"])
        self.metrics = Slot(css_classes=["dp-cdf-metrics-pane"])
        self.privacy = Slot(css_classes=["dp-cdf-privacy-pane"])
        self.sources = Slot(css_classes=["dp-cdf-sources-pane"])
        self.table = text_pane("", css_classes=["dp-cdf-table-pane"])
        self.compare = Slot(css_classes=["dp-cdf-compare-pane"])
        self.degree_status = Slot(css_classes=["dp-cdf-degree-status-pane"])
        self.degree_side = text_pane("", margin=(0, 10), css_classes=["dp-cdf-degree-side"])
        self.degree_table = Slot(css_classes=["dp-cdf-degree-table-pane"])
        # what the stream released: a text of the stream's component (under its controls)
        self.stream_text = Text(self.stream_bar, "stream_text", "",
                                css_classes=["dp-cdf-stream-pane"])

    def _x_label(self) -> str:
        unit = self.state.unit()
        return self.tr("cdf.plot.x") + (f" ({views.unit_text(unit, self.lang)})" if unit else "")

    def _clear_figures(self) -> None:
        """No data to show (the data set is unavailable): empty figures, the others hidden."""
        self.curves = {}
        self.fig.set_message({"title": self.tr("cdf.plot.title"), "series": []})
        self.fig_deg.visible = False
        self.fig_stream.visible = False

    def _build_multiples(self) -> None:
        """One plot per method (its curve and the reference), each >= 250 px tall: six curves
        on one plot nearly coincide, and here each is told apart by its title too."""
        self._multi_built = True
        height = 360 if self.large else 300
        look = svgplot.look(self._pal, self.large, height)
        self._multi_figs = [
            svgplot.LinePlot(look=look, key=f"cdf-{m}", sizing_mode="stretch_width",
                             height=height, min_width=280, styles={"flex": "1 1 380px"},
                             css_classes=["dp-cdf-multiple", f"dp-cdf-multiple-{m}"])
            for m in METHODS]
        self.multiples.objects = list(self._multi_figs)

    def _cdf_message(self, title: str, x: Any, lo: float, hi: float,
                     curves: list[dict[str, Any]]) -> dict[str, Any]:
        return {"title": title, "xlabel": self._x_label(), "ylabel": self.tr("cdf.plot.y"),
                "x": svgplot.picture(x, 6), "xlo": float(lo), "xhi": float(hi),
                "ylo": -0.02, "yhi": 1.02, "series": curves, "legend": "top_left"}

    def _ref_series(self, ref: Any) -> dict[str, Any]:
        return svgplot.series(ref, colour=C_REF, dash="dashed",
                              label=self.tr("cdf.legend.reference"), cls="dp-cdf-ref",
                              under=True)

    def _method_series(self, m: str, y: Any, label: str) -> dict[str, Any]:
        col, dash = STYLE[m]
        return svgplot.series(y, colour=col, dash=dash, label=label, cls=f"dp-cdf-{m}")

    def _refresh_curves(self, info: Any) -> None:
        s = self.state
        d = s.data()
        lo, hi = d.bounds
        pts = np.linspace(lo, hi, PLOT_POINTS)
        ref = np.asarray(d.ref.reference(pts), dtype=float)
        rows = s.compare() if s.method == "all" else None
        curves: dict[str, Any] = {"x": pts, "ref": ref}
        if rows:
            lines = []
            for r in rows:
                curves[r.method] = y = r.est(pts)
                lines.append(self._method_series(r.method, y,
                                                 views.method_short(r.method, self.lang)))
        else:
            curves["priv"] = y = s.current()(pts)
            lines = [svgplot.series(y, colour=STYLE["pp"][0], label=self.tr("cdf.legend.private"),
                                    cls="dp-cdf-priv")]
        self.curves = curves
        self.fig.set_message(self._cdf_message(self.tr("cdf.plot.title"), pts, lo, hi,
                                               [*lines, self._ref_series(ref)]))
        if rows and not self._multi_built:
            self._build_multiples()
        self.multiples.visible = bool(rows)
        if rows:
            by_method = {r.method: curves[r.method] for r in rows}
            for m, small in zip(METHODS, self._multi_figs, strict=True):
                label = views.method_short(m, self.lang)
                mine = ([self._method_series(m, by_method[m], label)] if m in by_method else [])
                small.set_message(self._cdf_message(label, pts, lo, hi,
                                                    [*mine, self._ref_series(ref)]))
        self.table.object = table_html(s, self.lang, rows)
        self.metrics.object = metrics_html(s, self.lang) if not rows else ""
        self.compare.object = views.compare_html(s, rows, self.lang) if rows else ""
        self.w_all.visible = not rows
        # auto: say what it chose (tree or histogram) and why, and offer the PP view
        auto = s.method == "auto"
        self.auto_box.object = (views_auto.auto_choice_html(s, self.lang, self.hide) if auto
                                else "")
        self.w_pp_view.visible = auto and not info.available

    def _refresh_degree(self, info: Any) -> None:
        s = self.state
        self.degree_status.object = views_degree.degree_status_html(s, info, self.lang)
        errs = s.degree_errors() if info.available else None
        self.fig_deg.visible = errs is not None
        if errs is None:
            self.degree_table.object = ""
            self._deg_errs = None
            return
        new = getattr(self, "_deg_errs", None) is not errs
        if new:  # a new release: new curves
            self._deg_errs = errs
            # log axis: an estimated truncation error <= 0 is not drawn (the table shows 0)
            trunc = np.where(errs.trunc_est > 0, errs.trunc_est, np.nan)
            real = np.where(errs.realised > 0, errs.realised, np.nan)
            finite = real[np.isfinite(real)]
            lo = min(float(errs.noise[0]), float(finite.min()) if finite.size else np.inf) / 4
            hi = max(float(errs.expected[0]), float(finite.max()) if finite.size else 0.0) * 3
            lo = max(lo, 1e-300)
            # head room above the curves for the legend (the top ~third of the plot)
            hi = hi * (hi / lo) ** 0.55 if hi > lo else hi * 10
            pal = self._pal
            k = np.asarray(errs.k, dtype=float)
            self._deg_base = {
                "title": self.tr("cdf.dplot.title"), "xlabel": self.tr("cdf.dplot.x"),
                "ylabel": self.tr("cdf.dplot.y"), "x": svgplot.picture(k, 6), "xint": True,
                "xlo": -0.5, "xhi": float(k[-1]) + 0.5 if len(k) else 1.0,
                "ylo": lo, "yhi": hi, "ylog": True, "legend": "top_right",
                "series": [
                    svgplot.series(errs.expected, colour=pal.curve, width=4,
                                   label=self.tr("cdf.dplot.expected"), cls="dp-deg-expected"),
                    svgplot.series(trunc, colour="#d55e00", dash="dashed",
                                   label=self.tr("cdf.dplot.trunc"), cls="dp-deg-trunc"),
                    svgplot.series(errs.noise, colour="#0072b2", dash="dotted",
                                   label=self.tr("cdf.dplot.noise"), cls="dp-deg-noise"),
                    svgplot.series(real, colour="#009e73", dash="dotdash", width=2,
                                   marker="circle", msize=6,
                                   label=self.tr("cdf.dplot.realised"), cls="dp-deg-realised"),
                    svgplot.series([errs.expected[info.auto_k]], x=[info.auto_k],
                                   colour=pal.curve, width=0, marker="diamond", msize=16,
                                   label=self.tr("cdf.dplot.mark_auto_legend"),
                                   cls="dp-deg-auto"),
                ]}
        # a degree move only moves the marker (one small change of this plot's message)
        self.fig_deg.set_message({**self._deg_base,
                                  "vline": {"x": info.in_use, "label": f"K = {info.in_use}"}})
        self.degree_table.object = views_degree.degree_table_html(errs, info, self.lang, self.hide)

    def _refresh_stream(self) -> None:
        s = self.state
        problem = s.stream_problem()
        self.stream_err.object = views.error_html(problem, self.lang) if problem else ""
        steps = s.stream() if problem is None else []
        self.stream_text.object = views.stream_html(s, steps, self.lang)
        est = s.stream_estimates() if steps else None
        self.fig_stream.visible = est is not None
        if est is None:
            return
        d = s.data()
        lo, hi = d.bounds
        pts = np.linspace(lo, hi, PLOT_POINTS)
        ref = np.asarray(s.stream_reference()(pts), dtype=float)
        lines = [svgplot.series(est[0](pts), colour=STYLE["pp"][0],
                                label=self.tr("cdf.stream.legend.pp"), cls="dp-stream-pp"),
                 svgplot.series(est[1](pts), colour=STYLE["aq"][0], dash="dotted",
                                label=self.tr("cdf.stream.legend.aq"), cls="dp-stream-aq"),
                 self._ref_series(ref)]
        msg = self._cdf_message(self.tr("cdf.stream.plot"), pts, lo, hi, lines)
        msg["legend"] = "below"
        self.fig_stream.set_message(msg)
