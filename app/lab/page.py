"""The Gaussian mechanism lab page (/lab): controls, certification card and three linked plots.

All views are functions of one :class:`~app.lab.state.LabState`. Figures are built once and
only their ColumnDataSources / ranges / labels are updated; heavy work runs on a slider's
``value_throttled`` (not on every drag event). Key outputs carry fixed CSS classes for outside
checks: dp-required-delta, dp-log10-delta, dp-verdict, dp-sensitivity.
"""

from __future__ import annotations

import html
import logging
from typing import Any

import panel as pn
import param

import lessons
from app.lab import export, moves
from app.lab import tour as tour_mod
from app.lab.card import CARD_CSS, PROJECTOR_CSS, card_html, card_theme_css, unit_label
from app.lab.controls import LabSidebar
from app.lab.figures import LabFigures
from app.lab.first_paint import first_paint_html
from app.lab.follow import LabFollowable
from app.lab.state import PRESETS, LabState
from app.lab.tour import CONCEALED_HTML, TourPanel, TourState
from app.shell import address, assets, exportbar, options, theme, widgets
from app.shell import template as layout
from app.shell.follow import PageLink
from app.shell.i18n import DEFAULT_LANGUAGE, LANGUAGES, t
from app.shell.options import request_language
from app.shell.refresh import Scheduler
from app.shell.tour import step_from_address
from dpcore import queries
from dpcore.certify import Certification

# Inputs closer than BURST_MS form a burst; during one, the figures redraw once the input has
# been quiet for PLOT_PAUSE_MS (the card always updates at once): app/shell/refresh.py.
BURST_MS = 400
PLOT_PAUSE_MS = 150

log = logging.getLogger(__name__)

PAGE_CSS = assets.text("dplab-lab-page.css")


