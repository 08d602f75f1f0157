"""The component that shows a :class:`app.cdf.parts.Bar`'s parts in the browser (one Bokeh model).

/cdf has three: the sidebar (app/cdf/sidebar.py ``SidebarPanel``, which takes the CSV file's
chunks too), and in the main area the degree box (the automatic-degree box and the degree
slider) and the stream's controls (its modes, the number of batches, two buttons and their
error lines); all drawn by one module, ``assets/dplab-cdf-controls.js``:

- the markup is made on the server, once per page, from the parts (labels, ``for``/``id``
  pairs, the fixed class names ``dp-cdf-<control>``, the error lines);
- what changes travels as two small JSON texts: ``values`` (fields, choices, boxes, buttons,
  sliders, the pending notes) and ``texts`` (the HTML parts; the labels and options of the
  others), each sent only when it changed and holding only the parts that differ from
  ``base`` (what every part showed when the page was made);
- the browser sends one message per commit (``{"k": kind, "c": part, "v": value, "n": its
  number}``), which :func:`app.cdf.parts.route` takes into the part it names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import param

from app.cdf.parts import Bar
from app.shell import assets
from app.shell.plainjs import PlainJS


class PartsPanel(PlainJS):
    """A bar's parts in one component (see the module's docstring). ``on_message`` takes each
    message of the browser; :meth:`bind` makes the markup and connects the bar."""

    markup = param.String(default="", doc="The parts' HTML (server-made, escaped).")
    base = param.String(default="{}", doc="What every part showed when the page was made "
                        '(JSON: {"values": …, "texts": …}; set once).')
    values = param.String(default="{}", doc="What the controls show where it differs from the "
                          "base (JSON).")
    texts = param.String(default="{}", doc="The HTML parts, labels and options where they "
                         "differ from the base (JSON).")

    _esm = assets.path("dplab-cdf-controls.js")
    _stylesheets: ClassVar[list[str]] = [
        assets.text("dplab-lab-controls.css"), assets.text("dplab-card.css"),
        assets.text("dplab-cdf.css"), assets.text("dplab-upload.css"),
        assets.text("dplab-cdf-controls.css")]

    _on_message: Callable[[dict[str, Any]], None] | None = None
    _shown_parts: list[Any] = []  # noqa: RUF012 (set per instance by bind)

    def __init__(self, on_message: Callable[[dict[str, Any]], None] | None = None,
                 **params: Any) -> None:
        super().__init__(**params)
        self._on_message = on_message

    def _handle_msg(self, data: Any) -> None:
        if self._on_message is not None:
            self._on_message(data)

    def bind(self, bar: Bar, order: list[Any]) -> PartsPanel:
        """Draw ``bar``'s parts in ``order`` (parts, and strings of fixed HTML around them) as
        they are now; from now on what changes is sent as values and texts."""
        self.markup = bar.markup(order)
        self._shown_parts = [p for p in order if not isinstance(p, str)]

        def send(values: str, texts: str) -> None:
            if self.values != values:
                self.values = values
            if self.texts != texts:
                self.texts = texts

        self.base, self.values, self.texts = bar.connect(send)
        return self

    def parts(self) -> list[Any]:
        """The parts it shows, in their order (what a student reads and hears of it)."""
        return list(self._shown_parts)
