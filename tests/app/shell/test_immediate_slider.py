"""ImmediateSlider: the server acts on a slider's release only (app.shell.widgets)."""

from __future__ import annotations

from typing import Any

from bokeh.document import Document

from app.shell.widgets import ImmediateSlider


def _page() -> tuple[ImmediateSlider, Any, Document, list[tuple[str, float]]]:
    slider = ImmediateSlider(start=0.0, end=5.0, step=0.05, value=1.0)
    doc = Document()
    model = slider.get_root(doc)
    doc.add_root(model)
    seen: list[tuple[str, float]] = []
    slider.param.watch(lambda *es: seen.extend((e.name, e.new) for e in es),
                       ["value", "value_throttled"])
    return slider, model, doc, seen


def _browser(doc: Document, model: Any, **props: float) -> None:
    # What BokehJS sends: a drag step sets value; the release sets value and value_throttled.
    doc.apply_json_patch({"events": [
        {"kind": "ModelChanged", "model": {"id": model.id}, "attr": k, "new": v}
        for k, v in props.items()]}, setter="browser")


def test_drag_steps_are_dropped_and_the_release_carries_the_value() -> None:
    slider, model, doc, seen = _page()
    for v in (1.5, 2.0, 2.5):
        _browser(doc, model, value=v)
    assert seen == [] and slider.value == 1.0
    _browser(doc, model, value_throttled=2.5)  # released where the last step left it
    assert slider.value == 2.5 and slider.value_throttled == 2.5
    assert sorted(seen) == [("value", 2.5), ("value_throttled", 2.5)]


def test_a_tap_sends_both_and_counts_once() -> None:
    slider, model, doc, seen = _page()
    _browser(doc, model, value=3.0, value_throttled=3.0)
    assert (slider.value, slider.value_throttled) == (3.0, 3.0)
    assert [n for n, _ in seen].count("value_throttled") == 1


def test_the_server_still_moves_the_slider() -> None:
    slider, model, doc, _ = _page()
    slider.value = 4.0  # e.g. a preset: the browser's handle follows
    assert model.value == 4.0
    # ... and the next release from the browser is taken as before.
    _browser(doc, model, value=0.5)
    _browser(doc, model, value_throttled=0.5)
    assert slider.value == 0.5 and slider.value_throttled == 0.5


def test_the_page_is_told_to_send_the_release_only() -> None:
    # assets/dplab-page-setup.js acts on sliders with this class, and only on those: the
    # /cdf degree slider (ImmediateIntSlider) follows a drag live and keeps BokehJS's steps.
    from app.shell.widgets import RELEASE_ONLY, ImmediateIntSlider

    _, model, _, _ = _page()
    assert RELEASE_ONLY in model.css_classes
    mine = ImmediateSlider(start=0.0, end=1.0, value=0.5, css_classes=["dp-slider-eps"])
    assert mine.css_classes == ["dp-slider-eps", RELEASE_ONLY]
    other = ImmediateIntSlider(start=0, end=5, value=1).get_root(Document())
    assert RELEASE_ONLY not in other.css_classes


def test_a_release_where_the_slider_was_before_the_server_moved_it_counts() -> None:
    # The server moves the slider (a typed value); the student puts it back where it was last
    # released: that release must reach the page's watcher (it did not: Bokeh and param both
    # saw the old release position again and dropped it).
    slider, model, doc, seen = _page()
    slider.value = 4.0
    assert slider.value_throttled == 4.0
    seen.clear()
    _browser(doc, model, value=1.0, value_throttled=1.0)
    assert ("value_throttled", 1.0) in seen and slider.value == 1.0
