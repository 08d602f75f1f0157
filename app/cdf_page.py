"""The private CDF page (/cdf): one data set, one release, the private CDF next to the reference.

State: :class:`CDFState` (param only; unit-tested without a browser in
tests/test_cdf_page_state.py).  A *release* happens when the data set, n, the data seed, eps,
delta, the method or the noise seed changes; each release on the same data is added to the
session's privacy ledger (basic composition: eps and delta add up, Dwork & Roth Thm 3.16).
The PP degree slider re-evaluates the same noisy coefficients (post-processing): it costs no
privacy and does not touch the ledger.  The reference CDF (population CDF for synthetic data,
empirical CDF for real data) is NOT private and is labelled so.  Key outputs carry stable CSS
classes: dp-cdf-ks, dp-cdf-w1, dp-cdf-energy, dp-cdf-eps, dp-cdf-delta, dp-cdf-total-eps,
dp-cdf-total-delta, dp-cdf-degree, dp-cdf-table.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import param

from dpcore.cdf import CDFEstimate, estimate
from dpcore.cdf.datasets import REAL, SYNTHETIC, load_real, population_cdf, sample
from dpcore.cdf.metrics import Distances, distances, ecdf

DATASETS = (*SYNTHETIC, *REAL)
METHOD_NAMES = ("auto", "pp", "mp", "hq", "aq")
PLOT_POINTS = 512
TABLE_PROBS = (0.1, 0.25, 0.5, 0.75, 0.9)
TABLE_CSS = """
.dp-cdf-table { border-collapse: collapse; margin: .5em 0; }
.dp-cdf-table caption { text-align: left; font-weight: 600; padding-bottom: .3em; }
.dp-cdf-table th, .dp-cdf-table td { padding: .15em .8em; border-bottom: 1px solid #8884;
  text-align: right; font-variant-numeric: tabular-nums; }
"""


@dataclass(frozen=True)
class Ledger:
    """Releases made on one data set in this session (basic composition)."""

    releases: int
    eps: float
    delta: float


class CDFState(param.Parameterized):
    """Everything the /cdf page shows is a function of these parameters."""

    dataset = param.Selector(
        default="bimodal",
        objects=list(DATASETS),
        doc="Data set: a synthetic shape on [0, 1] (fresh draws) or a real one-column CSV.",
    )
    n = param.Integer(
        default=10_000,
        bounds=(100, 200_000),
        doc="Number of synthetic records drawn (ignored for real data sets); public.",
    )
    data_seed = param.Integer(
        default=1, bounds=(0, 2**31 - 1), doc="Seed of the synthetic sample (not private)."
    )
    eps = param.Number(
        default=1.0, bounds=(0.01, 20.0), doc="Privacy parameter epsilon of one release (no unit)."
    )
    log10_delta = param.Integer(
        default=-6, bounds=(-15, -2), doc="log10 of the privacy parameter delta of one release."
    )
    method = param.Selector(
        default="auto",
        objects=list(METHOD_NAMES),
        doc="Estimator: auto, pp (polynomial projection), mp (matching pursuit), hq, aq.",
    )
    noise_seed = param.Integer(
        default=1,
        bounds=(0, 2**31 - 1),
        doc="Seed of the privacy noise; a new seed is a new release.",
    )
    auto_degree = param.Boolean(
        default=True,
        doc="PP only: let the automatic rule pick the degree from the noisy coefficients.",
    )
    degree = param.Integer(
        default=10,
        bounds=(0, 64),
        doc="PP only: degree used when auto_degree is off (post-processing).",
    )

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        # data key -> {release key: (eps, delta)}; the same key with the same seeds reproduces
        # the same output, so it is counted once.
        self._ledgers: dict[tuple[str, int, int], dict[tuple[Any, ...], tuple[float, float]]] = {}
        self._release_key: tuple[Any, ...] | None = None
        self._estimate: CDFEstimate | None = None

    # ---- data -------------------------------------------------------------------------------
    @property
    def is_synthetic(self) -> bool:
        return self.dataset in SYNTHETIC

    def data(self) -> tuple[np.ndarray, tuple[float, float], str]:
        """(values, public bounds, unit).  Real values are the shipped CSV (NOT private)."""
        if self.is_synthetic:
            x = sample(self.dataset, self.n, np.random.default_rng([self.data_seed, 11]))
            return x, (0.0, 1.0), ""
        real = load_real(self.dataset)
        return np.asarray(real.values), real.bounds, real.unit

    def reference(self) -> Any:
        """Population CDF (synthetic) or empirical CDF of the clipped data (real): NOT private."""
        if self.is_synthetic:
            return population_cdf(self.dataset)
        x, (lo, hi), _ = self.data()
        return ecdf(np.clip(x, lo, hi))

    def _data_key(self) -> tuple[str, int, int]:
        if self.is_synthetic:
            return (self.dataset, self.n, self.data_seed)
        return (self.dataset, 0, 0)

    # ---- the release ------------------------------------------------------------------------
    @property
    def delta(self) -> float:
        return 10.0**self.log10_delta

    def release(self) -> CDFEstimate:
        """The current release; a new one (recorded in the ledger) only when its inputs change."""
        key = (self._data_key(), self.eps, self.log10_delta, self.method, self.noise_seed)
        if key != self._release_key or self._estimate is None:
            x, bounds, _ = self.data()
            opts: dict[str, Any] = {"degree": "auto"} if self.method == "pp" else {}
            est = estimate(
                x,
                bounds=bounds,
                eps=self.eps,
                delta=self.delta,
                method=self.method,
                rng=np.random.default_rng([self.noise_seed, 12]),
                **opts,
            )
            self._ledgers.setdefault(self._data_key(), {})[key] = (est.eps, est.delta)
            self._release_key = key
            self._estimate = est
        return self._estimate

    def current(self) -> CDFEstimate:
        """The release post-processed at the chosen degree (PP, auto off): no privacy cost."""
        est = self.release()
        if self.method == "pp" and not self.auto_degree:
            k_max = est.release.values.size - 1
            return est.with_degree(min(self.degree, k_max))
        return est

    def ledger(self) -> Ledger:
        """All releases on the current data set in this session, by basic composition."""
        self.release()
        items = list(self._ledgers.get(self._data_key(), {}).values())
        return Ledger(
            len(items), math.fsum(e for e, _ in items), min(1.0, math.fsum(d for _, d in items))
        )

    def metrics(self) -> Distances:
        _, (lo, hi), _ = self.data()
        return distances(self.current(), self.reference(), lo, hi)

    def curves(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(points, private CDF, reference CDF) on PLOT_POINTS points across the bounds."""
        _, (lo, hi), _ = self.data()
        pts = np.linspace(lo, hi, PLOT_POINTS)
        return pts, self.current()(pts), np.asarray(self.reference()(pts), dtype=float)


