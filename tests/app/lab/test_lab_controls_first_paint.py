"""The lab's controls in the first HTML, before the page is live (issue 39, 4): the copy says it
is connecting in the reader's language, names every control as the live component does, is
inert without its script, and its script is the first part of assets/dplab-lab-controls.js.
What the copy keeps reaches the state as ordinary numbered commits. The browser's side:
tests/ui/test_lab_connecting_ui.py."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from typing import Any

import pytest

from app.lab import controls
from app.lab.controls import (
    FIRST_PAINT_ID,
    controls_html,
    first_paint_controls,
    first_paint_css,
    first_paint_js,
    scope_css,
)
from app.lab.first_paint import first_paint_html
from app.lab.page import LabPage
from app.lab.state import PRESET_BY_KEY, LabState
from app.shell import assets
from app.shell.i18n import t

NODE = shutil.which("node")


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def parse(markup: str) -> list[tuple[str, dict[str, str | None]]]:
    p = Tags()
    p.feed(markup)
    return p.tags


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_copy_says_it_is_connecting_in_the_readers_language(lang: str) -> None:
    s = LabState()
    s.apply_url({"q": "mean", "n": "32", "sigma": "0.05"})
    out = first_paint_controls(s, lang)
    text = t("lab.ctl.connecting", lang)
    assert text.startswith({"ko": "연결하는 중", "en": "Connecting"}[lang])
    tags = parse(out)
    status = [a for tag, a in tags if a.get("role") == "status"]
    assert len(status) == 1 and status[0]["id"] == "dp-fp-connecting"
    assert status[0]["data-failed"] == t("lab.ctl.connect_failed", lang)
    assert f">{text}</p>" in out
    group = [a for tag, a in tags if tag == "fieldset" and "dp-fp-set" in (a.get("class") or "")]
    assert len(group) == 1
    g = group[0]
    assert g["aria-busy"] == "true" and g["aria-describedby"] == "dp-fp-connecting"
    assert g["aria-label"] == t("common.sidebar.region", lang)
    assert "disabled" in g  # inert until its script has run (JavaScript off: never)
    # the very markup of the live component, for the same state
    assert controls_html(s, lang) in out
    assert out.endswith(f"<script>{first_paint_js()}</script>")


def test_the_copy_names_every_control_and_repeats_no_id() -> None:
    out = first_paint_controls(LabState(), "en", large=True, dark=True)
    tags = parse(out)
    ids = [a["id"] for _, a in tags if a.get("id")]
    assert len(ids) == len(set(ids)) and FIRST_PAINT_ID in ids
    labelled = {a["for"] for tag, a in tags if tag == "label" and a.get("for")}
    for tag, a in tags:
        if tag in ("input", "select") and a.get("type") != "checkbox":
            assert a["id"] in labelled, a  # a name from the first HTML on
    root = next(a for _, a in tags if a.get("id") == FIRST_PAINT_ID)
    assert set((root["class"] or "").split()) == {"dp-fp-controls", "dp-dark", "dp-large"}


def test_the_first_paint_carries_the_copy_before_the_card() -> None:
    s = LabState()
    for lang in ("ko", "en"):
        frag = first_paint_html(s, lang, large=False, dark=False)
        assert frag.count(f'id="{FIRST_PAINT_ID}"') == 1
        body = frag.split("</style>", 1)[1]
        assert body.index(f'id="{FIRST_PAINT_ID}"') < body.index('class="dp-verdict')
        assert t("lab.ctl.connecting", lang) in frag
        # its look, scoped to it, and its place before the sidebar has come / on a phone
        assert first_paint_css() in frag
        assert f".dp-first-paint-early #{FIRST_PAINT_ID} {{ position: absolute" in frag
        assert re.search(rf"@media \(max-width: 760px\) {{\s*#{FIRST_PAINT_ID} "
                         r"{ display: none; }", frag)


def test_scoped_style_sheet() -> None:
    css = """/* a comment { } */
:host(.dp-large) .dp-controls { --x: 1; }
:host { color: red; }
.a, .b:is(input, select) > .c { margin: 0; }
@media (max-width: 760px) { .a { width: 1px; } }
@keyframes turn { to { transform: rotate(360deg); } }
"""
    out = scope_css(css, "#s")
    assert "#s:is(.dp-large) .dp-controls { --x: 1; }" in out
    assert "#s { color: red; }" in out
    assert "#s .a, #s .b:is(input, select) > .c { margin: 0; }" in out
    assert "@media (max-width: 760px) {\n#s .a { width: 1px; }\n}" in out
    assert "@keyframes turn { to { transform: rotate(360deg); } }" in out
    assert "comment" not in out
    # every rule of the component's own sheet is limited to the copy
    sheet = first_paint_css()
    for line in sheet.splitlines():
        if line and not line.startswith(("@", "}", " ")) and "{" in line:
            sels = line.split("{", 1)[0]
            assert all(p.strip().startswith(f"#{FIRST_PAINT_ID}")
                       for p in re.split(r",(?![^(]*\))", sels)), line
    assert ":host" not in sheet and ".dp-connecting" in sheet


def test_the_inlined_script_is_the_first_part_of_the_components_module() -> None:
    src = assets.text("dplab-lab-controls.js")
    js = first_paint_js()
    head = src.split(controls.FIRST_PAINT_JS_END)[0]
    assert head in js and "export" not in re.sub(r"//[^\n]*", "", head)
    assert "export function render" in src.split(controls.FIRST_PAINT_JS_END)[1]
    assert js.rstrip().endswith(f'firstPaintControls(document.getElementById("{FIRST_PAINT_ID}"));'
                                "\n})();")


@pytest.mark.skipif(NODE is None, reason="node is not installed (CI installs it with npm)")
def test_the_inlined_script_parses_as_a_classic_script() -> None:
    # A classic script, not a module: `export` would be a syntax error here.
    prog = f"new Function({json.dumps(first_paint_js())}); process.stdout.write('ok');"
    out = subprocess.run([NODE or "node", "-e", prog], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout == "ok"


def values(page: LabPage) -> dict[str, Any]:
    decoded: dict[str, Any] = json.loads(page.controls.panel.values)
    return decoded


def test_kept_commits_reach_the_state_in_their_order() -> None:
    # What the copy kept arrives as the live component's first commits (n = 1, 2, ...): a
    # preset, then the σ slider moved after it, then a text; the values name the last one.
    page = LabPage(LabState(), "en")
    preset = PRESET_BY_KEY["mean_small"]
    kept: list[dict[str, Any]] = [{"k": "preset", "v": preset.key},
                                  {"k": "slider", "c": "sigma", "v": 0.03},
                                  {"k": "text", "c": "eps", "v": "2"}]
    for n, msg in enumerate(kept, start=1):
        page.controls.receive({**msg, "n": n})
    s = page.state
    assert (s.query, s.n) == (preset.query, preset.n)
    assert s.sigma == 1.072 and s.eps == 2.0
    v = values(page)
    assert v["ack"] == 3 and v["sliders"]["sigma"][1] == 1.072
    assert v["fields"]["sigma"] == "1.072" and v["fields"]["eps"] == "2"
