"""The "sketch it before you see it" figures of the lessons: static SVG computed by dpcore.

Each figure is an empty frame (axes, ticks, an optional reference curve) with a drawing layer
for the student's own sketch (assets/lesson-teach.js) and the real curve, hidden until the
reveal. The curves are computed when the page is built, like every number of the lesson
(``{{name}}`` values): no Bokeh session, the page stays plain HTML.

Fixed classes: dp-sketch (the figure), dp-sketch-pad (the drawing layer), dp-sketch-answer
(the real curve, ``hidden`` until the reveal), dp-sketch-guide (the reference curve).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from dpcore import gaussian
from dpcore.cdf import estimate
from dpcore.cdf.datasets import population_cdf, sample

W, H = 360.0, 246.0
LEFT, RIGHT, TOP, BOTTOM = 46.0, 14.0, 28.0, 36.0


@dataclass(frozen=True)
class Figure:
    x_label: str
    y_label: str
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    x_ticks: tuple[float, ...]
    y_ticks: tuple[float, ...]
    answer: tuple[tuple[float, float], ...]
    guide: tuple[tuple[float, float], ...] = ()


def _delta_curve() -> Figure:
    """δ(ε) of the lesson's sum example (Δ = 1, σ = 1) for ε in [0, 4]."""
    eps = np.linspace(0.0, 4.0, 81)
    d = np.asarray(gaussian.delta(eps, 1.0, 1.0), dtype=float)
    return Figure("ε", "δ(ε)", (0.0, 4.0), (0.0, 0.4), (0, 1, 2, 3, 4), (0, 0.1, 0.2, 0.3, 0.4),
                  tuple(zip(eps.tolist(), d.tolist(), strict=True)))


def _private_cdf() -> Figure:
    """bimodal, n = 1000, ε = 0.1, δ = 1e-6, the default method, data and noise seed 1 (the
    seeds of /cdf); the dashed reference is the population CDF."""
    x = sample("bimodal", 1000, np.random.default_rng([1, 11]))
    est = estimate(x, bounds=(0.0, 1.0), eps=0.1, delta=1e-6, method="auto",
                   rng=np.random.default_rng([1, 12]))
    t = np.linspace(0.0, 1.0, 121)
    f = np.asarray(est(t), dtype=float)
    ref = np.asarray(population_cdf("bimodal")(t), dtype=float)
    ticks = (0, 0.25, 0.5, 0.75, 1)
    return Figure("x", "F(x)", (0.0, 1.0), (0.0, 1.0), ticks, ticks,
                  tuple(zip(t.tolist(), f.tolist(), strict=True)),
                  tuple(zip(t.tolist(), ref.tolist(), strict=True)))


FIGURES: dict[str, Callable[[], Figure]] = {"delta-curve": _delta_curve,
                                            "private-cdf": _private_cdf}
#: The "open in the lab / CDF page" address that shows the same curve live.
LINKS = {"delta-curve": "/lab?q=sum&n=4&B=1&sigma=1&eps=1&delta=0.13",
         "private-cdf": "/cdf?data=bimodal&n=1000&eps=0.1&delta=1e-6&method=auto&seed=1"}


@cache
def figure(name: str) -> Figure:
    return FIGURES[name]()


def _tick(v: float) -> str:
    return f"{v:g}"


def _points(fig: Figure, pts: Sequence[tuple[float, float]]) -> str:
    (x0, x1), (y0, y1) = fig.x_range, fig.y_range

    def px(x: float) -> float:
        return LEFT + (x - x0) / (x1 - x0) * (W - LEFT - RIGHT)

    def py(y: float) -> float:
        y = min(max(y, y0), y1)
        return H - BOTTOM - (y - y0) / (y1 - y0) * (H - TOP - BOTTOM)

    return " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pts)


def svg(name: str, title: str, labels: dict[str, str]) -> str:
    """The figure as inline SVG; ``labels``: pad (aria label), yours, truth, guide."""
    fig = figure(name)
    (x0, x1), (y0, y1) = fig.x_range, fig.y_range
    ax = _points(fig, [(x0, y0), (x1, y0)])
    ay = _points(fig, [(x0, y0), (x0, y1)])
    ticks = []
    for v in fig.x_ticks:
        (px, py) = map(float, _points(fig, [(v, y0)]).split(","))
        ticks.append(f'<line x1="{px:.1f}" y1="{py:.1f}" x2="{px:.1f}" y2="{py + 5:.1f}"/>'
                     f'<text x="{px:.1f}" y="{py + 18:.1f}" text-anchor="middle">'
                     f"{_tick(v)}</text>")
    for v in fig.y_ticks:
        (px, py) = map(float, _points(fig, [(x0, v)]).split(","))
        ticks.append(f'<line class="dp-sketch-grid" x1="{px:.1f}" y1="{py:.1f}" '
                     f'x2="{W - RIGHT:.1f}" y2="{py:.1f}"/>'
                     f'<text x="{px - 6:.1f}" y="{py + 4:.1f}" text-anchor="end">'
                     f"{_tick(v)}</text>")
    guide = ""
    if fig.guide:
        guide = (f'<polyline class="dp-sketch-guide" points="{_points(fig, fig.guide)}">'
                 f"<title>{html.escape(labels['guide'])}</title></polyline>")
    esc = html.escape
    return (
        f'<svg class="dp-sketch-svg" viewBox="0 0 {W:g} {H:g}" role="img" '
        f'aria-label="{esc(labels["pad"])}" data-x0="{LEFT:g}" data-x1="{W - RIGHT:g}" '
        f'data-y0="{TOP:g}" data-y1="{H - BOTTOM:g}">'
        f'<g class="dp-sketch-axes"><polyline points="{ax}"/><polyline points="{ay}"/>'
        f'{"".join(ticks)}'
        f'<text x="{(LEFT + W - RIGHT) / 2:.1f}" y="{H - 4:.1f}" text-anchor="middle" '
        f'class="dp-sketch-label">{esc(fig.x_label)}</text>'
        f'<text x="6" y="16" class="dp-sketch-label">{esc(fig.y_label)}</text></g>'
        f"{guide}"
        f'<g class="dp-sketch-answer" hidden><polyline points="{_points(fig, fig.answer)}">'
        f"<title>{esc(labels['truth'])}</title></polyline></g>"
        f'<polyline class="dp-sketch-pad-line" points=""><title>{esc(labels["yours"])}</title>'
        f"</polyline>"
        f'<rect class="dp-sketch-pad" x="{LEFT:g}" y="{TOP:g}" width="{W - LEFT - RIGHT:g}" '
        f'height="{H - TOP - BOTTOM:g}"/></svg>')
