"""What of Panel, Bokeh, param and Tornado we depend on without patching it (issue 38).

Two lists beside the patches of ``app/serve/upstream_patches.py`` (which re-exports them):
:data:`OVERRIDES`, the private methods our own subclasses override, and :data:`USES`, library
functions and attributes outside their top-level API whose behaviour we rely on. Each entry
carries the fingerprint of the library code it was written for (``upstream_patches
.fingerprint``) and its measured reason; tests/app/serve/test_upstream_patches.py fails when
an upgrade changes one. docs/upstream.md describes each as an upstream report would.
"""

from __future__ import annotations

from dataclasses import dataclass

# --- private methods our own subclasses override ------------------------------------------
# Not patches (nothing of Panel's is replaced in place), but code that depends on a private
# method's behaviour all the same: each is fingerprinted like a patch's internals, so that an
# upgrade that changes one fails tests/app/serve/test_upstream_patches.py. Panel's documented
# extension points (``_esm``, ``_handle_msg``, ``_stylesheets``, ``_template``, ``_debounce``,
# ``_resources``) are not listed; the test finds any other override that is not.


@dataclass(frozen=True)
class Override:
    where: str  # our class, "module:Class"
    method: str  # the method's name
    internal: str  # the private method it overrides, "module:Class.method"
    fingerprint: str
    why: str


OVERRIDES: tuple[Override, ...] = (
    Override("app.shell.plainjs:PlainJS", "_render_esm",
             "panel.custom:ReactiveESM._render_esm", "aa2cbb884eaf6b51",
             "the module text made once per class, not per model (~10 ms of a /lab build)"),
    Override("app.shell.plainjs:PlainJS", "_get_properties",
             "panel.custom:ReactiveESM._get_properties", "cd75fce57bbb32ca",
             "a content-hash bundle name: the browser skips Panel's module transform"),
    Override("app.shell.widgets:ImmediateSlider", "_server_change",
             "panel.reactive:Syncable._server_change", "add930a6b571e7cf",
             "a drag step's value alone is dropped on arrival (the release carries it)"),
    Override("app.shell.widgets:ImmediateSlider", "_process_property_change",
             "panel.widgets.slider:_SliderBase._process_property_change", "a5dae131b7a7ed52",
             "the released value is the value"),
    Override("app.shell.widgets:TextPane", "_update",
             "panel.pane.markup:HTMLBasePane._update", "16dcdb62691f293b",
             "a changed text sends the text only (Panel recomputes every property: ~20 % "
             "of a move)"),
    Override("app.shell.template:_Template", "_init_doc",
             "panel.template.base:BasicTemplate._init_doc", "6e59c6a88b3079e5",
             "no Location root; the first-paint HTML wraps Panel's page template"),
    Override("app.shell.template:_Template", "_get_theme_from_query_args",
             "panel.template.fast.base:FastBaseTemplate._get_theme_from_query_args",
             "28a73dd7522dd91c", "the theme from our own address option"),
)


# --- behaviour of a library function outside its top-level API that we rely on ------------


@dataclass(frozen=True)
class Use:
    where: str  # our code, "module:name"
    internal: str  # "module:qualname"
    fingerprint: str
    why: str


USES: tuple[Use, ...] = (
    Use("app.shell.plainjs:PlainJS", "param.parameterized:no_instance_params",
        "a751b33d0a82e7d2", "a component shares its class's parameter objects: Panel's "
        "self.param[k] per model made no longer copies ~25 of them (~5 ms of a /lab build)"),
    Use("app.shell.plainjs:PlainJS", "param.parameterized:_instantiated_parameter",
        "6229501a2c269543", "where param decides to copy a parameter per instance (the flag "
        "no_instance_params sets is read there)"),
    Use("app.lab.state:LabState", "param.parameterized:no_instance_params",
        "a751b33d0a82e7d2", "every lab state shares its class's parameter objects: the card of "
        "a new room state, made once per worker, 2.3 -> 0.8 ms of CPU"),
    Use("app.room.channel:CardChannel", "tornado.websocket:WebSocketProtocol13._write_frame",
        "b0e2e5d9cd48a046", "a follower's frame is written to its socket as Tornado would frame it "
        "(unmasked, uncompressed: channel.wire), through ws_connection.stream: a worker's "
        "card pass over 155 followers 16.6 -> 12 ms of CPU"),
)
