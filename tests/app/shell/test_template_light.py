"""What the page template makes per page (issue 38, stage 3: app/shell/template.py)."""

from __future__ import annotations

import json

import panel as pn
from bokeh.document import Document

from app.shell import template


def _page() -> tuple[object, Document]:
    tmpl = template.page(lang="en", title="t", path="/lab", main=[pn.pane.HTML("main")],
                         sidebar=[pn.pane.HTML("side", sizing_mode="stretch_width", margin=0)],
                         option_notice_shown=False)
    doc = Document()
    tmpl.server_doc(doc)
    return tmpl, doc


def test_only_the_areas_are_roots() -> None:
    # no JavaScript area, actions, location or browser information; the header is HTML
    _, doc = _page()
    assert sorted(tag for r in doc.roots for tag in r.tags) == ["main", "nav"]
    # one stretching sidebar component is the sidebar's root itself
    assert [type(r).__name__ for r in doc.roots if "nav" in r.tags] == ["HTML"]


def test_the_header_and_the_page_setup_are_in_the_html() -> None:
    _, doc = _page()
    header = doc.template_variables["dp_header"]
    assert 'class="dp-header"' in header and 'aria-current="page"' in header
    setup = doc.template_variables["dp_setup"]
    assert setup.startswith('<script type="application/json" id="dp-page-setup">')
    settings = json.loads(setup.split(">", 1)[1].rsplit("<", 1)[0])
    assert settings["lang"] == "en" and settings["phone_max"] == template.PHONE_MAX_PX


def test_the_settings_cannot_close_their_script() -> None:
    text = template.page_setup_json("en", {"x": "</script><b>"})
    assert "</" not in text and json.loads(text)["log_sliders"] == {"x": "</script><b>"}
