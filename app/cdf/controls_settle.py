"""The /cdf controls that spend only once a value settles: the ε slider and the selects of
data source, method and column (``SETTLING_SELECTS``).

Each arrow key press on a focused slider or select is a change, and every release is booked in
the privacy ledger: a change is kept pending, with a note under its control, until it settles
(``SETTLE_MS`` after the last change, or at once on pointer up, an option picked or Enter, as
the browser says through the sidebar's component to :class:`app.cdf.widgets.SettleNote`).
Only then does it go through
:meth:`app.cdf.controls.CDFControls._input` like any other value. Kept apart from the other
controls because this timing (generations, timeouts in the session) is its own concern.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import panel as pn
from panel.io.state import set_curdoc

from app.cdf.widgets import SettleNote
from app.shell.numbers import fmt_input

if TYPE_CHECKING:
    from app.cdf.parts import Bar
    from app.cdf.records import Message
    from app.cdf.sidebar import EpsSlider
    from app.cdf.state import CDFState

# A slider value is released once it settles: this long after its last step (a held or
# repeated arrow key), or at once on pointer up or Enter (assets/dplab-cdf-controls.js).
SETTLE_MS = 600

# The selects whose every change is a release (a new data source, method or column): a value
# is released once it settles, as the ε slider's (a focused select changes its value at each
# arrow key press). Name in the state -> the CSS class of the select.
SETTLING_SELECTS = {"dataset": "dp-cdf-dataset", "method": "dp-cdf-method",
                    "upload_column": "dp-cdf-column"}


class SettlingControls:
    """The pending values of :class:`app.cdf.controls.CDFControls` (a mixin: the widgets, the
    state and ``_input`` are the controls' and the page's)."""

    if TYPE_CHECKING:  # what the controls and the page provide
        state: CDFState
        _errors: dict[str, Message]
        _syncing: bool
        bar: Bar
        w_eps_slider: EpsSlider
        w_dataset: Any
        w_method: Any
        w_column: Any

        def tr(self, key: str, **fmt: Any) -> str: ...
        def _safe(self, fn: Any, *args: Any) -> None: ...
        def _input(self, name: str, value: Any) -> None: ...

    def _build_settle_notes(self) -> None:
        """The pending values (none yet) and the note under each control that has one (parts
        of the sidebar, app/cdf/widgets.py SettleNote)."""
        # the ε slider's value not yet released, and the browser's "settled" (SETTLE_MS)
        self.eps_pending: float | None = None
        self._settle_gen = 0
        self.eps_note = SettleNote(self.bar, "eps_note",
                                   lambda v: self._safe(self._eps_settled, v),
                                   slider_class="dp-cdf-eps-slider",
                                   css_classes=["dp-cdf-eps-note"])
        # the selects' values not yet released (SETTLING_SELECTS), each with its note
        self.select_pending: dict[str, Any] = {}
        self._select_gen = dict.fromkeys(SETTLING_SELECTS, 0)
        self.select_notes = {
            name: SettleNote(self.bar, f"{name}_note", self._settled_handler(name),
                             slider_class=cls, control_kind="select",
                             css_classes=[f"{cls}-note"])
            for name, cls in SETTLING_SELECTS.items()}

    def _settle_notes(self) -> dict[str, SettleNote]:
        """The sidebar's control -> the note that takes its "settled" (app/cdf/sidebar.py)."""
        return {"eps_slider": self.eps_note, **self.select_notes}

    # ---- the ε slider: a release once the value settles -------------------------------------
    def _eps_slid(self, value: float) -> None:
        """A step of the ε slider (each arrow press arrives as one): pending until it settles
        (SETTLE_MS after the last step, or pointer up / Enter); nothing is released or booked
        before."""
        if self._syncing:
            return
        self._settle_gen += 1
        if value == self.state.eps and "eps" not in self._errors:
            self._set_pending(None)  # back at the released value: nothing to release
            return
        self._set_pending(value)
        doc = pn.state.curdoc
        if doc is None or doc.session_context is None:
            return  # no session (tests): settle_eps() releases
        gen = self._settle_gen

        def due() -> None:
            if gen == self._settle_gen:
                with set_curdoc(doc), self.bar.batch():
                    self._safe(self.settle_eps)

        doc.add_timeout_callback(due, SETTLE_MS)

    def _eps_settled(self, value: float) -> None:
        """The browser says the slider settled (pointer up, Enter) at ``value``: release it now
        (whether or not its step has arrived yet)."""
        value = round(min(max(value, self.w_eps_slider.start), self.w_eps_slider.end), 4)
        self._settle_gen += 1
        if value == self.state.eps and "eps" not in self._errors:
            self._set_pending(None)
            return
        self._set_pending(value)
        self.settle_eps()

    def settle_eps(self) -> None:
        """Release the pending ε value (the ledger books it); nothing when none is pending."""
        value = self.eps_pending
        if value is None:
            return
        self._set_pending(None)
        self._input("eps", value)

    def _set_pending(self, value: float | None) -> None:
        self.eps_pending = value
        text = "" if value is None else self.tr("cdf.ctl.eps_pending", eps=fmt_input(value),
                                               released=fmt_input(self.state.eps))
        if self.eps_note.text != text:
            self.eps_note.text = text

    # ---- the selects that spend: a release once the choice settles (as the ε slider) --------
    def _select(self, name: str) -> Any:
        return {"dataset": self.w_dataset, "method": self.w_method,
                "upload_column": self.w_column}[name]

    def _select_released(self, name: str, value: Any) -> bool:
        """``value`` is what the state holds and nothing is rejected under its control."""
        control = "upload" if name == "upload_column" else name
        return bool(value == getattr(self.state, name) and control not in self._errors)

    def _settled_handler(self, name: str) -> Callable[[Any], None]:
        return lambda shown: self._safe(self._select_settled, name, shown)

    def _select_changed(self, name: str, value: Any) -> None:
        """A new choice in a select that spends (each arrow press on a focused select is one):
        pending until it settles (SETTLE_MS after the last change, or an option picked / Enter:
        the browser says so); nothing is released or booked before. Without a session
        (scripts, tests) there is no pause to wait for: released at once."""
        if self._syncing:
            return
        self._select_gen[name] += 1
        if self._select_released(name, value):
            self._set_select_pending(name, None)  # back at the released choice
            return
        self._set_select_pending(name, value)
        gen = self._select_gen[name]

        def due() -> None:
            if gen == self._select_gen[name]:
                self._safe(self.settle_select, name)

        if not self._after_pause(due):
            self.settle_select(name)

    def _after_pause(self, fn: Callable[[], None]) -> bool:
        """Run ``fn`` SETTLE_MS from now in this session (False: no session, nothing done)."""
        doc = pn.state.curdoc
        if doc is None or doc.session_context is None:
            return False

        def due() -> None:
            with set_curdoc(doc), self.bar.batch():
                fn()

        doc.add_timeout_callback(due, SETTLE_MS)
        return True

    def _select_settled(self, name: str, shown: str) -> None:
        """The browser says the select settled (an option picked, Enter) on the option shown
        as ``shown``: release it now (whether or not its change has arrived yet)."""
        options = self._select_options(name)
        by_value = {str(v): v for v in options.values()}
        if shown in options:
            value = options[shown]
        elif shown in by_value:
            value = by_value[shown]
        else:
            return  # not an option of this select (any more): nothing to release
        self._select_gen[name] += 1
        if self._select_released(name, value):
            self._set_select_pending(name, None)
            return
        self._set_select_pending(name, value)
        self.settle_select(name)

    def _select_options(self, name: str) -> dict[str, Any]:
        """The select's options, label -> value."""
        opts = self._select(name).options
        return dict(opts) if isinstance(opts, dict) else {str(o): o for o in opts}

    def settle_select(self, name: str) -> None:
        """Release the select's pending choice (the ledger books it); nothing when none."""
        if name not in self.select_pending:
            return
        value = self.select_pending.pop(name)
        self._set_select_pending(name, None)
        self._input(name, value)

    def _drop_pending_data_choice(self) -> None:
        """An upload or its removal changes the data source: a pending choice of data source
        or column is dropped (never released later)."""
        for name in ("dataset", "upload_column"):
            self._select_gen[name] += 1
            self._set_select_pending(name, None)

    def _set_select_pending(self, name: str, value: Any) -> None:
        text = ""
        if value is None:
            self.select_pending.pop(name, None)
        else:
            self.select_pending[name] = value
            labels = {v: k for k, v in self._select_options(name).items()}
            now = getattr(self.state, name)
            text = self.tr("cdf.ctl.select_pending", choice=labels.get(value, str(value)),
                           released=labels.get(now, str(now)))
        note = self.select_notes[name]
        if note.text != text:
            note.text = text