# ---------------------------------------------------------------------------------------------
# text views (pure functions of the state; the page shows them next to the plot)
# ---------------------------------------------------------------------------------------------
def _fmt(x: float, digits: int = 4) -> str:
    return f"{x:.{digits}g}"


def _unit_text(unit: str, lang: str) -> str:
    from app.i18n import t

    return unit if unit else t("cdf.unit.none", lang)


def metrics_html(state: CDFState, lang: str) -> str:
    from app.i18n import t

    m = state.metrics()
    _, _, unit = state.data()
    u = html.escape(unit) if unit else f"({html.escape(t('cdf.unit.none', lang))})"
    ref = t("cdf.ref.population" if state.is_synthetic else "cdf.ref.empirical", lang)
    none = html.escape(t("cdf.unit.none", lang))
    return f"""
    <section class="dp-card" aria-labelledby="dp-cdf-metrics-title">
      <h2 id="dp-cdf-metrics-title">{html.escape(t("cdf.metrics.title", lang))}</h2>
      <p class="dp-muted">{html.escape(t("cdf.metrics.against", lang, reference=ref))}</p>
      <dl class="dp-grid">
        <dt>{html.escape(t("cdf.metrics.ks", lang))}</dt>
        <dd><span class="dp-cdf-ks">{_fmt(m.ks)}</span> ({none})</dd>
        <dt>{html.escape(t("cdf.metrics.w1", lang))}</dt>
        <dd><span class="dp-cdf-w1">{_fmt(m.w1)}</span> {u}</dd>
        <dt>{html.escape(t("cdf.metrics.energy", lang))}</dt>
        <dd><span class="dp-cdf-energy">{_fmt(m.energy)}</span> {"√" + u if unit else u}</dd>
      </dl>
    </section>"""


