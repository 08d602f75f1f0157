"""The lab's controls as one component (app/lab/controls.py), without a browser: what they show
follows every kind of change of the state, what the browser commits reaches the state through
its setters, and nothing malformed gets further than the component. The browser's side of the
slider rule runs in Node (assets/dplab-lab-controls.js)."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from typing import Any

import panel as pn
import pytest
from bokeh.document import Document

from app.lab.controls import (
    EPS_SLIDER_MAX,
    FIELD_TEXTS,
    controls_html,
    delta_at,
    sigma_at,
)
from app.lab.page import LabPage
from app.lab.state import PRESETS, LabState
from app.shell import assets
from app.shell.i18n import t
from app.shell.numbers import fmt_input


def send(page: LabPage, **msg: Any) -> None:
    page.controls.receive(msg)  # what the browser's message hands over


def values(page: LabPage) -> dict[str, Any]:
    decoded: dict[str, Any] = json.loads(page.controls.panel.values)  # JSON: one Bokeh value
    return decoded


def expected_fields(s: LabState) -> dict[str, str]:
    return {"n": str(s.n), "B": fmt_input(s.B), "sigma": fmt_input(s.sigma),
            "eps": fmt_input(s.eps), "delta": s.delta_text, "data": s.data_text,
            "record": str(s.record), "replacement": fmt_input(s.replacement),
            "eps_lo": fmt_input(s.eps_lo), "eps_hi": fmt_input(s.eps_hi),
            "sim_n": str(s.sim_n), "calib_tpr": fmt_input(s.calib_tpr),
            "calib_fpr": fmt_input(s.calib_fpr), "calib_error": fmt_input(s.calib_error)}


def check(page: LabPage) -> None:
    s, v = page.state, values(page)
    want = {c: x for c, x in expected_fields(s).items() if c not in s.errors}
    assert v["fields"] == want
    assert (v["query"], v["scale"], v["overlays"]) == (s.query, s.scale, list(s.overlays))
    assert v["disabled"] == ([] if s.data_editable else ["data"])
    x, shown = v["sliders"]["eps"]
    assert x == shown == min(s.eps, EPS_SLIDER_MAX)
    x, shown = v["sliders"]["sigma"]
    if shown > 0:
        assert shown == s.sigma and math.isclose(10 ** x, s.sigma, rel_tol=1e-12)
    x, shown = v["sliders"]["delta"]
    assert shown == s.delta


def test_every_control_follows_every_kind_of_change() -> None:
    page = LabPage(LabState(), "en")
    check(page)
    label = values(page)["labels"]["sigma"]
    steps: list[dict[str, Any]] = [
        {"k": "slider", "c": "sigma", "v": 0.4},        # σ = 10 ** 0.4, 4 digits
        {"k": "slider", "c": "eps", "v": 7.5},          # ε past the curve's range: ε₂ follows
        {"k": "slider", "c": "delta", "v": -5.0},
        {"k": "text", "c": "sigma", "v": "abc"},        # rejected: the text stays, with its message
        {"k": "slider", "c": "sigma", "v": -0.301},     # a release fixes it
        {"k": "preset", "v": "mean_underflow"},
        {"k": "query", "v": "count"},
        {"k": "text", "c": "n", "v": "100"},
        {"k": "text", "c": "eps_hi", "v": "30"},
        {"k": "scale", "v": "linear"},
        {"k": "overlays", "v": ["classic"]},
        {"k": "resample"},
    ]
    for msg in steps:
        seed = page.state.sim_seed
        send(page, **msg)
        check(page)
        if msg.get("c") == "sigma" and msg["k"] == "text":
            assert "sigma" in page.state.errors and "sigma" not in values(page)["fields"]
            assert "abc" in page.controls.panel.errors["sigma"]
        if msg.get("c") == "sigma" and msg["k"] == "slider":
            assert page.state.sigma == sigma_at(msg["v"])
        if msg["k"] == "resample":
            assert page.state.sim_seed == seed + 1
    s = page.state
    assert sigma_at(-0.301) == 0.5 and delta_at(-5.0) == 1e-5
    assert (s.query, s.n, s.eps_hi, s.scale, s.overlays) == ("count", 100, 30.0, "linear",
                                                             ["classic"])
    assert not page.controls.panel.errors  # fixed errors are cleared
    assert values(page)["labels"]["sigma"] != label  # the query's unit reached the labels


def test_a_text_that_changes_nothing_is_shown_as_the_state_has_it() -> None:
    page = LabPage(LabState(), "en")
    sent: list[Any] = []
    page.controls.panel.param.watch(lambda e: sent.append(e.new), "values")
    send(page, k="text", c="sigma", v="1.0")  # the same σ = 1
    assert page.state.sigma == 1.0 and sent and json.loads(sent[-1])["fields"]["sigma"] == "1"


def test_malformed_messages_change_nothing() -> None:
    page = LabPage(LabState(), "en")
    before = page.state.param.values()
    for msg in ({"k": "slider", "c": "sigma", "v": "1"}, {"k": "slider", "c": "x", "v": 1},
                {"k": "text", "c": "sim_seed", "v": "3"}, {"k": "text", "c": "n", "v": 4},
                {"k": "query", "v": "median"}, {"k": "preset", "v": "nope"},
                {"k": "scale", "v": "ln"}, {"k": "overlays", "v": "laplace"}, {"k": "shell"},
                {}):
        page.controls.receive(msg)
    page.controls.panel._handle_msg("not a dict")
    assert page.state.param.values() == before and not page.state.errors


def test_a_message_through_the_bokeh_document_reaches_the_state() -> None:
    # The wire format a browser (and benchmarks/wsclient.py) sends: a data_event on the model.
    page = LabPage(LabState(), "en")
    doc = Document()
    pn.state.curdoc = doc
    try:
        pn.Column(*page.sidebar()).server_doc(doc)
        model = next(m for m in doc.models
                     if "dp-lab-controls" in (getattr(m, "css_classes", None) or []))
        entries = [["k", "slider"], ["c", "sigma"], ["v", 0.01]]
        event = {"type": "event", "name": "data_event", "values": {"type": "map", "entries": [
            ["model", {"id": model.id}], ["data", {"type": "map", "entries": entries}]]}}
        msg = {"kind": "MessageSent", "msg_type": "bokeh_event", "msg_data": event}
        doc.apply_json_patch({"events": [msg]}, setter="browser")
    finally:
        pn.state.curdoc = None
    assert page.state.sigma == 1.023


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_markup_names_every_control(lang: str) -> None:
    s = LabState()
    s.set_query("mean")
    markup = controls_html(s, lang)
    for c, text in FIELD_TEXTS.items():
        m = re.search(rf'<label for="dpc-{c}">([^<]+)</label><input id="dpc-{c}"[^>]*'
                      rf'value="([^"]*)"', markup)
        assert m, c
        assert m.group(2) == text(s)
    for c in ("sigma", "eps", "delta"):
        label = t(f"lab.ctl.{c}_slider", lang)
        assert f'<label for="dpc-{c}-s">{label}</label>' in markup
        assert re.search(rf'<input id="dpc-{c}-s" type="range"[^>]*aria-valuetext="[σεδ] = ',
                         markup)
    assert '<option value="mean" selected>' in markup
    assert markup.count('data-preset="') == len(PRESETS)
    assert f'data-scale="log10" aria-pressed="true">{t("lab.scale.log10", lang)}' in markup
    assert "<script" not in markup


def test_the_markup_escapes_what_a_student_typed() -> None:
    s = LabState()
    markup = controls_html(s, "en")
    s.set_text("data", '1, 0, 1, 0"><script>')  # rejected; the state keeps its data
    assert "<script" not in controls_html(s, "en") and markup == controls_html(LabState(), "en")


NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed (CI installs it with npm)")
def test_the_browser_reads_a_slider_as_the_server_does() -> None:
    src = assets.text("dplab-lab-controls.js").replace("export function", "function")
    xs = [-3.0, -0.301, 0.0, 0.01, 0.37, 1.5, 3.0]
    ds = [-30.0, -12.3, -5.0, -0.1, 0.0]
    es = [0.0, 0.05, 1.05, 7.35, 20.0]
    expr = (f"[{xs}.map(x => SLIDER_VALUE.sigma(x)), {ds}.map(x => SLIDER_VALUE.delta(x)),"
            f" {es}.map(x => SLIDER_VALUE.eps(x)), sliderText('delta', -5)]")
    out = subprocess.run([NODE or "node", "-e",
                          src + f"\nprocess.stdout.write(JSON.stringify({expr}));"],
                         capture_output=True, text=True, check=True, timeout=60)
    sig, dl, ep, text = json.loads(out.stdout)
    assert sig == [sigma_at(x) for x in xs]
    assert dl == [delta_at(x) for x in ds]
    assert ep == [round(x, 4) for x in es]
    assert text == "δ = 1e-5"


def test_a_preset_button_loads_its_preset() -> None:
    lab = LabPage(LabState(), "en")
    target = PRESETS[3]
    send(lab, k="preset", v=target.key)
    assert lab.state.sigma == target.sigma and lab.state.query == target.query
    assert f'dp-sigma">{target.sigma:g}<' in lab.card.object
    assert values(lab)["fields"]["sigma"] == f"{target.sigma:g}"


def test_the_values_name_the_last_commit_taken() -> None:
    # assets/dplab-lab-controls.js leaves its sliders alone while later commits are in flight
    page = LabPage(LabState(), "en")
    assert "ack" not in values(page)  # nothing committed yet
    send(page, k="slider", c="sigma", v=0.01, n=1)
    send(page, k="slider", c="sigma", v=0.02, n=2)
    assert values(page)["ack"] == 2
    send(page, k="slider", c="sigma", v=0.01, n=1)  # a late or repeated number: no step back
    assert values(page)["ack"] == 2
    send(page, k="nonsense", n=3)  # an ignored message is answered too
    assert values(page)["ack"] == 3
    send(page, k="text", c="sigma", v="2", n=True)  # not a number: not taken as one
    assert values(page)["ack"] == 3 and page.state.sigma == 2.0
