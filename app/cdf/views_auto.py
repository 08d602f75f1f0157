"""What the automatic method of /cdf chose and why, and the default rule's bands: pure
functions (state, lang) -> HTML, apart from the page's other texts (app/cdf/views.py).

Every number comes from the release's public shape (app/cdf/records.py ``ReleaseShape``) and
from the rule's bands in dpcore (``dpcore.cdf.auto_v6.BANDS_V6``); every string from the
catalogues (``cdf.auto.*``). Stable CSS classes: dp-cdf-auto-choice, dp-cdf-auto-summary,
dp-cdf-auto-hist, dp-cdf-auto-tree, dp-cdf-auto-band, dp-cdf-auto-lattice, dp-cdf-auto-rule.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from app.cdf.records import DataUnavailable
from app.cdf.state import CDFState
from app.cdf.views import NO_SWAP, e, g, n_text, ts, unit_text
from app.shell.i18n import t
from dpcore.cdf import TREE_BRANCHING, tree
from dpcore.cdf.auto_v6 import BANDS_V6, Band, band_of


def _num(x: float, lang: str) -> str:
    """n·eps or a band's start as a student reads it: whole numbers with thousands separators."""
    return n_text(int(x), lang) if x == int(x) else g(x, 6)


def band_range(band: Band, lang: str) -> str:
    """'1,500 ≤ n·ε < 15,000', 'n·ε < 300' or 'n·ε ≥ 1,500,000' (a band of the default rule)."""
    if band.start <= 0.0:
        return t("cdf.auto.range_below", lang, end=_num(band.end, lang))
    if math.isinf(band.end):
        return t("cdf.auto.range_from", lang, start=_num(band.start, lang))
    return t("cdf.auto.range", lang, start=_num(band.start, lang), end=_num(band.end, lang))


def band_text(band: Band, lang: str) -> str:
    """One band of the default rule: '1,500 ≤ n·ε < 15,000: branching 9, depth 3 (729 leaves)'."""
    if band.kind == "hq":
        return t("cdf.auto.band_hq", lang, range=band_range(band, lang))
    return t("cdf.auto.band", lang, range=band_range(band, lang), b=band.branching,
             depth=band.depth, leaves=n_text(band.leaves, lang))


def bands_text(lang: str) -> str:
    """The default rule's bands in one line, from dpcore.cdf.auto_v6.BANDS_V6."""
    return "; ".join(band_text(b, lang) for b in BANDS_V6)


def bands_html(band: Band, lang: str) -> str:
    """The default rule's bands as a list, the band of this release in bold."""
    items = "".join(f"<li><strong>{e(band_text(b, lang))}</strong></li>" if b == band
                    else f"<li>{e(band_text(b, lang))}</li>" for b in BANDS_V6)
    return (f'<p class="dp-cdf-auto-rule-title">{e(t("cdf.auto.rule_title", lang))}</p>'
            f'<ul class="dp-cdf-auto-rule">{items}</ul>')


def _pct(share: float, lang: str) -> str:
    """A share as a percentage: '60 %' in English (a space, as the SI), '60%' in Korean."""
    return f"{100.0 * share:.0f}{'%' if lang == 'ko' else ' %'}"


