"""Colours per theme.

Each theme's colours are chosen for WCAG 2.1 contrast (lines ≥ 3:1, text ≥ 4.5:1 against the
background; tests check both themes). The figures are drawn by the browser from these colours
(app/shell/svgplot.py ``look``).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.shell.options import is_dark


# ---------------------------------------------------------------------------------------------
# colours per theme
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Palette:
    """Colours of one theme. Lines ≥ 3:1 and text ≥ 4.5:1 against ``background`` (WCAG 2.1)."""

    name: str
    background: str  # plot area and border (same as the page)
    text: str  # titles, axis and tick labels, legend
    grid: str  # decoration only (not a data line)
    d0: str  # dataset D (blue)
    d1: str  # neighbour D' (reddish purple)
    claim: str  # the claimed delta (orange)
    curve: str  # the exact Gaussian curve
    laplace: str  # comparison: Laplace at equal MSE (green)
    classic: str  # comparison: classic bound (grey)
    marker: str  # vertical markers (boundary t, current eps)
    note: str  # warning text inside a plot
    label_bg: str  # background behind labels inside the plot area
    passed: str  # verdict text: pass
    failed: str  # verdict text: fail


PALETTES: dict[str, Palette] = {
    "default": Palette(
        name="default", background="#ffffff", text="#222222", grid="#d5d5d5",
        d0="#0072b2", d1="#b4508a", claim="#d55e00", curve="#1b1b1b", laplace="#00845f",
        classic="#6b6b6b", marker="#555555", note="#8a3b00", label_bg="#ffffff",
        passed="#007a4d", failed="#b3261e"),
    "dark": Palette(
        name="dark", background="#181818", text="#e6e6e6", grid="#3a3a3a",
        d0="#56b4e9", d1="#f08cc8", claim="#ff9d4d", curve="#f2f2f2", laplace="#3fd6a0",
        classic="#b8b8b8", marker="#c8c8c8", note="#ffb37a", label_bg="#181818",
        passed="#4cd69a", failed="#ff8a80"),
}


def palette(dark: bool | None = None) -> Palette:
    """The colours of the current session's theme (or of ``dark`` when given)."""
    return PALETTES["dark" if (is_dark() if dark is None else dark) else "default"]
