"""The guided tour inside /lab: a step panel that sets the lab's state, says what to look at and
asks for a prediction before the card is revealed.

:class:`TourState` is plain param (unit-tested without a browser); :class:`TourPanel` is its view
and :class:`KeyBridge` forwards the page's keyboard shortcuts (← / → steps, 1–7 presets, ``?``
help overlay, ``p`` projector type) to Python. The step is in the address (``tour=3``) so an
instructor can project a step. Steps come from ``lessons/tour.<lang>.toml``.
"""

from __future__ import annotations

import html
import re
from typing import Any

import panel as pn
import param
from markdown_it import MarkdownIt

import lessons
from app.lab.state import PRESETS, LabState
from app.shell import assets, widgets
from app.shell.i18n import t
from app.shell.tour import StepTour

_MD = MarkdownIt("commonmark", {"html": False})
_TERM_TEXT = re.compile(r"\[\[([a-z0-9-]+)(?:\|([^\]]+))?\]\]")

# Lab parameters a step resets before applying its own (a step is a clean, reproducible state).
_RESET = ("query", "n", "B", "sigma", "eps", "delta", "delta_text", "data", "record",
          "replacement", "eps_lo", "eps_hi", "scale", "overlays", "errors", "notices")


class TourState(StepTour):
    """Where the student is in the lab's tour and what they predicted."""

    held = param.Boolean(default=False,
                         doc="True while a live class holds the card concealed: a prediction "
                             "is recorded but only the teacher reveals.")

    def __init__(self, steps: tuple[lessons.TourStep, ...], lab: LabState, **params: Any) -> None:
        super().__init__(steps, **params)
        self.steps = steps
        self.lab = lab

    @property
    def current(self) -> lessons.TourStep | None:
        return self.steps[self.step - 1] if 1 <= self.step <= self.total else None

    @property
    def concealed(self) -> bool:
        """True while the card must stay hidden (a prediction not made yet)."""
        cur = self.current
        return cur is not None and cur.predict is not None and not self.revealed

    def go(self, k: int) -> None:
        """Open step ``k`` (clamped to 1..total; 0 closes) and set the lab to its state."""
        k = max(0, min(self.total, int(k)))
        if k == 0:
            self.param.update(step=0, choice=-1, revealed=True)
            return
        step = self.steps[k - 1]
        defaults = {name: self.lab.param[name].default for name in _RESET}
        with param.parameterized.batch_call_watchers(self.lab):
            self.lab.param.update(**defaults)
            self.lab.apply_url(step.lab)
        self.param.update(step=k, choice=-1, revealed=step.predict is None)

    def predict(self, option: int) -> None:
        """Record the student's prediction and reveal the card."""
        cur = self.current
        if cur is None or cur.predict is None or not 0 <= option < len(cur.options):
            return
        self.param.update(choice=option, revealed=not self.held)

    def reveal(self) -> None:
        if not self.held:
            self.revealed = True


def _plain(text: str) -> str:
    # Tour text is Markdown without maths; glossary marks show their text.
    text = _TERM_TEXT.sub(lambda m: m.group(2) or m.group(1).replace("-", " "), text)
    return _MD.render(text)


def _inline(text: str) -> str:
    text = _TERM_TEXT.sub(lambda m: m.group(2) or m.group(1).replace("-", " "), text)
    return _MD.renderInline(text)


TOUR_CSS = assets.text("dplab-tour.css")

# The step panel's frame (on the Column, so the buttons sit inside it).
PANEL_STYLES = {"border": "3px solid #0b4f6c", "border-radius": "10px", "padding": "4px 10px 8px",
                "background": "rgba(11, 79, 108, 0.05)"}

CONCEALED_HTML = """
<section class="dp-card dp-card-concealed" aria-live="polite">
  <h2>{title}</h2>
  <p class="dp-concealed-box" role="status">{text}</p>
</section>"""


class KeyBridge(pn.custom.JSComponent):
    """Document-wide keyboard shortcuts -> ``event`` ("<key>#<count>"), and the ``?`` overlay.

    Keys typed into a text field, a select or on a slider handle are left alone, so arrows keep
    moving a focused slider.
    """

    event = param.String(default="", doc="Last shortcut as '<key>#<count>'.")
    help_html = param.String(default="", doc="Trusted HTML of the help overlay.")
    close_label = param.String(default="Close", doc="Label of the overlay's close button.")

    _esm = assets.path("dplab-keybridge.js")