def privacy_html(state: CDFState, lang: str) -> str:
    from app.i18n import t

    est = state.current()
    rel = est.release
    led = state.ledger()
    deg = est.degree
    degree_row = ""
    if deg is not None:
        degree_row = (
            f"<dt>{html.escape(t('cdf.privacy.degree', lang))}</dt>"
            f'<dd><span class="dp-cdf-degree">{deg}</span> '
            f'<span class="dp-muted">({html.escape(t("cdf.privacy.degree_free", lang))})'
            f"</span></dd>"
        )
    return f"""
    <section class="dp-card" aria-labelledby="dp-cdf-privacy-title">
      <h2 id="dp-cdf-privacy-title">{html.escape(t("cdf.privacy.title", lang))}</h2>
      <dl class="dp-grid">
        <dt>{html.escape(t("cdf.privacy.this", lang))}</dt>
        <dd>ε = <span class="dp-cdf-eps">{_fmt(est.eps, 6)}</span>,
            δ = <span class="dp-cdf-delta">{_fmt(est.delta, 6)}</span></dd>
        <dt>{html.escape(t("cdf.privacy.mechanism", lang))}</dt>
        <dd>{html.escape(rel.mechanism)}; {
        html.escape(t("cdf.privacy.released", lang, count=rel.values.size))
    }; {
        html.escape(
            t("cdf.privacy.sensitivity", lang, norm=rel.norm, value=_fmt(rel.sensitivity, 6))
        )
    }</dd>
        <dt>{html.escape(t("cdf.privacy.clipped", lang))}</dt>
        <dd>{rel.n_below} + {rel.n_above} / n = {rel.n}</dd>
        {degree_row}
        <dt>{html.escape(t("cdf.privacy.total", lang, count=led.releases))}</dt>
        <dd>ε = <span class="dp-cdf-total-eps">{_fmt(led.eps, 6)}</span>,
            δ = <span class="dp-cdf-total-delta">{_fmt(led.delta, 6)}</span></dd>
      </dl>
      <p class="dp-note">{html.escape(t("cdf.privacy.note", lang))}</p>
    </section>"""


def table_html(state: CDFState, lang: str) -> str:
    """Text equivalent of the plot: both CDFs at the reference's 10/25/50/75/90 % points."""
    from app.i18n import t

    pts, f_priv, f_ref = state.curves()
    _, _, unit = state.data()
    u = html.escape(_unit_text(unit, lang))
    priv = html.escape(t("cdf.legend.private", lang))
    ref = html.escape(t("cdf.legend.reference", lang))
    rows = []
    for p in TABLE_PROBS:
        i = int(np.searchsorted(f_ref, p))
        i = min(i, pts.size - 1)
        rows.append(
            f"<tr><td>{_fmt(pts[i], 5)}</td><td>{_fmt(f_priv[i], 4)}</td>"
            f"<td>{_fmt(f_ref[i], 4)}</td></tr>"
        )
    return f"""
    <table class="dp-cdf-table">
      <caption>{html.escape(t("cdf.table.caption", lang))}</caption>
      <thead><tr><th scope="col">x ({u})</th><th scope="col">{priv}</th>
      <th scope="col">{ref}</th></tr></thead>
      <tbody>{"".join(rows)}</tbody>
    </table>"""


