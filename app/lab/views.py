"""The lab's light views (docs/light-page.md, stage 2): figures drawn by the browser.

Each view turns what :mod:`app.lab.compute` made from the state into one compact payload;
the browser draws from it (assets/dplab-density.js). The numbers a student reads (P₀, e^ε·P₁,
the threshold) are formatted here from dpcore's values; the browser only derives the two
density curves from σ and Δ, which it can do exactly enough for a picture.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.lab.compute import DensityView
from app.shell import svgplot
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