class TourPanel:
    """The step panel (css class ``dp-tour-step``) and its buttons, bound to a TourState."""

    def __init__(self, tour: TourState, lang: str, on_change: Any = None) -> None:
        self.tour = tour
        self.lang = lang
        self.on_change = on_change
        self.start_btn = pn.widgets.Button(label=t("tour.start", lang), button_type="primary",
                                           css_classes=["dp-tour-start"])
        self.start_btn.on_click(lambda e: self.tour.go(1))
        # The step panel's text and buttons are made when a step is first shown: most pages
        # never start the tour, and they were ~8 % of a /lab page build (in-process profile of
        # create_page + server_doc + to_json; benchmarks/README.md).
        self.panel = pn.Column(css_classes=["dp-tour-step"], sizing_mode="stretch_width",
                               margin=(0, 0, 10, 0), styles=PANEL_STYLES, visible=False)
        self.opener = pn.Row(self.start_btn, margin=(0, 0, 6, 0))
        self.tour.param.watch(lambda *e: self.refresh(), ["step", "choice", "revealed", "held"])
        self.refresh()

    def _build(self) -> None:
        lang = self.lang
        self.text = widgets.TextPane("", stylesheets=[TOUR_CSS], sizing_mode="stretch_width",
                                     margin=0)
        self.options = pn.FlexBox(sizing_mode="stretch_width", margin=0,
                                  css_classes=["dp-tour-options"])
        self.reveal_btn = pn.widgets.Button(label=t("tour.reveal", lang), button_type="default",
                                            css_classes=["dp-tour-reveal-btn"])
        self.back_btn = pn.widgets.Button(label=t("tour.back", lang), button_type="default",
                                          css_classes=["dp-tour-back"])
        self.next_btn = pn.widgets.Button(label=t("tour.next", lang), button_type="primary",
                                          css_classes=["dp-tour-next"])
        self.close_btn = pn.widgets.Button(label=t("tour.close", lang), button_type="light",
                                           css_classes=["dp-tour-close"])
        self.reveal_btn.on_click(lambda e: self.tour.reveal())
        self.back_btn.on_click(lambda e: self.tour.back())
        self.next_btn.on_click(lambda e: self.tour.next())
        self.close_btn.on_click(lambda e: self.tour.go(0))
        self.nav = pn.Row(self.back_btn, self.next_btn, self.close_btn, margin=0)
        self.panel.objects = [self.text, self.options, self.reveal_btn, self.nav]

    def _option_button(self, i: int, text: str) -> pn.widgets.Button:
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
        if cur is not None and not self.panel.objects:
            self._build()
        self.panel.visible = cur is not None
        self.opener.visible = cur is None
        if cur is None:
            if self.panel.objects:
                self.text.object = ""
                self.options.objects = []
            if self.on_change:
                self.on_change()
            return
        count = t("tour.count", lang, k=tour.step, n=tour.total)
        parts = [f'<div class="dp-tour" role="region" aria-label="{html.escape(count)}">'
                 f'<p class="dp-tour-count" aria-live="polite">{html.escape(count)}</p>'
                 f"<h2>{_inline(cur.title)}</h2>{_plain(cur.body)}"]
        show_options = cur.predict is not None and not tour.revealed
        # A live class (tour.held): one answer, then the teacher reveals for everyone.
        answered = tour.held and tour.choice >= 0
        if cur.predict is not None:
            parts.append(f'<p class="dp-tour-predict">{_inline(cur.predict)}</p>')
            if tour.revealed:
                if tour.choice >= 0:
                    ok = tour.choice == cur.answer
                    parts.append('<p class="dp-tour-result" role="status">' + html.escape(t(
                        "tour.right" if ok else "tour.wrong", lang,
                        choice=cur.options[tour.choice], answer=cur.options[cur.answer or 0]))
                        + "</p>")
                else:
                    parts.append('<p class="dp-tour-result" role="status">' + html.escape(t(
                        "tour.answer", lang, answer=cur.options[cur.answer or 0])) + "</p>")
                if cur.reveal:
                    parts.append(f'<div class="dp-tour-reveal">{_plain(cur.reveal)}</div>')
        parts.append(f'<p class="dp-tour-keys">{t("tour.keys", lang)}</p></div>')
        self.text.object = "".join(parts)
        self.options.objects = ([self._option_button(i, o) for i, o in enumerate(cur.options)]
                                if show_options and not answered else [])
        self.reveal_btn.visible = show_options and not tour.held
        self.back_btn.disabled = tour.step <= 1
        self.next_btn.disabled = tour.step >= tour.total
        if self.on_change:
            self.on_change()

    def on_key(self, key: str) -> None:
        """A shortcut from the KeyBridge (already filtered for text fields and sliders)."""
        if key == "ArrowRight" and self.tour.step:
            self.tour.next()
        elif key == "ArrowLeft" and self.tour.step:
            self.tour.back()


def help_html(lang: str) -> str:
    """The ``?`` overlay: every shortcut of the lab."""
    rows = "".join(
        f"<tr><td><kbd>{html.escape(k)}</kbd></td><td>{html.escape(t(key, lang))}</td></tr>"
        for k, key in (("← →", "tour.help.steps"), ("1 … 7", "tour.help.presets"),
                       ("p", "tour.help.projector"), ("d", "tour.help.folds"),
                       ("?", "tour.help.help"),
                       ("Esc", "tour.help.close"), ("Tab", "tour.help.tab")))
    presets = "".join(f"<li>{k}: {html.escape(t(f'lab.preset.{p.key}', lang))}</li>"
                      for k, p in enumerate(PRESETS, 1))
    return (f'<h2 id="dp-help-title" style="margin-top:0">{html.escape(t("tour.help.title", lang))}'
            f'</h2><table style="border-collapse:collapse">{rows}</table>'
            f'<p style="margin-bottom:.2em">{html.escape(t("tour.help.preset_list", lang))}</p>'
            f"<ol style='margin-top:0'>{presets}</ol>"
            f'<p>{html.escape(t("tour.help.sliders", lang))}</p>')
