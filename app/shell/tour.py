"""What every predict-then-reveal tour shares (the lab's tour and the /cdf tour build on it):
the tour's state, the step panel, the keyboard bridge and the help overlay.

A tour is a list of steps; a step may ask for a prediction, and the page shows the answer only
once the student has predicted (``revealed``). ``tour=k`` in the address opens step k.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from typing import Any

import panel as pn
import param
from markdown_it import MarkdownIt

from app.shell import assets, widgets
from app.shell.i18n import t
from app.shell.plainjs import PlainJS


class StepTour(param.Parameterized):
    """Where the student is in a tour and what they predicted (a subclass says what ``go`` sets)."""

    step = param.Integer(default=0, bounds=(0, 99),
                         doc="Current step, 1-based; 0 means the tour is closed.")
    total = param.Integer(default=0, bounds=(0, 99), constant=True,
                          doc="Number of steps in the tour.")
    choice = param.Integer(default=-1, bounds=(-1, 9),
                           doc="Option the student predicted at this step (-1: none yet).")
    revealed = param.Boolean(default=True,
                             doc="False while a prediction step hides its answer.")

    def __init__(self, steps: Sequence[Any], **params: Any) -> None:
        super().__init__(**params)
        self.steps = tuple(steps)
        with param.edit_constant(self):
            self.total = len(steps)

    @property
    def current(self) -> Any:
        """The open step, or None while the tour is closed."""
        return self.steps[self.step - 1] if 1 <= self.step <= self.total else None

    def go(self, k: int) -> None:
        """Open step ``k`` (clamped to 1..total; 0 closes) and set the page to its state."""
        k = max(0, min(self.total, int(k)))
        if k == 0:
            self.param.update(step=0, choice=-1, revealed=True)
            return
        step = self.steps[k - 1]
        self.set_page(step)
        self.param.update(step=k, choice=-1, revealed=step.predict is None)

    def set_page(self, step: Any) -> None:
        """Set the page to the state ``step`` opens with (each tour says how)."""
        raise NotImplementedError

    def next(self) -> None:
        if self.step < self.total:
            self.go(self.step + 1)

    def back(self) -> None:
        if self.step > 1:
            self.go(self.step - 1)


def step_from_address(arg: str, total: int) -> int | None:
    """The step number of a ``tour=`` address value, or None when it is not 0..total."""
    try:
        k = int(arg)
    except ValueError:
        return None
    return k if 0 <= k <= total else None


# ---- the step panel both tours show --------------------------------------------------------

_MD = MarkdownIt("commonmark", {"html": False})
_TERM_TEXT = re.compile(r"\[\[([a-z0-9-]+)(?:\|([^\]]+))?\]\]")
TOUR_CSS = assets.text("dplab-tour.css")
# The buttons' labels wrap inside their boxes (projector type on a phone, both tours).
WRAP_CSS = assets.text("dplab-tour-wrap.css")
# The step panel's frame (on the Column, so the buttons sit inside it).
PANEL_STYLES = {"border": "3px solid #0b4f6c", "border-radius": "10px", "padding": "4px 10px 8px",
                "background": "rgba(11, 79, 108, 0.05)"}


def tour_md(text: str, inline: bool = False) -> str:
    """Tour text (Markdown without maths) as HTML; a glossary mark shows its text."""
    text = _TERM_TEXT.sub(lambda m: m.group(2) or m.group(1).replace("-", " "), text)
    return _MD.renderInline(text) if inline else _MD.render(text)


class KeyBridge(PlainJS):
    """Document-wide keyboard shortcuts -> ``event`` ("<key>#<count>"), and the ``?`` overlay.

    Keys typed into a text field, a select or on a slider handle are left alone, so arrows keep
    moving a focused slider.
    """

    event = param.String(default="", doc="Last shortcut as '<key>#<count>'.")
    help_html = param.String(default="", doc="Trusted HTML of the help overlay.")
    close_label = param.String(default="Close", doc="Label of the overlay's close button.")

    _esm = assets.path("dplab-keybridge.js")


def help_html(lang: str, title_key: str, rows: Sequence[tuple[str, str]], middle: str = "",
              sliders_key: str = "") -> str:
    """The ``?`` overlay: a table of (keys, message key) rows, then ``middle`` (trusted HTML)
    and the sentence about sliders."""
    table = "".join(
        f"<tr><td><kbd>{html.escape(k)}</kbd></td><td>{html.escape(t(key, lang))}</td></tr>"
        for k, key in rows)
    return (f'<h2 id="dp-help-title" style="margin-top:0">{html.escape(t(title_key, lang))}'
            f'</h2><table style="border-collapse:collapse">{table}</table>{middle}'
            + (f"<p>{html.escape(t(sliders_key, lang))}</p>" if sliders_key else ""))


class StepPanel:
    """The step panel (css class ``dp-tour-step``), its opener and buttons, bound to a tour.

    ``tour``: a :class:`StepTour` with ``current`` (a step with title, body, predict, options,
    answer, reveal), ``predict(k)`` and ``reveal()``; a tour with ``held`` True (a live class)
    takes one answer and leaves the reveal to the teacher. A subclass names its messages.
    The text and buttons are made when a step is first shown: most pages never start the tour
    (they were ~8 % of a /lab page build; benchmarks/README.md).
    """

    start_key = "tour.start"
    keys_key = "tour.keys"
    watched: tuple[str, ...] = ("step", "choice", "revealed")

    def __init__(self, tour: Any, lang: str, on_change: Callable[[], None] | None = None
                 ) -> None:
        self.tour, self.lang, self.on_change = tour, lang, on_change
        # (the opener is the button itself: a row around it cost ~160 Python objects per page;
        # its margin is the row's 0 0 6 px added to the button's 5 px 10 px)
        self.start_btn = pn.widgets.Button(label=t(self.start_key, lang), color="primary",
                                           css_classes=["dp-tour-start"],
                                           stylesheets=[WRAP_CSS], margin=(5, 10, 11, 10))
        self.start_btn.on_click(lambda e: self.tour.go(1))
        self.panel = pn.Column(css_classes=["dp-tour-step"], sizing_mode="stretch_width",
                               margin=(0, 0, 10, 0), styles=PANEL_STYLES, visible=False)
        self.opener = self.start_btn
        self.tour.param.watch(lambda *e: self.refresh(), list(self.watched))
        self.refresh()

    def region_label(self, count: str) -> str:
        """Accessible name of the step's region."""
        return count

    def waiting_note(self) -> str:
        """Trusted HTML under the question while the answer is hidden."""
        return ""

    def _build(self) -> None:
        lang = self.lang
        self.text = widgets.TextPane("", stylesheets=[TOUR_CSS], sizing_mode="stretch_width",
                                     margin=0)
        self.options = pn.FlexBox(sizing_mode="stretch_width", margin=0,
                                  css_classes=["dp-tour-options"])

        def button(key: str, cls: str, kind: str = "default") -> pn.widgets.Button:
            return pn.widgets.Button(label=t(key, lang), color=kind,
                                     css_classes=[cls, "dp-tour-nav-btn"],
                                     stylesheets=[WRAP_CSS])

        self.reveal_btn = button("tour.reveal", "dp-tour-reveal-btn")
        self.back_btn = button("tour.back", "dp-tour-back")
        self.next_btn = button("tour.next", "dp-tour-next", "primary")
        self.close_btn = button("tour.close", "dp-tour-close", "light")
        self.reveal_btn.on_click(lambda e: self.tour.reveal())
        self.back_btn.on_click(lambda e: self.tour.back())
        self.next_btn.on_click(lambda e: self.tour.next())
        self.close_btn.on_click(lambda e: self.tour.go(0))
        # back, next and close: two lines rather than past a phone's screen (size=large)
        self.nav = pn.Row(self.back_btn, self.next_btn, self.close_btn, margin=0,
                          styles={"flex-wrap": "wrap"})
        # (the buttons are left out of print; the question's answers stay)
        self.panel.objects = [self.text, self.options, widgets.screen_only(self.reveal_btn),
                              widgets.screen_only(self.nav)]

    def _option_button(self, i: int, text: str) -> pn.widgets.Button:
        b = pn.widgets.Button(label=text, color="default",
                              css_classes=["dp-tour-option", f"dp-tour-option-{i}"],
                              margin=(2, 6, 2, 0), stylesheets=[WRAP_CSS])

        def choose(_event: object, k: int = i) -> None:
            self.tour.predict(k)

        b.on_click(choose)
        return b

    def step_html(self) -> str:
        """The current step's text, question and (once revealed) the answer."""
        tour, lang, cur = self.tour, self.lang, self.tour.current
        count = t("tour.count", lang, k=tour.step, n=tour.total)
        parts = [f'<div class="dp-tour" role="region" '
                 f'aria-label="{html.escape(self.region_label(count))}">'
                 f'<p class="dp-tour-count" aria-live="polite">{html.escape(count)}</p>'
                 f"<h2>{tour_md(cur.title, inline=True)}</h2>{tour_md(cur.body)}"]
        if cur.predict is not None:
            parts.append(f'<p class="dp-tour-predict">{tour_md(cur.predict, inline=True)}</p>')
            if not tour.revealed:
                parts.append(self.waiting_note())
            else:
                right = cur.options[cur.answer or 0]
                if tour.choice >= 0:
                    key = "tour.right" if tour.choice == cur.answer else "tour.wrong"
                    msg = t(key, lang, choice=cur.options[tour.choice], answer=right)
                else:
                    msg = t("tour.answer", lang, answer=right)
                parts.append(f'<p class="dp-tour-result" role="status">{html.escape(msg)}</p>')
                if cur.reveal:
                    parts.append(f'<div class="dp-tour-reveal">{tour_md(cur.reveal)}</div>')
        parts.append(f'<p class="dp-tour-keys">{t(self.keys_key, lang)}</p></div>')
        return "".join(parts)

    def refresh(self) -> None:
        tour, cur = self.tour, self.tour.current
        if cur is not None and not self.panel.objects:
            self._build()
        self.panel.visible = cur is not None
        self.opener.visible = cur is None
        if cur is None:
            if self.panel.objects:
                self.text.object = ""
                self.options.objects = []
        else:
            held = bool(getattr(tour, "held", False))
            waiting = cur.predict is not None and not tour.revealed
            answered = held and tour.choice >= 0  # a live class: one answer per student
            self.text.object = self.step_html()
            self.options.objects = (
                [self._option_button(i, o) for i, o in enumerate(cur.options)]
                if waiting and not answered else [])
            self.reveal_btn.visible = waiting and not held
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
