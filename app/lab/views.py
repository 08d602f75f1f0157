"""The lab's light views (docs/light-page.md, stage 2): figures drawn by the browser.

Each view turns what :mod:`app.lab.compute` made from the state into one compact payload;
the browser draws from it (assets/dplab-density.js). The numbers a student reads (P₀, e^ε·P₁,
the threshold) are formatted here from dpcore's values; the browser only derives the two
density curves from σ and Δ, which it can do exactly enough for a picture.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, ClassVar

from app.lab.compute import CurveView, DensityView, SimulationView, TradeoffView
from app.shell import assets, svgplot
from app.shell.legend import LegendEntry
from app.shell.numbers import fmt_num, fmt_prob
from app.shell.theme import Palette

#: What the density view reads from the lab's state (through the page's refresh).
DENSITY_READS = ("query", "n", "B", "sigma", "eps")


class DensityPlot(svgplot.SvgPlot):
    """N(0, σ²) and N(Δ, σ²), the worst event y < t shaded under both (`.dp-density-plot`)."""

    _esm = svgplot.module("dplab-density.js")


def density_payload(dv: DensityView, sens: float, sigma: float, unit: str,
                    tr: Callable[..., str], concealed: bool = False) -> dict[str, Any]:
    """What the density figure shows, from its view (the figure's texts in the page's
    language ``tr``). ``concealed``: a tour step hides the numbers that answer its question."""
    title = tr("lab.dens.title")
    out: dict[str, Any] = {
        "sigma": float(sigma), "d": float(sens), "lo": float(dv.lo), "hi": float(dv.hi),
        "t": None, "title": title, "aria": title, "note": "", "tlabel": "",
        "xlabel": tr("lab.dens.xlabel", unit=unit), "ylabel": tr("lab.dens.ylabel", unit=unit),
    }
    if sens == 0:
        out.update(sub="Δ = 0: δ = 0", sub2="", note=tr("lab.dens.same_short"))
    else:
        # 5 digits in the picture (it must fit a phone); all of them are in the text below.
        out.update(sub=tr("lab.dens.sub_event", t=fmt_num(dv.t, 6)),
                   sub2=(f"P₀ = {fmt_prob(dv.p0, dv.log_p0, 5)},  "
                         f"eᵋ·P₁ = {fmt_prob(dv.p1_scaled, dv.log_p1_scaled, 5)}"))
        if dv.t_outside is None:
            out.update(t=float(dv.t), tlabel=f"t = {fmt_num(dv.t, 5)}")
        else:
            out["note"] = tr("lab.dens.outside_short", t=fmt_num(dv.t, 6))
    if concealed:
        out.update(sub=tr("tour.concealed_sub"), sub2="")
    return out


def density_legend(pal: Palette, tr: Callable[..., str]) -> list[LegendEntry]:
    """The density figure's legend (drawn in HTML under it and into its PNG)."""
    return [LegendEntry(tr("lab.dens.legend_p0"), "area", pal.d0, (), 1.0, 0.25, None),
            LegendEntry(tr("lab.dens.legend_p1"), "hatch", pal.d1, (), 1.5, 0.8, None),
            LegendEntry(tr("lab.dens.legend_d0"), "line", pal.d0, (), 4.0, 1.0, None),
            LegendEntry(tr("lab.dens.legend_d1"), "line", pal.d1, (6, 4), 4.0, 1.0, None)]


class CurvePlot(svgplot.SvgPlot):
    """The ε–δ curve (`.dp-curve-plot`); a click in the plot sets ε there (``on_tap``)."""

    _esm = svgplot.module("dplab-curve.js")

    def __init__(self, on_tap: Callable[[float], None] | None = None, **params: Any) -> None:
        super().__init__(**params)
        self._on_tap = on_tap

    def _handle_msg(self, msg: Any) -> None:
        if self._on_tap is None or not isinstance(msg, dict):
            return
        try:
            x = float(msg.get("tap"))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return
        if math.isfinite(x):
            self._on_tap(x)


