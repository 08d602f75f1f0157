"""What each /lab view shows for a state, as the message its browser module draws from.

Pure functions of a lab state's values (``LabValues``), the language and the layout, each made
once per worker and view state (``svgplot.shared``: the key names every input it reads), so a
page's own views (app/lab/figures.py), a room's followers and a student's own moves
(app/lab/follow.py ``views_of``, app/lab/moves.py) take the very same objects. A state's
whole view set is :func:`views_json`: no page, no Panel object is involved in making it.
"""

from __future__ import annotations

import functools
import html
import json
from typing import TYPE_CHECKING, Any

from app.lab.card import card_html, unit_label
from app.lab.compute import curve_view, density_view, simulation, tradeoff_view
from app.lab.controls import control_values
from app.lab.state import plain
from app.lab.texts import curve_text, density_text, sim_text, tradeoff_text
from app.lab.views import (
    curve_legend_off,
    curve_payload,
    density_payload,
    per_base,
    sim_payload,
    tradeoff_payload,
)
from app.shell import svgplot
from app.shell.i18n import t
from app.shell.numbers import fmt_input
from dpcore import queries

if TYPE_CHECKING:
    from collections.abc import Callable

    from app.lab.state import LabState
    from app.lab.values import LabValues


@functools.cache
def translator(lang: str) -> Callable[..., str]:
    """``tr(key, **fmt)`` in ``lang``."""
    return functools.partial(_tr, lang=lang)


def _tr(key: str, lang: str, **fmt: Any) -> str:
    return t(key, lang, **fmt)


def fold(lang: str, large: bool, key: str, body: str) -> str:
    """``body`` inside a ``<details>`` titled ``key``: closed in the projector view."""
    return (f'<details class="dp-fold"{"" if large else " open"}><summary>'
            f"{html.escape(t(key, lang))}</summary>{body}</details>")


def density(s: LabState | LabValues, sens: float, unit: str, lang: str, large: bool
            ) -> svgplot.Message:
    v = plain(s)
    sigma, eps = v.sigma, v.eps

    def make() -> svgplot.Message:
        dv = density_view(sens, sigma, eps)
        data = density_payload(dv, sens, sigma, unit, translator(lang))
        data["html_text"] = svgplot.text_html(fold(
            lang, large, "lab.fold.dens_text", density_text(dv, sens, sigma, eps, unit, lang)))
        return svgplot.Message(data)

    msg: svgplot.Message = svgplot.shared(
        ("lab.density", sens, sigma, eps, unit, lang, large), make)
    return msg


def curve(s: LabState | LabValues, sens: float, lang: str, large: bool
          ) -> tuple[svgplot.Message, tuple[bool, bool]]:
    """The curve's message and which overlays it draws (Laplace, classic)."""
    s = plain(s)
    sigma, eps, delta = s.sigma, s.eps, s.delta
    lo, hi, scale, claim = s.eps_lo, s.eps_hi, s.scale, s.claim.log10
    overlays = tuple(s.overlays)

    def make() -> tuple[svgplot.Message, tuple[bool, bool]]:
        cv = curve_view(sens, sigma, eps, delta, lo, hi, scale, claimed_log10=claim)
        show_lap = "laplace" in overlays and not cv.all_zero
        show_cl = "classic" in overlays and not cv.all_zero
        data = curve_payload(cv, show_lap, show_cl, translator(lang), sens, sigma)
        # the legend lists the curves drawn
        data["legend_off"] = curve_legend_off(show_lap, show_cl)
        data["html_text"] = svgplot.text_html(
            fold(lang, large, "lab.fold.curve_text", curve_text(cv, delta, lang)))
        return svgplot.Message(data), (show_lap, show_cl)

    got: tuple[svgplot.Message, tuple[bool, bool]] = svgplot.shared(
        ("lab.curve", sens, sigma, eps, delta, lo, hi, scale, claim, overlays, lang, large),
        make)
    return got


def sim(s: LabState | LabValues, sens: float, unit: str, lang: str, dens: dict[str, Any]
        ) -> svgplot.Message:
    """The simulation (``dens``: the densities' message data of the same state gives the
    threshold and the axis labels)."""
    s = plain(s)
    sigma, eps, n, seed = s.sigma, s.eps, s.sim_n, s.sim_seed

    def make() -> svgplot.Message:
        sv = simulation(sens, sigma, eps, n, seed, -4.0 * sigma, sens + 4.0 * sigma)
        data = sim_payload(sv, sens, sigma, dens, translator(lang))
        data["html_text"] = svgplot.text_html(sim_text(sv, eps, lang))
        return svgplot.Message(data)

    msg: svgplot.Message = svgplot.shared(
        ("lab.sim", sens, sigma, eps, n, seed, unit, lang), make)
    return msg


def attacker(s: LabState | LabValues, sens: float, lang: str, large: bool) -> svgplot.Message:
    s = plain(s)
    sigma, eps, delta, fpr, typed = s.sigma, s.eps, s.delta, s.attack_fpr, s.attack_text
    delta_text, verdict = s.delta_text, s.certification().verdict
    tr = translator(lang)

    def make() -> svgplot.Message:
        tv = tradeoff_view(sens, sigma, eps, delta, fpr)
        error = tr("lab.attack.error", text=typed.strip()) if typed else ""
        data = tradeoff_payload(tv, eps, delta, fmt_input(fpr), error, tr)
        data["html_text"] = svgplot.text_html(fold(lang, large, "lab.fold.attack_text",
                                                   tradeoff_text(tv, eps, delta, delta_text,
                                                                 verdict, per_base(fpr), lang)))
        return svgplot.Message(data)

    msg: svgplot.Message = svgplot.shared(
        ("lab.attack", sens, sigma, eps, delta, delta_text, fpr, typed, verdict, lang, large),
        make)
    return msg


def views(s: LabState | LabValues, lang: str, large: bool) -> dict[str, Any]:
    """Every view of state ``s`` (no errors, no tour step) as a following page takes them: the
    card's HTML by its pane's class, each figure's message (JSON text) by key, the controls'
    values (JSON text)."""
    s = plain(s)
    sens = float(queries.sensitivity(s.query, s.n, s.B))
    unit = unit_label(lang, queries.unit_key(s.query))
    dens = density(s, sens, unit, lang, large)
    plots = {"density": dens, "curve": curve(s, sens, lang, large)[0],
             "simulation": sim(s, sens, unit, lang, dens.data),
             "attacker": attacker(s, sens, lang, large)}
    return {"panes": {"dp-card-pane": card_html(s, s.certification(), lang, folded=large)},
            "plots": {k: m.text for k, m in plots.items()},
            "controls": svgplot.encode(control_values(s, lang))}


def views_json(s: LabState | LabValues, lang: str, large: bool) -> str:
    """:func:`views` as one JSON text."""
    return json.dumps(views(s, lang, large), ensure_ascii=False, separators=(",", ":"))
