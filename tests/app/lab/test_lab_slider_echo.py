"""A log slider released by the student stays where it was left: the server does not send back
log10 of the rounded σ or δ (app.lab.controls ``_sync_widgets``). Sending it moved a handle that
a held arrow key had already taken further, and presses were lost (seen in Chromium: five quick
presses of → on σ ended 0.02–0.04 above the start instead of 0.05)."""

from __future__ import annotations

import math
from typing import Any

import panel as pn
from bokeh.document import Document

from app.lab.controls import delta_at, sigma_at
from app.lab.page import LabPage
from app.lab.state import LabState


def _page() -> tuple[LabPage, Document]:
    page = LabPage(LabState(), "en")
    doc = Document()
    pn.state.curdoc = doc
    try:
        pn.Column(*page.sidebar()).server_doc(doc)
    finally:
        pn.state.curdoc = None
    return page, doc


def _model(widget: Any) -> Any:
    return next(iter(widget._models.values()))[0]


def _release(doc: Document, model: Any, x: float) -> None:
    # What BokehJS sends for an arrow key: value ("slide"), then value_throttled ("change").
    for attr in ("value", "value_throttled"):
        doc.apply_json_patch({"events": [{"kind": "ModelChanged", "model": {"id": model.id},
                                          "attr": attr, "new": x}]}, setter="browser")


def test_a_released_sigma_slider_is_not_sent_back_rounded() -> None:
    page, doc = _page()
    model = _model(page.sigma_slider)
    for x in (0.01, 0.02, 0.37, -1.23):
        _release(doc, model, x)
        assert page.state.sigma == sigma_at(x)
        assert math.log10(page.state.sigma) != x  # the rounding the echo used to send
        assert model.value == x and page.sigma_slider.value == x


def test_a_released_delta_slider_is_not_sent_back_rounded() -> None:
    page, doc = _page()
    model = _model(page.delta_slider)
    _release(doc, model, -2.3)
    assert page.state.delta == delta_at(-2.3) and model.value == -2.3


def test_the_server_still_moves_the_sliders() -> None:
    page, _ = _page()
    page.state.set_text("sigma", "2")
    assert _model(page.sigma_slider).value == math.log10(2.0)
    page.state.set_text("delta", "1e-5")
    assert _model(page.delta_slider).value == math.log10(1e-5)
