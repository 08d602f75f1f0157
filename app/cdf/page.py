"""The private CDF page (/cdf): data sources, releases, a degree slider that teaches, the ledger.

State: :class:`app.cdf.state.CDFState` (param only; unit-tested in tests/app/cdf/test_cdf_state.py
and tests/app/cdf/test_cdf_state_fuzz.py).  Text views: :mod:`app.cdf.views` (pure HTML).  This
module only builds the controls (the sidebar as one component, app/cdf/sidebar.py; the main
area's degree box and stream controls as one each, app/cdf/component.py), figures and text
panes of one session and keeps them in step with the state.

URL (fixed names, both ways): data, n, eps, delta, method (auto|pp|mp|hq|aq|all), degree (an
integer or auto), seed (noise); lang, size, theme are the template's; extra names dseed (class
data), teacher (0/1), stream (batches|sites), parts, batches, gran (the public value spacing h
in use, real data and uploads).  An uploaded file is never in the address (it lives in this
session only).

Stable CSS classes: dp-cdf-eps, dp-cdf-delta, dp-cdf-total-eps, dp-cdf-total-delta,
dp-cdf-degree, dp-cdf-ks, dp-cdf-degree-slider (keyboard arrows move it), dp-cdf-auto,
dp-cdf-teacher, dp-cdf-plot, dp-cdf-degree-plot, dp-cdf-stream-plot, dp-cdf-table, ...
"""

from __future__ import annotations

import html
import json
import logging
import threading
from typing import Any

import panel as pn
from markdown_it import MarkdownIt

import lessons
from app.cdf import export, views, views_auto, views_degree
from app.cdf import tour as cdf_tour
from app.cdf.controls import CDFControls
from app.cdf.figures import CDFFigures
from app.cdf.inputs import METHOD_CHOICES, METHODS
from app.cdf.panes import Slot, group, group_into
from app.cdf.records import DataUnavailable, Message
from app.cdf.sidebar import AddressPart
from app.cdf.state import CDFState
from app.cdf.views import metrics_html, privacy_html, table_html
from app.shell import exportbar, options
from app.shell import template as layout
from app.shell.i18n import DEFAULT_LANGUAGE, LANGUAGES, t
from app.shell.numbers import ascii_number_text
from app.shell.options import request_language
from app.shell.refresh import Scheduler

__all__ = ["CDFPage", "CDFState", "create_page", "metrics_html", "privacy_html", "table_html"]

_MD = MarkdownIt("commonmark", {"html": False})
log = logging.getLogger(__name__)

# The address is rewritten once the input has paused this long (each rewrite is a browser
# history entry and costs the browser ~10 ms; a held arrow key makes ~30 changes a second).
URL_PAUSE_MS = 250