def auto_choice_html(state: CDFState, lang: str, hide: Mapping[str, str] = NO_SWAP) -> str:
    """What the automatic method chose and why, from public numbers only ('' unless auto);
    ``hide``: messages swapped while the tour asks what auto picks.

    The default rule (``dpcore.cdf.auto_plan_v6``) releases one of: a Laplace histogram with
    Chebyshev edges (n·ε < 300), a two-level 16-ary tree with a split budget (300 to 1,500),
    a 9-ary tree of depth 3 (1,500 to 15,000), an 8-ary tree of depth 4 to 6 (from 15,000),
    or, with a declared value spacing, a tree (or a flat histogram) on the lattice."""
    if state.method != "auto":
        return ""
    try:
        shape = state.shape_of(state.release("auto"))
    except DataUnavailable:
        return ""
    n, eps = state.data_n(), state.eps
    neps = _num(n * eps, lang)
    band = band_of(n, eps)
    rng = band_range(band, lang)
    threshold = _num(band.end if band.kind == "hq" else band.start, lang)
    mech = _mechanism_name(shape.mechanism, lang)
    nodes = n_text(shape.released, lang)
    leaves = n_text(shape.leaves, lang)
    if shape.kind == "tree" and shape.granularity is not None:
        key = "cdf.auto.lattice_flat" if shape.depth == 1 else "cdf.auto.lattice"
        h, size = g(shape.granularity, 6), n_text(shape.lattice_size, lang)
        summary = t("cdf.auto.summary_lattice_flat" if shape.depth == 1
                    else "cdf.auto.summary_lattice", lang, h=h, size=size, leaves=leaves,
                    neps=neps)
        what = t(key, lang, neps=neps, h=h, size=size, b=shape.branching, depth=shape.depth,
                 leaves=leaves, group=shape.group, nodes=nodes, mech=mech,
                 sd=g(shape.noise_sd, 3))
        cls = "dp-cdf-auto-lattice"
    elif shape.kind == "tree" and shape.top_share > 0.0:  # the two-level tree, split budget
        top = n_text(shape.branching, lang)
        summary = ts("cdf.auto.summary_band", lang, hide, b=shape.branching, top=top,
                     leaves=leaves, neps=neps, range=rng)
        what = ts("cdf.auto.band_tree", lang, hide, neps=neps, range=rng, b=shape.branching,
                  leaves=leaves, nodes=nodes, top_pct=_pct(shape.top_share, lang),
                  leaf_pct=_pct(1.0 - shape.top_share, lang), top_sd=g(shape.top_sd, 3),
                  sd=g(shape.noise_sd, 3))
        cls = "dp-cdf-auto-tree dp-cdf-auto-band"
    elif shape.kind == "tree":
        summary = ts("cdf.auto.summary_tree", lang, hide, b=shape.branching, depth=shape.depth,
                     leaves=leaves, neps=neps, threshold=threshold, range=rng)
        what = ts("cdf.auto.tree", lang, hide, neps=neps, threshold=threshold, range=rng,
                  b=shape.branching, depth=shape.depth, leaves=leaves, nodes=nodes, mech=mech,
                  sd=g(shape.noise_sd, 3))
        if shape.branching != TREE_BRANCHING and "cdf.auto.tree" not in hide:  # 9-ary: why
            what += " " + ts("cdf.auto.mid_note", lang, hide, b=shape.branching,
                             b8=TREE_BRANCHING, leaves=leaves,
                             cells=n_text(tree.centred_cells(shape.leaves), lang),
                             depth=shape.depth)
        cls = "dp-cdf-auto-tree"
    else:  # the histogram of n·ε < 300, its cells finer next to the bounds
        unit = state.unit()
        u = f" {unit_text(unit, lang)}" if unit else ""
        lo, hi = state.data_bounds() or (0.0, 1.0)
        width = hi - lo
        summary = ts("cdf.auto.summary_hist", lang, hide, bins=shape.bins, neps=neps,
                     threshold=threshold, range=rng)
        what = ts("cdf.auto.hist", lang, hide, neps=neps, threshold=threshold, range=rng,
                  bins=shape.bins, scale=g(shape.noise_scale, 3), sd=g(shape.noise_sd, 3),
                  narrow=g(shape.cell_min, 3) + u, wide=g(shape.cell_max, 3) + u,
                  narrow_pct=g(100.0 * shape.cell_min / width, 2),
                  wide_pct=g(100.0 * shape.cell_max / width, 2), even=g(width / shape.bins, 3) + u)
        cls = "dp-cdf-auto-hist"
    # the whole rule, this band in bold (not while the tour asks what auto picks)
    rule = "" if shape.granularity is not None or any(
        k in hide for k in ("cdf.auto.tree", "cdf.auto.hist", "cdf.auto.band_tree")) else (
        bands_html(band, lang))
    # one line on the first screen; the reasons and the released numbers one click away
    return (f'<div class="dp-cdf-box dp-cdf-auto-choice {cls}" role="note">'
            f'<p class="dp-cdf-auto-summary">{e(summary)}</p>'
            f"<details><summary>{e(t('cdf.auto.details', lang))}</summary>"
            f"<p>{e(what)}</p>{rule}<p>{e(t('cdf.auto.public', lang))} "
            f"{e(t('cdf.auto.no_degree', lang))}</p></details></div>")


def _mechanism_name(mechanism: str, lang: str) -> str:
    return t(f"cdf.mech.{mechanism}", lang)
