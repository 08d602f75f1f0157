"""Every patch of a Bokeh, Panel, param or Tornado internal that the server installs.

Each patch is a :class:`Patch`: a name, the internals it replaces or wraps
(``module:qualname``), a fingerprint of their source in the locked versions
(requirements/test.lock: Bokeh 3.9.2, Panel 1.9.4, param 2.4.2, Tornado 6.6.1), whether it is
needed for correctness or only for speed, and the function that installs it, whose docstring
gives its measured reason. docs/upstream.md describes each as an upstream report would
(behaviour, measurement, proposed change).

On another version
    tests/app/serve/test_upstream_patches.py fails (it does not skip) when an internal's source
    differs from its fingerprint, and each patch has a test of the behaviour it relies on. At
    run time a changed internal is logged (``dplab.server``: a warning that names it), and

    - a *speed* patch is then not installed: the server runs upstream's code, correct and
      slower, rather than our copy of code that has since changed under it;
    - a *correctness* patch raises :class:`UpstreamChanged`: the server does not start without
      it (what it fixes would otherwise go wrong: a browser's address in the log, closed pages
      never freed).

    After an upgrade: read the changed internal, measure again (benchmarks/patch_weight.py),
    then update the fingerprint or remove the patch (and its section in docs/upstream.md).

``DPLAB_UPSTREAM_PATCHES_OFF`` (names, comma separated) leaves patches out: only for measuring
what each one is worth (benchmarks/patch_weight.py); never set in production.

:data:`OVERRIDES` (the private methods of Panel that our own subclasses override) and
:data:`USES` (library functions and attributes outside their top-level API whose behaviour we
rely on) are not patches: they live in ``app/serve/upstream_uses.py``, are re-exported here and
are fingerprinted and tested the same way.

Installation order: :data:`PATCHES`' order (``app.serve.server.tune_process`` installs the
process-wide ones, ``serve()`` the origin check first, ``app.serve.prebuild`` its hand-over
once the server exists). Every installer is idempotent.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import logging
import os
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# the installers, by responsibility: a page's build and updates; sessions and connections
from app.serve.upstream_page import attach_template_frozen as attach_template_frozen
from app.serve.upstream_page import busy_events_when_shown as busy_events_when_shown
from app.serve.upstream_page import cache_bokeh_defaults as cache_bokeh_defaults
from app.serve.upstream_page import design_on_stylesheets_only as design_on_stylesheets_only
from app.serve.upstream_page import lazy_layouts as lazy_layouts
from app.serve.upstream_page import page_resources as page_resources
from app.serve.upstream_sessions import activity_seen as activity_seen
from app.serve.upstream_sessions import builds_in_turn as builds_in_turn
from app.serve.upstream_sessions import discard_in_turn as discard_in_turn
from app.serve.upstream_sessions import pull_serialized_ahead as pull_serialized_ahead
from app.serve.upstream_sessions import quiet_origin_refusal as quiet_origin_refusal
from app.serve.upstream_sessions import quiet_request_log as quiet_request_log
from app.serve.upstream_sessions import reclaim_closed_pages as reclaim_closed_pages
from app.serve.upstream_sessions import record_document_changes as record_document_changes
from app.serve.upstream_sessions import take_documents_built_ahead as take_documents_built_ahead
from app.serve.upstream_sessions import websocket_nodelay as websocket_nodelay

# (not patches, listed beside them and re-exported: app/serve/upstream_uses.py)
from app.serve.upstream_uses import OVERRIDES as OVERRIDES
from app.serve.upstream_uses import USES as USES
from app.serve.upstream_uses import Override as Override
from app.serve.upstream_uses import Use as Use

LOG = logging.getLogger("dplab.server")
OFF_SETTING = "DPLAB_UPSTREAM_PATCHES_OFF"


class UpstreamChanged(RuntimeError):
    """A correctness patch's internal is not the one the patch was written for."""


def resolve(target: str) -> Any:
    """``"package.module:Class.attr"`` -> that object as defined upstream (a classmethod's or a
    property's function)."""
    module_name, _, qualname = target.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        found = vars(obj).get(part) if hasattr(obj, "__dict__") else None
        if found is None and isinstance(obj, type):
            for klass in obj.__mro__:
                if part in vars(klass):
                    found = vars(klass)[part]
                    break
        obj = found if found is not None else getattr(obj, part)
    if isinstance(obj, (classmethod, staticmethod)):
        obj = obj.__func__
    if isinstance(obj, property):
        obj = obj.fget
    # An installed patch keeps upstream's function here.
    return getattr(obj, "_dplab_original", obj)


