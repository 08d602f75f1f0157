"""Browser messages applied with the document's own id map (app.serve.panel_patches)."""

from __future__ import annotations

from typing import Any

from bokeh.core.serialization import Deserializer
from bokeh.document import Document
from bokeh.document import document as bk_document
from bokeh.models import ColumnDataSource, Div, Slider

from app.serve import panel_patches


def _doc() -> tuple[Document, Slider, Div]:
    doc = Document()
    slider = Slider(start=0, end=10, value=1)
    div = Div(text="x")
    doc.add_root(slider)
    doc.add_root(div)
    return doc, slider, div


def _patch(events: list[dict[str, Any]]) -> Any:
    # As a browser sends it: the JSON of a PATCH-DOC message (ids instead of objects).
    return {"events": events}


def _apply(doc: Document, patch: Any, patched: bool) -> None:
    fn = bk_document.Document.apply_json_patch
    if not patched:
        fn = getattr(fn, "_dplab_original", fn)
    fn(doc, patch)


def _events(slider: Slider, div: Div) -> list[list[dict[str, Any]]]:
    return [
        [{"kind": "ModelChanged", "model": {"id": slider.id}, "attr": "value", "new": 7}],
        # A model the browser made (not in the document yet) set on a property: it joins.
        [{"kind": "ModelChanged", "model": {"id": div.id}, "attr": "tags",
          "new": [{"type": "object", "name": "ColumnDataSource", "id": "p-new",
                   "attributes": {"data": {"type": "map", "entries": [["x", [1, 2]]]}}}]}],
        # An unknown model id, as after a model was removed on the server side.
        [{"kind": "ModelChanged", "model": {"id": "p-gone"}, "attr": "value", "new": 3}],
    ]


def test_the_same_document_after_each_patch_as_bokehs_own() -> None:
    panel_patches.patch_references_by_copy()
    panel_patches.patch_references_by_copy()  # idempotent
    assert getattr(bk_document.Deserializer, "_dplab", False)
    results = []
    for patched in (False, True):
        doc, slider, div = _doc()
        new_before = set(doc.models._new_models)
        outcome = []
        for events in _events(slider, div):
            try:
                _apply(doc, _patch(events), patched)
                outcome.append("ok")
            except Exception as exc:  # the unknown id: both raise the same error
                outcome.append(type(exc).__name__)
        tags = div.tags
        results.append((
            outcome, slider.value, [type(t).__name__ for t in tags],
            [dict(t.data) for t in tags if isinstance(t, ColumnDataSource)],
            "p-new" in {m.id for m in doc.models}, len(doc.models._new_models - new_before),
            len(doc.models._models)))
    assert results[0] == results[1]
    outcome, value, tag_types, data, joined, _new, _ = results[1]
    assert outcome == ["ok", "ok", "UnknownReferenceError"]
    assert value == 7 and tag_types == ["ColumnDataSource"] and data == [{"x": [1, 2]}]
    assert joined


def test_the_documents_map_is_copied_not_built_per_model(monkeypatch: Any) -> None:
    panel_patches.patch_references_by_copy()
    doc, slider, div = _doc()
    events = _events(slider, div)
    seen: list[Any] = []
    init = Deserializer.__init__

    def spy(self: Any, references: Any = None, **kw: Any) -> None:
        seen.append(references)
        init(self, references, **kw)

    monkeypatch.setattr(Deserializer, "__init__", spy)
    doc.apply_json_patch(_patch(events[0]))
    assert slider.value == 7
    # Bokeh's Deserializer got no list to index (the document's map was copied instead).
    assert seen == [None]
    # ... and the document's own map did not take the message's new models.
    before = dict(doc.models._models)
    doc.apply_json_patch(_patch(events[1]))
    assert set(before) < set(doc.models._models)
