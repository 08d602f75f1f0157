"""The /cdf controls of an uploaded file: the file arriving (or refused by the browser), the
column and public bounds shown for it, "use the data's range", the value spacing offered for a
column of whole numbers, and forgetting the file.

Its parts of the sidebar (app/cdf/parts.py) are shown only while a file is loaded; an upload
changes the data source under every other control (a pending choice of data source or column
is dropped, every part is synced again). A mixin of :class:`app.cdf.controls.CDFControls`,
which wires these parts with the others, takes their values into the state and puts them in
the sidebar.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from app.cdf.inputs import UPLOAD
from app.cdf.parts import Choice
from app.cdf.sidebar import UploadSlot
from app.cdf.upload import suggest_spacing
from app.shell.numbers import fmt_input

if TYPE_CHECKING:
    from app.cdf.parts import Action, Bar, Field, Html
    from app.cdf.records import Message
    from app.cdf.state import CDFState


class UploadControls:
    """The upload's part of :class:`app.cdf.controls.CDFControls` (a mixin: the widgets, the
    state and ``_input`` are the controls' and the page's)."""

    if TYPE_CHECKING:  # what the controls, their settling and the page provide
        state: CDFState
        _errors: dict[str, Message]
        _upload_error: Message | None
        _editing: set[str]
        select_pending: dict[str, Any]
        select_notes: dict[str, Any]
        bar: Bar
        range_note: Html
        spacing_note: Html
        w_hi: Field
        w_unit: Field
        w_range: Action
        w_forget: Action
        w_spacing: Action

        def tr(self, key: str, **fmt: Any) -> str: ...
        def refresh(self, names: set[str] | None) -> None: ...
        def _refresh_upload(self) -> None: ...
        def _input(self, name: str, value: Any) -> None: ...
        def _sync_widgets(self) -> None: ...
        def _drop_pending_data_choice(self) -> None: ...

    def _build_upload_widgets(self, add: Callable[[Any], Any], field: Callable[..., Any],
                              note: Callable[..., Any]) -> None:
        """The file's picker and fields (hidden until a file is loaded), parts of the sidebar
        put in its order by ``add`` (``field`` and ``note`` make and add one; the page's
        sidebar puts the upper bound, the buttons and the notes that follow)."""
        bar = self.bar
        self.w_upload = add(UploadSlot(bar, "upload", button=self.tr("cdf.up.button"),
                                       hint=self.tr("cdf.up.hint")))
        self.upload_status = note("upload_status", "", css_classes=["dp-cdf-upload-status"])
        self.w_column = add(Choice(bar, "upload_column", label=self.tr("cdf.up.column"),
                                   options={}, css_classes=["dp-cdf-column"], visible=False))
        add(self.select_notes["upload_column"])
        self.w_lo = field("upload_lo", "cdf.up.lo", "", "dp-cdf-lo", visible=False)

    def _on_upload(self, filename: str, payload: bytes) -> None:
        self._drop_pending_data_choice()  # the page switches to the file: a choice is void
        problem = self.state.load_upload(filename, payload)
        self._upload_error = problem
        self._errors.pop("upload", None)
        self._sync_widgets()
        self._refresh_upload()

    def _on_upload_error(self, key: str, fmt: dict[str, Any]) -> None:
        self._upload_error = (key, fmt)
        self._refresh_upload()

    def _use_range(self) -> None:
        r = self.state.data_range()
        if r is None:
            return
        lo, hi = r
        if lo == hi:  # every record equal: widen so that lo < hi (still taken from the data)
            lo, hi = lo - 0.5, hi + 0.5
        self.state.param.update(upload_lo=lo, upload_hi=hi)
        self.range_note.visible = True

    def spacing_suggestion(self) -> float | None:
        """The value spacing to offer for the uploaded column (None: nothing to offer).

        Offered when the column holds whole numbers and the public bounds are whole numbers
        (``app.cdf.upload.suggest_spacing``), and not yet declared; never applied without the
        student's click.
        """
        s = self.state
        up = s.upload
        if s.dataset != UPLOAD or up is None or s.upload_column not in up.names:
            return None
        h = suggest_spacing(up.column(s.upload_column), s.upload_lo, s.upload_hi)
        if h is None or (s.lattice and s.granularity() == h):
            return None
        return h

    def _accept_spacing(self) -> None:
        """One click: declare the suggested spacing (a public choice, recorded in the release)."""
        h = self.spacing_suggestion()
        if h is None:
            return
        self._input("lattice_h", fmt_input(h))
        if "lattice_h" not in self._errors:
            self._input("lattice", True)

    def _sync_spacing(self) -> None:
        h = self.spacing_suggestion()
        self.w_spacing.visible = self.spacing_note.visible = h is not None
        if h is None:
            return
        label = self.tr("cdf.up.spacing.accept", h=fmt_input(h))
        if self.w_spacing.label != label:
            self.w_spacing.label = label
        note = (f'<p class="dp-cdf-small dp-cdf-spacing-note">'
                f'{html.escape(self.tr("cdf.up.spacing.suggest", column=self.state.upload_column, h=fmt_input(h)))}'  # noqa: E501
                "</p>")
        if self.spacing_note.object != note:
            self.spacing_note.object = note

    def _forget(self) -> None:
        self._drop_pending_data_choice()
        self.state.forget_upload()
        self._upload_error = None
        self.range_note.visible = False
        self._sync_widgets()
        self._refresh_upload()
        self.refresh(None)

    def _sync_upload_fields(self) -> None:
        """The file's fields, shown only while a file is loaded (part of ``_sync_widgets``)."""
        s = self.state
        pend = self.select_pending  # a pending choice stays where it was put
        up = s.upload
        show_up = up is not None
        shown = (self.w_column, self.w_lo, self.w_hi, self.w_unit, self.w_range, self.w_forget)
        for shown_w in shown:
            shown_w.visible = show_up
        if up is not None:
            labels = {}
            for col in up.columns:
                mark = "" if col.usable else " ⚠"
                labels[f"{col.name}{mark}"] = col.name
            self.w_column.options = labels
            if s.upload_column in up.names:
                self.w_column.value = pend.get("upload_column", s.upload_column)
            lo = "" if s.upload_lo is None else fmt_input(s.upload_lo)
            hi = "" if s.upload_hi is None else fmt_input(s.upload_hi)
            # a bound being typed is never overwritten (the other one may just have been
            # committed: its check must not put the server's value into this field)
            if ({"upload_lo"} - set(self._errors) - self._editing
                    and self.w_lo.value != lo):
                self.w_lo.value = lo
            if ({"upload_hi"} - set(self._errors) - self._editing
                    and self.w_hi.value != hi):
                self.w_hi.value = hi
            if "upload_unit" not in self._editing and self.w_unit.value != s.upload_unit:
                self.w_unit.value = s.upload_unit
