"""The guided tour inside /lab: a step panel that sets the lab's state, says what to look at and
asks for a prediction before the card is revealed.

:class:`TourState` is plain param (unit-tested without a browser); :class:`TourPanel` is its view
and :class:`KeyBridge` forwards the page's keyboard shortcuts (← / → steps, 1–7 presets, ``?``
help overlay, ``p`` projector type) to Python. The step is in the address (``tour=3``) so an
instructor can project a step. Steps come from ``lessons/tour.<lang>.toml``.
"""

from __future__ import annotations

import html
from typing import Any

import param

import lessons
from app.lab.state import PRESETS, LabState
from app.shell.i18n import t
from app.shell.tour import KeyBridge, StepPanel, StepTour
from app.shell.tour import help_html as shell_help

__all__ = ["CONCEALED_HTML", "KeyBridge", "TourPanel", "TourState", "help_html"]

# Lab parameters a step resets before applying its own (a step is a clean, reproducible state).
_RESET = ("query", "n", "B", "sigma", "eps", "delta", "delta_text", "data", "record",
          "replacement", "eps_lo", "eps_hi", "scale", "overlays", "calibrated", "errors",
          "notices")


class TourState(StepTour):
    """Where the student is in the lab's tour and what they predicted."""

    held = param.Boolean(default=False,
                         doc="True while a live class holds the card concealed: a prediction "
                             "is recorded but only the teacher reveals.")

    def __init__(self, steps: tuple[lessons.TourStep, ...], lab: LabState, **params: Any) -> None:
        super().__init__(steps, **params)
        self.lab = lab

    @property
    def concealed(self) -> bool:
        """True while the card must stay hidden (a prediction not made yet)."""
        cur = self.current
        return cur is not None and cur.predict is not None and not self.revealed

    def set_page(self, step: lessons.TourStep) -> None:
        """The lab at the step's state, every other setting at its default."""
        defaults = {name: self.lab.param[name].default for name in _RESET}
        with param.parameterized.batch_call_watchers(self.lab):
            self.lab.param.update(**defaults)
            self.lab.apply_url(step.lab)

    def predict(self, option: int) -> None:
        """Record the student's prediction and reveal the card."""
        cur = self.current
        if cur is None or cur.predict is None or not 0 <= option < len(cur.options):
            return
        self.param.update(choice=option, revealed=not self.held)

    def reveal(self) -> None:
        if not self.held:
            self.revealed = True


CONCEALED_HTML = """
<section class="dp-card dp-card-concealed" aria-live="polite">
  <h2>{title}</h2>
  <p class="dp-concealed-box" role="status">{text}</p>
</section>"""


class TourPanel(StepPanel):
    """The lab's step panel: a live class's ``held`` also redraws it."""

    watched = ("step", "choice", "revealed", "held")


def help_html(lang: str) -> str:
    """The ``?`` overlay: every shortcut of the lab."""
    presets = "".join(f"<li>{k}: {html.escape(t(f'lab.preset.{p.key}', lang))}</li>"
                      for k, p in enumerate(PRESETS, 1))
    middle = (f'<p style="margin-bottom:.2em">{html.escape(t("tour.help.preset_list", lang))}'
              f"</p><ol style='margin-top:0'>{presets}</ol>")
    return shell_help(lang, "tour.help.title",
                      (("← →", "tour.help.steps"), ("1 … 7", "tour.help.presets"),
                       ("p", "tour.help.projector"), ("d", "tour.help.folds"),
                       ("?", "tour.help.help"), ("Esc", "tour.help.close"),
                       ("Tab", "tour.help.tab")),
                      middle, "tour.help.sliders")
