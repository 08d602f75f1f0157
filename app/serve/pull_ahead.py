"""A document built ahead is serialized ahead, too: its PULL-DOC-REPLY costs no walk.

When a student's browser first connects it pulls the whole document (PULL-DOC-REQ): Bokeh
walks every model and every property of the page (``Document.to_json``). For a /lab page built
ahead (app/serve/prebuild.py) that walk was ~25 % of the server CPU the page still cost while a
class opened it (py-spy, ``benchmarks/classroom_load.py open --students 50``). Here the walk is
done right after the build, in the same idle time, and the browser's pull gets its result.

Nothing the browser receives differs from Bokeh's own walk at that moment:

- every change to the document after the walk passes through its
  ``DocumentCallbackManager.trigger_on_change`` (property changes, roots, title); each is
  recorded (``upstream_patches.record_document_changes``; callbacks added or removed and
  messages sent change nothing that is pulled);
- at the pull, a change of a plain value (a string, a whole number, a finite float, a bool or
  ``None``: the page's Location getting the real host when a session takes the document) is
  written into the stored representation of its model;
- any other change (a new model, a list, a data source's columns, a root, the title) and any
  model not found make the pull walk the document as Bokeh does.

The stored result is used once (a reconnecting browser's second pull is Bokeh's walk).
"""

from __future__ import annotations

import math
from typing import Any

from bokeh.core.serialization import Serialized
from bokeh.document.events import (
    MessageSentEvent,
    ModelChangedEvent,
    SessionCallbackAdded,
    SessionCallbackRemoved,
)

from app.serve import upstream_patches

# Events that leave the serialized document as it is.
_NEUTRAL = (SessionCallbackAdded, SessionCallbackRemoved, MessageSentEvent)

_KEY = "_dplab_pull_ahead"
# First pulls answered from the walk done ahead, and those that walked again (a change that
# could not be written in): the tests read them.
COUNTS = {"ahead": 0, "walked": 0}


class _Ahead:
    __slots__ = ("changes", "reps", "serialized", "unpatchable")

    def __init__(self, serialized: Serialized[Any], reps: dict[str, dict[str, Any]]) -> None:
        self.serialized = serialized
        self.reps = reps  # model id -> its full representation in ``serialized``
        self.changes: list[tuple[Any, str]] = []
        self.unpatchable = False


def _object_reps(node: Any, out: dict[str, dict[str, Any]]) -> None:
    # Each model of the document appears once in full ({type: object, id, attributes});
    # later references to it are {id} alone.
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            if x.get("type") == "object" and "id" in x:
                out[str(x["id"])] = x
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)


def _plain(value: Any) -> bool:
    if value is None or isinstance(value, (str, bool, int)):
        return True
    return isinstance(value, float) and math.isfinite(value)


def serialize_ahead(doc: Any) -> None:
    """Walk ``doc`` now (Bokeh's ``to_json``) and keep the result for its first pull; from now
    on, the document's changes are recorded."""
    serialized = doc.to_json()
    reps: dict[str, dict[str, Any]] = {}
    _object_reps(serialized.content, reps)
    ahead = _Ahead(serialized, reps)

    def recording(event: Any) -> None:
        if type(event) is ModelChangedEvent:
            ahead.changes.append((event.model, event.attr))
        elif not isinstance(event, _NEUTRAL):
            ahead.unpatchable = True

    upstream_patches.record_document_changes(doc, recording)
    doc.__dict__[_KEY] = ahead


def forget(doc: Any) -> None:
    """Drop what :func:`serialize_ahead` kept (the document's changes are no longer
    recorded)."""
    doc.__dict__.pop(_KEY, None)
    upstream_patches.record_document_changes(doc, None)


def take(doc: Any) -> Serialized[Any] | None:
    """The serialized document for its first pull, with the plain changes since written in;
    None when there is none or a change needs Bokeh's walk."""
    ahead = doc.__dict__.get(_KEY)
    if ahead is None:
        return None
    forget(doc)
    if ahead.unpatchable:
        COUNTS["walked"] += 1
        return None
    for model, attr in ahead.changes:
        rep = ahead.reps.get(model.id)
        value = model.lookup(attr).get_value(model)
        if rep is None or not _plain(value):
            COUNTS["walked"] += 1
            return None
        rep.setdefault("attributes", {})[attr] = value
    COUNTS["ahead"] += 1
    return ahead.serialized


def install() -> bool:
    """Let Bokeh's PULL-DOC-REPLY use :func:`take` (the patch ``pull_serialized_ahead`` of
    app/serve/upstream_patches.py; False when it is left out). Idempotent."""
    return upstream_patches.install("pull_serialized_ahead", take=take)