# ---------------------------------------------------------------------------------------------
# the page (Panel / Bokeh)
# ---------------------------------------------------------------------------------------------
class CDFPage:
    """Widgets, one Bokeh figure updated in place, and the text views of one CDFState."""

    def __init__(self, state: CDFState | None = None, lang: str = "ko") -> None:
        import panel as pn
        from bokeh.models import ColumnDataSource, Legend
        from bokeh.plotting import figure

        from app import layout
        from app.i18n import t

        self.state = state or CDFState()
        self.lang = lang
        tr = lambda key, **f: t(key, lang, **f)  # noqa: E731
        s = self.state
        self.w_dataset = pn.widgets.Select(
            sizing_mode="stretch_width",
            name=tr("cdf.ctl.dataset"),
            value=s.dataset,
            options={tr(f"cdf.data.{d}"): d for d in DATASETS},
        )
        wide = {"sizing_mode": "stretch_width"}
        self.w_n = pn.widgets.IntInput(
            name=tr("cdf.ctl.n"), value=s.n, start=100, end=200_000, step=1000, **wide
        )
        self.w_eps = pn.widgets.FloatSlider(
            name=tr("cdf.ctl.eps"), value=s.eps, start=0.05, end=10.0, step=0.05, **wide
        )
        self.w_delta = pn.widgets.IntSlider(
            name=tr("cdf.ctl.delta"), value=s.log10_delta, start=-15, end=-2, **wide
        )
        self.w_method = pn.widgets.Select(
            sizing_mode="stretch_width",
            name=tr("cdf.ctl.method"),
            value=s.method,
            options={tr(f"cdf.method.{m}"): m for m in METHOD_NAMES},
        )
        self.w_seed = pn.widgets.IntInput(
            name=tr("cdf.ctl.noise_seed"), value=s.noise_seed, start=0, end=2**31 - 1, **wide
        )
        self.w_auto = pn.widgets.Checkbox(
            name=tr("cdf.ctl.auto_degree"), value=s.auto_degree, css_classes=["dp-cdf-auto"]
        )
        self.w_degree = pn.widgets.IntSlider(
            name=tr("cdf.ctl.degree"),
            value=s.degree,
            start=0,
            end=64,
            css_classes=["dp-cdf-degree-slider"],
            **wide,
        )
        # releases only on value_throttled (a drag is many events); the degree is cheap
        self.w_eps.param.watch(lambda e: setattr(s, "eps", float(e.new)), "value_throttled")
        self.w_delta.param.watch(lambda e: setattr(s, "log10_delta", int(e.new)), "value_throttled")
        self.w_dataset.param.watch(lambda e: setattr(s, "dataset", e.new), "value")
        self.w_n.param.watch(lambda e: setattr(s, "n", int(e.new)), "value")
        self.w_method.param.watch(lambda e: setattr(s, "method", e.new), "value")
        self.w_seed.param.watch(lambda e: setattr(s, "noise_seed", int(e.new)), "value")
        self.w_auto.param.watch(lambda e: setattr(s, "auto_degree", bool(e.new)), "value")
        self.w_degree.param.watch(lambda e: setattr(s, "degree", int(e.new)), "value")

        self.src = ColumnDataSource({"x": [], "priv": [], "ref": []})
        fig = figure(
            height=420,
            sizing_mode="stretch_width",
            y_range=(-0.02, 1.02),
            x_axis_label=tr("cdf.plot.x"),
            y_axis_label=tr("cdf.plot.y"),
            title=tr("cdf.plot.title"),
            toolbar_location="above",
        )
        r_ref = fig.line(
            "x", "ref", source=self.src, line_width=3, line_dash="dashed", color="#6b6b6b"
        )
        r_priv = fig.line("x", "priv", source=self.src, line_width=3, color="#0072b2")
        legend = Legend(
            items=[(tr("cdf.legend.private"), [r_priv]), (tr("cdf.legend.reference"), [r_ref])],
            location="center",
        )
        fig.add_layout(legend, "below")
        fig.css_classes = ["dp-cdf-plot"]
        layout.large_type(fig)
        self.fig = fig
        self.plot = pn.pane.Bokeh(fig, sizing_mode="stretch_width")
        from app.lab_page import CARD_CSS  # the shared card look (HTML panes live in shadow DOM)

        css = [CARD_CSS, TABLE_CSS]
        self.metrics = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=css)
        self.privacy = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=css)
        self.table = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=css)
        self.error = pn.pane.HTML("", css_classes=["dp-cdf-error"], sizing_mode="stretch_width")
        s.param.watch(lambda *_: self.refresh(), [p for p in s.param if p != "name"])
        self.refresh()

    def refresh(self) -> None:
        from app.i18n import t

        s = self.state
        self.w_n.disabled = not s.is_synthetic
        pp_fixed = s.method == "pp"
        self.w_auto.disabled = not pp_fixed
        self.w_degree.disabled = not pp_fixed or s.auto_degree
        try:
            pts, f_priv, f_ref = s.curves()
        except ValueError as exc:  # a rejected input: show it, keep the last picture
            self.error.object = f'<p class="dp-warn" role="alert">{html.escape(str(exc))}</p>'
            return
        self.error.object = ""
        self.src.data = {"x": pts, "priv": f_priv, "ref": f_ref}
        _, _, unit = s.data()
        self.fig.xaxis.axis_label = t("cdf.plot.x", self.lang) + (f" ({unit})" if unit else "")
        self.metrics.object = metrics_html(s, self.lang)
        self.privacy.object = privacy_html(s, self.lang)
        self.table.object = table_html(s, self.lang)

    def sidebar(self) -> list[Any]:
        import panel as pn

        from app.i18n import t

        return [
            pn.pane.Markdown(f"### {t('cdf.side.data', self.lang)}"),
            self.w_dataset,
            self.w_n,
            pn.pane.Markdown(f"### {t('cdf.side.privacy', self.lang)}"),
            self.w_eps,
            self.w_delta,
            self.w_method,
            self.w_seed,
            pn.pane.Markdown(f"### {t('cdf.side.degree', self.lang)}"),
            self.w_auto,
            self.w_degree,
        ]

    def main(self) -> list[Any]:
        import panel as pn

        from app.i18n import t

        intro = pn.pane.Markdown(t("cdf.intro", self.lang), sizing_mode="stretch_width")
        return [
            intro,
            self.error,
            self.plot,
            self.table,
            pn.Row(self.metrics, self.privacy, sizing_mode="stretch_width"),
        ]


def create_page(lang: str | None = None) -> Any:
    """The /cdf page for the current session (language from ?lang or Accept-Language)."""
    from app import layout
    from app.i18n import request_language, t

    lang = lang or request_language()
    page = CDFPage(CDFState(), lang)
    return layout.page(
        lang=lang, title=t("cdf.title", lang), path="/cdf", main=page.main(),
        sidebar=page.sidebar(), sidebar_width=480 if layout.is_large() else 380,
    )
