"""The guided tour of /cdf (``/cdf?tour=1``): a step panel (css class ``dp-tour-step``, as on
/lab) that sets the page, asks for a prediction, and only then shows the change.

Each step (``lessons/cdftour.<lang>.toml``) has a ``start`` state, set when the step opens, and
a ``cdf`` state, set with the reveal: the student predicts what the change will do (the degree
slider's cost, a new seed, auto's switch to a histogram, the isotonic repair, the ledger after
more releases) before seeing it. :class:`CDFTourState` is plain param (unit-tested without a
browser); :class:`CDFTourPanel` is its view; :class:`TourKeys` forwards ← / → (and the shared
``?``, ``p``, ``d``) from the page, from ``assets/dplab-keybridge.js``. The step is in the
address (``tour=3``) so an instructor can project a step.
"""

from __future__ import annotations

import html
import logging
import re
from typing import Any

import panel as pn
import param
from markdown_it import MarkdownIt

import lessons
from app.cdf.state import CDFState
from app.shell import assets, widgets
from app.shell.i18n import t
from app.shell.tour import StepTour, step_from_address

log = logging.getLogger(__name__)

_MD = MarkdownIt("commonmark", {"html": False})
_TERM_TEXT = re.compile(r"\[\[([a-z0-9-]+)(?:\|([^\]]+))?\]\]")
# The /cdf names a step sets, reset to their defaults first (a step is a reproducible state).
_RESET = ("dataset", "n", "eps", "delta", "method", "noise_seed", "auto_degree", "degree")
PANEL_STYLES = {"border": "3px solid #0b4f6c", "border-radius": "10px", "padding": "4px 10px 8px",
                "background": "rgba(11, 79, 108, 0.05)"}
TOUR_CSS = assets.text("dplab-tour.css")


def _md(text: str, inline: bool = False) -> str:
    text = _TERM_TEXT.sub(lambda m: m.group(2) or m.group(1).replace("-", " "), text)
    return _MD.renderInline(text) if inline else _MD.render(text)


class CDFTourState(StepTour):
    """Where the student is in the /cdf tour and what they predicted."""

    def __init__(self, steps: tuple[lessons.CDFTourStep, ...], state: CDFState,
                 **params: Any) -> None:
        super().__init__(steps, **params)
        self.steps = steps
        self.state = state

    @property
    def current(self) -> lessons.CDFTourStep | None:
        return self.steps[self.step - 1] if 1 <= self.step <= self.total else None

    def _set(self, args: dict[str, str]) -> None:
        defaults = {name: self.state.param[name].default for name in _RESET}
        with param.parameterized.batch_call_watchers(self.state):
            self.state.param.update(**defaults)
            bad = self.state.apply_url(args)
        if bad:  # the sources are checked by tests; never leave a half-set page silently
            log.warning("cdf tour: step state rejected: %s", bad)

    def go(self, k: int) -> None:
        """Open step ``k`` (clamped to 1..total; 0 closes) with its start state."""
        k = max(0, min(self.total, int(k)))
        if k == 0:
            self.param.update(step=0, choice=-1, revealed=True)
            return
        step = self.steps[k - 1]
        self._set(step.start if step.predict is not None else step.cdf)
        self.param.update(step=k, choice=-1, revealed=step.predict is None)

    def predict(self, option: int) -> None:
        """Record the prediction, then show the step's change."""
        cur = self.current
        if cur is None or cur.predict is None or not 0 <= option < len(cur.options):
            return
        self.choice = option
        self.reveal()

    def reveal(self) -> None:
        cur = self.current
        if cur is None or self.revealed:
            return
        self._set(cur.cdf)
        self.revealed = True


class TourKeys(pn.custom.JSComponent):
    """Document-wide shortcuts -> ``event`` ("<key>#<count>"), and the ``?`` overlay (the
    shared script of the lab's shortcuts; keys typed into a field or on a slider are left
    alone, so the arrows keep moving a focused degree slider)."""

    event = param.String(default="", doc="Last shortcut as '<key>#<count>'.")
    help_html = param.String(default="", doc="Trusted HTML of the help overlay.")
    close_label = param.String(default="Close", doc="Label of the overlay's close button.")

    _esm = assets.path("dplab-keybridge.js")


def help_html(lang: str) -> str:
    rows = "".join(
        f"<tr><td><kbd>{html.escape(k)}</kbd></td><td>{html.escape(t(key, lang))}</td></tr>"
        for k, key in (("← →", "cdftour.help.steps"), ("p", "cdftour.help.projector"),
                       ("d", "cdftour.help.folds"), ("?", "cdftour.help.help"),
                       ("Esc", "cdftour.help.close")))
    return (f'<h2 id="dp-help-title" style="margin-top:0">'
            f'{html.escape(t("cdftour.help.title", lang))}</h2>'
            f'<table style="border-collapse:collapse">{rows}</table>'
            f'<p>{html.escape(t("cdftour.help.sliders", lang))}</p>')


