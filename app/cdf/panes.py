"""Text panes of /cdf: the shared card look plus the page's own style sheet (both in assets/).

Texts that sit one under the other in the main area share ONE pane (:func:`group`): each is a
:class:`Slot` with the attributes a text pane had (``object``, ``visible``, ``css_classes``),
drawn as a ``<div>`` with its class names in the group's pane. A pane costs ~225 Python objects
and a Bokeh model per page; a slot a few objects. Setting a slot redraws its group's pane at
once, or at the end of the sidebar's batch (app/cdf/parts.py ``Bar.batch``) when one is open.
A group drawn ``into`` a :class:`app.cdf.parts.Text` part shares the component of that part's
controls instead (the notices with the "polynomial curve" button; "compare all" with the cards).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.cdf import views
from app.shell import assets, theme, widgets

if TYPE_CHECKING:
    from app.cdf.parts import Bar, Text


def text_pane(text: str = "", **kw: Any) -> widgets.TextPane:
    """A full-width :class:`app.shell.widgets.TextPane` with the card and /cdf style sheets (and
    the dark theme's text colours when the session asked for theme=dark)."""
    kw.setdefault("sizing_mode", "stretch_width")
    sheets = [assets.text("dplab-card.css"), views.CSS]
    if theme.is_dark():
        sheets.append(assets.text("dplab-cdf-dark.css"))
    return widgets.TextPane(text, stylesheets=sheets, **kw)


class Slot:
    """One text of a group's pane (see the module's docstring). Its ``css_classes`` are the
    fixed class names the pane had (tests and outside checks find it by them)."""

    __slots__ = ("_group", "_object", "_visible", "css_classes")

    def __init__(self, object: str = "", *, css_classes: list[str] | None = None,
                 visible: bool = True) -> None:
        self._object, self._visible = object, visible
        self.css_classes = list(css_classes or [])
        self._group: Group | None = None

    @property
    def object(self) -> str:
        return self._object

    @object.setter
    def object(self, text: str) -> None:
        if text != self._object:
            self._object = text
            self._changed()

    @property
    def visible(self) -> bool:
        return self._visible

    @visible.setter
    def visible(self, on: bool) -> None:
        if on != self._visible:
            self._visible = on
            self._changed()

    def _changed(self) -> None:
        if self._group is not None:
            self._group.changed()

    def html(self) -> str:
        cls = " ".join(["dp-slot", *self.css_classes])
        if not self._visible:  # (nothing of a hidden text is in the page)
            return f'<div class="{cls}" hidden></div>'
        return f'<div class="{cls}">{self._object}</div>'


class Group:
    """The pane of some slots and fixed texts, in their order."""

    def __init__(self, items: list[Slot | str], bar: Bar | None, into: Text | None = None,
                 **kw: Any) -> None:
        self.items = items
        self._bar = bar
        self._dirty = False
        self._into = into
        for it in items:
            if isinstance(it, Slot):
                it._group = self
        if into is None:
            self.pane: widgets.TextPane | None = text_pane(self.text(), **kw)
        else:
            self.pane = None
            into.object = self.text()

    def text(self) -> str:
        return "".join(it.html() if isinstance(it, Slot) else it for it in self.items)

    def changed(self) -> None:
        if self._bar is not None and self._bar.holding:
            if not self._dirty:
                self._dirty = True
                self._bar.at_end(self.redraw)
            return
        self.redraw()

    def redraw(self) -> None:
        self._dirty = False
        if self.pane is not None:
            self.pane.set_text(self.text())
        elif self._into is not None:
            self._into.object = self.text()


def group(*items: Slot | str, bar: Bar | None = None, **kw: Any) -> widgets.TextPane:
    """One pane for ``items`` (slots, and fixed HTML strings), in their order; a slot belongs
    to the group made last with it (a page's ``main()`` made again takes its slots along)."""
    pane = Group(list(items), bar, **kw).pane
    assert pane is not None
    return pane


def group_into(into: Text, *items: Slot | str, bar: Bar | None = None) -> None:
    """``items`` drawn as one text into the part ``into`` (see the module's docstring)."""
    Group(list(items), bar, into=into)
