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
from urllib.parse import urlencode

import numpy as np

from app.lab.card import VERDICTS, delta_large, delta_no_one, verdict_kind
from app.lab.state import LabState
from app.shell.i18n import t
from app.shell.numbers import fmt_delta, fmt_input, fmt_log10, fmt_num, fmt_repr, underflow_approx
from dpcore import gaussian, queries
from dpcore.certify import Certification

CURVE_POINTS = 400


def certification_json(cert: Certification) -> str:
    """The language-neutral JSON of ``dplab certify --json`` (same text, same key order)."""
    return json.dumps(cert.as_dict(), ensure_ascii=False, indent=2)


def file_stem(cert: Certification) -> str:
    """``dplab-mean-n32-B1-sigma10-eps10``: names a file after its release."""
    return (f"dplab-{cert.query}-n{cert.n}-B{fmt_input(cert.B)}-sigma{fmt_input(cert.sigma)}"
            f"-eps{fmt_input(cert.eps)}")


def lab_link(state: LabState, lang: str) -> str:
    return "/lab?" + urlencode({**state.url_query(), "lang": lang})


def certification_markdown(state: LabState, cert: Certification, lang: str) -> str:
    """The certification card as Markdown, in ``lang``."""
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
    no_one, large = delta_no_one(cert), delta_large(cert)
    if no_one is not None:  # beside the verdict on the card: a warning line under the table
        lines += ["", f"> ⚠ {t('lab.card.delta_no_one', lang, **no_one)}"]
    elif large is not None:  # the soft note from n·δ ≥ 0.01
        lines += ["", f"> ⓘ {t('lab.card.delta_large', lang, **large)}"]
    lines += ["", t("lab.card.not_delta", lang), "",
              t("lab.md.source", lang, link=lab_link(state, lang)), ""]
    return "\n".join(lines)


def curve_csv(state: LabState, points: int = CURVE_POINTS) -> str:
    """The ε–δ curve of the state's release on [eps_lo, eps_hi] as CSV (see module doc)."""
    d = float(queries.sensitivity(state.query, state.n, state.B))
    grid = np.linspace(state.eps_lo, state.eps_hi, points)
    ld = np.asarray(gaussian.log_delta(grid, d, state.sigma), dtype=float)
    head = [
        "# dplab: required delta of the Gaussian mechanism as a function of eps",
        f"# query={state.query} n={state.n} B={fmt_input(state.B)} "
        f"sigma={fmt_input(state.sigma)} sensitivity={fmt_repr(d)} "
        f"claimed_delta={state.delta_text}",
        "# delta is exact; 0 only where the double underflows (log10_delta stays exact)",
        "eps,delta,log10_delta",
    ]
    body = [f"{fmt_repr(e)},{fmt_repr(math.exp(x) if x > -math.inf else 0.0)},"
            f"{fmt_repr(x / math.log(10))}"
            for e, x in zip(grid.tolist(), ld.tolist(), strict=True)]
    return "\n".join(head + body) + "\n"








