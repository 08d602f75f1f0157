"""The patches of third-party internals (app/serve/upstream_patches.py): each one's internals
are the code it was written for, and what happens at run time when they are not.

These tests fail (never skip) after an upgrade that changes a patched internal: read the new
code, measure again (benchmarks/patch_weight.py), then update the fingerprint in
``PATCHES`` or remove the patch (docs/upstream.md).
"""

from __future__ import annotations

import inspect
import json
import logging
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from app.serve import upstream_page
from app.serve import upstream_patches as up

ROOT = Path(__file__).resolve().parents[3]

# In a fresh interpreter: nothing of ours is installed there, so every internal is upstream's.
_FRESH = """
import inspect
import json
from app.serve import upstream_patches as up
out = {}
for p in up.PATCHES:
    out[p.name] = p.changed()
for o in up.OVERRIDES:
    found = up.fingerprint(o.internal)
    out[o.where + "." + o.method] = [] if found == o.fingerprint else [
        f"{o.internal} (source {found}, written for {o.fingerprint})"]
for u in up.USES:
    found = up.fingerprint(u.internal)
    out[u.where + " uses " + u.internal] = [] if found == u.fingerprint else [
        f"{u.internal} (source {found}, written for {u.fingerprint})"]
print(json.dumps(out))
"""


def test_every_patched_internal_is_the_code_its_patch_was_written_for() -> None:
    out = subprocess.run([sys.executable, "-c", _FRESH], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, check=True)
    changed = {name: what for name, what in json.loads(out.stdout).items() if what}
    assert changed == {}, (
        "an upgrade changed the code these patches replace or wrap; read it, measure again "
        "(benchmarks/patch_weight.py) and update the fingerprint or remove the patch "
        f"(docs/upstream.md): {changed}")


# Panel's documented ways to extend a component or template (its "custom components" and
# templates guides), and param's own per-class bookkeeping.
_DOCUMENTED = {"_esm", "_handle_msg", "_stylesheets", "_template", "_debounce", "_resources",
               "_data_model", "_data_model__initialized", "_param__parameters",
               "_param__private"}


def test_every_private_method_our_subclasses_override_is_listed() -> None:
    import importlib

    listed = {(o.where, o.method) for o in up.OVERRIDES}
    found = set()
    for path in sorted((ROOT / "app").rglob("*.py")):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        module = importlib.import_module(name.removesuffix(".__init__"))
        for cls in vars(module).values():
            if not isinstance(cls, type) or cls.__module__ != module.__name__:
                continue
            for attr in vars(cls):
                if not attr.startswith("_") or attr.startswith("__") or attr in _DOCUMENTED:
                    continue
                for base in cls.__mro__[1:]:
                    top = base.__module__.split(".")[0]
                    if top in {"panel", "bokeh", "param", "tornado"} and attr in vars(base):
                        found.add((f"{cls.__module__}:{cls.__qualname__}", attr))
                        break
    assert found == listed, (
        "a subclass of ours overrides a private method of Panel/Bokeh/param/Tornado: list it in "
        f"upstream_patches.OVERRIDES with its fingerprint and reason: {found ^ listed}")
    for o in up.OVERRIDES:
        assert up.resolve(o.internal).__name__ == o.method


def test_the_module_names_the_versions_its_fingerprints_were_taken_from() -> None:
    # (tests/deploy/test_lock.py checks that these are the locked ones.)
    from importlib.metadata import version

    named = ", ".join(f"{label} {version(dist)}" for label, dist in (
        ("Bokeh", "bokeh"), ("Panel", "panel"), ("param", "param"), ("Tornado", "tornado")))
    assert named in " ".join((up.__doc__ or "").split())


