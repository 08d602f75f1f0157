"""After any change, every control of /lab shows the state (app.lab.controls ``_sync_widgets``):
a slider move compares only the controls that show what it changed (``SYNC_NARROW``), and
that narrowing leaves no control behind."""

from __future__ import annotations

import math
from typing import Any

from app.lab.controls import EPS_SLIDER_MAX, SYNC_NARROW, sigma_at
from app.lab.page import LabPage
from app.lab.state import LabState
from app.shell.numbers import fmt_input


def shown(page: LabPage) -> dict[str, Any]:
    out: dict[str, Any] = {c: w.value for c, w in page._inputs.items()}
    out.update(query=page.query.value, scale=page.scale.value, overlays=list(page.overlays.value),
               eps_slider=page.eps_slider.value,
               sigma=sigma_at(float(page.sigma_slider.value or 0.0)),
               data_disabled=page._inputs["data"].disabled,
               sigma_label=page._inputs["sigma"].label)
    return out


def expected(page: LabPage) -> dict[str, Any]:
    s = page.state
    out: dict[str, Any] = {
        "n": str(s.n), "B": fmt_input(s.B), "sigma": s.sigma, "eps": fmt_input(s.eps),
        "delta": s.delta_text, "data": s.data_text, "record": str(s.record),
        "replacement": fmt_input(s.replacement), "eps_lo": fmt_input(s.eps_lo),
        "eps_hi": fmt_input(s.eps_hi), "sim_n": str(s.sim_n), "query": s.query,
        "scale": s.scale, "overlays": list(s.overlays),
        "eps_slider": min(s.eps, EPS_SLIDER_MAX), "data_disabled": not s.data_editable}
    return out


def check(page: LabPage) -> None:
    got, want = shown(page), expected(page)
    sigma_text = got.pop("sigma")  # the σ field's text and the slider's σ
    assert sigma_text == want.pop("sigma") or not math.isfinite(sigma_text)
    assert page._inputs["sigma"].value == fmt_input(page.state.sigma)
    assert {k: got[k] for k in want} == want


def type_in(page: LabPage, control: str, text: str) -> None:
    page._inputs[control].value = text  # as the browser sends a typed text


def test_every_control_follows_every_kind_of_change() -> None:
    page = LabPage(LabState(), "en")
    check(page)
    label = page._inputs["sigma"].label
    steps = [
        lambda: page.state.set_value("sigma", 2.512),   # a σ slider release
        lambda: page.state.set_value("eps", 7.5),       # ε past the curve's range: ε₂ follows
        lambda: page.state.set_value("eps", 0.35),
        lambda: type_in(page, "sigma", "abc"),           # rejected: the text stays
        lambda: page.state.set_value("sigma", 0.5),     # a release fixes it
        lambda: page.state.load_preset("mean_underflow"),
        lambda: page.state.set_value("sigma", 31.62),
        lambda: page.state.set_query("count"),
        lambda: type_in(page, "n", "100"),
        lambda: page.state.set_value("eps", 19.0),
        lambda: type_in(page, "eps_hi", "30"),
    ]
    for step in steps:
        step()
        if page.state.errors:
            assert page._inputs["sigma"].value == "abc" and "sigma" in page.state.errors
            continue
        check(page)
    assert page._inputs["sigma"].label != label  # the query's unit reached the labels


def stale_query(page: LabPage, value: str) -> None:
    """The query select changed under the page (without telling the state)."""
    page._syncing = True
    try:
        page.query.value = value
    finally:
        page._syncing = False


def test_the_narrow_path_is_taken_for_slider_moves_only() -> None:
    page = LabPage(LabState(), "en")
    assert set(SYNC_NARROW) == {"sigma", "eps", "eps_lo", "eps_hi"}
    page.state.set_query("mean")
    assert page.query.value == "mean"
    stale_query(page, "sum")
    page._sync_widgets({"sigma"})
    page._sync_widgets({"eps", "eps_hi"})
    assert page.query.value == "sum"  # a slider's path does not look at it
    page._sync_widgets(None)
    assert page.query.value == "mean"  # the full path does
    stale_query(page, "sum")
    page._sync_widgets({"n"})  # so does any change outside SYNC_NARROW
    assert page.query.value == "mean" and page.state.query == "mean"