class Shown:
    """Whether a legend entry's line is drawn (app/shell/legend.py reads ``visible``)."""

    def __init__(self, visible: bool = True) -> None:
        self.visible = visible


def curve_legend(pal: Palette, tr: Callable[..., str]) -> tuple[list[LegendEntry],
                                                                dict[str, Shown]]:
    """The curve's legend entries and the switches of the two overlays ("lap", "classic")."""
    lap, classic = Shown(), Shown()
    entries = [
        LegendEntry(tr("lab.curve.legend_claim"), "line", pal.claim, (6, 4, 2, 4), 3.0, 1.0,
                    None),
        LegendEntry(tr("lab.curve.legend_laplace"), "line", pal.laplace, (2, 4), 3.0, 1.0, lap),
        LegendEntry(tr("lab.curve.legend_classic_in"), "line", pal.classic, (6, 4), 3.0, 1.0,
                    classic),
        LegendEntry(tr("lab.curve.legend_classic_out"), "line", pal.classic, (2, 4), 2.0, 1.0,
                    classic),
        LegendEntry(tr("lab.curve.legend_delta"), "line", pal.curve, (), 4.0, 1.0, None),
        LegendEntry(tr("lab.curve.legend_cur"), "marker", pal.curve, (), 1.0, 1.0, None),
    ]
    return entries, {"lap": lap, "classic": classic}


# The curve legend's entries each overlay switch shows (indices in curve_legend's list).
CURVE_OVERLAY_ENTRIES = {"lap": (1,), "classic": (2, 3)}


def curve_legend_off(show_lap: bool, show_cl: bool) -> list[int]:
    """The curve legend's entries hidden while an overlay is off (the view's ``legend_off``)."""
    return [i for name, shown in (("lap", show_lap), ("classic", show_cl)) if not shown
            for i in CURVE_OVERLAY_ENTRIES[name]]


def curve_payload(cv: CurveView, show_lap: bool, show_cl: bool, tr: Callable[..., str],
                  sens: float = 1.0, sigma: float = 1.0) -> dict[str, Any]:
    """What the curve figure shows: δ(ε) from dpcore on an even grid of ε in the chosen scale
    (4 significant digits: the exact values are in the text equivalent), the claim, the
    current ε and its point. The two comparisons are closed forms the browser draws from σ and
    Δ (assets/dplab-curve.js; dpcore.gaussian.laplace_log_delta and classic_log_delta): only
    whether each is shown is sent."""
    lo, hi = float(cv.eps[0]), float(cv.eps[-1])
    notes = []
    if cv.all_zero:
        notes.append(tr("lab.curve.all_zero_short"))
    elif cv.scale == "log10" and math.isnan(cv.claimed_y):
        notes.append(tr("lab.curve.claim_zero_log"))
    frame = ([-10.0, 0.0] if cv.scale == "log10" else [0.0, 1.0]) if cv.all_zero else None
    return {
        "lo": lo, "hi": hi, "y": svgplot.picture(cv.y), "sigma": float(sigma),
        "d": float(sens), "lap": bool(show_lap), "classic": bool(show_cl),
        "claim": None if math.isnan(cv.claimed_y) else float(cv.claimed_y),
        "span": float(cv.current_eps),
        "cur": (None if math.isnan(cv.current_y)
                else [float(cv.current_eps), float(cv.current_y)]),
        "frame": frame, "scale": cv.scale, "note": "\n".join(notes),
        "title": tr("lab.curve.title"), "xlabel": tr("lab.curve.xlabel"),
        "ylabel": tr("lab.curve.ylabel_log" if cv.scale == "log10" else "lab.curve.ylabel_lin"),
    }


class SimPlot(svgplot.SvgPlot):
    """The simulated releases' histograms under both densities (`.dp-sim-plot`)."""

    _esm = svgplot.module("dplab-sim.js")


