"""The lab's three figures (worst-neighbour densities, the ε–δ curve, the simulation histograms).

Built once per session; a move only updates their ColumnDataSources, ranges and labels
(:func:`app.shell.figures.set_data` sends a column only when it changed). The simulation figure
is built when a student first scrolls to it.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import panel as pn
from bokeh.events import Tap
from bokeh.models import ColumnDataSource, Label, Range1d, Span
from bokeh.plotting import figure

from app.lab.card import CARD_CSS
from app.lab.compute import (
    CurveView,
    DensityView,
    SimulationView,
)
from app.lab.state import EPS_MAX
from app.lab.views import DensityPlot, density_legend, density_payload
from app.shell import svgplot, theme, widgets
from app.shell.figures import lean, legend_below, set_data, set_props
from app.shell.legend import LEGEND_CSS, legend_html, take_legend
from app.shell.widgets import PreparedBokeh, RevealSlot

if TYPE_CHECKING:
    from collections.abc import Callable

    from app.lab.state import LabState
    from app.shell.theme import Palette

# Line and text colours per theme: app.shell.template.PALETTES (contrast-tested for both themes).
PLOT_HEIGHT = 400
# Projector (size=large): the card strip and both plots fit 1920x1080 together.
PLOT_HEIGHT_LARGE = 490


class LabFigures:
    """Figures of :class:`app.lab.page.LabPage` (a mixin: it reads the page's state, language
    and palette)."""

    if TYPE_CHECKING:  # what the page (or state) class provides
        state: LabState
        pal: Palette
        _large: bool
        _dark: bool

        def _tr(self, key: str, **fmt: Any) -> str: ...
        def _safe(self, fn: Callable[..., object], *args: object) -> None: ...
        def _show_errors(self) -> None: ...
        def _theme_css(self) -> list[str]: ...

    def _build_figures(self) -> None:
        tools = "pan,wheel_zoom,box_zoom,reset,save"
        p = self.pal
        # Projector mode: taller figures so that larger text leaves room for the curves.
        fs = "15pt" if self._large else "12pt"
        height = PLOT_HEIGHT_LARGE if self._large else PLOT_HEIGHT
        # The densities: drawn by the browser from σ, Δ and t (app/lab/views.py); their
        # points stay here only for the simulation figure, which draws them over its bars.
        self.src_dens = ColumnDataSource(dict(x=[], p=[], q=[]))
        self.dens_plot = DensityPlot(look=svgplot.look(p, self._large, height), key="density",
                                     sizing_mode="stretch_width", height=height,
                                     css_classes=["dp-density-plot"])
        self.leg_dens = density_legend(p, self._tr)
        self._dens_payload: dict[str, Any] = {}
        # The simulation's window is the densities' (it was their shared Bokeh range).
        self.sim_range = Range1d(-4, 5)

        self.src_curve = ColumnDataSource(dict(eps=[], y=[], lap=[], cl_in=[], cl_out=[]))
        self.src_claim = ColumnDataSource(dict(eps=[], y=[]))
        self.src_cur = ColumnDataSource(dict(eps=[], y=[]))
        c = figure(height=height, sizing_mode="stretch_width", tools=tools + ",tap",
                   x_range=Range1d(0, 10), title=self._tr("lab.curve.title"))
        # The claimed delta is drawn first: where it crosses the curve, the curve stays on top.
        self.r_claim = c.line("eps", "y", source=self.src_claim, line_width=3, color=p.claim,
                              line_dash="dashdot", legend_label=self._tr("lab.curve.legend_claim"))
        self.r_lap = c.line("eps", "lap", source=self.src_curve, line_width=3, color=p.laplace,
                            line_dash="dotted", legend_label=self._tr("lab.curve.legend_laplace"))
        self.r_cl_in = c.line("eps", "cl_in", source=self.src_curve, line_width=3,
                              color=p.classic, line_dash="dashed",
                              legend_label=self._tr("lab.curve.legend_classic_in"))
        self.r_cl_out = c.line("eps", "cl_out", source=self.src_curve, line_width=2,
                               color=p.classic, line_dash="dotted",
                               legend_label=self._tr("lab.curve.legend_classic_out"))
        self.r_curve = c.line("eps", "y", source=self.src_curve, line_width=4, color=p.curve,
                              legend_label=self._tr("lab.curve.legend_delta"))
        self.src_frame = ColumnDataSource(dict(eps=[], y=[]))
        c.line("eps", "y", source=self.src_frame, line_alpha=0.0)
        self.eps_span = Span(location=1, dimension="height", line_color=p.marker, line_width=2,
                             line_dash="dashed")
        c.add_layout(self.eps_span)
        c.scatter("eps", "y", source=self.src_cur, size=16, marker="diamond", color=p.curve,
                  line_color=p.background, line_width=2,
                  legend_label=self._tr("lab.curve.legend_cur"))
        self.curve_note = Label(x=8, y=8, x_units="screen", y_units="screen", text="",
                                text_font_size=fs, text_color=p.note,
                                background_fill_color=p.label_bg, background_fill_alpha=0.9)
        c.add_layout(self.curve_note)
        c.xaxis.axis_label = self._tr("lab.curve.xlabel")
        self.leg_curve = take_legend(c)
        self._curve_legend_key: tuple[bool, bool] | None = None  # (Laplace, classic) shown
        c.on_event(Tap, self._on_tap)
        c.css_classes = ["dp-curve-plot"]
        lean(c, selectable=True)  # TapTool: a tap on a curve selects it
        self.fig_curve = theme.large_type(c, self._large, self._dark)

        # The simulation figure is built when a student scrolls to it (sim_figure()); its
        # sources and threshold line are kept up to date until then.
        # One source for both histograms: they share their bin edges (sent once per change).
        self.src_hist = ColumnDataSource(dict(left=[], right=[], top0=[], top1=[]))
        self.t_span_sim = Span(location=0, dimension="height", line_color=p.marker, line_width=3,
                               line_dash="dotdash")
        self.fig_sim: Any = None
        # Panes readied for a reveal by build_hidden_parts (a page built ahead), by figure.
        self._ready_panes: dict[str, PreparedBokeh] = {}

        card_css = [CARD_CSS, *self._theme_css()]
        self.card = widgets.TextPane("", stylesheets=card_css, sizing_mode="stretch_width",
                                    css_classes=["dp-card-pane"])
        self.dens_text = widgets.TextPane("", stylesheets=card_css, sizing_mode="stretch_width")
        self.curve_text = widgets.TextPane("", stylesheets=card_css, sizing_mode="stretch_width")
        self.sim_text = widgets.TextPane("", stylesheets=card_css, sizing_mode="stretch_width")
        legend = self._tr("lab.legend")
        self.dens_legend = widgets.TextPane(legend_html(self.leg_dens, legend),
                                           stylesheets=[LEGEND_CSS], sizing_mode="stretch_width",
                                           margin=(0, 5))
        self.curve_legend = widgets.TextPane(legend_html(self.leg_curve, legend),
                                            stylesheets=[LEGEND_CSS], sizing_mode="stretch_width",
                                            margin=(0, 5))

    def _build_sim_figure(self) -> Any:
        p = self.pal
        h = figure(height=PLOT_HEIGHT - 40, sizing_mode="stretch_width",
                   tools="pan,wheel_zoom,box_zoom,reset,save", x_range=self.sim_range,
                   title=self._tr("lab.sim.title"))
        h.quad(left="left", right="right", top="top0", bottom=0, source=self.src_hist,
               fill_color=p.d0, fill_alpha=0.35, line_color=p.d0,
               legend_label=self._tr("lab.sim.legend_h0"))
        h.quad(left="left", right="right", top="top1", bottom=0, source=self.src_hist,
               fill_alpha=0.0, hatch_pattern="\\", hatch_color=p.d1, line_color=p.d1,
               legend_label=self._tr("lab.sim.legend_h1"))
        h.line("x", "p", source=self.src_dens, line_width=3, color=p.d0)
        h.line("x", "q", source=self.src_dens, line_width=3, color=p.d1, line_dash="dashed")
        h.add_layout(self.t_span_sim)
        legend_below(h, 2)
        h.css_classes = ["dp-sim-plot"]
        lean(h)
        h.xaxis.axis_label = self._dens_payload.get("xlabel", "")
        h.yaxis.axis_label = self._dens_payload.get("ylabel", "")
        self.fig_sim = theme.large_type(h, self._large, self._dark)
        return self.fig_sim

    def build_hidden_parts(self) -> None:
        """Make the simulation figure and the panes of both revealed figures now, still out
        of the page (a page built ahead: a reveal then only attaches them; the simulation
        figure was ~13 % of a taken page's server CPU while a class opened it, the panes'
        walks over the figures ~11 %: app.shell.widgets.PreparedBokeh)."""
        if self.fig_sim is None:
            self._build_sim_figure()
        # (on the projector the curve is on the first screen: no reveal, nothing to ready)
        revealed = [("sim", self.fig_sim)] + ([] if self._large else [("curve", self.fig_curve)])
        for name, fig in revealed:
            if name not in self._ready_panes:
                pane = PreparedBokeh(fig, sizing_mode="stretch_width")
                pane.prepare()
                self._ready_panes[name] = pane

    def _pane(self, name: str, fig: Any) -> pn.pane.Bokeh:
        pane = self._ready_panes.pop(name, None)
        return pane if pane is not None else pn.pane.Bokeh(fig, sizing_mode="stretch_width")

    def sim_figure(self) -> RevealSlot:
        """The simulation figure's place in the page: an empty box of the figure's height
        until it comes near the viewport, then the figure (built then, once)."""
        def make() -> pn.pane.Bokeh:
            fig = self.fig_sim if self.fig_sim is not None else self._build_sim_figure()
            return self._pane("sim", fig)
        return RevealSlot(make, PLOT_HEIGHT - 40, box_classes=["dp-sim-reveal"])

    def curve_figure(self) -> RevealSlot:
        """The ε–δ curve's place below the first screen: the figure is built with the page and
        kept up to date, but joins the page only when a student scrolls near it (or saves it
        as PNG): it was ~60 of the first document's ~210 Bokeh models, and the browser's
        first load is shorter by them."""
        height = PLOT_HEIGHT_LARGE if self._large else PLOT_HEIGHT
        return RevealSlot(lambda: self._pane("curve", self.fig_curve),
                          height, box_classes=["dp-curve-reveal"])

    def _on_tap(self, event: Tap) -> None:
        if event.x is None:
            return
        x = float(event.x)
        x = min(EPS_MAX, max(0.0, float(f"{x:.3g}") if x > 0 else 0.0))
        self._safe(self.state.set_value, "eps", x)
        self._show_errors()

    def _draw_density(self, dv: DensityView, sens: float, unit: str) -> None:
        # (the simulation figure draws the density curves over its bars)
        set_data(self.src_dens, x=dv.x, p=dv.p, q=dv.q)
        set_props(self.sim_range, start=dv.lo, end=dv.hi)
        inside = sens != 0 and dv.t_outside is None
        set_props(self.t_span_sim, visible=inside)
        if inside:
            set_props(self.t_span_sim, location=dv.t)
        self._dens_payload = density_payload(dv, sens, self.state.sigma, unit, self._tr)
        self._show_density()

    def _show_density(self, concealed: bool = False) -> None:
        """The density figure's payload, with the tour's concealment (one message)."""
        data = dict(self._dens_payload)
        if concealed:
            data.update(sub=self._tr("tour.concealed_sub"), sub2="")
        if data != self.dens_plot.data:
            self.dens_plot.data = data

    def _draw_curve(self, cv: CurveView) -> None:
        s = self.state
        show_lap = "laplace" in s.overlays and not cv.all_zero
        show_cl = "classic" in s.overlays and not cv.all_zero
        set_data(self.src_curve, eps=cv.eps, y=cv.y, lap=cv.laplace, cl_in=cv.classic_in,
                  cl_out=cv.classic_out)
        set_props(self.r_lap, visible=show_lap)
        set_props(self.r_cl_in, visible=show_cl)
        set_props(self.r_cl_out, visible=show_cl)
        # The legend lists the visible curves: made again only when an overlay is switched.
        key = (show_lap, show_cl)
        if key != self._curve_legend_key:
            self._curve_legend_key = key
            self.curve_legend.set_text(legend_html(self.leg_curve, self._tr("lab.legend")))
        lo, hi = float(cv.eps[0]), float(cv.eps[-1])
        set_props(self.fig_curve.x_range, start=lo, end=hi)
        if math.isnan(cv.claimed_y):
            set_data(self.src_claim, eps=[], y=[])
        else:
            set_data(self.src_claim, eps=[lo, hi], y=[cv.claimed_y, cv.claimed_y])
        set_props(self.eps_span, location=cv.current_eps)
        if math.isnan(cv.current_y):
            set_data(self.src_cur, eps=[], y=[])
        else:
            set_data(self.src_cur, eps=[cv.current_eps], y=[cv.current_y])
        set_props(self.fig_curve.yaxis[0], axis_label=self._tr(
            "lab.curve.ylabel_log" if cv.scale == "log10" else "lab.curve.ylabel_lin"))
        # δ = 0 everywhere (constant query): no finite value for the automatic range, and
        # BokehJS then drew the plot without axes; an invisible frame line gives it one.
        if cv.all_zero:
            ys = [-10.0, 0.0] if cv.scale == "log10" else [0.0, 1.0]
            set_data(self.src_frame, eps=[lo, hi], y=ys)
        else:
            set_data(self.src_frame, eps=[], y=[])
        notes = []
        if cv.all_zero:
            notes.append(self._tr("lab.curve.all_zero_short"))
        elif cv.scale == "log10" and math.isnan(cv.claimed_y):
            notes.append(self._tr("lab.curve.claim_zero_log"))
        set_props(self.curve_note, text="\n".join(notes))

    def _draw_sim(self, sv: SimulationView) -> None:
        # Same cached histograms (an eps move): nothing to send.
        data = self.src_hist.data
        if data.get("top0") is not sv.hist0 or data.get("top1") is not sv.hist1:
            set_data(self.src_hist, left=sv.edges[:-1], right=sv.edges[1:], top0=sv.hist0,
                     top1=sv.hist1)
        if self.fig_sim is not None:
            set_props(self.fig_sim.xaxis[0], axis_label=self._dens_payload.get("xlabel", ""))
            set_props(self.fig_sim.yaxis[0], axis_label=self._dens_payload.get("ylabel", ""))
