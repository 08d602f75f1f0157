"""The degree slider's texts on /cdf (pure functions -> HTML, unit-tested without Panel): why
there is no degree, the degree in use and how it was chosen (class dp-cdf-degree), and the text
equivalent of the error-by-degree plot (dp-cdf-degree-table). Helpers from app/cdf/views.py."""

from __future__ import annotations

from collections.abc import Mapping

from app.cdf.records import DegreeInfo
from app.cdf.state import CDFState, DegreeErrors
from app.cdf.views import NO_SWAP, e, g, method_name, ts
from app.shell.i18n import t


def degree_status_html(state: CDFState, info: DegreeInfo, lang: str) -> str:
    """Why there is no degree to choose ('' when the slider is live)."""
    if info.available or info.reason == "no_data":
        return ""
    if info.reason in ("histogram", "tree"):
        what = t(f"cdf.kind.{'tree' if info.reason == 'tree' else 'hq'}", lang)
        text = t("cdf.degree.no_degree_auto", lang, what=what)
    else:
        text = t("cdf.degree.no_degree", lang, method=method_name(state.method, lang))
    return f'<p class="dp-muted dp-cdf-no-degree">{e(text)}</p>'


def degree_side_html(state: CDFState, info: DegreeInfo, lang: str,
                     hide: Mapping[str, str] = NO_SWAP) -> str:
    """Next to the slider: the degree in use (class dp-cdf-degree) and how it was chosen, or,
    when the shown release has no degree, why the slider is not available (dp-cdf-degree-na);
    ``hide``: messages swapped while the tour asks what the slider costs."""
    if info.reason == "no_data":
        return ""
    if not info.available:
        if info.reason == "histogram":
            text = t("cdf.degree.side_hist", lang)
        elif info.reason == "tree":
            text = t("cdf.degree.side_tree", lang)
        else:
            text = t("cdf.degree.side_none", lang, method=method_name(state.method, lang))
        return (f'<p class="dp-warn dp-cdf-small dp-cdf-degree-na" role="note">'
                f'<span aria-hidden="true">⚠</span> {e(text)}</p>')
    if state.auto_degree:
        how = ts("cdf.degree.auto_on", lang, hide, k=info.auto_k, kmax=info.k_max)
    else:
        how = ts("cdf.degree.fixed", lang, hide, k=info.in_use, auto=info.auto_k, kmax=info.k_max)
    capped = ""
    if info.capped:
        capped = (f'<p class="dp-warn">'
                  f"{e(t('cdf.degree.capped', lang, asked=state.degree, kmax=info.k_max))}</p>")
    return ('<div class="dp-cdf-degree-side-box">'
            f'<p class="dp-cdf-degree-status"><strong>{e(t("cdf.privacy.degree", lang))}: '
            f'<span class="dp-cdf-degree">{info.in_use}</span></strong> '
            f'<span class="dp-muted">({e(ts("cdf.privacy.degree_free", lang, hide))})</span></p>'
            f'<p class="dp-cdf-small">{e(how)}</p>{capped}</div>')


def degree_table_html(errs: DegreeErrors, info: DegreeInfo, lang: str,
                      hide: Mapping[str, str] = NO_SWAP) -> str:
    """Text equivalent of the error-vs-degree plot.

    Always the same 11 rows (so the page does not jump while the slider moves): the degree
    shown, the automatic one and the one with the smallest expected error, then K = 0, 1, 2, 4,
    8, 16, 32 and K_max.
    """
    marked = [(info.in_use, "cdf.dplot.mark_current"), (info.auto_k, "cdf.dplot.mark_auto"),
              (errs.best_expected, "cdf.dplot.mark_best")]
    grid = [min(k, info.k_max) for k in (0, 1, 2, 4, 8, 16, 32)] + [info.k_max]
    body = []
    for i, (k, mark) in enumerate([*marked, *((k, "") for k in grid)]):
        cls = ' class="dp-cdf-current-row"' if i == 0 else ""
        sep = ' style="border-bottom: 3px double #8888"' if i == len(marked) - 1 else ""
        label = e(t(mark, lang)) if mark else ""
        body.append(
            f"<tr{cls}{sep}><td>{label}</td><td>{k}</td><td>{g(max(errs.trunc_est[k], 0.0), 3)}"
            f"</td><td>{g(errs.noise[k], 3)}</td><td>{g(errs.expected[k], 3)}</td>"
            f"<td>{g(errs.realised[k], 3)}</td></tr>")
    return f"""
    <div class="dp-cdf-scroll"><table class="dp-cdf-degree-table">
      <caption>{e(t("cdf.dplot.caption", lang))}</caption>
      <thead><tr><th scope="col">{e(t("cdf.dplot.col_mark", lang))}</th><th scope="col">K</th>
        <th scope="col">{e(t("cdf.dplot.trunc", lang))}</th>
        <th scope="col">{e(t("cdf.dplot.noise", lang))}</th>
        <th scope="col">{e(t("cdf.dplot.expected", lang))}</th>
        <th scope="col">{e(t("cdf.dplot.realised", lang))}</th></tr></thead>
      <tbody>{"".join(body)}</tbody>
    </table></div>
    <p class="dp-muted">{e(ts("cdf.dplot.explain", lang, hide))}</p>"""