class LabPage(LabFigures, param.Parameterized):
    """Widgets + figures bound to one LabState (one instance per browser session)."""

    # Always set (__init__ makes a LabState when none is given), so typed without None.
    state: LabState = param.ClassSelector(  # type: ignore[assignment]
        class_=LabState, doc="The lab state shown by this page.")
    lang: str = param.Selector(  # type: ignore[assignment]
       default=DEFAULT_LANGUAGE, objects=list(LANGUAGES), doc="Page language.")

    def __init__(self, state: LabState | None = None, lang: str = DEFAULT_LANGUAGE,
                 large: bool = False, dark: bool = False, **params: Any) -> None:
        super().__init__(state=state or LabState(), lang=lang, **params)
        self._large = large
        self._dark = dark
        self.pal = theme.palette(dark)
        self.tour: TourState | None = None  # set when the guided tour is attached
        # Views that answer a prediction step's question (the ε–δ curve with the claim line,
        # the probabilities, the text tables, the simulation, the exports): hidden with the card.
        self._answer_panes: list[Any] = []
        self._hidden_for_tour = False
        # the page's one scheduler (app/shell/refresh.py): the card now, the figures after
        self._refresh = Scheduler(self.refresh_plots, page="lab", burst_ms=BURST_MS,
                                  pause_ms=PLOT_PAUSE_MS)
        # (the address rides in the controls' values: no model of its own)
        self.address = address.AddressQuery()
        self.controls = LabSidebar(self.state, lang, large=large, dark=dark, safe=self._safe,
                                   address=self.address, before=self.catch_up)
        self.notice = widgets.TextPane("", stylesheets=[CARD_CSS], sizing_mode="stretch_width",
                                      css_classes=["dp-notices"], visible=False)
        self._intro = ""  # the introduction's HTML when it shares the notices' pane (main())
        # A slider's release taken from the page's own moves channel (app/lab/moves.py) changes
        # the state only: the views it would refresh are noted and made when the session next
        # shows anything (catch_up); the channel sends the views of that state meanwhile.
        self._quiet = False
        self._stale: set[str] = set()
        self.moves_id = moves.register(self)
        self.controls.panel.moves = moves.url(self.moves_id)
        self._build_figures()
        # precedence 1: after the default watchers (0), so a live room's publish (app/lab/follow.py)
        # is queued before this page's figures are (the class hears of a move first)
        self.state.param.watch(self._on_state, list(self.state.param), precedence=1)
        self.refresh()

    # ---- widgets --------------------------------------------------------------------------
    def _tr(self, key: str, **fmt: Any) -> str:
        return t(key, self.lang, **fmt)

    def _safe(self, fn: Any, *args: object) -> None:
        # Never let an exception reach the browser or the server log as an error.
        try:
            fn(*args)
        except Exception:
            log.warning("lab: input rejected", exc_info=True)
            self._show_errors()

    def _show_errors(self) -> None:
        self.controls.sync()

    def sidebar(self) -> list[Any]:
        """The sidebar: the controls, one component (app/lab/controls.py)."""
        return [self.controls.panel]

    def _theme_css(self) -> list[str]:
        """Stylesheets after CARD_CSS: theme colours, and the projector strip when large."""
        return [card_theme_css(self.pal), *([PROJECTOR_CSS] if self._large else [])]

    # ---- refresh --------------------------------------------------------------------------
    def _on_state(self, *events: Any) -> None:
        names = {e.name for e in events}
        if self._quiet:
            self._stale |= names
            return
        if self._stale:
            names |= self._stale
            self._stale = set()
        if names <= {"errors"}:
            # The card marks itself stale (dp-stale) exactly while an input is rejected.
            self._safe(self.refresh_card, names)
            return
        if names <= {"notices"}:
            self._show_notices()
            return
        self._safe(self._refresh_unlocked, names)

    def catch_up(self) -> None:
        """Make the views of the moves this session took quietly (see ``_quiet``): before the
        session shows anything else (a commit, a tour step, a shortcut)."""
        if self._stale:
            names, self._stale = self._stale, set()
            self._safe(self._refresh_unlocked, names)

    def take_quietly(self, control: str, x: float, n: int) -> bool:
        """A slider's release (``control`` σ, ε or δ at position ``x``, the browser's commit
        ``n``) from the page's moves channel (app/lab/moves.py): the state takes it, this
        session makes and sends nothing for it. False when the session answers instead, as
        for any commit: in a live class (the room's link shows the state), during a tour step,
        or when the state refuses the value (its message shows at the slider)."""
        tour = self.tour
        if self.controls.panel.moves == "" or (tour is not None and (tour.step or tour.concealed)):
            return False
        self._quiet = True
        try:
            refused = self.controls.slide(control, x, n)
        finally:
            self._quiet = False
        # (a refused value's message is noted: the browser sends the commit through the
        # session, which makes the noted views first, in its own document)
        return not refused

    def _refresh_unlocked(self, names: set[str]) -> None:
        # Card first (one small message, sent at once); the figures on the next tick, or during
        # a burst of changes (a held arrow key) once the input pauses for PLOT_PAUSE_MS, so the
        # card is never queued behind the browser redrawing figures for a value already
        # superseded. Rapid moves coalesce (app/shell/refresh.py).
        self._refresh.now(self.refresh_card, names)
        self._refresh.later(names)

    def _show_notices(self) -> None:
        # The notices, then (outside the projector layout) the page's introduction: one pane.
        ns = self.state.notices
        text = self._intro
        if ns:
            items = "".join(f"<li>{html.escape(self._tr(k, **f))}</li>" for k, f in ns)
            text = (f'<div class="dp-notice" role="alert"><strong>'
                    f'{html.escape(self._tr("lab.url.title"))}</strong><ul>{items}</ul></div>'
                    + text)
        self.notice.set_text(text)  # (nothing is sent when it is the same)
        if self.notice.visible != bool(text):  # (a param assignment costs, equal or not)
            self.notice.visible = bool(text)

    def refresh(self, names: set[str] | None = None) -> None:
        """Recompute every view from the state and update the sources in place."""
        self.refresh_card(names)
        self.refresh_plots(names)

    def refresh_card(self, names: set[str] | None = None) -> None:
        """The certification card and the controls: cheap, sent to the browser first."""
        s = self.state
        if self.tour is not None and self.tour.concealed:
            self.card.set_text(CONCEALED_HTML.format(
                title=html.escape(self._tr("tour.concealed_title")),
                text=html.escape(self._tr("tour.concealed"))))
        else:
            cert = s.certification()
            self.card.set_text(card_html(s, cert, self.lang, folded=self._large))
        self.address.update(**s.url_query())
        self.controls.sync()
        self._show_notices()
        self._apply_concealment()

    def _apply_concealment(self) -> None:
        """While a prediction step conceals the card, hide every view that answers it too."""
        hide = self.tour is not None and self.tour.concealed
        # (the densities' view says what is hidden, in place of its text equivalent)
        self._show_density(concealed=hide)
        for pane in self._answer_panes:
            if pane.visible == hide:
                pane.visible = not hide
        if self._hidden_for_tour and not hide:
            self._hidden_for_tour = False
            self.refresh_plots(None)  # the subtitles and texts, drawn again
        self._hidden_for_tour = hide

    def refresh_plots(self, names: set[str] | None = None) -> None:
        """The views: figures, legends and text equivalents (one message each)."""
        s = self.state
        sens = float(queries.sensitivity(s.query, s.n, s.B))
        unit = unit_label(self.lang, queries.unit_key(s.query))
        heavy = names is None or bool(names & {"query", "n", "B", "sigma", "eps"})
        # Each view's message and text are made once per worker and view state
        # (app/shell/svgplot.py shared): a room's followers take the same objects.
        if heavy:
            self._draw_density(sens, unit)
        if heavy or (names is not None and bool(names & {"sim_n", "sim_seed"})):
            self._draw_sim(sens, unit)
        self._draw_curve(sens)
        self._draw_attack(sens)
        if self._hidden_for_tour or (self.tour is not None and self.tour.concealed):
            self._apply_concealment()

    def on_key(self, key: str, tour_panel: TourPanel | None) -> None:
        """Keyboard shortcuts (KeyBridge): digits load a preset, arrows move the tour."""
        self.catch_up()
        if key.isdigit() and 1 <= int(key) <= len(PRESETS):
            if self.tour is not None and self.tour.step:
                self.tour.go(0)
            self._safe(self.state.load_preset, PRESETS[int(key) - 1].key)
        elif tour_panel is not None:
            tour_panel.on_key(key)

    # ---- layout ---------------------------------------------------------------------------
    def _fold(self, key: str, body: str, *, folded: bool | None = None) -> str:
        """``body`` inside a ``<details>``: closed in the projector view, open otherwise."""
        closed = self._large if folded is None else folded
        return (f'<details class="dp-fold"{"" if closed else " open"}><summary>'
                f"{html.escape(self._tr(key))}</summary>{body}</details>")

    def _current_cert(self) -> Certification:
        s = self.state
        return s.certification()

    def exports(self) -> exportbar.ExportBar:
        """Save buttons: each figure as PNG (in the browser), the certification as JSON and
        Markdown, the curve as CSV. Files are made at the click from the current state."""
        # (the densities are drawn by the browser: "svg:<key>", app/shell/svgplot.py)
        figures = {"png-density": ("densities", "svg:density", self.leg_dens),
                   "png-curve": ("curve", "svg:curve", self.leg_curve)}

        def make(kind: str) -> exportbar.ExportFile:
            cert = self._current_cert()
            stem = export.file_stem(cert)
            if kind in figures:
                name, fig_id, entries = figures[kind]
                return exportbar.ExportFile(
                    f"{stem}-{name}.png", export.certification_json(cert),
                    fig_id,
                    tuple(e.as_dict() for e in entries
                          if e.renderer is None or e.renderer.visible))
            if kind == "json":
                return exportbar.ExportFile(f"{stem}.json", export.certification_json(cert))
            if kind == "md":
                return exportbar.ExportFile(
                    f"{stem}.md", export.certification_markdown(self.state, cert, self.lang))
            return exportbar.ExportFile(f"{stem}-curve.csv", export.curve_csv(self.state))

        items = [
            {"kind": "png-density", "label": self._tr("lab.export.png_dens"),
             "cls": "dp-export-png dp-export-png-density"},
            {"kind": "png-curve", "label": self._tr("lab.export.png_curve"),
             "cls": "dp-export-png dp-export-png-curve"},
            {"kind": "json", "label": self._tr("lab.export.json"), "cls": "dp-export-json"},
            {"kind": "md", "label": self._tr("lab.export.md"), "cls": "dp-export-md"},
            {"kind": "csv", "label": self._tr("lab.export.csv"), "cls": "dp-export-csv"},
        ]
        return exportbar.ExportBar(make=make, heading=self._tr("lab.export.heading"),
                                hint=self._tr("lab.export.hint"), items=items,
                                sizing_mode="stretch_width", css_classes=["dp-exports"],
                                colours={"background": self.pal.background,
                                         "text": self.pal.text},
                                font_px=20 if self._large else 15)

    def first_paint(self) -> str:
        """The card as server-rendered HTML for the page's first paint (app/shell/first_paint.py):
        the live card's own text, so both show the same numbers; '' while the tour conceals
        the card (the student predicts first)."""
        if self.tour is not None and self.tour.concealed:
            return ""
        return first_paint_html(self.state, self.lang, large=self._large, dark=self._dark,
                                card=self.card.object)

    def main(self) -> list[Any]:
        intro = f'<p class="dp-intro">{html.escape(self._tr("lab.intro"))}</p>'
        # Each view is one component with its heading, legend and text equivalent
        # (app/lab/figures.py); each Panel object costs ~200 Python objects and ~1 ms of a page
        # build, so the layout adds only what places them.
        self.attack_plot.head = (f"<h2>{html.escape(self._tr('lab.attack.heading'))}</h2>"
                                 f"<p>{html.escape(self._tr('lab.attack.intro'))}</p>")
        # (in a column: the bar's own :host rule would keep it shown when hidden; the save
        # bar is left out of print)
        exports = widgets.screen_only(
            pn.Column(self.exports(), sizing_mode="stretch_width", margin=0))
        if self._large:
            # Projector: card strip, then the two linked plots side by side; the texts are
            # folded (<details>) under them and the simulation is a collapsed card.
            self.dens_plot.param.update(min_width=300, styles={"flex": "1 1 600px"})
            self.curve_plot.param.update(min_width=300, styles={"flex": "1 1 600px"})
            plots = pn.FlexBox(self.dens_plot, self.curve_plot, sizing_mode="stretch_width",
                               gap="16px")
            # (in a column: printed although folded, assets/dplab-controls.css)
            sim_body = pn.Column(self.sim_plot, sizing_mode="stretch_width", margin=0,
                                 css_classes=["dp-print-unfold"])
            sim_card = pn.Card(sim_body, title=self._tr("lab.sim.heading"),
                               collapsed=True, sizing_mode="stretch_width",
                               css_classes=["dp-sim-card"])
            self._answer_panes = [self.curve_plot, exports, sim_card, self.attack_plot]
            self._apply_concealment()
            # (the introduction folded at the end: the first screen is the card and the plots)
            end = pn.pane.HTML(self._fold("lab.fold.intro", intro), sizing_mode="stretch_width",
                               stylesheets=[CARD_CSS, PROJECTOR_CSS])
            return [self.notice, self.card, plots, self.attack_plot,
                    exports, sim_card, end]
        self.card.param.update(min_width=280, styles={"flex": "1 1 400px"})
        self.dens_plot.param.update(min_width=280, styles={"flex": "1.3 1 480px"})
        top = pn.FlexBox(self.card, self.dens_plot, sizing_mode="stretch_width", gap="16px")
        self.curve_plot.head = (f"<h2>{html.escape(self._tr('lab.curve.heading'))}</h2>"
                                f"<p>{html.escape(self._tr('lab.curve.tap_hint'))}</p>")
        self.sim_plot.head = f"<h2>{html.escape(self._tr('lab.sim.heading'))}</h2>"
        self._answer_panes = [self.curve_plot, exports, self.sim_plot, self.attack_plot]
        self._apply_concealment()
        self._intro = intro  # (under the notices, in their pane)
        self._show_notices()
        return [self.notice, top, self.curve_plot, self.attack_plot,
                exports, self.sim_plot]


