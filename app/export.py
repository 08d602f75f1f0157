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

The pure functions are unit-tested; :class:`ExportBar` is the Panel view (buttons with the css
classes ``dp-export-png``, ``dp-export-json``, ``dp-export-md``, ``dp-export-csv``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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


MIME = {"json": "application/json", "md": "text/markdown;charset=utf-8",
        "csv": "text/csv;charset=utf-8", "png": "image/png"}


@dataclass(frozen=True)
class ExportFile:
    """What a click saves: a text file, or (``figure_id``) a figure drawn as PNG in the browser
    with ``text`` in its iTXt chunk and ``legend`` (dicts of LegendEntry.as_dict) under it."""

    filename: str
    text: str
    figure_id: str = ""
    legend: tuple[dict[str, Any], ...] = ()


class ExportBar(pn.custom.JSComponent):
    """The save buttons of a page, in one component (one Bokeh model, cheap to build).

    ``items``: ``[{"kind", "label", "cls"}]``; a button's css classes are ``dp-export-btn`` and
    ``cls`` (``dp-export-png``, ``dp-export-json``, ``dp-export-md``, ``dp-export-csv``).
    A click sends ``{"kind", "ticket"}``; :meth:`_handle_msg` asks ``make(kind)`` for an
    :class:`ExportFile` at that moment and answers in ``reply``. The browser then saves the
    text, or, with a ``figure_id``, exports that Bokeh figure as PNG with its legend drawn under
    it and the text in its iTXt chunk (assets/dplab-export.js). Nothing is rendered on the
    server.
    """

    heading = param.String(default="", doc="Heading above the buttons.")
    hint = param.String(default="", doc="One sentence under the heading.")
    items = param.List(default=[], item_type=dict, doc="Buttons: kind, label, cls.")
    reply = param.Dict(default={}, doc="The server's answer to the last click.")
    colours = param.Dict(default={"background": "#ffffff", "text": "#222222"},
                         doc="Background and text colour of a PNG's legend (the theme's).")
    font_px = param.Integer(default=15, bounds=(8, 48), doc="Legend text size in a PNG.")

    _esm = ASSETS / "dplab-export.js"

    _stylesheets: ClassVar[list[str]] = ["""
:host { display: block; width: 100%; }
h2 { margin: .6em 0 .2em 0; font-size: 1.4em; }
p { margin: .2em 0 .5em 0; }
.dp-export-row { display: flex; flex-wrap: wrap; gap: 8px; }
.dp-export-btn { font: inherit; font-size: .95em; min-height: 44px; padding: .3em .9em;
  border: 1px solid currentColor; border-radius: 4px; background: transparent; color: inherit;
  cursor: pointer; }
.dp-export-btn:focus-visible { outline: 3px solid #d55e00; outline-offset: 2px; }
.dp-export-btn:disabled { opacity: .6; cursor: progress; }
@media print { :host { display: none; } }
"""]

    def __init__(self, make: Callable[[str], ExportFile] | None = None,
                 **params: Any) -> None:
        super().__init__(**params)
        self._make = make

    def _handle_msg(self, msg: Any) -> None:
        if not isinstance(msg, dict) or self._make is None:
            return
        kind = str(msg.get("kind", ""))
        if kind not in {item.get("kind") for item in self.items}:
            return
        f = self._make(kind)
        ext = f.filename.rsplit(".", 1)[-1]
        self.reply = {"ticket": int(msg.get("ticket", 0)), "kind": kind, "filename": f.filename,
                      "text": f.text, "figure_id": f.figure_id, "legend": list(f.legend),
                      "mime": MIME.get(ext, "application/octet-stream")}