class CDFPage(CDFControls, CDFFigures):
    """Widgets, three Bokeh figures updated in place, and the text views of one CDFState."""

    def __init__(self, state: CDFState | None = None, lang: str = DEFAULT_LANGUAGE,
                 large: bool = False, notices: list[Message] | None = None) -> None:
        self.state = state or CDFState()
        self.lang = lang
        self.large = large
        self._syncing = False
        # the page's one scheduler (app/shell/refresh.py): the curve, its table and the cards
        # now; the error-by-degree plot and the stream on the next tick (in this order)
        self._refresh = Scheduler(self._run_later, page="cdf")
        self._errors: dict[str, Message] = {}
        self._upload_error: Message | None = None
        self._notices = list(notices or [])
        self._url_pending = False
        # the guided tour (attach_tour) and what it hides while a prediction is open: message
        # key -> the key shown instead (app/cdf/tour.py CONCEAL); read by tr() and the views
        self.tour: cdf_tour.CDFTourState | None = None
        self.hide: dict[str, str] = {}
        self._intro: Any = None
        self._side_heads: list[tuple[Any, str, str]] = []  # (pane, key, text shown)
        self.conceal_note = Slot(visible=False, css_classes=["dp-cdf-conceal-note"])
        self._build_widgets()
        # the address rides in the sidebar's values (app/cdf/sidebar.py AddressPart)
        self.address = AddressPart(self.bar)
        self._find_side_heads()
        self._build_figures()
        self.state.param.watch(self._on_state, [p for p in self.state.param if p != "name"])
        self.refresh(None)

    def tr(self, key: str, **fmt: Any) -> str:
        """A message of the page's language (or, while the tour hides it, the one shown
        instead)."""
        return t(self.hide.get(key, key), self.lang, **fmt)

    # ---- the guided tour's concealment -------------------------------------------------------
    def attach_tour(self, tour: cdf_tour.CDFTourState) -> None:
        """Hide what answers the tour's open prediction, from now on (before the page is
        sent, so a page opened at ``tour=1`` never carries the answer)."""
        self.tour = tour
        tour.param.watch(lambda _e: self._safe(self._apply_hiding), "hiding")
        self._apply_hiding()

    def _apply_hiding(self) -> None:
        """Swap every text that answers the open prediction (visible text, labels, options,
        headings) or put it back, and say so in a note above the page."""
        hide = self.tour.hidden() if self.tour is not None else {}
        if hide == self.hide:
            return
        self.hide = hide
        with self.bar.batch():
            self._swap_hidden(hide)

    def _swap_hidden(self, hide: dict[str, str]) -> None:
        self._syncing = True
        try:
            self.w_seed.label = self.tr("cdf.ctl.noise_seed")
            self.w_new_noise.label = self.tr("cdf.ctl.new_noise")
            self.w_method.options = {self.tr(f"cdf.method.{m}"): m for m in METHOD_CHOICES}
            self.w_method.value = self.select_pending.get("method", self.state.method)
        finally:
            self._syncing = False
        if "method" in self.select_pending:  # its note names the options as now shown
            self._set_select_pending("method", self.select_pending["method"])
        for i, (pane, key, shown) in enumerate(self._side_heads):
            now = html.escape(self.tr(key))
            if now != shown:
                pane.object = pane.object.replace(f">{shown}<", f">{now}<")
                self._side_heads[i] = (pane, key, now)
        if self._intro is not None:
            self._intro.object = self._intro_text()
        if hide and self.tour is not None:
            note = t("cdftour.concealed", self.lang,
                     what=t(f"cdftour.hidden.{self.tour.hiding}", self.lang))
            self.conceal_note.object = (f'<p class="dp-cdf-box" role="status">'
                                        f"{html.escape(note)}</p>")
        if self.conceal_note.visible != bool(hide):
            self.conceal_note.visible = bool(hide)
        info = self._sync_degree()
        try:
            self.state.data()
        except DataUnavailable:
            return
        self.degree_side.object = views_degree.degree_side_html(self.state, info, self.lang,
                                                                self.hide)
        if self.state.method == "auto":
            self.auto_box.object = views_auto.auto_choice_html(self.state, self.lang, self.hide)
        self._later("degree")  # the table under the error-by-degree plot

    def _input(self, name: str, value: Any) -> None:
        super()._input(name, value)
        # A number typed with full-width characters ("１．５", "－２") is read in its ASCII
        # form (app/shell/numbers.py); once accepted, its field shows that form, also when the
        # value did not change (then nothing else rewrites the field).
        field = {"n": self.w_n, "eps": self.w_eps, "delta": self.w_delta,
                 "noise_seed": self.w_seed, "stream_parts": self.w_parts,
                 "lattice_h": self.w_h, "upload_lo": self.w_lo, "upload_hi": self.w_hi}.get(name)
        if field is None or not isinstance(value, str) or name in self._errors:
            return
        ascii_text = ascii_number_text(value)
        if ascii_text != value and field.value == value:
            self._syncing = True
            try:
                field.value = ascii_text
            finally:
                self._syncing = False

    def _find_side_heads(self) -> None:
        """The sidebar's headings a tour step may swap (found by their text, as CDFControls
        built them; before any is hidden)."""
        self._side_heads = []
        for key in {k for swap in cdf_tour.CONCEAL.values() for k in swap}:
            shown = html.escape(self.tr(key))
            for it in self.sidebar():
                if isinstance(getattr(it, "object", None), str) and f">{shown}</h2>" in it.object:
                    self._side_heads.append((it, key, shown))

    # ---- state -> page ------------------------------------------------------------------------
    def _on_state(self, *events: Any) -> None:
        names = {ev.name for ev in events}
        # Button clicks arrive as Bokeh events, outside Panel's hold: without unlocked() their
        # model changes could wait in the document until the next event (measured: 1-2 of 15
        # "new noise" clicks showed nothing until the next click). The scheduler sends them now.
        self._refresh.now(self._refresh_batched, names)

    def _refresh_batched(self, names: set[str] | None) -> None:
        with self.bar.batch():  # the sidebar's changes go as one message ...
            self._safe(self.refresh, names)
            self.bar.send_now()  # ... with the card's (inside the scheduler's unlocked())

    def _refresh_upload(self) -> None:
        self.upload_status.object = views.upload_status_html(self.state, self.lang,
                                                             self._upload_error)

    def refresh(self, names: set[str] | None) -> None:
        """Recompute the views touched by ``names`` (None: everything) and write the address."""
        s = self.state
        light = names is not None and names <= {"degree", "auto_degree"}
        if names is not None and names <= {"teacher"}:
            self._sync_widgets()
            self._refresh_cards()
            self._write_url()
            return
        if names is not None and names <= {"stream_mode", "stream_parts", "stream_steps"}:
            self._sync_widgets()
            self._refresh_stream()
            self._refresh_cards()
            self._write_url()
            return
        if not light:
            self._sync_widgets()
            self.data_note.object = views.data_note_html(s, self.lang)
            self.lattice_note.object = views.lattice_note_html(s, self.lang)
            self._refresh_upload()
        info = self._sync_degree()
        try:
            s.data()
        except DataUnavailable as exc:
            self._show_unavailable((exc.key, exc.fmt))
            self._write_url()
            return
        self.error.object = ""
        if not light:
            s.stream()  # may add stream releases: computed before the ledger cards
        self._refresh_curves(info)
        if not light:  # a degree change is post-processing: the ledger cannot change
            self._refresh_cards()
        self.degree_side.object = views_degree.degree_side_html(s, info, self.lang, self.hide)
        self.notice.object = views.notices_html(self._notices, self.lang)
        # The plot, its table, the cards and the degree in use go out first; the error-vs-degree
        # plot and the stream follow in a second message, so the browser paints the first part
        # without waiting for two more canvases.
        self._later("degree")
        if not light:
            self._later("stream")
        self._write_url()

    def _later(self, what: str) -> None:
        self._refresh.later((what,))

    def _run_later(self, pending: set[str]) -> None:
        with self.bar.batch():  # the controls' changes (the stream's lines) go as one
            for what in sorted(pending):
                self._run_later_one(what)

    def _run_later_one(self, what: str) -> None:
        try:
            self.state.data()
        except DataUnavailable:
            return
        if what == "degree":
            self._refresh_degree(self.state.degree_info())
        else:
            self._refresh_stream()

    def _show_unavailable(self, m: Message) -> None:
        self.error.object = views.error_html(m, self.lang)
        self._clear_figures()
        for pane in (self.metrics, self.privacy, self.table, self.compare, self.degree_table,
                     self.degree_status, self.degree_side, self.auto_box, self.stream_text):
            pane.object = ""
        self.sources.object = views.sources_html(self.state, self.lang)

    def _refresh_cards(self) -> None:
        s = self.state
        try:
            self.privacy.object = privacy_html(s, self.lang)
        except DataUnavailable:
            self.privacy.object = ""
        self.sources.object = views.sources_html(s, self.lang)

    def _write_url(self) -> None:
        """Write the state into the address (replaced in place: one history entry per page);
        during a burst of moves at most every URL_PAUSE_MS."""
        doc = pn.state.curdoc
        if doc is None or doc.session_context is None:
            self._flush_url()
            return
        if not self._url_pending:
            self._url_pending = True
            doc.add_timeout_callback(self._flush_url, URL_PAUSE_MS)

    def _flush_url(self) -> None:
        self._url_pending = False
        self.address.update(**self.state.url_query())

    # ---- layout -------------------------------------------------------------------------------
    def export_csv(self) -> Any:
        """The shown private CDF as CSV (grid in data units, values) with its (ε, δ) on top.

        Only the private curve: the reference CDF is not private and is not written.
        """

        st = self.state
        est = st.current()
        pts, f_priv, _ = st.curves()
        header = [f"data={st.dataset} method={st.method} seed={st.noise_seed}",
                  self.tr("cdf.export.note")]
        text = export.cdf_csv(pts.tolist(), f_priv.tolist(), eps=float(est.eps),
                              delta=float(est.delta), header=header)
        return exportbar.ExportFile(f"dplab-cdf-{st.dataset}-{st.method}.csv", text)

    def export_png(self) -> Any:
        """The curves' figure as the browser drew it (PNG), with this release's method and
        (ε, δ) in the file's text chunk. Its legend marks the reference as not private."""
        st = self.state
        est = st.current()
        meta = {"dplab": "private CDF figure", "data": st.dataset, "method": st.method,
                "eps": float(est.eps), "delta": float(est.delta), "seed": st.noise_seed,
                "reference": "not private (drawn for comparison)"}
        return exportbar.ExportFile(f"dplab-cdf-{st.dataset}-{st.method}.png",
                                    json.dumps(meta, ensure_ascii=False), "svg:cdf")

    def exports(self) -> Any:

        items = [{"kind": "png", "label": self.tr("cdf.export.png"),
                  "cls": "dp-export-png dp-export-png-cdf"},
                 {"kind": "csv", "label": self.tr("cdf.export.csv"), "cls": "dp-export-csv"}]
        return exportbar.ExportBar(make=lambda kind: (self.export_png() if kind == "png"
                                                      else self.export_csv()), items=items,
                                heading=self.tr("cdf.export.heading"),
                                hint=self.tr("cdf.export.hint"),
                                sizing_mode="stretch_width", css_classes=["dp-exports"])

    def _intro_text(self) -> str:
        if self.large:
            # Projector: the intro is folded, so the curve and the degree slider keep the
            # first screen (as the lab's intro).
            return (f'<details class="dp-fold"><summary>'
                    f'{html.escape(self.tr("cdf.fold.intro"))}</summary>'
                    f'{_MD.render(self.tr("cdf.intro"))}</details>')
        # (rendered here once: a Markdown pane parses its text again in every page build)
        return _MD.render(self.tr("cdf.intro"))

    def main(self) -> list[Any]:
        intro = Slot(self._intro_text(), css_classes=["dp-cdf-intro"])
        self._intro = intro

        def h2(key: str) -> str:
            return f"<h2>{html.escape(self.tr(key))}</h2>"

        deg_intro = f"<p>{html.escape(self.tr('cdf.dplot.intro'))}</p>"
        stream_intro = f"<p>{html.escape(self.tr('cdf.stream.intro'))}</p>"
        # The first screen (1366x768 and the projector): the private curve, and next to it the
        # degree slider above the error-vs-degree plot; on a phone the slider comes right
        # under the curve (the flex box wraps).
        degree_box = pn.Column(
            self.degree_panel(), self.plot_deg, self.degree_side,
            sizing_mode="stretch_width", min_width=300, margin=0,
            styles={"flex": "1 1 420px"}, css_classes=["dp-cdf-degree-box"])
        first = pn.FlexBox(
            self.plot_col,
            degree_box, sizing_mode="stretch_width", gap="12px", css_classes=["dp-cdf-first"])
        bar = self.bar
        # Texts one under the other share one pane (app/cdf/panes.py): the notices, the
        # introduction and what is said above the curve; the methods compared, the two cards
        # side by side (they wrap on a phone) and the data sources; the error-by-degree part's
        # words and table, and the stream's heading.
        group_into(self.head_text, self.notice, intro, self.conceal_note, self.error,
                   self.auto_box, bar=bar)
        group_into(self.cards_text, self.compare, '<div class="dp-cdf-cards">', self.metrics,
                   self.privacy, "</div>", self.sources, bar=bar)
        degree = group(h2("cdf.dplot.heading"), deg_intro, self.degree_status,
                       self.degree_table, h2("cdf.stream.heading"), stream_intro, bar=bar)
        # Left out of print: the buttons and the stream's controls (the stream's text says what
        # was released; the components leave out their controls, not their texts,
        # dplab-cdf-main-controls.css); the save bar leaves itself out.
        return [
            self.head_panel(),
            first, self.multiples, self.table,
            self.cards_panel(), degree, self.stream_panel(),
            self.plot_stream,
            self.exports(),
        ]


