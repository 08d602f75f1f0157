"""Our JavaScript components are sent as already compiled (app.shell.plainjs)."""

from __future__ import annotations

import re

import panel as pn
import pytest
import tornado.web
from tornado.testing import AsyncHTTPTestCase

import app.cdf.component
import app.cdf.sidebar
import app.cdf.widgets
import app.lab.controls
import app.lab.views
import app.shell.exportbar
import app.shell.template
import app.shell.tour
import app.shell.widgets
from app.shell.plainjs import PlainJS, components


def test_every_component_of_the_app_is_plain_js() -> None:
    names = {c.__name__ for c in components()}
    assert {"ControlPanel", "ExportBar", "KeyBridge",
            "UploadBox", "DensityPlot", "CurvePlot", "SimPlot"} <= names
    for mod in (app.cdf.widgets, app.lab.controls, app.lab.views, app.shell.exportbar,
                app.shell.template, app.shell.tour, app.shell.widgets):
        for obj in vars(mod).values():
            if isinstance(obj, type) and issubclass(obj, app.shell.plainjs.pn.custom.JSComponent):
                assert issubclass(obj, PlainJS), obj


def make(cls: type[PlainJS]) -> PlainJS:
    if cls is app.cdf.widgets.UploadBox:
        return cls(lambda *_: None, lambda *_: None)  # type: ignore[call-arg]
    if cls is app.cdf.widgets.SettleNote:
        return cls(lambda *_: None)  # type: ignore[call-arg]
    return cls()


@pytest.mark.parametrize("cls", components(), ids=lambda c: c.__name__)
def test_the_module_goes_as_a_bundle_keyed_by_its_content(cls: type[PlainJS]) -> None:
    props = make(cls)._get_properties(None)
    owner = app.shell.plainjs.module_owner(cls).__name__  # (a subclass may share its module)
    assert re.fullmatch(rf"dplab-{owner}-[0-9a-f]{{16}}", props["bundle"])
    assert props["bundle"] == make(cls)._get_properties(None)["bundle"]
    # Plain ES module text, the source Panel's JavaScript imports without a transform.
    assert "export function render" in props["esm"]
    assert not re.search(r"^\s*(interface|type)\s+\w+|\w:\s*(string|number|boolean)\b[,)]",
                         props["esm"], re.M), "TypeScript syntax needs Panel's transform"


def test_different_modules_get_different_keys() -> None:
    keys = {make(cls)._get_properties(None)["bundle"] for cls in components()}
    owners = {app.shell.plainjs.module_owner(cls) for cls in components()}
    assert len(keys) == len(owners)
    # the sidebar of /cdf and its main area's panels share one module, so one address
    assert app.shell.plainjs.module_owner(app.cdf.sidebar.SidebarPanel) is \
        app.cdf.component.PartsPanel


def test_panels_dev_mode_keeps_its_own_compile() -> None:
    # --autoreload (dev): Panel compiles and re-imports a module whenever it is edited.
    box = app.lab.controls.ControlPanel()
    box._debug = True  # type: ignore[attr-defined]
    props = box._get_properties(None)
    assert props["dev"] and props["bundle"] is None


@pytest.mark.parametrize("cls", components(), ids=lambda c: c.__name__)
@pytest.mark.parametrize("server", [False, True])
def test_the_module_text_kept_is_the_text_panel_makes(cls: type[PlainJS], server: bool) -> None:
    # PlainJS keeps each class's module text instead of Panel's re-reading and re-dedenting it
    # for every model: the text kept must be what Panel's own _render_esm makes (this fails
    # when an upgrade changes how Panel makes it).
    panels = pn.custom.JSComponent._render_esm.__func__(cls, True, server=server)
    assert cls._render_esm(True, server=server) == panels
    assert cls._render_esm(True, server=server) is cls._render_esm(True, server=server)
    assert make(cls)._get_properties(None)["esm"] == panels


def test_dev_mode_reads_the_module_each_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pn.config, "autoreload", True)
    cls = app.lab.controls.ControlPanel
    assert cls._render_esm(True) is not cls._render_esm(True)


