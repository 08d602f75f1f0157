"""/cdf's sidebar as ONE component: data source, upload, value spacing, release, teacher view.

It used to be ~25 Panel widgets, eleven error panes, four settle notes (each a component) and
an upload box, most of a /cdf page's Python objects. It is now one :class:`SidebarPanel`, as
/lab's (app/lab/controls.py):

- its markup is made on the server, once per page, from the parts (app/cdf/parts.py: labels,
  ``for``/``id`` pairs, the fixed class names ``dp-cdf-<control>``, the error lines
  ``dp-cdf-err-<control>``, the notes);
- what changes travels as two small JSON texts: ``values`` (fields, choices, boxes, buttons,
  the pending notes, the ε slider) and ``texts`` (the HTML parts: headings, notes, error
  lines; the labels and options of the others), each sent only when it changed and holding
  only the parts that differ from ``base`` (what every part showed when the page was made);
- the browser (``assets/dplab-cdf-controls.js``) sends one message per commit:
  ``{"k": kind, "c": part, "v": value, "n": its number}``: ``text`` (Enter or leaving a
  field), ``select`` (a choice; its label), ``settle`` (the ε slider or a select settled: a
  pointer let go, an option picked, Enter), ``slide`` (a step of the ε slider), ``check``,
  ``click``; the CSV file's chunks go as before (:class:`app.cdf.widgets.UploadBox`'s
  messages, which this component is).

:class:`app.cdf.controls.CDFControls` builds the parts and reads them as it read the widgets.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import Any, ClassVar

import param

from app.cdf.component import PartsPanel
from app.cdf.parts import Bar, e, route
from app.cdf.widgets import UploadBox
from app.shell.address import AddressQuery

log = logging.getLogger(__name__)
__all__ = ["ADDRESS_KEY", "AddressPart", "EpsSlider", "SidebarPanel", "UploadSlot", "route"]


class EpsSlider(param.Parameterized):
    """The ε slider of the sidebar (a range input in the browser), with the parameters of the
    Panel slider it replaces: ``value`` follows each step, ``value_throttled`` each step the
    browser sends (a key press or a pointer let go), which the page watches."""

    value = param.Number(default=1.0)
    value_throttled = param.Number(default=1.0, constant=True)
    start = param.Number(default=0.05)
    end = param.Number(default=10.0)
    step = param.Number(default=0.05)
    visible = param.Boolean(default=True)
    css_classes = param.List(default=[])

    kind: ClassVar[str] = "range"

    def __init__(self, bar: Bar, key: str, **params: Any) -> None:
        super().__init__(**params)
        self.key = key
        self._bar = bar
        bar.add(self)
        self.param.watch(lambda _ev: bar.changed(), ["value", "name", "visible"])

    @property
    def label(self) -> str:
        return str(self.name)

    def text(self) -> str:
        return f"ε = {self.value:g}"

    def html(self) -> str:
        i = f"dpf-{self.key}"
        cls = " ".join(["dp-slider", *self.css_classes])
        # "noUi-handle": the handle's class name kept from the slider this replaces (the browser
        # tests and outside checks find the ε slider's handle by it)
        # data-fmt: how the browser writes a position (the readout and aria-valuetext)
        return (f'<div class="{e(cls)}" data-p="{e(self.key)}" data-fmt="ε = {{}}"'
                f'{"" if self.visible else " hidden"}>'
                f'<label for="{i}">{e(self.label)}</label>'
                f'<output class="dp-slider-value" for="{i}">{e(self.text())}</output>'
                f'<input id="{i}" class="noUi-handle" type="range" min="{self.start:g}"'
                f' max="{self.end:g}" step="{self.step:g}" value="{self.value:g}"'
                f' aria-valuetext="{e(self.text())}"></div>')

    def state(self) -> Any:
        return self.value

    def fixed(self) -> Any:
        return self.label

    def slide(self, raw: Any) -> None:
        """A step from the browser (``raw`` the position): ``value`` and ``value_throttled``."""
        x = float(raw)
        if not math.isfinite(x):
            return
        x = round(min(max(x, self.start), self.end), 4)
        with param.parameterized.edit_constant(self):
            self.param.update(value=x, value_throttled=x)


def _ignore(*_args: Any) -> None:
    return None


class SidebarPanel(PartsPanel, UploadBox):
    """The sidebar in one Bokeh model (see the module's docstring; app/cdf/component.py). It
    is the page's :class:`UploadBox` too: a file's chunks come as that component's
    messages."""

    def __init__(self, on_message: Callable[[dict[str, Any]], None] | None = None,
                 on_file: Callable[[str, bytes], None] | None = None,
                 on_error: Callable[[str, dict[str, Any]], None] | None = None,
                 **params: Any) -> None:
        UploadBox.__init__(self, on_file or _ignore, on_error or _ignore, **params)
        self._on_message = on_message

    def _handle_msg(self, data: Any) -> None:
        if self._on_message is not None:
            self._on_message(data)  # which hands a file's chunks to take_file
        else:
            self.take_file(data)

    def take_file(self, data: Any) -> None:
        """A message of the file's transfer (:class:`UploadBox`'s)."""
        UploadBox._handle_msg(self, data)


def upload_html(key: str, hint: str, button: str) -> str:
    """The file picker's markup (as app/cdf/widgets.py UploadBox draws it)."""
    i = f"dpf-{key}"
    return (f'<div class="dp-upload" data-p="{e(key)}"><label for="{i}" class="dp-upload-button">'
            f'{e(button)}</label><input type="file" id="{i}" class="dp-cdf-upload-input"'
            f' accept=".csv,.tsv,.txt,text/csv,text/plain"><div class="dp-upload-hint">'
            f'{e(hint)}</div><div class="dp-upload-progress" aria-live="polite"></div></div>')


class UploadSlot:
    """The file picker's place in the sidebar (its texts do not change)."""

    kind: ClassVar[str] = "upload"

    def __init__(self, bar: Bar, key: str, *, button: str, hint: str) -> None:
        self.key, self.button, self.hint = key, button, hint
        self.visible = True
        bar.add(self)

    def html(self) -> str:
        return upload_html(self.key, self.hint, self.button)

    def state(self) -> Any:
        return None


class AddressPart:
    """The page's address, carried in the sidebar's values (no model of its own, as /lab's:
    app/shell/address.py AddressQuery); the browser replaces its address in place (one history
    entry per page; keys set to "" leave it). Its key in the values is ``ADDRESS_KEY``."""

    kind: ClassVar[str] = "address"

    def __init__(self, bar: Bar) -> None:
        self.key = ADDRESS_KEY
        self.visible = True
        self._query = AddressQuery()
        self._bar = bar
        bar.add(self)

    @property
    def query(self) -> dict[str, str]:
        return self._query.query

    def update(self, **values: str) -> None:
        """Merge ``values`` into the address (sent only when something changed)."""
        if self._query.update(**values):
            self._bar.changed()

    def html(self) -> str:
        return ""

    def state(self) -> Any:
        return self._query.query


# (assets/dplab-cdf-controls.js reads the address under this key)
ADDRESS_KEY = "addr"
