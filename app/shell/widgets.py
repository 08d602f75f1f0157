"""Widgets and panes shared by every Panel page."""

from __future__ import annotations

from typing import Any, ClassVar

import panel as pn
import param

from app.shell import assets


class TextPane(pn.pane.HTML):
    """An HTML pane for text that changes with every slider move (card, tables, errors).

    Panel's HTML pane recomputes every Bokeh property (stylesheets and design included) each
    time its ``object`` changes; this one sends only the new text. Profiled under a class load
    (benchmarks/classroom_load.py): those recomputations were ~20 % of a move's server CPU. Other
    parameters
    (visible, css_classes, stylesheets) still update through Panel as usual.
    """

    def _update(self, ref: str, model: Any) -> None:
        model.text = self._transform_object(self.object)["object"]

    def set_text(self, text: str) -> None:
        """``self.object = text``, at about half its server CPU (five panes per slider move).

        param's assignment builds an Event and runs its watcher machinery to reach the one
        watcher of ``object``, Panel's ``_update_pane``; this stores the value and calls that
        watcher directly (Panel's own locking and scheduling stay). An equal text sends
        nothing, as with param (its watchers only run on a change). Should anything else watch
        ``object``, the plain assignment is used.
        """
        values = self._param__private.values
        if values.get("object", self.object) == text:
            return
        watchers = self._param__private.watchers.get("object", {}).get("value", [])
        if len(watchers) != 1 or getattr(watchers[0].fn, "__func__", None) is not _UPDATE_PANE:
            self.object = text
            return
        values["object"] = text
        self._update_pane()


# The watcher TextPane.set_text calls itself (Panel's, bound to the pane).
_UPDATE_PANE = pn.pane.HTML._update_pane


# Touch screens and phones: a handle a finger can hit (30 px; WCAG 2.5.8 asks >= 24 px).
SLIDER_TOUCH_CSS = assets.text("dplab-slider-touch.css")


# The class that makes the browser send a slider's release only (assets/dplab-page-setup.js).
RELEASE_ONLY = "dp-release-only"


class ImmediateSlider(pn.widgets.FloatSlider):
    """A float slider whose server side acts on the release only (``value_throttled``).

    BokehJS's slider sends ``value`` on every step of a drag or key press and, on release,
    ``value_throttled`` in a second message. With the class :data:`RELEASE_ONLY` the page's
    script (assets/dplab-page-setup.js) keeps the steps in the browser and sends the release
    as one message with both. The pages watch only ``value_throttled``; a ``value`` alone
    (a browser without that script) is dropped on arrival instead of going through Panel's
    event machinery, and ``value`` takes the released value with it, as under Panel's
    ``config.throttled``. Panel waits 50 ms
    (``Syncable._debounce``) to batch browser changes; a release is already final, so that
    wait is pure latency.
    """

    _debounce = 0
    _stylesheets: ClassVar[list[str]] = [*pn.widgets.FloatSlider._stylesheets, SLIDER_TOUCH_CSS]

    def __init__(self, **params: Any) -> None:
        # The browser sends this slider's drag steps to nobody and its release as one message
        # (value and value_throttled together): assets/dplab-page-setup.js.
        params["css_classes"] = [*params.get("css_classes", []), RELEASE_ONLY]
        super().__init__(**params)
        self.param.watch(self._released_at_value, "value")

    def _released_at_value(self, event: Any) -> None:
        # The server moved the slider (a typed σ): its release position moves too, here and
        # in the server's Bokeh model, or a release back at the old position would equal it
        # and be dropped (Bokeh applies only changed values; param runs watchers only on a
        # change). A browser release sets both already. The Bokeh model's value is stored
        # without an event: the browser keeps its own (BokehJS's is read-only), and the page's
        # script sends every release (assets/dplab-page-setup.js). The pages' watchers ignore
        # this change while they move their sliders themselves.
        if self.value_throttled == event.new:
            return
        with param.edit_constant(self):
            self.value_throttled = event.new
        for model, _parent in self._models.values():
            model._property_values["value_throttled"] = event.new

    def _server_change(self, doc: Any, ref: str, subpath: str | None, attr: str, old: Any,
                       new: Any) -> None:
        # An echo of our own change (in _changing) still goes to Panel, which clears it.
        if attr == "value" and not subpath and attr not in self._changing.get(ref, ()):
            return
        super()._server_change(doc, ref, subpath, attr, old, new)

    def _process_property_change(self, props: dict[str, Any]) -> dict[str, Any]:
        props = dict(props)
        props.pop("value", None)
        if "value_throttled" in props:
            props["value"] = props["value_throttled"]
        return super()._process_property_change(props)


class ImmediateIntSlider(pn.widgets.IntSlider):
    # As ImmediateSlider: each key press is final, Panel's 50 ms batching is pure latency.
    _debounce = 0
    _stylesheets: ClassVar[list[str]] = [*pn.widgets.IntSlider._stylesheets, SLIDER_TOUCH_CSS]


class ImmediateText(pn.widgets.TextInput):
    # value changes only on Enter / leaving the field: nothing to batch either.
    _debounce = 0


# A text field's rejected value travels as two of its Bokeh model's tags, this one and the
# message; assets/dplab-widget-aria.js gives the field aria-invalid and aria-describedby.
FIELD_ERROR_TAG = "dp-field-error"


def show_field_error(widget: pn.widgets.Widget, message: str) -> None:
    """Mark ``widget`` (a text input) as holding a rejected value that ``message`` explains
    (plain text, in the page language), or as valid again when ``message`` is ''. The page
    shows the message itself; this is what a screen reader hears with the field."""
    tags = list(widget.tags)
    if FIELD_ERROR_TAG in tags:  # the tag, then its message
        i = tags.index(FIELD_ERROR_TAG)
        del tags[i:i + 2]
    if message:
        tags += [FIELD_ERROR_TAG, message]
    if tags != list(widget.tags):
        widget.tags = tags


NO_PRINT = "dp-no-print"
NO_PRINT_CSS = assets.text("dplab-no-print.css")


def screen_only(obj: Any) -> Any:
    """``obj`` (a Panel component) left out of print: the class ``dp-no-print`` on its host and
    the rule that hides it inside its own shadow root (assets/dplab-no-print.css; the page's
    style sheet cannot reach a component nested in another's shadow root). Returns ``obj``."""
    if NO_PRINT not in obj.css_classes:
        obj.css_classes = [*obj.css_classes, NO_PRINT]
    if NO_PRINT_CSS not in obj.stylesheets:
        obj.stylesheets = [*obj.stylesheets, NO_PRINT_CSS]
    return obj
