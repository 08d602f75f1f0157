"""The guided tour of /cdf (``/cdf?tour=1``): a step panel (css class ``dp-tour-step``, as on
/lab) that sets the page, asks for a prediction, and only then shows the change.

Each step (``lessons/cdftour.<lang>.toml``) has a ``start`` state, set when the step opens, and
a ``cdf`` state, set with the reveal: the student predicts what the change will do (the degree
slider's cost, a new seed, auto's switch to a histogram, the isotonic repair, the ledger after
more releases) before seeing it. :class:`CDFTourState` is plain param (unit-tested without a
browser); :class:`CDFTourPanel` is its view; the shared KeyBridge (app/shell/tour.py) forwards
← / → (and ``?``, ``p``, ``d``) from the page, from ``assets/dplab-keybridge.js``. The step is
in the address (``tour=3``) so an instructor can project a step.

While a step waits for its prediction, the page hides every text that answers it (as the lab's
tour hides the card): :data:`CONCEAL` maps each such message to the one shown instead, in the
visible text and in the names a screen reader reads (labels, options, headings); the page
(app/cdf/page.py) swaps them while ``hiding`` names the step, says so in a note, and restores
them with the reveal.
"""

from __future__ import annotations

import html
import logging
from typing import Any

import param

import lessons
from app.cdf.state import CDFState
from app.shell.i18n import t
from app.shell.tour import KeyBridge, StepPanel, StepTour, step_from_address
from app.shell.tour import help_html as shell_help
from app.shell.widgets import screen_only

log = logging.getLogger(__name__)

# The /cdf names a step sets, reset to their defaults first (a step is a reproducible state).
_RESET = ("dataset", "n", "eps", "delta", "method", "noise_seed", "auto_degree", "degree")

# The messages that answer a step's prediction -> the message the page shows instead (both
# catalogues), by step id (lessons/cdftour.<lang>.toml). The degree slider's own label names no
# cost at all (its accessible name is set once in the browser, so it cannot be swapped).
_INTRO = {"cdf.intro": "cdftour.hide.intro"}
CONCEAL: dict[str, dict[str, str]] = {
    "slider-cost": {**_INTRO,  # "costs no privacy", "released once ... as often as you like"
                    "cdf.privacy.degree_free": "cdftour.hide.degree_free",
                    "cdf.degree.auto_on": "cdftour.hide.auto_on",
                    "cdf.degree.fixed": "cdftour.hide.fixed"},
    "new-seed": {**_INTRO,  # "the noise seed makes a new release"
                 "cdf.side.release": "cdftour.hide.side_release",
                 "cdf.ctl.noise_seed": "cdftour.hide.noise_seed",
                 "cdf.ctl.new_noise": "cdftour.hide.new_noise"},
    "auto-hist": {"cdf.method.auto": "cdftour.hide.method_auto",  # the rule, n·ε ≥ threshold
                  "cdf.auto.summary_tree": "cdftour.hide.summary_tree",
                  "cdf.auto.summary_hist": "cdftour.hide.summary_hist",
                  "cdf.auto.summary_band": "cdftour.hide.summary_band",
                  "cdf.auto.tree": "cdftour.hide.auto_rule",
                  "cdf.auto.band_tree": "cdftour.hide.auto_rule",
                  "cdf.auto.hist": "cdftour.hide.auto_rule"},
    "isotonic": {"cdf.dplot.explain": "cdftour.hide.dplot_explain"},  # "does not increase it"
}


class CDFTourState(StepTour):
    """Where the student is in the /cdf tour and what they predicted."""

    hiding = param.String(default="", doc="Id of the step whose answer the page hides now "
                                          "(its prediction is open); '' when nothing is hidden.")

    def __init__(self, steps: tuple[lessons.CDFTourStep, ...], state: CDFState,
                 **params: Any) -> None:
        super().__init__(steps, **params)
        self.state = state

    def _set(self, args: dict[str, str]) -> None:
        defaults = {name: self.state.param[name].default for name in _RESET}
        with param.parameterized.batch_call_watchers(self.state):
            self.state.param.update(**defaults)
            bad = self.state.apply_url(args)
        if bad:  # the sources are checked by tests; never leave a half-set page silently
            log.warning("cdf tour: step state rejected: %s", bad)

    @property
    def concealed(self) -> bool:
        """True while the page hides what answers the open prediction."""
        return bool(self.hidden())

    def hidden(self) -> dict[str, str]:
        """Message key -> the key shown in its place, while the prediction is open."""
        return dict(CONCEAL.get(self.hiding, {}))

    def go(self, k: int) -> None:
        super().go(k)
        if self.step == 0 and self.hiding:  # the tour closed: nothing stays hidden
            self.hiding = ""

    def set_page(self, step: lessons.CDFTourStep) -> None:
        """A prediction step opens with its start state; the change comes with the reveal.
        What answers the prediction is hidden before the page changes, so no text that gives
        it away reaches the browser."""
        self.hiding = step.id if step.predict is not None else ""
        self._set(step.start if step.predict is not None else step.cdf)

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
        self.hiding = ""


def help_html(lang: str) -> str:
    return shell_help(lang, "cdftour.help.title",
                      (("← →", "cdftour.help.steps"), ("p", "cdftour.help.projector"),
                       ("d", "cdftour.help.folds"), ("?", "cdftour.help.help"),
                       ("Esc", "cdftour.help.close")), sliders_key="cdftour.help.sliders")


class CDFTourPanel(StepPanel):
    """The /cdf step panel: its own opener, region name and the note while a step waits."""

    start_key = "cdftour.start"
    keys_key = "cdftour.keys"

    def __init__(self, tour: Any, lang: str) -> None:
        super().__init__(tour, lang)
        # (its buttons' labels wrap in projector type on a phone: app/shell/tour.py)
        screen_only(self.opener)  # not printed

    def region_label(self, count: str) -> str:
        return t("cdftour.label", self.lang)

    def waiting_note(self) -> str:
        return f'<p class="dp-muted">{html.escape(t("cdftour.reveal_note", self.lang))}</p>'


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
    keys = KeyBridge(help_html=help_html(lang), close_label=t("cdftour.help.close", lang),
                    height=0, width=0, margin=0)
    keys.param.watch(lambda e: panel.on_key(e.new.split("#", 1)[0]), "event")
    if tour_arg:
        k = step_from_address(tour_arg, ts.total)
        if k is None:
            notices.append(("cdf.url.bad", {"name": "tour", "value": tour_arg[:40]}))
        else:
            ts.go(k)
    return [keys, panel.opener, panel.panel], notices, ts