@pytest.mark.parametrize("cls", components(), ids=lambda c: c.__name__)
def test_a_component_shares_its_class_parameter_objects_not_its_values(
        cls: type[PlainJS]) -> None:
    a, b = make(cls), make(cls)
    # What Panel reads for every parameter when it makes the model: the class's object, not
    # a copy per instance (app.shell.plainjs's module docstring).
    for name in ("margin", "css_classes", "name"):
        assert a.param[name] is type(a).param[name] is b.param[name]
    a.css_classes = ["only-a"]
    assert b.css_classes != ["only-a"]
    assert a._get_properties(None)["css_classes"] != b._get_properties(None)["css_classes"]


def test_a_browser_change_still_reaches_a_component_with_shared_parameters() -> None:
    # Panel applies a browser's change under edit_readonly, which flips the flags of the
    # parameter objects it finds and restores them after.
    bridge = app.shell.tour.KeyBridge()
    other = app.shell.tour.KeyBridge()
    bridge._process_events({"event": "n#1"})
    assert bridge.event == "n#1" and other.event == ""
    assert not type(bridge).param["event"].readonly
    assert not type(bridge).param["event"].constant


# ---- served pages name their modules by address (app.shell.plainjs.serve_by_address) ---------

@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(app.shell.plainjs, "_SERVED", True)


@pytest.mark.parametrize("cls", components(), ids=lambda c: c.__name__)
def test_a_served_model_names_its_module_by_an_address_of_its_content(
        cls: type[PlainJS], served: None) -> None:
    props = make(cls)._get_properties(None)
    # Panel's JavaScript imports esm as an address when bundle is "url", one module per address
    assert props["bundle"] == "url"
    owner = app.shell.plainjs.module_owner(cls).__name__
    m = re.fullmatch(rf"/modules/(dplab-{owner}-[0-9a-f]{{16}})\.js", props["esm"])
    assert m, props["esm"]
    text = app.shell.plainjs.module_text(m.group(1))
    assert text == pn.custom.JSComponent._render_esm.__func__(cls, True, server=False)
    assert "export function render" in text


def test_the_module_address_sits_behind_the_url_prefix(served: None,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPLAB_PREFIX", "/course")
    esm = app.shell.tour.KeyBridge()._get_properties(None)["esm"]
    assert esm.startswith("/course/modules/dplab-KeyBridge-")


def test_a_worker_that_made_no_such_model_knows_the_module(served: None) -> None:
    # Behind a balancer the module's address may reach another worker than the page's.
    name = app.shell.exportbar.ExportBar()._get_properties(None)["esm"].split("/")[-1][:-3]
    app.shell.plainjs._BY_NAME.pop(name)
    assert "export function render" in (app.shell.plainjs.module_text(name) or "")
    assert app.shell.plainjs.module_text("dplab-ExportBar-0000000000000000") is None
    assert app.shell.plainjs.module_text("dplab-NoSuchThing-0000000000000000") is None


class ModuleRouteTest(AsyncHTTPTestCase):
    """The route answers a module's text, immutable, and refuses other names."""

    def get_app(self) -> tornado.web.Application:
        saved = app.shell.plainjs._SERVED
        routes = app.shell.plainjs.serve_by_address()
        app.shell.plainjs._SERVED = saved  # the route is tested here, not the models
        return tornado.web.Application(routes)

    def test_the_module_route_answers_the_text_and_refuses_other_names(self) -> None:
        name = app.shell.tour.KeyBridge()._get_properties(None)["bundle"]
        ok = self.fetch(f"/modules/{name}.js")
        assert ok.code == 200 and "immutable" in ok.headers.get("Cache-Control", "")
        assert "export function render" in ok.body.decode()
        assert self.fetch(f"/modules/{name}.js", method="HEAD").code == 200
        for other in ("/modules/dplab-KeyBridge-0123456789abcdef.js", "/modules/..%2Fapp.js"):
            assert self.fetch(other).code == 404
