"""/cdf's main-area controls as parts (no browser): the degree box and the stream's controls are
each one component of parts (app/cdf/component.py PartsPanel, app/cdf/parts.py), read and
written by the page's logic as the Panel widgets were; their bars send along the sidebar's
batches; the browser's messages (app/cdf/parts.py route) reach the state."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from app.cdf.page import CDFPage
from app.cdf.parts import Action, Bar, Check, Field, Html, Radio, Slider, route
from app.cdf.state import CDFState
from app.shell.i18n import t

LANGS = ["ko", "en"]


def sent_page(lang: str = "en", **state: Any) -> tuple[CDFPage, dict[str, list[dict[str, Any]]]]:
    """A page whose three components are made, with what each sends recorded (as JSON)."""
    page = CDFPage(state=CDFState(n=2000, **state), lang=lang)
    page.main()
    page.sidebar_panel()
    log: dict[str, list[dict[str, Any]]] = {"degree": [], "stream": [], "side": []}
    for name, panel in (("degree", page.degree_panel()), ("stream", page.stream_panel()),
                        ("side", page.sidebar_panel())):
        panel.param.watch(lambda ev, name=name: log[name].append(json.loads(ev.new)), "values")
    return page, log


def msg(page: CDFPage, bar: Bar, **m: Any) -> None:
    page._parts_message(bar, m)


# ---- the parts ---------------------------------------------------------------------------------
def test_a_bar_along_another_sends_at_the_end_of_its_batch() -> None:
    side = Bar()
    main = Bar(along=side)
    box = Check(main, "box", label="a box")
    note = Html(side, "note", "")
    got: list[tuple[str, str]] = []
    side.connect(lambda v, x: None)
    main.connect(lambda v, x: got.append((v, x)))
    with side.batch():
        box.value = True
        note.object = "<p>x</p>"
        box.disabled = True
        assert got == [] and main.holding
    assert len(got) == 1 and json.loads(got[0][0])["box"] == [True, True, True]
    box.value = False  # no batch open: at once
    assert len(got) == 2 and not main.holding


def test_a_slider_part_takes_whole_steps_inside_its_range() -> None:
    bar = Bar()
    s = Slider(bar, "k", label="K", start=0, end=12, value=3, css_classes=["dp-k"])
    seen: list[int] = []
    s.watch(lambda ev: seen.append(ev.new), "value")
    # (a text is no step: ignored)
    for raw, want in ((5.4, 5), (99, 12), (-3, 0), (float("nan"), 0), ("7", 0)):
        route(bar, {"k": "slide", "c": "k", "v": raw})
        assert s.value == want, raw
    assert seen == [5, 12, 0]
    s.disabled = True
    route(bar, {"k": "slide", "c": "k", "v": 4})
    assert s.value == 0  # a disabled slider does not move
    route(bar, {"k": "slide", "c": "k", "v": True})
    assert s.value == 0
    html = s.html()
    assert 'type="range"' in html and 'for="dpf-k"' in html and 'id="dpf-k"' in html
    assert ' disabled' in html and 'data-live="1"' in html and "dp-k" in html
    assert s.state() == [0, True, True, 0, 12, True]
    s.show_value = False
    assert '<output class="dp-slider-value" for="dpf-k"></output>' in s.html()


def test_a_radio_part_is_a_named_group_of_radios() -> None:
    bar = Bar()
    r = Radio(bar, "mode", label="Records come as", options={"A & B": "a", "C": "c"}, value="a")
    html = r.html()
    assert 'role="radiogroup"' in html and 'aria-label="Records come as"' in html
    assert html.count('type="radio"') == 2 and html.count('name="dpf-mode"') == 2
    assert 'value="A &amp; B" checked' in html
    route(bar, {"k": "select", "c": "mode", "v": "C"})
    assert r.value == "c" and r.state() == ["C", False, True]
    route(bar, {"k": "select", "c": "mode", "v": "nothing"})
    assert r.value == "c"
    assert r.fixed() == ["Records come as", ["A & B", "C"]]


# ---- the page ----------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_the_main_controls_are_parts_with_their_fixed_names_and_labels(lang: str) -> None:
    page, _log = sent_page(lang)
    assert isinstance(page.w_auto, Check) and isinstance(page.w_degree, Slider)
    assert isinstance(page.w_stream_mode, Radio) and isinstance(page.w_parts, Field)
    assert isinstance(page.w_add, Action) and isinstance(page.w_reset, Action)
    degree = page.degree_panel().markup
    stream = page.stream_panel().markup
    for cls in ("dp-cdf-auto", "dp-cdf-degree-slider"):
        assert f" {cls}\"" in degree, cls
    for cls in ("dp-cdf-stream-mode", "dp-cdf-parts", "dp-cdf-err-stream_parts",
                "dp-cdf-add-batch", "dp-cdf-stream-reset", "dp-cdf-stream-err",
                "dp-cdf-stream-ctl"):
        assert cls in stream, cls
    # every label from the catalogue, each field named by its label (for/id)
    for key in ("cdf.ctl.auto_degree", "cdf.ctl.degree"):
        assert f">{t(key, lang)}</label>" in degree.replace("&#x27;", "'"), key
    for key in ("cdf.stream.parts", "cdf.stream.add.batches", "cdf.stream.reset",
                "cdf.stream.mode.batches", "cdf.stream.mode.sites"):
        assert t(key, lang) in stream, key
    assert f'aria-label="{t("cdf.stream.mode", lang)}"' in stream
    for html in (degree, stream):
        ids = re.findall(r' id="(dpf-[^"]+)"', html)
        assert ids and all(f'for="{i}"' in html for i in ids if not i.endswith("-desc"))
    assert page.degree_panel() is page.degree_panel()  # made once per page
    assert "dp-cdf-main-ctl" in page.stream_panel().css_classes


def test_the_degree_slider_by_messages_costs_no_release() -> None:
    page, log = sent_page("en", dataset="bimodal")
    s = page.state
    info = s.degree_info()
    assert page.w_degree.value == info.in_use and s.auto_degree and page.w_auto.value
    before = s.ledger().releases
    msg(page, page.degree_bar, k="slide", c="degree", v=info.in_use - 3, n=1)
    assert s.degree == info.in_use - 3 and not s.auto_degree and not page.w_auto.value
    assert s.ledger().releases == before
    last = log["degree"][-1]
    assert last["ack"] == 1 and last["auto_degree"][0] is False
    assert last["degree"][0] == info.in_use - 3
    # the box puts the automatic degree back, and the slider with it
    msg(page, page.degree_bar, k="check", c="auto_degree", v=True, n=2)
    assert s.auto_degree and page.w_degree.value == s.degree_info().in_use
    assert log["degree"][-1]["ack"] == 2


def test_the_slider_is_off_with_its_reason_when_the_release_has_no_degree() -> None:
    page, log = sent_page("ko", method="hq")
    assert page.w_degree.disabled and page.w_auto.disabled and not page.w_degree.show_value
    assert page.w_degree.name == t("cdf.ctl.degree_na", "ko")
    base = json.loads(page.degree_panel().base)
    assert base["values"]["degree"][1] is True and base["texts"]["degree"] == t(
        "cdf.ctl.degree_na", "ko")
    k = page.w_degree.value
    msg(page, page.degree_bar, k="slide", c="degree", v=k + 1, n=1)
    assert page.w_degree.value == k and page.state.method == "hq"
    page._input("method", "pp")  # a new release with a degree: the slider is live again
    assert not page.w_degree.disabled and page.w_degree.show_value
    assert log["degree"][-1]["degree"][1] is False


@pytest.mark.parametrize("lang", LANGS)
def test_the_stream_by_messages(lang: str) -> None:
    page, log = sent_page(lang)
    s = page.state
    sites = t("cdf.stream.mode.sites", lang)
    msg(page, page.stream_bar, k="select", c="stream_mode", v=sites, n=1)
    assert s.stream_mode == "sites" and page.w_add.name == t("cdf.stream.add.sites", lang)
    texts = json.loads(page.stream_panel().texts)
    assert texts["add_batch"] == t("cdf.stream.add.sites", lang)
    msg(page, page.stream_bar, k="text", c="stream_parts", v="３", n=2)  # full width: read
    assert s.stream_parts == 3 and page.w_parts.value == "3"
    for i in range(3):
        msg(page, page.stream_bar, k="click", c="add_batch", n=3 + i)
    assert s.stream_steps == 3 and page.w_add.disabled
    msg(page, page.stream_bar, k="click", c="add_batch", n=6)  # disabled: nothing
    assert s.stream_steps == 3
    assert log["stream"][-1]["add_batch"] == [True, True] and log["stream"][-1]["ack"] == 6
    msg(page, page.stream_bar, k="click", c="stream_reset", n=7)
    assert s.stream_steps == 0 and not page.w_add.disabled


@pytest.mark.parametrize("lang", LANGS)
def test_a_rejected_number_of_batches_is_said_at_its_field(lang: str) -> None:
    page, log = sent_page(lang)
    msg(page, page.stream_bar, k="text", c="stream_parts", v="99", n=1)
    assert page.state.stream_parts == 5 and "stream_parts" in page._errors
    line = page.err["stream_parts"].object
    assert 'role="alert"' in line and page.w_parts.error and page.w_parts.value == "99"
    texts = json.loads(page.stream_panel().texts)
    assert texts["err_stream_parts"][0] == line
    assert log["stream"][-1]["stream_parts"][3] == page.w_parts.error  # aria-describedby
    msg(page, page.stream_bar, k="text", c="stream_parts", v="4", n=2)
    assert page.state.stream_parts == 4 and page.err["stream_parts"].object == ""
    assert page.w_parts.error == ""


def test_one_commit_sends_each_component_once() -> None:
    page, log = sent_page("en")
    counts = {k: len(v) for k, v in log.items()}
    # a new ε from the sidebar: a new release, the degree box and the stream follow it
    msg(page, page.bar, k="text", c="eps", v="2", n=1)
    assert page.state.eps == 2
    assert len(log["side"]) - counts["side"] == 1
    assert len(log["degree"]) - counts["degree"] <= 1
    assert len(log["stream"]) - counts["stream"] <= 1


def test_a_malformed_message_changes_nothing() -> None:
    page, _log = sent_page("en")
    before = page.state.url_query()
    for m in ({"k": "slide", "c": "nothing", "v": 3}, {"k": "click", "c": "degree"},
              {"k": "text", "c": "stream_parts", "v": 5}, {"k": "select", "c": "stream_mode"},
              {"k": "check", "c": "auto_degree", "v": "yes"}):
        page._parts_message(page.stream_bar, m)
        page._parts_message(page.degree_bar, m)
    assert page.state.url_query() == before
