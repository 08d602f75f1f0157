"""The browser's address kept in step with the page state, one history entry per page."""

from __future__ import annotations

import json

import panel as pn

from app.shell import assets

_ADDRESS_JS = assets.text("dplab-address.js")


class AddressQuery:
    """The address a page wants, merged from partial updates (keys set to "" leave it).

    /lab sends it inside its controls' values (app/lab/controls.py, assets/dplab-lab-controls.js):
    no model of its own, nothing more per move. :class:`AddressBar` sends it on a hidden Div.
    """

    def __init__(self) -> None:
        self.query: dict[str, str] = {}

    def update(self, **values: str) -> bool:
        """Merge ``values``; True when the address changed (a new dict: never mutated)."""
        merged = {**self.query, **values}
        if merged == self.query:
            return False
        self.query = merged
        return True


class AddressBar:
    """Keeps the browser's address in step with the page state.

    Panel's ``pn.state.location.update_query`` pushes a history entry on every change (the Back
    button then walks through each slider move) and the browser answers with a second message
    (its new ``href``); a Panel component costs ~1 ms of server CPU per change. Here the query
    travels as the text of a hidden Bokeh ``Div`` that Panel does not watch, inside the patch
    that already carries the new card, and a ``CustomJS`` replaces the address in place; the
    browser sends nothing back. Keys set to "" are removed; others are left as they are.
    """

    def __init__(self) -> None:
        from bokeh.models import CustomJS, Div

        self._query = AddressQuery()
        self._div = Div(text="", visible=False, width=0, height=0, margin=0,
                        css_classes=["dp-address"])
        self._div.js_on_change("text", CustomJS(code=_ADDRESS_JS))
        self.pane = pn.pane.Bokeh(self._div, width=0, height=0, margin=0)
        self._loaded = False
        if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
            pn.state.onload(self._on_load)
        else:
            self._loaded = True

    def _on_load(self) -> None:
        # A change made before the page existed in the browser runs no CustomJS: send it now.
        self._loaded = True
        self._div.text = json.dumps(self.query)

    @property
    def query(self) -> dict[str, str]:
        return self._query.query

    def update(self, **values: str) -> None:
        """Merge ``values`` into the address (sent only when something changed)."""
        if self._query.update(**values) and self._loaded:
            self._div.text = json.dumps(self.query)