def create_page(lang: str | None = None, link: PageLink | None = None, *, ahead: bool = False
                ) -> pn.template.FastListTemplate:
    """The lab page for the current session (language from ?lang or Accept-Language).

    ``link``: a live class's tie to this page (app/shell/follow.py; made by app/room and
    handed over by app/serve for ``/lab?room=CODE``), or None for a lab on its own.
    ``ahead``: the page is built before a student asks for it (app/serve/prebuild.py), in idle
    time: what a scroll reveals is made now too (it joins the page only when scrolled to)."""
    lang = lang or request_language()
    state = LabState()
    args = options.session_args()
    state.apply_url(args)
    # Unknown page options (theme, size, lang) join the lab's own notice box.
    bad = [("lab.url.bad", {"name": n, "value": v}) for n, v in options.bad_options()]
    if bad:
        state.notices = [*state.notices, *bad]
    lab = LabPage(state=state, lang=lang, large=options.is_large(), dark=options.is_dark())
    # rejected page options (lang=fr) leave the address: a copied link repeats no notice
    if lab.address.update(**{name: "" for name, _ in options.bad_options()}):
        lab.controls.sync()
    extra = attach_tour(lab, args.get("tour"))
    side = lab.sidebar()
    if options.is_large() and len(extra) == 3:
        # Projector: the step panel heads the sidebar, so the card, the densities and the
        # curve keep the whole main screen (the projector's one-screen view).
        bridge, opener, panel = extra
        extra, side = [bridge], [opener, panel, *side]
    if link is not None:
        extra = [*link.attach(LabFollowable(lab)), *extra]
    tmpl = layout.page(lang=lang, title=t("lab.title", lang), path="/lab",
                       main=[*extra, *lab.main()], sidebar=side,
                       sidebar_width=480 if options.is_large() else 380,
                       option_notice_shown=False, first_paint=lab.first_paint())
    tmpl.config.raw_css.append(PAGE_CSS)  # the sidebar no taller than the screen
    if ahead:
        lab.build_hidden_parts()
    doc = pn.state.curdoc
    if link is None and doc is not None:
        doc.__dict__[_LATER] = (lab, tmpl)
    return tmpl


