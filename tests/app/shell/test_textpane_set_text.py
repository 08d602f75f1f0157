"""TextPane.set_text: the same result as assigning ``object``, through Panel's own watcher."""

from __future__ import annotations

from typing import Any

from bokeh.document import Document

from app.shell.widgets import TextPane


def _attached(text: str) -> tuple[TextPane, Any, Document]:
    doc = Document()
    pane = TextPane(text)
    root = pane.get_root(doc)
    doc.add_root(root)
    return pane, root, doc


def test_set_text_sends_what_an_assignment_sends() -> None:
    a, root_a, _ = _attached("<p>old</p>")
    b, root_b, _ = _attached("<p>old</p>")
    assert len(b.param.watchers["object"]["value"]) == 1  # only Panel's: the direct path
    for text in ("<p>σ = 1.2 &amp; ε</p>", "", "<details open><summary>x</summary></details>"):
        a.object = text
        b.set_text(text)
        assert b.object == a.object == text
        assert root_b.text == root_a.text
        assert ("1.2" in root_b.text) == ("1.2" in text) and "old" not in root_b.text


def test_set_text_of_the_same_text_changes_nothing() -> None:
    pane, root, doc = _attached("<p>same</p>")
    events: list[Any] = []
    doc.on_change(events.append)
    pane.set_text("<p>same</p>")
    assert events == []
    pane.set_text("<p>new</p>")
    assert len(events) == 1 and "new" in root.text


def test_set_text_runs_other_watchers_through_param() -> None:
    pane, root, _ = _attached("<p>a</p>")
    seen: list[str] = []
    pane.param.watch(lambda e: seen.append(e.new), "object")
    pane.set_text("<p>b</p>")
    assert seen == ["<p>b</p>"] and "b" in root.text