def create_page(lang: str | None = None) -> Any:
    """The /cdf page for the current session (language from ?lang or Accept-Language)."""
    lang = lang or request_language()
    global _WARM
    if not _WARM:  # (a server warmed up in the background at its start: warm_up_in_background)
        _WARM = True
        warm_up()
    state = CDFState()
    args = options.session_args()
    notices = state.apply_url(args)
    tour_objs, tour_bad, ts = cdf_tour.attach(state, lang, args.get("tour"))
    page = CDFPage(state, lang, large=options.is_large(), notices=[*notices, *tour_bad])
    if ts is not None:
        page.attach_tour(ts)
        ts.param.watch(lambda e: page.address.update(tour=str(e.new) if e.new else ""), "step")
    if pn.state.curdoc is not None:
        # the upload lives in this session only: drop it when the session ends
        pn.state.on_session_destroyed(lambda _ctx: state.discard())
        # the complete state goes into the address (sent with the sidebar's first values)
        # a rejected page option (lang=fr) leaves the address: a copied link repeats no notice
        page.address.update(**{name: "" for name, _ in options.bad_options()})
        page._flush_url()
    return layout.page(lang=lang, title=t("cdf.title", lang), path="/cdf",
                       main=[*tour_objs, *page.main()],
                       sidebar=[page.sidebar_panel()],
                       sidebar_width=480 if options.is_large() else 380)


_WARM = False


def warm_up_in_background() -> threading.Thread | None:
    """:func:`warm_up` and the guided tour's lesson values (``lessons.cdf_tour``, ~3.3 s of CPU:
    the CDF lesson's numbers) in a thread of its own, started with the server. Made by the
    first /cdf page of a process on the serving thread, they stopped the server for 4.75 s
    (3.6 s of CPU, the server's pause log, 2026-12-06). A /cdf page asked for meanwhile
    computes what it needs itself. None when the caches are (being) filled already."""
    global _WARM
    if _WARM:
        return None
    _WARM = True

    def fill() -> None:
        warm_up()
        for code in LANGUAGES:
            lessons.cdf_tour(code)

    th = threading.Thread(target=fill, name="dplab-cdf-warm-up", daemon=True)
    th.start()
    return th


def warm_up() -> None:
    """Fill the process-wide caches of public numbers (dictionary, L1 bounds) once."""
    s = CDFState(n=2000)
    for m in METHODS:
        s.release(m)