def fingerprint(target: str) -> str:
    """The first 16 hex digits of the SHA-256 of the target's source (dedented)."""
    source = textwrap.dedent(inspect.getsource(resolve(target)))
    return hashlib.sha256(source.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Patch:
    name: str
    install: Callable[..., Any]
    # internal ("module:qualname") -> fingerprint of its source in the locked versions
    internals: dict[str, str] = field(default_factory=dict)
    correct: bool = False  # needed for correctness (else for speed only)

    def changed(self) -> list[str]:
        """The internals whose source is not the one this patch was written for."""
        out = []
        for target, expected in self.internals.items():
            try:
                found = fingerprint(target)
            except (AttributeError, ImportError, KeyError, OSError, TypeError):
                found = "missing"
            if found != expected:
                out.append(f"{target} (source {found}, written for {expected})")
        return out


_CHECKED: dict[str, bool] = {}


def switched_off() -> set[str]:
    """The patches :data:`OFF_SETTING` leaves out."""
    return {n.strip() for n in os.environ.get(OFF_SETTING, "").split(",") if n.strip()}


def install(name: str, **kwargs: Any) -> bool:
    """Install the patch ``name`` (its installer is idempotent) unless it is switched off or,
    for a speed patch, its internals changed (then False). A correctness patch whose
    internals changed raises :class:`UpstreamChanged`."""
    patch = BY_NAME[name]
    if name in switched_off():
        return False
    ok = _CHECKED.get(name)
    if ok is None:
        changed = patch.changed()
        ok = _CHECKED[name] = not changed
        if changed:
            what = "; ".join(changed)
            if patch.correct:
                del _CHECKED[name]
                raise UpstreamChanged(
                    f"upstream patch {name!r} needs a look: the installed version changed "
                    f"{what} (app/serve/upstream_patches.py, docs/upstream.md)")
            LOG.warning("upstream patch %r not installed: the installed version changed %s "
                        "(app/serve/upstream_patches.py, docs/upstream.md)", name, what)
    if ok:
        patch.install(**kwargs)
    return ok


_WS = "bokeh.server.views.ws:WSHandler"
_CTX = "bokeh.server.contexts:ApplicationContext"
PATCHES: tuple[Patch, ...] = (
    Patch("quiet_request_log", quiet_request_log,
          {"tornado.web:RequestHandler._request_summary": "f19db66d092abf08",
           "tornado.web:RequestHandler.log_exception": "c1b2671ed9d82a98"}, correct=True),
    Patch("quiet_origin_refusal", quiet_origin_refusal,
          {f"{_WS}.check_origin": "68b032ec75263404"}, correct=True),
    Patch("cache_bokeh_defaults", cache_bokeh_defaults,
          {"bokeh.core.property.bases:Property.themed_default": "d7f803d887a072f4",
           "bokeh.core.has_props:HasProps._overridden_defaults": "9ae46c6c97e74607",
           "bokeh.core.property.descriptors:PropertyDescriptor.has_unstable_default":
               "b11fbbc85c4bcb7d"}),
    Patch("lazy_layouts", lazy_layouts,
          {"panel.pane.base:PaneBase.__init__": "2942d8c68e3d6aeb",
           "panel.pane.base:PaneBase._sync_layoutable": "c903643b75f05168",
           "panel.template.base:BaseTemplate.__init__": "859b13590447360e",
           "panel.template.base:BaseTemplate._build_layout": "e9e35ef27c1d323a"}),
    Patch("attach_template_frozen", attach_template_frozen,
          {"panel.template.base:BaseTemplate.server_doc": "c14ced76628114ba"}),
    Patch("websocket_nodelay", websocket_nodelay, {f"{_WS}.open": "6fe9c4c2da7df4a0"}),
    Patch("busy_events_when_shown", busy_events_when_shown,
          {"panel.io.state:_state._add_busy_event": "59661261070b04f0",
           "panel.io.state:_state._remove_busy_event": "352e4c99cfb517dd"}),
    Patch("design_on_stylesheets_only", design_on_stylesheets_only,
          {"panel.reactive:Reactive._update_properties": "cb97d093881ee8c2"}),
    Patch("page_resources", page_resources,
          {"panel.io.resources:_panel_use_mathjax": "f7884844bb282077",
           "panel.io.resources:bundle_resources": "423a861540d17270",
           "panel.theme.fast:Fast": "768bbbacf11e211d"}, correct=True),
    Patch("reclaim_closed_pages", reclaim_closed_pages,
          {"panel.io.application:_destroy_document": "15cd8f3553af8749",
           "panel.io.document:_garbage_collect": "9d00644da8235197",
           f"{_WS}.on_close": "7939a5c46013353f"}, correct=True),
    Patch("discard_in_turn", discard_in_turn,
          {f"{_CTX}._discard_session": "37f0e688da13a20c"}),
    Patch("activity_seen", activity_seen,
          {f"{_WS}.on_message": "82e2a96a8874ba2b",
           "tornado.web:RequestHandler.__init__": "8d592245fe23e110"}),
    Patch("builds_in_turn", builds_in_turn,
          {"panel.io.server:DocHandler.get_session": "b63c2296fa015f21"}, correct=True),
    Patch("take_documents_built_ahead", take_documents_built_ahead,
          {f"{_CTX}.create_session_if_needed": "cc6c52ff71b45b31"}),
    Patch("pull_serialized_ahead", pull_serialized_ahead,
          {"bokeh.protocol.messages.pull_doc_reply:pull_doc_reply.create": "f9d88806651ecec8",
           "bokeh.document.callbacks:DocumentCallbackManager.trigger_on_change":
               "8ff2504e51c5efe6",
           "bokeh.document.document:Document.to_json": "d1610b6e1d0c8c51"}),
)
BY_NAME: dict[str, Patch] = {p.name: p for p in PATCHES}

