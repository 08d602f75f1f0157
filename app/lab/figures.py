"""The lab's three figures (worst-neighbour densities, the ε–δ curve, the simulation histograms).

Each figure is one model the browser draws from a compact message (app/lab/views.py, the light
page of docs/light-page.md); a move sends a figure's message only when it changed.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from app.lab import messages
from app.lab.card import CARD_CSS
from app.lab.state import EPS_MAX
from app.lab.views import (
    CurvePlot,
    DensityPlot,
    SimPlot,
    TradeoffPlot,
    curve_legend,
    density_legend,
    sim_legend,
    tradeoff_legend,
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
        lang: str
        pal: Palette
        _large: bool
        _dark: bool

        def _tr(self, key: str, **fmt: Any) -> str: ...
        def _fold(self, key: str, body: str, *, folded: bool | None = None) -> str: ...
        def _safe(self, fn: Callable[..., object], *args: object) -> None: ...
        def _show_errors(self) -> None: ...
        def _theme_css(self) -> list[str]: ...

    def _build_figures(self) -> None:
        p = self.pal
        # Projector mode: taller figures so that larger text leaves room for the curves.
        height = PLOT_HEIGHT_LARGE if self._large else PLOT_HEIGHT
        look = svgplot.look(p, self._large, height)
        # Each figure is one model the browser draws from a compact message (app/lab/views.py);
        # no fixed height: its heading, legend and text equivalent are in it too.
        self.dens_plot = DensityPlot(look=look, key="density", sizing_mode="stretch_width",
                                     css_classes=["dp-density-plot"])
        self.leg_dens = density_legend(p, self._tr)
        self._dens_msg = svgplot.Message({})
        # A click in the curve's plot sets ε there.
        self.curve_plot = CurvePlot(on_tap=self._tap_at, look=look, key="curve",
                                    sizing_mode="stretch_width",
                                    css_classes=["dp-curve-plot"])
        self.leg_curve, self._curve_overlays = curve_legend(p, self._tr)
        sim_height = PLOT_HEIGHT - 40
        self.sim_plot = SimPlot(look=svgplot.look(p, self._large, sim_height), key="simulation",
                                sizing_mode="stretch_width",
                                css_classes=["dp-sim-plot"])
        self.leg_sim = sim_legend(p, self._tr)

        # What δ means to an attacker (issue 41): its field sets the attacker's FPR.
        # (no fixed height: its field sits above the figure and wraps on a phone)
        self.attack_plot = TradeoffPlot(on_fpr=self._fpr_typed, look=look, key="attacker",
                                        sizing_mode="stretch_width",
                                        css_classes=["dp-tradeoff-plot", "dp-attack-view"])
        self.leg_attack = tradeoff_legend(p, self._tr)

        card_css = [CARD_CSS, *self._theme_css()]
        self.card = widgets.TextPane("", stylesheets=card_css, sizing_mode="stretch_width",
                                    css_classes=["dp-card-pane"])
        # Each view is one component: heading, figure, legend and text equivalent
        # (app/shell/svgplot.py); the texts use the card's styles, the legends their own.
        legend = self._tr("lab.legend")
        view_css = [CARD_CSS, LEGEND_CSS, *self._theme_css()]
        for plot, entries in ((self.dens_plot, self.leg_dens), (self.curve_plot, self.leg_curve),
                              (self.sim_plot, self.leg_sim),
                              (self.attack_plot, self.leg_attack)):
            plot.param.update(stylesheets=view_css,
                              legend=legend_html(entries, legend, every=True))

    def build_hidden_parts(self) -> None:
        """Nothing is left to make ahead: every figure is one model from the start (a page
        built ahead by app/serve/prebuild.py calls this)."""

    def _tap_at(self, x: float) -> None:
        """A click on the curve at ε = ``x``: ε there (3 significant digits, within bounds)."""
        x = min(EPS_MAX, max(0.0, float(f"{x:.3g}") if x > 0 else 0.0))
        self._safe(self.state.set_value, "eps", x)
        self._show_errors()

    def _fpr_typed(self, text: str) -> None:
        """The attacker's FPR typed in its field (the view shows why one is refused)."""
        self._safe(self.state.set_attack_fpr, text)

    def _draw_attack(self, sens: float) -> None:
        self.attack_plot.set_message(messages.attacker(self.state, sens, self.lang, self._large))

    @property
    def _dens_payload(self) -> dict[str, Any]:
        return self._dens_msg.data

    def _draw_density(self, sens: float, unit: str) -> None:
        self._dens_msg = messages.density(self.state, sens, unit, self.lang, self._large)
        self._show_density()

    def _show_density(self, concealed: bool = False) -> None:
        """The density figure's message, with the tour's concealment (one message: its text
        equivalent answers the prediction too)."""
        if concealed:
            data = dict(self._dens_msg.data)
            note = html.escape(self._tr("tour.concealed_views"))
            data.update(sub=self._tr("tour.concealed_sub"), sub2="",
                        html_text=(f'<div class="dp-tour-conceal-note"><p class="dp-concealed-box"'
                                   f' role="status">{note}</p></div>'))
            self.dens_plot.set_message(data)
        else:
            self.dens_plot.set_message(self._dens_msg)

    def _draw_curve(self, sens: float) -> None:
        msg, shown = messages.curve(self.state, sens, self.lang, self._large)
        # (the save bar's PNG legend lists the visible curves too)
        self._curve_overlays["lap"].visible, self._curve_overlays["classic"].visible = shown
        self.curve_plot.set_message(msg)

    def _draw_sim(self, sens: float, unit: str) -> None:
        # (the density's message of the same state gives the threshold and the axis labels)
        self.sim_plot.set_message(messages.sim(self.state, sens, unit, self.lang,
                                               self._dens_payload))