class CDFTourPanel:
    """The step panel (css class ``dp-tour-step``) and its buttons, bound to a CDFTourState."""

    def __init__(self, tour: CDFTourState, lang: str) -> None:
        self.tour, self.lang = tour, lang
        self.text = widgets.TextPane("", stylesheets=[TOUR_CSS], sizing_mode="stretch_width",
                                     margin=0)
        self.options = pn.FlexBox(sizing_mode="stretch_width", margin=0,
                                  css_classes=["dp-tour-options"])

        def button(key: str, cls: str, kind: str = "default") -> pn.widgets.Button:
            return pn.widgets.Button(label=t(key, lang), button_type=kind, css_classes=[cls])

        self.reveal_btn = button("tour.reveal", "dp-tour-reveal-btn")
        self.back_btn = button("tour.back", "dp-tour-back")
        self.next_btn = button("tour.next", "dp-tour-next", "primary")
        self.close_btn = button("tour.close", "dp-tour-close", "light")
        self.start_btn = button("cdftour.start", "dp-tour-start", "primary")
        self.reveal_btn.on_click(lambda e: self.tour.reveal())
        self.back_btn.on_click(lambda e: self.tour.back())
        self.next_btn.on_click(lambda e: self.tour.next())
        self.close_btn.on_click(lambda e: self.tour.go(0))
        self.start_btn.on_click(lambda e: self.tour.go(1))
        self.panel = pn.Column(self.text, self.options, self.reveal_btn,
                               pn.Row(self.back_btn, self.next_btn, self.close_btn, margin=0),
                               css_classes=["dp-tour-step"], sizing_mode="stretch_width",
                               margin=(0, 0, 10, 0), styles=PANEL_STYLES)
        self.opener = pn.Row(self.start_btn, margin=(0, 0, 6, 0))
        self.tour.param.watch(lambda *e: self.refresh(), ["step", "choice", "revealed"])
        self.refresh()

    def _option(self, i: int, text: str) -> pn.widgets.Button:
        b = pn.widgets.Button(label=text, button_type="default",
                              css_classes=["dp-tour-option", f"dp-tour-option-{i}"],
                              margin=(2, 6, 2, 0))

        def choose(_event: object, k: int = i) -> None:
            self.tour.predict(k)

        b.on_click(choose)
        return b

    def refresh(self) -> None:
        tour, lang = self.tour, self.lang
        cur = tour.current
        self.panel.visible = cur is not None
        self.opener.visible = cur is None
        if cur is None:
            self.text.object = ""
            self.options.objects = []
            return
        count = t("tour.count", lang, k=tour.step, n=tour.total)
        parts = [f'<div class="dp-tour" role="region" '
                 f'aria-label="{html.escape(t("cdftour.label", lang))}">'
                 f'<p class="dp-tour-count" aria-live="polite">{html.escape(count)}</p>'
                 f"<h2>{_md(cur.title, inline=True)}</h2>{_md(cur.body)}"]
        waiting = cur.predict is not None and not tour.revealed
        if cur.predict is not None:
            parts.append(f'<p class="dp-tour-predict">{_md(cur.predict, inline=True)}</p>')
            if waiting:
                parts.append(f'<p class="dp-muted">{html.escape(t("cdftour.reveal_note", lang))}'
                             "</p>")
            else:
                right = cur.options[cur.answer or 0]
                if tour.choice >= 0:
                    key = "tour.right" if tour.choice == cur.answer else "tour.wrong"
                    msg = t(key, lang, choice=cur.options[tour.choice], answer=right)
                else:
                    msg = t("tour.answer", lang, answer=right)
                parts.append(f'<p class="dp-tour-result" role="status">{html.escape(msg)}</p>')
                if cur.reveal:
                    parts.append(f'<div class="dp-tour-reveal">{_md(cur.reveal)}</div>')
        parts.append(f'<p class="dp-tour-keys">{t("cdftour.keys", lang)}</p></div>')
        self.text.object = "".join(parts)
        self.options.objects = ([self._option(i, o) for i, o in enumerate(cur.options)]
                                if waiting else [])
        self.reveal_btn.visible = waiting
        self.back_btn.disabled = tour.step <= 1
        self.next_btn.disabled = tour.step >= tour.total

    def on_key(self, key: str) -> None:
        if key == "ArrowRight" and self.tour.step:
            self.tour.next()
        elif key == "ArrowLeft" and self.tour.step:
            self.tour.back()


def attach(state: CDFState, lang: str, tour_arg: str | None
           ) -> tuple[list[Any], list[tuple[str, dict[str, Any]]], CDFTourState | None]:
    """The tour's objects for the top of /cdf (keys, opener, panel), any notice, and the
    tour's state (None when the tour cannot be loaded).

    ``tour_arg``: the ``tour`` address value (a step number; 1 opens the first step)."""
    notices: list[tuple[str, dict[str, Any]]] = []
    try:
        steps = lessons.cdf_tour(lang)
    except (OSError, KeyError, ValueError):
        log.warning("cdf: the guided tour could not be loaded", exc_info=True)
        return [], notices, None
    ts = CDFTourState(steps, state)
    panel = CDFTourPanel(ts, lang)
    keys = TourKeys(help_html=help_html(lang), close_label=t("cdftour.help.close", lang),
                    height=0, width=0, margin=0)
    keys.param.watch(lambda e: panel.on_key(e.new.split("#", 1)[0]), "event")
    if tour_arg:
        k = step_from_address(tour_arg, ts.total)
        if k is None:
            notices.append(("cdf.url.bad", {"name": "tour", "value": tour_arg[:40]}))
        else:
            ts.go(k)
    return [keys, panel.opener, panel.panel], notices, ts
