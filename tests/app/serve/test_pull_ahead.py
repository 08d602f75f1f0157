"""A document serialized ahead (app/serve/pull_ahead.py) is pulled as Bokeh's own walk would
give it at that moment: plain changes since are written in, any other change walks again."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from bokeh.core.json_encoder import serialize_json
from bokeh.document import Document
from bokeh.models import Column, ColumnDataSource, Div
from bokeh.plotting import figure
from bokeh.protocol import Protocol

from app.serve import pull_ahead


def _page() -> tuple[Document, Div, Column, ColumnDataSource]:
    doc = Document()
    src = ColumnDataSource(dict(x=np.linspace(0, 1, 50), y=np.linspace(1, 2, 50)))
    fig = figure(height=200)
    fig.line("x", "y", source=src)
    div = Div(text="card")
    col = Column(div, fig)
    doc.add_root(col)
    return doc, div, col, src


def _canonical(serialized: Any) -> str:
    # Buffer ids are new on every walk: named by their order; key order is not content.
    text = serialize_json(serialized.content)
    for i, buf in enumerate(serialized.buffers):
        text = text.replace(f'"{buf.id}"', f'"buffer-{i}"')
    return json.dumps(json.loads(text), sort_keys=True)


def _same_as_a_walk(doc: Document, got: Any) -> None:
    fresh = doc.to_json()
    assert _canonical(got) == _canonical(fresh)
    assert [b.to_bytes() for b in got.buffers] == [b.to_bytes() for b in fresh.buffers]


def test_plain_changes_are_written_in() -> None:
    doc, div, col, _ = _page()
    pull_ahead.serialize_ahead(doc)
    before = dict(pull_ahead.COUNTS)
    div.text = "the real card"
    col.width = 640  # a property that had its default: not in the walk's attributes
    div.visible = False
    got = pull_ahead.take(doc)
    assert got is not None
    assert pull_ahead.COUNTS["ahead"] == before["ahead"] + 1
    _same_as_a_walk(doc, got)
    # Used once; the document no longer records its changes.
    assert pull_ahead.take(doc) is None
    assert "trigger_on_change" not in doc.callbacks.__dict__


@pytest.mark.parametrize("change", ["new model", "columns", "list", "root", "title", "dict"])
def test_other_changes_walk_again(change: str) -> None:
    doc, div, col, src = _page()
    pull_ahead.serialize_ahead(doc)
    before = pull_ahead.COUNTS["walked"]
    if change == "new model":
        col.children = [*col.children, Div(text="new")]
    elif change == "columns":
        src.data = dict(x=[0.0, 1.0], y=[3.0, 4.0])
    elif change == "list":
        div.css_classes = ["dp-card"]
    elif change == "root":
        doc.add_root(Div(text="another root"))
    elif change == "title":
        doc.title = "another title"
    else:
        div.styles = {"color": "red"}
    assert pull_ahead.take(doc) is None
    assert pull_ahead.COUNTS["walked"] == before + 1


def test_forget_stops_the_recording() -> None:
    doc, div, _, _ = _page()
    pull_ahead.serialize_ahead(doc)
    pull_ahead.forget(doc)
    div.text = "x"
    assert pull_ahead.take(doc) is None
    assert "trigger_on_change" not in doc.callbacks.__dict__


def test_the_pull_reply_uses_it_and_marks_the_models_sent() -> None:
    pull_ahead.install()
    doc, div, _, _ = _page()
    pull_ahead.serialize_ahead(doc)
    div.text = "changed after the walk"
    doc.models._new_models.add(div)  # as if it had joined since: the reply must clear it
    ahead = pull_ahead.COUNTS["ahead"]
    msg = Protocol().create("PULL-DOC-REPLY", "req-1", doc)
    assert pull_ahead.COUNTS["ahead"] == ahead + 1
    assert "changed after the walk" in msg.content_json
    assert len(msg.buffers) == len(doc.to_json().buffers)
    # As after Bokeh's walk: nothing of the document is left to send as new.
    assert not doc.models._new_models
    # A document never serialized ahead: Bokeh's own reply.
    other, _, _, _ = _page()
    reply = Protocol().create("PULL-DOC-REPLY", "req-2", other)
    assert '"card"' in reply.content_json
    assert pull_ahead.COUNTS["ahead"] == ahead + 1
