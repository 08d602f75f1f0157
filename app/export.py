"""Exports of the lab: the certification as JSON and Markdown, the ε–δ curve as CSV, and each
figure as PNG (drawn in the browser, offline), plus a CSV writer for a private CDF.

Every number comes from dpcore at the moment of the click, never from the page's text:

- JSON: exactly what ``dplab certify --json`` prints (language-neutral; tests compare them).
- Markdown: the card's content in the page's language, with the link that reproduces it.
- CSV: ``eps, delta, log10_delta`` on the curve's grid (UTF-8, ``#`` header lines with the
  release), 17 significant digits so that a spreadsheet reads back the same doubles.
- PNG: Bokeh's own canvas export in the browser (assets/dplab-export.js); the file carries the
  certification JSON in an ``iTXt`` chunk (keyword ``Description``), so a saved figure says
  which release it shows.

The pure functions are unit-tested; :class:`PngExport` and :func:`download_button` are the
Panel views (css classes ``dp-export-png``, ``dp-export-json``, ``dp-export-md``,
``dp-export-csv``).
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlencode

import numpy as np
import panel as pn
import param

from app.i18n import t
from app.lab_state import LabState, fmt_input
from dpcore import gaussian

ASSETS = Path(__file__).resolve().parent.parent / "assets"
CURVE_POINTS = 400


def certification_json(cert: Any) -> str:
    """The language-neutral JSON of ``dplab certify --json`` (same text, same key order)."""
    return json.dumps(cert.as_dict(), ensure_ascii=False, indent=2)


def file_stem(cert: Any) -> str:
    """``dplab-mean-n32-B1-sigma10-eps10``: names a file after its release."""
    return (f"dplab-{cert.query}-n{cert.n}-B{fmt_input(cert.B)}-sigma{fmt_input(cert.sigma)}"
            f"-eps{fmt_input(cert.eps)}")


def _r(x: float) -> str:
    """Round-trip text of a double (``repr``), ``inf``/``-inf`` spelled out."""
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(float(x))


def lab_link(state: LabState, lang: str) -> str:
    return "/lab?" + urlencode({**state.url_query(), "lang": lang})


def certification_markdown(state: LabState, cert: Any, lang: str) -> str:
    """The certification card as Markdown, in ``lang``."""
    from app.lab_page import VERDICTS, fmt_delta, fmt_log10, fmt_num, underflow_approx, verdict_kind

    unit = t(f"common.unit.{cert.unit}", lang)
    word_key, mark = VERDICTS[verdict_kind(cert)]
    yes, no = t("common.yes", lang), t("common.no", lang)
    required = fmt_delta(cert.required_delta)
    if cert.underflow:
        required += (f" ({t('lab.card.underflow_badge', lang)}) ≈ "
                     f"{underflow_approx(cert.log10_delta)}")
    claimed = state.delta_text or fmt_delta(cert.claimed_delta)
    rows = [
        (t("lab.card.release", lang),
         f"{t(f'common.query.{cert.query}', lang)}, n = {cert.n}, B = {fmt_input(cert.B)}, "
         f"σ = {fmt_input(cert.sigma)} {unit}, ε = {fmt_input(cert.eps)}"),
        (t("lab.card.sensitivity", lang), f"{fmt_num(cert.sensitivity)} {unit}"),
        (t("lab.card.required", lang), required),
        (t("lab.card.log10", lang), fmt_log10(cert.log10_delta)),
        (t("lab.card.claimed", lang), claimed),
        (t("lab.md.verdict", lang),
         f"{mark} {t(word_key, lang)}: {t(f'lab.reason.{cert.reason}', lang)}"),
        (t("lab.flag.positive", lang), yes if cert.mathematically_positive else no),
        (t("lab.flag.underflow", lang), yes if cert.underflow else no),
        (t("lab.flag.pure", lang), yes if cert.pure_dp_possible else no),
        (t("lab.card.mse", lang), f"{fmt_num(cert.mse, 8)} ({unit})²"),
        (t("lab.card.mae", lang), f"{fmt_num(cert.mae, 8)} {unit}"),
        (t("lab.card.hw", lang), f"± {fmt_num(cert.half_width_95, 8)} {unit}"),
    ]
    if cert.sensitivity > 0:
        note = t("lab.card.classic_proven" if cert.classic_proven
                 else "lab.card.classic_unproven", lang)
        rows += [
            (t("lab.card.exact_sigma", lang), f"{fmt_num(cert.exact_sigma, 8)} {unit}"),
            (t("lab.card.classic_sigma", lang),
             f"{fmt_num(cert.classic_sigma, 8)} {unit} ({note})"),
        ]

    def cell(s: str) -> str:
        return s.replace("|", "\\|").replace("\n", " ")

    lines = [f"# {t('lab.card.title', lang)} · dplab", "",
             f"| {t('lab.md.quantity', lang)} | {t('lab.md.value', lang)} |", "|---|---|"]
    lines += [f"| {cell(k)} | {cell(v)} |" for k, v in rows]
    lines += ["", t("lab.card.not_delta", lang), "",
              t("lab.md.source", lang, link=lab_link(state, lang)), ""]
    return "\n".join(lines)


def curve_csv(state: LabState, points: int = CURVE_POINTS) -> str:
    """The ε–δ curve of the state's release on [eps_lo, eps_hi] as CSV (see module doc)."""
    from dpcore import queries

    d = float(queries.sensitivity(state.query, state.n, state.B))
    grid = np.linspace(state.eps_lo, state.eps_hi, points)
    ld = np.asarray(gaussian.log_delta(grid, d, state.sigma), dtype=float)
    head = [
        "# dplab: required delta of the Gaussian mechanism as a function of eps",
        f"# query={state.query} n={state.n} B={fmt_input(state.B)} "
        f"sigma={fmt_input(state.sigma)} sensitivity={_r(d)} claimed_delta={state.delta_text}",
        "# delta is exact; 0 only where the double underflows (log10_delta stays exact)",
        "eps,delta,log10_delta",
    ]
    body = [f"{_r(e)},{_r(math.exp(x) if x > -math.inf else 0.0)},{_r(x / math.log(10))}"
            for e, x in zip(grid.tolist(), ld.tolist(), strict=True)]
    return "\n".join(head + body) + "\n"