# A page made without a live class keeps what follow_later needs on its document (a page built
# ahead by app/serve/prebuild.py is made so, then taken by a /lab?room=CODE session).
_LATER = "_dplab_lab_page"


def follow_later(doc: Any, link: PageLink) -> bool:
    """Attach ``link`` to the lab page of ``doc`` made without one, so that it ends up as
    :func:`create_page` makes it with ``link``: the link's objects head the main area and the
    first-paint card is the one after the link applied the class's state. False when ``doc``
    holds no such page (or it was used already). Call with ``doc`` as Panel's current
    document."""
    entry = doc.__dict__.pop(_LATER, None)
    if entry is None:
        return False
    lab, tmpl = entry
    objects = link.attach(LabFollowable(lab))
    main = tmpl.main[0]  # app.shell.template.page: one Column holds the main area
    main.objects = [*objects, *main.objects]
    layout.refresh_header(tmpl, lab.lang, "/lab", doc)  # its switches keep the room
    fragment = lab.first_paint()
    tmpl.first_paint = fragment
    if hasattr(doc.template, "fragment"):  # app.shell.first_paint.FirstPaintTemplate
        doc.template.fragment = fragment
    return True


def attach_tour(lab: LabPage, tour_arg: str | None) -> list[Any]:
    """The guided tour (step panel, opener, keyboard bridge) wired to ``lab``.

    ``tour_arg``: the ``tour`` URL value (a step number); a bad value opens nothing and adds
    the lab's usual notice. Returns the objects to put above the lab's main area.
    """
    try:
        steps = lessons_tour(lab.lang)
    except (OSError, KeyError, ValueError):
        log.warning("lab: the guided tour could not be loaded", exc_info=True)
        steps = ()
    bridge = tour_mod.KeyBridge(help_html=tour_mod.help_html(lab.lang),
                                close_label=t("tour.help.close", lab.lang),
                                height=0, width=0, margin=0)
    if not steps:
        bridge.param.watch(lambda e: lab.on_key(e.new.split("#", 1)[0], None), "event")
        return [bridge]
    ts = tour_mod.TourState(steps, lab.state)
    panel = tour_mod.TourPanel(ts, lab.lang)
    lab.tour = ts

    def changed(*_: Any) -> None:
        lab.catch_up()
        lab.address.update(tour=str(ts.step) if ts.step else "")
        lab.refresh_card()

    ts.param.watch(changed, ["step", "revealed"])
    bridge.param.watch(lambda e: lab.on_key(e.new.split("#", 1)[0], panel), "event")
    if tour_arg:
        k = step_from_address(tour_arg, ts.total)
        if k is not None:
            ts.go(k)
        else:
            lab.state.notices = [*lab.state.notices,
                                 ("lab.url.bad", {"name": "tour", "value": tour_arg[:40]})]
            lab.address.update(tour="")  # the rejected step leaves the address
            lab.controls.sync()
    return [bridge, widgets.screen_only(panel.opener), panel.panel]


def lessons_tour(lang: str) -> tuple[lessons.TourStep, ...]:
    return lessons.tour(lang)