def sim_legend(pal: Palette, tr: Callable[..., str]) -> list[LegendEntry]:
    """The simulation figure's legend (its bars; the density lines are the densities')."""
    return [LegendEntry(tr("lab.sim.legend_h0"), "area", pal.d0, (), 1.0, 0.35, None),
            LegendEntry(tr("lab.sim.legend_h1"), "hatch", pal.d1, (), 1.5, 0.8, None)]


def sim_payload(sv: SimulationView, sens: float, sigma: float, dens: dict[str, Any],
                tr: Callable[..., str]) -> dict[str, Any]:
    """What the simulation figure shows: the bins and the density-normalised counts of the
    simulated releases (synthetic noise: nothing private), the window, σ, Δ and the threshold
    as the density figure ``dens`` shows them."""
    edges = svgplot.picture(sv.edges, 6)
    return {"edges": edges, "h0": svgplot.picture(sv.hist0), "h1": svgplot.picture(sv.hist1),
            "lo": edges[0], "hi": edges[-1], "sigma": float(sigma), "d": float(sens),
            "t": dens.get("t"), "title": tr("lab.sim.title"),
            "xlabel": dens.get("xlabel", ""), "ylabel": dens.get("ylabel", "")}


class TradeoffPlot(svgplot.SvgPlot):
    """What δ means to an attacker (`.dp-tradeoff-plot`, issue 41): the best membership test's
    TPR for each FPR against this release, the region the claim allows, and the attacker the
    student picks in its field (`.dp-attack-fpr`; ``on_fpr`` gets the text typed)."""

    _esm = svgplot.module("dplab-tradeoff.js")
    _stylesheets: ClassVar[list[str]] = [*svgplot.SvgPlot._stylesheets,
                                         assets.text("dplab-tradeoff.css")]

    def __init__(self, on_fpr: Callable[[str], None] | None = None, **params: Any) -> None:
        super().__init__(**params)
        self._on_fpr = on_fpr

    def _handle_msg(self, msg: Any) -> None:
        if self._on_fpr is not None and isinstance(msg, dict) and "fpr" in msg:
            self._on_fpr(str(msg.get("fpr"))[:40])


def per_base(fpr: float) -> int:
    """The "in N" of the attacker's sentence: 100, or the power of ten that makes the false
    alarms at least one (1 in 1,000 at FPR 0.001)."""
    base = 100
    while fpr * base < 0.9999999 and base < 10**15:
        base *= 10
    return base


def tradeoff_legend(pal: Palette, tr: Callable[..., str]) -> list[LegendEntry]:
    return [LegendEntry(tr("lab.attack.legend_curve"), "line", pal.curve, (), 4.0, 1.0, None),
            LegendEntry(tr("lab.attack.legend_cap"), "line", pal.claim, (6, 4, 2, 4), 3.0, 1.0,
                        None),
            LegendEntry(tr("lab.attack.legend_guess"), "line", pal.text, (2, 4), 1.5, 1.0, None),
            LegendEntry(tr("lab.attack.legend_point"), "marker", pal.marker, (), 1.0, 1.0,
                        None)]


def tradeoff_payload(tv: TradeoffView, eps: float, claimed: float, fpr_text: str,
                     error: str, tr: Callable[..., str]) -> dict[str, Any]:
    """What the attacker's figure shows: μ = Δ/σ (None when infinite), ε and the claimed δ,
    from which the browser draws the curve and the claim's cap (assets/dplab-svgplot.js
    ``tradeoffTpr``, ``capTpr``: three numbers instead of 400, ~3 kB less per move; the exact
    rates are in the text equivalent), and the attacker's point from dpcore."""
    return {"mu": tv.mu if math.isfinite(tv.mu) else None, "eps": eps, "delta": claimed,
            "pt": [tv.fpr, tv.tpr_at],
            "pt_label": f"TPR ≤ {fmt_num(tv.tpr_at, 4)}", "fpr_text": fpr_text,
            "error": error, "fpr_label": tr("lab.attack.fpr_label"),
            "title": tr("lab.attack.title"), "xlabel": tr("lab.attack.xlabel"),
            "ylabel": tr("lab.attack.ylabel")}