def cdf_csv(grid: Sequence[float], values: Sequence[float], *, eps: float, delta: float,
            header: Sequence[str] = ()) -> str:
    """A private CDF as CSV: ``x,cdf`` with its (ε, δ) in the first line (for /cdf)."""
    head = [f"# dplab private CDF: eps={_r(eps)} delta={_r(delta)}",
            *(f"# {h}" for h in header), "x,cdf"]
    return "\n".join(head + [f"{_r(x)},{_r(y)}" for x, y in zip(grid, values, strict=True)]) + "\n"


def download_button(label: str, css_class: str, make: Callable[[], tuple[str, str]],
                    **params: Any) -> pn.widgets.FileDownload:
    """A FileDownload whose file (name, text) is made by ``make`` at the click."""
    w = pn.widgets.FileDownload(label=label, filename="dplab.txt", button_type="default",
                                css_classes=[css_class, "dp-export"], **params)

    def callback() -> io.BytesIO:
        name, text = make()
        w.filename = name
        return io.BytesIO(text.encode("utf-8"))

    w.callback = callback
    return w


class PngExport(pn.custom.JSComponent):
    """A button that saves a Bokeh figure as PNG in the browser (Bokeh's canvas export, no
    server rendering, no network). The certification JSON goes into the file's iTXt chunk.

    Clicking asks the server for the current description (``ticket``); the export starts when
    the answer arrives, so the file always describes what the figure shows.
    """

    label = param.String(default="PNG", doc="Button text.")
    figure_id = param.String(default="", doc="Bokeh model id of the figure to export.")
    filename = param.String(default="dplab.png", doc="Name of the saved file.")
    description = param.String(default="", doc="Text stored in the PNG (iTXt 'Description').")
    ticket = param.Integer(default=0, bounds=(0, None), doc="Answer to the browser's request.")

    _esm = ASSETS / "dplab-export.js"

    _stylesheets: ClassVar[list[str]] = ["""
:host { display: inline-block; }
.dp-export-btn { font: inherit; font-size: .95em; min-height: 40px; padding: .3em .9em;
  border: 1px solid currentColor; border-radius: 4px; background: transparent; color: inherit;
  cursor: pointer; }
.dp-export-btn:focus-visible { outline: 3px solid #d55e00; outline-offset: 2px; }
.dp-export-btn:disabled { opacity: .6; cursor: progress; }
"""]

    def __init__(self, describe: Callable[[], tuple[str, str]] | None = None,
                 **params: Any) -> None:
        super().__init__(**params)
        self._describe = describe

    def _handle_msg(self, msg: Any) -> None:
        ticket = int(msg.get("ticket", 0)) if isinstance(msg, dict) else 0
        if self._describe is not None:
            name, text = self._describe()
            self.param.update(filename=name, description=text)
        self.ticket = max(0, ticket)
