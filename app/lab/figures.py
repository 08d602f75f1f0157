"""The lab's three figures (worst-neighbour densities, the ε–δ curve, the simulation histograms).

Each figure is one model the browser draws from a compact message (app/lab/views.py, the light
page of docs/light-page.md); a move sends a figure's message only when it changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.lab.card import CARD_CSS
from app.lab.compute import (
    CurveView,
    DensityView,
    SimulationView,
)
from app.lab.state import EPS_MAX
from app.lab.views import (
    CurvePlot,
    DensityPlot,
    SimPlot,
    curve_legend,
    curve_payload,
    density_legend,
    density_payload,
    sim_legend,
    sim_payload,
)
from app.shell import svgplot, widgets
from app.shell.legend import LEGEND_CSS, legend_html

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
        p = self.pal
        # Projector mode: taller figures so that larger text leaves room for the curves.
        height = PLOT_HEIGHT_LARGE if self._large else PLOT_HEIGHT
        look = svgplot.look(p, self._large, height)
        # Each figure is one model the browser draws from a compact message (app/lab/views.py).
        self.dens_plot = DensityPlot(look=look, key="density", sizing_mode="stretch_width",
                                     height=height, css_classes=["dp-density-plot"])
        self.leg_dens = density_legend(p, self._tr)
        self._dens_payload: dict[str, Any] = {}
        # A click in the curve's plot sets ε there.
        self.curve_plot = CurvePlot(on_tap=self._tap_at, look=look, key="curve",
                                    sizing_mode="stretch_width", height=height,
                                    css_classes=["dp-curve-plot"])
        self.leg_curve, self._curve_overlays = curve_legend(p, self._tr)
        self._curve_legend_key: tuple[bool, bool] | None = None  # (Laplace, classic) shown
        sim_height = PLOT_HEIGHT - 40
        self.sim_plot = SimPlot(look=svgplot.look(p, self._large, sim_height), key="simulation",
                                sizing_mode="stretch_width", height=sim_height,
                                css_classes=["dp-sim-plot"])
        self.leg_sim = sim_legend(p, self._tr)

        card_css = [CARD_CSS, *self._theme_css()]
        self.card = widgets.TextPane("", stylesheets=card_css, sizing_mode="stretch_width",
                                    css_classes=["dp-card-pane"])
        self.dens_text = widgets.TextPane("", stylesheets=card_css, sizing_mode="stretch_width")
        self.curve_text = widgets.TextPane("", stylesheets=card_css, sizing_mode="stretch_width")
        self.sim_text = widgets.TextPane("", stylesheets=card_css, sizing_mode="stretch_width")
        legend = self._tr("lab.legend")
        self.dens_legend, self.curve_legend, self.sim_legend = (
            widgets.TextPane(legend_html(entries, legend), stylesheets=[LEGEND_CSS],
                             sizing_mode="stretch_width", margin=(0, 5))
            for entries in (self.leg_dens, self.leg_curve, self.leg_sim))

    def build_hidden_parts(self) -> None:
        """Nothing is left to make ahead: every figure is one model from the start (a page
        built ahead by app/serve/prebuild.py calls this)."""

    def _tap_at(self, x: float) -> None:
        """A click on the curve at ε = ``x``: ε there (3 significant digits, within bounds)."""
        x = min(EPS_MAX, max(0.0, float(f"{x:.3g}") if x > 0 else 0.0))
        self._safe(self.state.set_value, "eps", x)
        self._show_errors()

    def _draw_density(self, dv: DensityView, sens: float, unit: str) -> None:
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
        # The legend lists the visible curves: made again only when an overlay is switched.
        key = (show_lap, show_cl)
        if key != self._curve_legend_key:
            self._curve_legend_key = key
            self._curve_overlays["lap"].visible = show_lap
            self._curve_overlays["classic"].visible = show_cl
            self.curve_legend.set_text(legend_html(self.leg_curve, self._tr("lab.legend")))
        sens = float(self._dens_payload.get("d", 0.0))
        data = curve_payload(cv, show_lap, show_cl, self._tr, sens, s.sigma)
        if data != self.curve_plot.data:
            self.curve_plot.data = data

    def _draw_sim(self, sv: SimulationView) -> None:
        s = self.state
        data = sim_payload(sv, float(self._dens_payload.get("d", 0.0)), s.sigma,
                           self._dens_payload, self._tr)
        if data != self.sim_plot.data:
            self.sim_plot.data = data