def test_names_are_unique_and_each_has_its_section_in_docs_upstream() -> None:
    names = [p.name for p in up.PATCHES]
    assert len(names) == len(set(names)) == len(up.BY_NAME)
    doc = (ROOT / "docs" / "upstream.md").read_text()
    sections = re.findall(r"^### `([a-z_]+)`", doc, flags=re.MULTILINE)
    assert sections == names  # one section per patch, in installation order
    for p in up.PATCHES:
        assert p.internals, p.name
        assert "Measured" in (p.install.__doc__ or "") or p.correct or \
            "Needed" in (p.install.__doc__ or ""), p.name


def test_no_version_switch_is_left_in_the_app() -> None:
    # Patches no longer switch themselves off by version: the fingerprints decide.
    hits = [str(f.relative_to(ROOT)) for f in (ROOT / "app").rglob("*.py")
            if "__version__.startswith" in f.read_text()]
    assert hits == []


def test_a_changed_speed_patch_is_left_out_with_a_warning(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    calls: list[int] = []
    fake = up.Patch("fake_speed", lambda: calls.append(1),
                    {"app.serve.upstream_patches:resolve": "0" * 16})
    monkeypatch.setitem(up.BY_NAME, "fake_speed", fake)
    monkeypatch.setattr(up, "_CHECKED", {})
    with caplog.at_level(logging.WARNING, logger="dplab.server"):
        assert up.install("fake_speed") is False
    assert calls == []
    assert "fake_speed" in caplog.text and "upstream_patches:resolve" in caplog.text


def test_a_changed_correctness_patch_stops_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = up.Patch("fake_correct", lambda: None,
                    {"app.serve.upstream_patches:resolve": "0" * 16}, correct=True)
    monkeypatch.setitem(up.BY_NAME, "fake_correct", fake)
    monkeypatch.setattr(up, "_CHECKED", {})
    with pytest.raises(up.UpstreamChanged, match="fake_correct"):
        up.install("fake_correct")


def test_a_missing_internal_counts_as_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = up.Patch("fake_gone", lambda: None, {"bokeh.document:NoSuchThing.method": "x"})
    assert fake.changed() == ["bokeh.document:NoSuchThing.method (source missing, written "
                              "for x)"]


def test_an_unchanged_patch_installs_and_a_switched_off_one_does_not(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []
    target = "app.serve.upstream_patches:resolve"
    fake = up.Patch("fake_ok", lambda **kw: calls.append(kw), {target: up.fingerprint(target)})
    monkeypatch.setitem(up.BY_NAME, "fake_ok", fake)
    monkeypatch.setattr(up, "_CHECKED", {})
    monkeypatch.setenv(up.OFF_SETTING, "other, fake_ok")
    assert up.install("fake_ok", a=1) is False
    monkeypatch.delenv(up.OFF_SETTING)
    assert up.install("fake_ok", a=1) is True
    assert calls == [{"a": 1}]


def test_an_installed_patch_still_fingerprints_upstreams_code() -> None:
    # In this process the server's patches may be installed: the fingerprint reads the
    # original each replacement keeps.
    for p in up.PATCHES:
        for target in p.internals:
            obj = up.resolve(target)
            assert not getattr(obj, "__module__", "").startswith("app."), target


# --- what each remaining patch relies on, in the installed versions ----------------------------


def _keep(monkeypatch: pytest.MonkeyPatch, owner: Any, *names: str) -> None:
    """Restore ``owner``'s attributes after the test (a hook installed with test callbacks
    must not outlive it)."""
    for name in names:
        monkeypatch.setattr(owner, name, getattr(owner, name))


def test_cache_bokeh_defaults_shares_nothing_mutable_and_keeps_values() -> None:
    up.cache_bokeh_defaults()
    up.cache_bokeh_defaults()  # idempotent
    from bokeh.core.property.bases import Property
    from bokeh.models import Div, Slider

    assert getattr(Property.themed_default, "_dplab", False)
    a, b = Div(), Div()
    assert a.id != b.id  # generated defaults are never cached
    a.css_classes.append("x")
    assert list(b.css_classes) == []
    assert a.text == "" and Slider(start=0, end=1, value=0).step == 1
    assert Div(text="y").text == "y"


def test_lazy_layouts_makes_a_templates_notebook_layout_only_when_read() -> None:
    up.lazy_layouts()
    import panel as pn

    tmpl = pn.template.FastListTemplate(title="t")
    assert tmpl.__dict__.get("_dplab_layout") is None  # not made by __init__
    layout = tmpl._layout  # what a notebook shows: made on first access, as Panel makes it
    assert isinstance(layout, pn.Column) and len(layout) == 3
    assert isinstance(layout[0], pn.pane.Str) and tmpl._layout is layout
    assert "FastListTemplate" in layout[0].object  # the template's repr


def test_lazy_layouts_makes_the_row_on_first_use_with_its_parameters() -> None:
    up.lazy_layouts()
    up.lazy_layouts()  # idempotent
    import panel as pn

    pane = pn.pane.Markdown("x", width=120, margin=3)
    assert "_dplab_layout" not in pane.__dict__  # not made yet
    pane.width = 150  # before the Row exists: it is made with the new value
    row = pane.layout
    assert isinstance(row, pn.Row) and pane.__dict__["_dplab_layout"] is row
    assert list(row) == [pane]
    made = row.width  # the pane's width and margins, as Panel's own Row has them
    assert made is not None and made >= 150
    pane.width = 180  # afterwards it follows, as Panel's own Row does
    assert row.width == made + 30


def test_attach_template_frozen_recomputes_the_graph_once(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    from bokeh.document import Document
    from bokeh.document.models import DocumentModelManager
    from panel.template.base import BaseTemplate

    _keep(monkeypatch, BaseTemplate, "server_doc")
    up.attach_template_frozen()
    import panel as pn

    calls: list[int] = []
    recompute = DocumentModelManager.recompute

    def counted(self: Any) -> None:
        calls.append(1)
        recompute(self)

    monkeypatch.setattr(DocumentModelManager, "recompute", counted)
    template = pn.template.FastListTemplate(title="t")
    template.main.append(pn.pane.Markdown("a"))
    template.sidebar.append(pn.pane.Markdown("b"))
    doc = Document()
    template.server_doc(doc)
    assert len(doc.roots) > 2  # a template adds several roots…
    assert len(calls) == 1  # …and the model graph is recomputed once, when the freeze ends


def test_websocket_nodelay_sets_it_before_bokehs_open(monkeypatch: pytest.MonkeyPatch) -> None:
    from bokeh.server.views.ws import WSHandler

    seen: list[Any] = []
    monkeypatch.setattr(WSHandler, "open", lambda self, *a, **k: seen.append("open"))
    up.websocket_nodelay()
    handler = WSHandler.__new__(WSHandler)
    handler.set_nodelay = lambda value: seen.append(value)  # type: ignore[method-assign]
    WSHandler.open(handler)
    assert seen == [True, "open"]


def test_busy_events_are_counted_only_with_a_busy_indicator(monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    from panel.io.state import state

    cls = type(state)
    _keep(monkeypatch, cls, "_add_busy_event", "_remove_busy_event")
    up.busy_events_when_shown()
    before = list(state._busy_counter)
    monkeypatch.setattr(state, "_indicators", [])
    state._add_busy_event("e1")
    assert list(state._busy_counter) == before  # no indicator: nothing counted
    state._remove_busy_event("e1")
    monkeypatch.setattr(state, "_indicators", [SimpleNamespace(value=False)])
    monkeypatch.setattr(cls, "_schedule_busy_cleanup", lambda self: None)
    state._add_busy_event("e2")  # with one: Panel's own bookkeeping
    assert [e for e, _ in state._busy_counter] == [*[e for e, _ in before], "e2"]
    state._remove_busy_event("e2")
    assert [e for e, _ in state._busy_counter] == [e for e, _ in before]


def test_design_is_looked_up_only_for_stylesheets(monkeypatch: pytest.MonkeyPatch) -> None:
    import panel as pn
    from bokeh.document import Document
    from panel.reactive import Reactive

    original = getattr(Reactive._update_properties, "_dplab_original",
                       Reactive._update_properties)
    _keep(monkeypatch, Reactive, "_update_properties")
    up.design_on_stylesheets_only()
    slider = pn.widgets.FloatSlider(start=0, end=1, value=0.5,
                                    design=pn.theme.Fast, stylesheets=[":host {color: red}"])
    doc = Document()

    class Event:
        def __init__(self, name: str, new: Any) -> None:
            self.name, self.new = name, new

    def plain(props: dict[str, Any]) -> dict[str, Any]:
        # (stylesheet models are made anew on each call: compared by what they hold)
        return {k: [(type(x).__name__, getattr(x, "url", getattr(x, "css", x))) for x in v]
                if isinstance(v, list) else v for k, v in props.items()}

    for event in (Event("value", 0.7), Event("stylesheets", [":host {color: blue}"])):
        ours = Reactive._update_properties(slider, event, doc=doc)
        theirs = original(slider, event, doc=doc)
        assert plain(ours) == plain(theirs), event.name
    looked: list[int] = []
    params = slider._design.params
    monkeypatch.setattr(slider._design, "params",
                        lambda *a, **k: looked.append(1) or params(*a, **k))
    Reactive._update_properties(slider, Event("value", 0.2), doc=doc)
    assert looked == []


def test_page_resources_trims_the_bundle_and_keeps_it_per_kind_of_page(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from bokeh.document import Document
    from panel.io import resources, server
    from panel.io.resources import Resources
    from panel.models.markup import HTML as PanelHTML
    from panel.theme.fast import Fast

    _keep(monkeypatch, resources, "_panel_use_mathjax")
    _keep(monkeypatch, server, "bundle_resources")
    _keep(monkeypatch, Fast, "_resources")
    up.page_resources()
    up.page_resources()  # idempotent
    assert not Fast._resources.get("font")  # no Google font link (offline)
    original = server.bundle_resources._dplab_original

    def roots(text: str) -> list[Any]:
        # An HTML pane's model as a page root, made directly: what a pane's server_doc makes
        # depends on Panel's global config, which other tests (serve()) set.
        doc = Document()
        doc.add_root(PanelHTML(text=text))
        return list(doc.roots)

    def files(bundle: Any) -> list[str]:
        return [str(f) for f in bundle.js_files]

    plain, tex = roots("<p>no formula</p>"), roots("<p>$$x^2$$</p>")
    # (upstream's MathJax rule, as installed)
    monkeypatch.setattr(upstream_page, "TRIM_BUNDLE", False)
    theirs = original(plain, Resources(mode="server"))
    monkeypatch.setattr(upstream_page, "TRIM_BUNDLE", True)
    assert any("mathjax" in f for f in files(theirs))  # upstream: MathJax for any HTML pane
    ours = server.bundle_resources(plain, Resources(mode="server"))
    assert files(ours) == [f for f in files(theirs)
                           if "mathjax" not in f and "/bokeh-gl" not in f]
    assert ours.css_files == theirs.css_files and ours.js_raw == theirs.js_raw
    with_tex = server.bundle_resources(tex, Resources(mode="server"))
    assert any("mathjax" in f for f in files(with_tex))
    # kept per kind of page, and each page gets lists of its own (Panel adds its script)
    again = server.bundle_resources(roots("<p>other</p>"), Resources(mode="server"))
    assert again is not ours and files(again) == files(ours)
    ours.js_raw.append("page script")
    assert server.bundle_resources(plain, Resources(mode="server")).js_raw == theirs.js_raw
    # (benchmarks/first_load.py's baseline)
    monkeypatch.setattr(upstream_page, "TRIM_BUNDLE", False)
    assert any("mathjax" in f for f in files(server.bundle_resources(plain,
                                                                     Resources(mode="server"))))


def test_quiet_request_log_puts_our_lines_in_tornados_place(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    import tornado.web

    web = tornado.web.RequestHandler
    _keep(monkeypatch, web, "_request_summary", "log_exception")
    seen: list[Any] = []
    monkeypatch.delitem(up._CHECKED, "quiet_request_log", raising=False)
    if getattr(web._request_summary, "_dplab_original", None) is not None:
        monkeypatch.setattr(web, "_request_summary", web._request_summary._dplab_original)
        monkeypatch.setattr(web, "log_exception", web.log_exception._dplab_original)
    assert up.install("quiet_request_log", request_summary=lambda h: "ours",
                      log_exception=lambda h, *exc: seen.append(exc))
    handler = SimpleNamespace()
    assert web._request_summary(handler) == "ours"
    web.log_exception(handler, ValueError, ValueError("x"), None)
    assert len(seen) == 1 and seen[0][0] is ValueError
    # Tornado's own summary is what it replaced: method, URI and the client's address.
    request = SimpleNamespace(method="GET", uri="/lab?room=ABCD", remote_ip="203.0.113.7")
    upstream = web._request_summary._dplab_original(SimpleNamespace(request=request))
    assert "203.0.113.7" in upstream and "room=ABCD" in upstream


def test_pull_serialized_ahead_answers_a_first_pull_with_what_take_gives(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from bokeh.document import Document
    from bokeh.models import Div
    from bokeh.protocol.messages.pull_doc_reply import pull_doc_reply

    _keep(monkeypatch, pull_doc_reply, "create")
    if getattr(pull_doc_reply.create.__func__, "_dplab_original", None) is not None:
        monkeypatch.setattr(pull_doc_reply, "create",
                            classmethod(pull_doc_reply.create.__func__._dplab_original))
    monkeypatch.delitem(up._CHECKED, "pull_serialized_ahead", raising=False)
    doc = Document()
    doc.add_root(Div(text="a"))
    walked = doc.to_json()
    kept: dict[str, Any] = {"doc": walked}
    assert up.install("pull_serialized_ahead", take=lambda d: kept.pop("doc", None))
    first = pull_doc_reply.create("1", doc)
    assert first.content["doc"] is walked.content  # no walk: what take gave
    again = pull_doc_reply.create("2", doc)  # take has nothing: Bokeh's own walk
    assert again.content["doc"]["roots"][0]["attributes"]["text"] == "a"
    # Every change of the document passes through the wrapped trigger_on_change, in order.
    events: list[Any] = []
    up.record_document_changes(doc, events.append)
    doc.roots[0].text = "b"
    doc.title = "t"
    assert [type(e).__name__ for e in events] == ["ModelChangedEvent", "TitleChangedEvent"]
    up.record_document_changes(doc, None)
    doc.roots[0].text = "c"
    assert len(events) == 2 and "trigger_on_change" not in doc.callbacks.__dict__


def test_reclaim_closed_pages_hooks_run_around_panels_and_bokehs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import panel.io.application as pn_application
    import panel.io.document as pn_document
    from bokeh.server.views.ws import WSHandler

    _keep(monkeypatch, pn_application, "_destroy_document")
    _keep(monkeypatch, pn_document, "_garbage_collect")
    _keep(monkeypatch, WSHandler, "on_close")
    order: list[str] = []
    monkeypatch.setattr(pn_application, "_destroy_document",
                        lambda doc, session: order.append("panel destroys"))
    monkeypatch.setattr(WSHandler, "on_close", lambda self: order.append("bokeh closes"))
    up.reclaim_closed_pages(page_closed=lambda doc: order.append("page walked"),
                            connection_closed=lambda h: order.append("connection walked"),
                            collect_after_close=lambda: order.append("policy"))
    pn_application._destroy_document("doc", "session")
    WSHandler.on_close(WSHandler.__new__(WSHandler))
    pn_document._garbage_collect()
    assert order == ["page walked", "panel destroys", "bokeh closes", "connection walked",
                     "policy"]


def test_discard_in_turn_skips_a_session_reconnected_meanwhile(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from bokeh.server.contexts import ApplicationContext

    _keep(monkeypatch, ApplicationContext, "_discard_session")
    discarded: list[str] = []

    async def discard(self: Any, session: Any, should_discard: Any) -> None:
        discarded.append(session.id)

    monkeypatch.setattr(ApplicationContext, "_discard_session", discard)
    up.discard_in_turn(spacing_s=0.0)

    class Session:
        def __init__(self, sid: str, connections: int) -> None:
            self.id, self.connection_count = sid, connections

    ctx = ApplicationContext.__new__(ApplicationContext)
    ctx._sessions = {"a": None, "b": None}
    for s in (Session("a", 0), Session("b", 1), Session("c", 0)):
        asyncio.run(ctx._discard_session(s, lambda s: True))
    assert discarded == ["a"]  # b reconnected, c was discarded meanwhile


def test_activity_is_seen_on_requests_and_websocket_messages(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    import tornado.web
    from bokeh.server.views.ws import WSHandler
    from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine

    _keep(monkeypatch, WSHandler, "on_message")
    _keep(monkeypatch, tornado.web.RequestHandler, "__init__")

    async def on_message(self: Any, fragment: Any) -> str:
        return "handled"

    monkeypatch.setattr(WSHandler, "on_message", on_message)
    seen: list[int] = []

    class Quiet(tornado.web.RequestHandler):
        pass

    up.activity_seen(seen=lambda: seen.append(1), not_activity=(Quiet,))
    assert asyncio.run(WSHandler.on_message(WSHandler.__new__(WSHandler), "x")) == "handled"
    app = tornado.web.Application()
    request = HTTPServerRequest(start_line=RequestStartLine("GET", "/", "HTTP/1.1"),
                                headers=HTTPHeaders({"Host": "localhost"}),
                                connection=SimpleNamespace(set_close_callback=lambda cb: None))
    tornado.web.RequestHandler(app, request)
    Quiet(app, request)
    assert seen == [1, 1]  # the message and the plain request; not the Quiet handler


def test_builds_in_turn_hands_panels_method_to_ours(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from panel.io.server import DocHandler

    _keep(monkeypatch, DocHandler, "get_session")

    async def get_session(self: Any) -> str:
        return "session"

    monkeypatch.setattr(DocHandler, "get_session", get_session)
    calls: list[Any] = []

    async def in_turn(handler: Any, build: Any) -> Any:
        calls.append(handler)
        return await build(handler)

    up.builds_in_turn(get_session=in_turn)
    handler = DocHandler.__new__(DocHandler)
    assert asyncio.run(DocHandler.get_session(handler)) == "session"
    assert calls == [handler]


def test_bokeh_makes_a_session_as_the_hand_over_copies_it() -> None:
    # take_documents_built_ahead copies create_session_if_needed: what it calls is there.
    import panel.io.server  # noqa: F401  (Panel puts its own request proxy in Bokeh's module)
    from bokeh.server.contexts import ApplicationContext, BokehSessionContext, _RequestProxy
    from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine

    params = list(inspect.signature(ApplicationContext.create_session_if_needed).parameters)
    assert params == ["self", "session_id", "request", "token"]
    assert "logout_url" in inspect.signature(BokehSessionContext).parameters
    request = HTTPServerRequest(start_line=RequestStartLine("GET", "/lab?x=1", "HTTP/1.1"),
                                headers=HTTPHeaders({"Host": "localhost"}))
    proxy = _RequestProxy(request, arguments={"lang": [b"en"]}, cookies={"c": "1"},
                          headers={"Accept-Language": "en"})
    assert proxy.arguments == {"lang": [b"en"]} and proxy.cookies == {"c": "1"}
    assert proxy.headers == {"Accept-Language": "en"}
    # tests/app/serve/test_prebuild_live.py takes documents built ahead on a started server.
