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
from typing import Any, Literal

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


# --- the patches, in installation order ----------------------------------------------------

def cache_bokeh_defaults() -> None:
    """Compute each Bokeh property's plain default once per model class, not per access.

    Bokeh recomputes a property's default (class overrides walked along the MRO, then
    validated) every time an unset property is read, and a page build reads each model's
    unset properties when it makes and when it serialises the model. Only immutable results of
    non-callable defaults are kept (None, bool, numbers, strings and tuples of them), so no
    instance can share a mutable default or a generated value (ids). Idempotent.

    Measured (benchmarks/patch_weight.py, 2026-12-05, 3 rounds): without it a /cdf page build
    (320 models) costs 1.53× the server CPU (1.43-1.63); a /lab build (60 models) 0.93×
    (0.80-1.06: no longer measurable). Stays while /cdf is a heavy page (stage 2d).
    """
    from bokeh.core.has_props import HasProps
    from bokeh.core.property.bases import Property
    from bokeh.core.property.descriptors import PropertyDescriptor

    if getattr(Property.themed_default, "_dplab", False):
        return
    overridden: dict[type, dict[str, Any]] = {}
    overridden_defaults = HasProps._overridden_defaults.__func__

    def cached_overridden(cls: type) -> dict[str, Any]:
        d = overridden.get(cls)
        if d is None:
            d = overridden[cls] = overridden_defaults(cls)
        return d

    cached_overridden._dplab_original = overridden_defaults  # type: ignore[attr-defined]
    HasProps._overridden_defaults = classmethod(cached_overridden)
    plain = (type(None), bool, int, float, str)
    themed_default = Property.themed_default
    cache: dict[tuple[Any, ...], Any] = {}

    def cached_themed_default(self: Any, cls: type, name: str,
                              theme_overrides: dict[str, Any] | None, *,
                              no_eval: bool = False) -> Any:
        if theme_overrides is not None and name in theme_overrides:
            return themed_default(self, cls, name, theme_overrides, no_eval=no_eval)
        key = (id(self), cls, name, no_eval)
        hit = cache.get(key, cache)
        if hit is not cache:
            return hit
        value = themed_default(self, cls, name, theme_overrides, no_eval=no_eval)
        if not (self._may_have_unstable_default()
                or callable(cached_overridden(cls).get(name))) and (
                isinstance(value, plain) or (isinstance(value, tuple)
                                             and all(isinstance(v, plain) for v in value))):
            cache[key] = value
        return value

    cached_themed_default._dplab = True  # type: ignore[attr-defined]
    cached_themed_default._dplab_original = themed_default  # type: ignore[attr-defined]
    Property.themed_default = cached_themed_default

    # Whether a default is "unstable" (made by a callable) depends on the class alone.
    unstable: dict[tuple[int, type], bool] = {}
    has_unstable_default = PropertyDescriptor.has_unstable_default

    def cached_has_unstable_default(self: Any, obj: Any) -> bool:
        key = (id(self), type(obj))
        hit = unstable.get(key)
        if hit is None:
            hit = unstable[key] = bool(has_unstable_default(self, obj))
        return hit

    cached_has_unstable_default._dplab_original = (  # type: ignore[attr-defined]
        has_unstable_default)
    PropertyDescriptor.has_unstable_default = cached_has_unstable_default


def lazy_layouts() -> None:
    """Make a Panel pane's wrapper layout (``pane.layout``) and a template's notebook layout
    (``BaseTemplate._layout``) when each is first used.

    Panel gives every pane a ``Row`` around it for the case where the pane is shown on its own
    or replaced; inside our pages' columns it is never rendered, yet every pane of a page
    made one (a Reactive object with its watchers). Now the Row is made, with the pane's
    current layout parameters, on first access; it then follows them as before. A copy of
    ``PaneBase.__init__`` without the layout. Likewise every template makes, in its
    ``__init__``, the column a notebook shows for it (its ``repr`` as a Str pane, an HTML pane
    and a "Launch server" button: four Panel objects), which a served page never renders; it
    is now made on first access of ``_layout``. Idempotent.

    Measured (benchmarks/patch_weight.py, 2026-12-05, 3 rounds): without the panes' part a page
    keeps 1.17× the gc-tracked objects on /lab (8,390 → ~9,800) and 1.16× on /cdf (23,517 →
    ~27,300); build CPU 0.87× on /lab (noise), 1.14× on /cdf. The template's part
    (benchmarks/page_weight.py, 2026-12-06): /lab 4,359 → see docs/upstream.md. Objects per
    session are what the collector walks and what a worker's memory holds per student
    (issue 38).
    """
    from panel.pane.base import PaneBase
    from panel.template.base import BaseTemplate
    from panel.viewable import Layoutable

    if getattr(PaneBase, "_dplab_lazy_layout", False):
        return
    build_layout = BaseTemplate._build_layout

    def build_later(self: Any) -> None:
        return None  # (BaseTemplate.__init__ stores it; the property below makes it when read)

    def get_template_layout(self: Any) -> Any:
        layout = self.__dict__.get("_dplab_layout")
        if layout is None:
            layout = self.__dict__["_dplab_layout"] = build_layout(self)
        return layout

    def set_template_layout(self: Any, layout: Any) -> None:
        self.__dict__["_dplab_layout"] = layout

    build_later._dplab_original = build_layout  # type: ignore[attr-defined]
    BaseTemplate._build_layout = build_later  # type: ignore[assignment,method-assign]
    BaseTemplate._layout = property(get_template_layout, set_template_layout)  # type: ignore[assignment]
    sync = PaneBase._sync_layoutable

    def init(self: Any, object: Any = None, **params: Any) -> None:
        # PaneBase.__init__ of Panel 1.9, without making the layout.
        self._object_changing = False
        super(PaneBase, self).__init__(object=object, **params)
        if not hasattr(self, "_internal_callbacks"):
            self._internal_callbacks = []
        applies = self.applies(self.object, **(params if self._applies_kw else {}))
        if (isinstance(applies, bool) and not applies) and self.object is not None:
            self._type_error(self.object)
        self.__dict__["_dplab_layout_kwargs"] = {
            k: v for k, v in params.items()
            if k in Layoutable.param and k not in self._skip_layoutable}
        self._internal_callbacks.append(
            self.param.watch(self._sync_layoutable, list(Layoutable.param)))

    def get_layout(self: Any) -> Any:
        layout = self.__dict__.get("_dplab_layout")
        if layout is None:
            kwargs = self.__dict__.pop("_dplab_layout_kwargs", {})
            layout = self.__dict__["_dplab_layout"] = self.default_layout(self, **kwargs)
            sync(self)
        return layout

    def set_layout(self: Any, layout: Any) -> None:
        self.__dict__["_dplab_layout"] = layout

    def sync_layoutable(self: Any, *events: Any) -> None:
        if self.__dict__.get("_dplab_layout") is not None:  # else it is made with them
            sync(self, *events)

    init._dplab_original = PaneBase.__init__  # type: ignore[attr-defined]
    sync_layoutable._dplab_original = sync  # type: ignore[attr-defined]
    PaneBase.__init__ = init  # type: ignore[method-assign]
    PaneBase.layout = property(get_layout, set_layout)
    PaneBase._sync_layoutable = sync_layoutable  # type: ignore[method-assign]
    PaneBase._dplab_lazy_layout = True


def attach_template_frozen() -> None:
    """A template is attached to its document under one ``Document.models.freeze()``: Bokeh
    otherwise recomputes the document's whole model graph once per template root added
    (``BaseTemplate.server_doc`` adds each root in turn).

    Measured (benchmarks/patch_weight.py, 2026-12-05, 3 rounds): without it a /cdf page build
    costs 1.64× the server CPU (1.20-2.07), a /lab build 0.97× (0.96-0.97: no longer pays
    on /lab). Stays while /cdf is a heavy page (stage 2d)."""
    from panel.template.base import BaseTemplate

    attach = BaseTemplate.server_doc
    if getattr(attach, "_dplab_original", None) is not None:
        return

    def server_doc(self: Any, doc: Any = None, title: str | None = None,
                   location: Any = True) -> Any:
        if doc is None:
            return attach(self, doc, title, location)
        with doc.models.freeze():
            return attach(self, doc, title, location)

    server_doc._dplab_original = attach  # type: ignore[attr-defined]
    BaseTemplate.server_doc = server_doc  # type: ignore[method-assign]


def websocket_nodelay() -> None:
    """TCP_NODELAY on Bokeh's websocket connections: a pushed card leaves at once instead of
    waiting for the browser's delayed ACK (Nagle; ~40 ms on Linux loopback per message that
    follows an unacknowledged one).

    Needed for latency, not CPU (benchmarks/README.md, ``--nodelay``: a message written in
    several frames waited ~40 ms for the peer's delayed ACK). Since Bokeh writes each message
    as 3 + 2·buffers websocket frames in separate writes (our single-write framing was removed
    on 2026-12-05), every message after the first of a move would wait without it. Server CPU:
    no difference (0.96× per /lab move)."""
    from bokeh.server.views.ws import WSHandler

    ws_open = WSHandler.open
    if getattr(ws_open, "_dplab_original", None) is not None:
        return

    def open_nodelay(self: Any, *args: Any, **kwargs: Any) -> Any:
        self.set_nodelay(True)
        return ws_open(self, *args, **kwargs)

    open_nodelay._dplab_original = ws_open  # type: ignore[attr-defined]
    WSHandler.open = open_nodelay


def busy_events_when_shown() -> None:
    """Panel counts every widget event in one process-wide list for its busy spinner; our
    templates have none (app.shell.template), yet that bookkeeping ran on every event (a
    list copy under Panel's ``edit_readonly`` of the whole ``state`` object). It runs again as
    soon as any page registers a busy indicator.

    Measured (benchmarks/patch_weight.py, 2026-12-05, 4 rounds): leaving it and
    :func:`design_on_stylesheets_only` out on top of the ten removed patches took a /lab move
    from 1.16× to 1.46× (1.38-1.67) the server CPU of the patched server, a /cdf move from
    1.53× to 2.68×; alone, 1.00× per /lab move and 1.32× per /cdf move."""
    from panel.io.state import state as pn_state

    state_cls = type(pn_state)
    add_busy, remove_busy = state_cls._add_busy_event, state_cls._remove_busy_event
    if getattr(add_busy, "_dplab_original", None) is not None:
        return

    def add_busy_event(self: Any, event_id: str) -> None:
        if self._indicators:
            add_busy(self, event_id)

    def remove_busy_event(self: Any, event_id: str) -> None:
        if self._indicators or self._busy_counter:
            remove_busy(self, event_id)

    add_busy_event._dplab_original = add_busy  # type: ignore[attr-defined]
    remove_busy_event._dplab_original = remove_busy  # type: ignore[attr-defined]
    state_cls._add_busy_event = add_busy_event  # type: ignore[method-assign]
    state_cls._remove_busy_event = remove_busy_event  # type: ignore[method-assign]


def design_on_stylesheets_only() -> None:
    """Panel works out a component's design (theme stylesheets) on every parameter change of
    every widget and pane, but only uses it when the change is to ``stylesheets``. Same
    result, computed only then.

    Measured: see :func:`busy_events_when_shown` (the two together: 1.26× the CPU per /lab
    move); alone 1.04× per /lab move, 1.41× (1.38-1.43) per /cdf move."""
    from panel.reactive import Reactive

    original = Reactive._update_properties
    if getattr(original, "_dplab_original", None) is not None:
        return

    def update_properties(self: Any, *events: Any, doc: Any) -> dict[str, Any]:
        changes = {event.name: event.new for event in events}
        if "stylesheets" in changes and self._design:
            params, _ = self._design.params(self, doc)
            if "stylesheets" in params:
                changes["stylesheets"] = params["stylesheets"] + changes["stylesheets"]
        return self._process_param_change(changes)

    update_properties._dplab_original = original  # type: ignore[attr-defined]
    Reactive._update_properties = update_properties  # type: ignore[method-assign]


# True: the page's bundle leaves out Bokeh's MathJax (without TeX) and WebGL (without a WebGL
# plot) scripts; benchmarks/first_load.py sets it False for its "baseline" variant.
TRIM_BUNDLE = True


def page_resources() -> None:
    """What a page's HTML links, trimmed to what our pages use, made once per kind of page.

    - *Offline* (correctness: nothing may load from outside at run time): Panel's Fast design
      links Open Sans from Google Fonts in every page; the link is dropped (``Fast._resources``'s
      ``font``; the font stack is local).
    - *Bytes*: Panel adds Bokeh's 1.8 MB MathJax bundle to every page one of whose roots is an
      HTML pane (``panel.io.resources._panel_use_mathjax``; all of ours); it now goes only to a
      page whose HTML roots have TeX in them (none of ours), and Bokeh's WebGL bundle (194 kB)
      only to a page with a WebGL plot (none). Without the bundle Bokeh's MathJax provider reports
      "failed" and HTML panes show their text as it is.
    - *CPU*: ``bundle_resources`` works out the same script and style lists for every page
      (every extension's files found and stat'ed, ~220 stat calls): 6.7-7.7 ms of a /lab page's
      ~68 ms build (2026-12-06, ``benchmarks/build_cost.py``'s HTML part). The bundle is now
      kept per everything it depends on (the page's need for MathJax and WebGL, the resources'
      mode and root, the served path prefix, the loaded extensions and the number of model
      classes known), and each page gets a copy (Panel adds the page's own script to it).
    Idempotent."""
    import copy

    from bokeh.embed.bundle import _any
    from bokeh.embed.util import contains_tex_string
    from bokeh.model import Model
    from bokeh.models import Plot
    from panel.config import panel_extension
    from panel.io import resources, server
    from panel.io.state import state
    from panel.models.markup import HTML as PanelHTML
    from panel.theme.fast import Fast

    if Fast._resources.get("font"):
        Fast._resources = {**Fast._resources, "font": {}}
    if getattr(server.bundle_resources, "_dplab_original", None) is not None:
        return
    use_mathjax_upstream = resources._panel_use_mathjax
    bundle_upstream = server.bundle_resources

    def use_mathjax(roots: Any) -> bool:
        if not TRIM_BUNDLE:
            return bool(use_mathjax_upstream(roots))
        return bool(_any(roots, lambda obj: isinstance(obj, PanelHTML)
                         and isinstance(obj.text, str) and contains_tex_string(obj.text)))

    kept: dict[tuple[Any, ...], Any] = {}

    def bundle_resources(roots: Any, resources: Any, notebook: bool = False,
                         reloading: bool = False,
                         enable_mathjax: bool | Literal["auto"] = "auto") -> Any:
        res = resources
        webgl = bool(roots) and _any(
            roots, lambda obj: isinstance(obj, Plot) and obj.output_backend == "webgl")
        tex = use_mathjax(roots) if roots else False
        key = (TRIM_BUNDLE, webgl, tex, bool(roots), getattr(res, "mode", None),
               getattr(res, "root_url", None), getattr(res, "absolute", None),
               getattr(res, "notebook", None), state.rel_path, notebook, reloading,
               enable_mathjax, tuple(panel_extension._loaded_extensions),
               len(Model.model_class_reverse_map))
        bundle = kept.get(key)
        if bundle is None:
            bundle = bundle_upstream(roots, res, notebook, reloading, enable_mathjax)
            if TRIM_BUNDLE and roots and not webgl:
                bundle.js_files = [f for f in bundle.js_files if "/bokeh-gl" not in str(f)]
            kept[key] = bundle
        page = copy.copy(bundle)  # the page adds its own script: lists of its own
        for name, value in vars(bundle).items():
            if isinstance(value, (list, dict)):
                setattr(page, name, copy.copy(value))
        return page

    use_mathjax._dplab_original = use_mathjax_upstream  # type: ignore[attr-defined]
    bundle_resources._dplab_original = bundle_upstream  # type: ignore[attr-defined]
    resources._panel_use_mathjax = use_mathjax
    server.bundle_resources = bundle_resources


def reclaim_closed_pages(page_closed: Callable[[Any], None],
                         connection_closed: Callable[[Any], None],
                         collect_after_close: Callable[[], None]) -> None:
    """A closed page is handed to the server's GC policy (app.serve.server.GcPolicy) before
    Panel takes its document apart (``panel.io.application._destroy_document``), a closed
    websocket after Bokeh's ``WSHandler.on_close``, and Panel's full collection after every
    close (``panel.io.document._garbage_collect``) is the policy's instead.

    Needed for correctness while pages are frozen out of the collector's sight after their
    build (:func:`builds_in_turn`): a closed page's objects are then freed only by this walk
    (app/serve/reclaim.py; benchmarks/README.md "Tab churn": full collections of 1.6-3 s
    before). Stage 3 decides it with the pages built ahead."""
    import panel.io.application as pn_application
    import panel.io.document as pn_document
    from bokeh.server.views.ws import WSHandler

    destroy = pn_application._destroy_document
    if getattr(destroy, "_dplab_original", None) is not None:
        return

    def destroy_reclaimed(doc: Any, session: Any) -> None:
        # Walked before Panel takes the document apart (its roots, template, models).
        page_closed(doc)
        destroy(doc, session)

    ws_close = WSHandler.on_close

    def on_close_reclaimed(self: Any) -> Any:
        try:
            return ws_close(self)
        finally:
            connection_closed(self)

    destroy_reclaimed._dplab_original = destroy  # type: ignore[attr-defined]
    on_close_reclaimed._dplab_original = ws_close  # type: ignore[attr-defined]
    pn_application._destroy_document = destroy_reclaimed
    pn_document._garbage_collect = collect_after_close
    WSHandler.on_close = on_close_reclaimed


def discard_in_turn(spacing_s: float) -> None:
    """Bokeh discards every closed session it finds (every 17 s) one after the other without
    serving anything between them; each now waits ``spacing_s`` first (one per turn of the
    event loop), and is skipped if it was reconnected or discarded meanwhile.

    Needed against pauses (each discard walks a closed page: app/serve/reclaim.py; the churn
    run of issue 37 logged one pause per batch of discards without it). Stage 3 decides it."""
    import asyncio

    from bokeh.server.contexts import ApplicationContext

    discard = ApplicationContext._discard_session
    if getattr(discard, "_dplab_original", None) is not None:
        return

    async def discard_spaced(self: Any, session: Any, should_discard: Any) -> None:
        await asyncio.sleep(spacing_s)
        if session.connection_count == 0 and session.id in self._sessions:
            await discard(self, session, should_discard)

    discard_spaced._dplab_original = discard  # type: ignore[attr-defined]
    ApplicationContext._discard_session = discard_spaced


def activity_seen(seen: Callable[[], None], not_activity: tuple[type, ...]) -> None:
    """Every websocket message (Bokeh's ``WSHandler.on_message``) and every request (Tornado's
    ``RequestHandler.__init__``, except handlers of the types ``not_activity``) calls
    ``seen()``: the server builds pages ahead only while nobody waits for anything.

    Needed by the pages built ahead (app/serve/prebuild.py: a build ahead in the middle of a
    class held the worker 0.7-0.9 s); goes with them in stage 3."""
    import tornado.web
    from bokeh.server.views.ws import WSHandler

    ws_message = WSHandler.on_message
    if getattr(ws_message, "_dplab_original", None) is not None:
        return

    async def on_message_seen(self: Any, fragment: Any) -> Any:
        seen()
        return await ws_message(self, fragment)

    handler_init = tornado.web.RequestHandler.__init__

    def handler_seen(self: Any, *args: Any, **kwargs: Any) -> None:
        if not isinstance(self, not_activity):
            seen()
        handler_init(self, *args, **kwargs)

    on_message_seen._dplab_original = ws_message  # type: ignore[attr-defined]
    handler_seen._dplab_original = handler_init  # type: ignore[attr-defined]
    WSHandler.on_message = on_message_seen
    tornado.web.RequestHandler.__init__ = handler_seen  # type: ignore[method-assign]


def builds_in_turn(get_session: Callable[[Any, Callable[[Any], Any]], Any]) -> None:
    """Panel's page handler makes its session through ``get_session(handler, original)``
    (app.serve.server: one build at a time, after the work already waiting; each build's
    objects frozen and a long one logged).

    Needed for a class opening /lab at once (benchmarks/README.md, classroom_load ``open``:
    pages arrive in order instead of all at the end). A correctness patch because it freezes
    each page's objects, which only :func:`reclaim_closed_pages` frees again: the two are
    installed together or the server does not start. Stage 3 decides both."""
    from panel.io.server import DocHandler

    build_session: Any = DocHandler.get_session
    if getattr(build_session, "_dplab_original", None) is not None:
        return

    async def get_session_in_turn(self: Any) -> Any:
        return await get_session(self, build_session)

    get_session_in_turn._dplab_original = build_session  # type: ignore[attr-defined]
    DocHandler.get_session = get_session_in_turn  # type: ignore[method-assign]


def quiet_request_log(request_summary: Callable[[Any], str],
                      log_exception: Callable[..., None]) -> None:
    """Tornado's request summary (``RequestHandler._request_summary``: method, URI with its
    query string, and the client's address) and its exception log
    (``RequestHandler.log_exception``: the whole request's repr, headers and cookies with it)
    replaced by app.serve.logs' ``request_summary`` and ``log_exception``, which name the
    method and path only. Tornado has no setting for either: its access log and its
    "Uncaught exception" line are made by these two methods.

    Needed for correctness: the log holds nothing that identifies a student or a browser
    (app/serve/logs.py; tests/app/serve/test_server_log_privacy.py reads a real server's)."""
    import tornado.web

    web: Any = tornado.web.RequestHandler
    if getattr(web._request_summary, "_dplab_original", None) is not None:
        return
    summary_upstream = web._request_summary
    exception_upstream = web.log_exception

    def summary(self: Any) -> str:
        return request_summary(self)

    def exception(self: Any, typ: Any, value: Any, tb: Any) -> None:
        log_exception(self, typ, value, tb)

    summary._dplab_original = summary_upstream  # type: ignore[attr-defined]
    exception._dplab_original = exception_upstream  # type: ignore[attr-defined]
    web._request_summary = summary
    web.log_exception = exception


def quiet_origin_refusal(allowed: Callable[[Any, str], bool],
                         refused: Callable[[], Any]) -> None:
    """Bokeh's websocket origin check, same decision (``allowed(application, host)``), but its
    log line, which quotes the browser's Origin and names BOKEH_ALLOW_WS_ORIGIN instead of our
    setting, replaced by ``refused()`` (app.serve.origin: counted, one line a minute).

    Needed for correctness: the log holds nothing about a browser (app/serve/logs.py), and a
    lecture hall at a wrong address refuses hundreds of websockets (one line each before)."""
    from urllib.parse import urlparse

    from bokeh.server.views.ws import WSHandler

    if getattr(WSHandler.check_origin, "_dplab_original", None) is not None:
        return
    original = WSHandler.check_origin

    def check_origin(self: Any, origin: str) -> bool:
        if allowed(self.application, urlparse(origin).netloc):
            return True
        refused()
        return False

    check_origin._dplab_original = original  # type: ignore[attr-defined]
    WSHandler.check_origin = check_origin


def take_documents_built_ahead(context: Any, docs: Any) -> None:
    """``context.create_session_if_needed`` (a Bokeh ``ApplicationContext``'s, copied from
    Bokeh 3.9) takes a document built ahead when ``docs`` (app.serve.prebuild.LabDocuments)
    has one for the request, else it is Bokeh's own method. Bokeh has no hook for the
    document a new session starts with: a session is always made with an empty one that the
    application then builds.

    Needed by the pages built ahead (app/serve/prebuild.py; a request that takes one costs
    ~0.1× the CPU of a build on demand: benchmarks/README.md); goes with them in stage 3."""
    import datetime as dt
    import weakref

    from bokeh.server.contexts import BokehSessionContext, _RequestProxy
    from bokeh.server.session import ServerSession
    from bokeh.util.token import get_token_payload
    from panel.io.location import _get_location_params
    from panel.io.state import set_curdoc, state
    from panel.util import edit_readonly
    from tornado import gen

    from app.serve import hardening

    if "create_session_if_needed" in vars(context):
        return
    own = context.create_session_if_needed
    log = logging.getLogger("dplab.server.prebuild")

    async def create_session_if_needed(session_id: str, request: Any = None,
                                       token: str | None = None) -> Any:
        if (not session_id or request is None or session_id in context._sessions
                or session_id in context._pending_sessions):
            return await own(session_id, request, token)
        doc = docs.take(token)
        if doc is None:
            return await own(session_id, request, token)
        future: Any = gen.Future()
        context._pending_sessions[session_id] = future
        session_context = BokehSessionContext(session_id, context.server_context, doc,
                                              logout_url=context._logout_url)
        payload = get_token_payload(token) if token else {}
        if ("cookies" in payload and "headers" in payload
                and "Cookie" not in payload["headers"]):
            payload["headers"]["Cookie"] = "; ".join(
                f"{k}={v}" for k, v in payload["cookies"].items())
        session_context._request = _RequestProxy(request, arguments=payload.get("arguments"),
                                                 cookies=payload.get("cookies"),
                                                 headers=payload.get("headers"))
        session_context._token = token
        doc._session_context = weakref.ref(session_context)
        doc.__dict__.pop("_dplab_stand_in", None)
        try:
            await context._application.on_session_created(session_context)
        except Exception as e:
            log.error("Failed to run session creation hooks %r", e, exc_info=True)
        # The page's Location was made from the stand-in's request: the real one's host and
        # port (the browser sends its own on load as well).
        loc = state._locations.get(doc)
        if loc is not None and session_context.request is not None:
            r = session_context.request
            with set_curdoc(doc), edit_readonly(loc):
                loc.param.update(_get_location_params(r.protocol, r.host, r.uri))
        # A room in the address: the page follows it now, as if it had been built for it.
        try:
            with set_curdoc(doc):
                docs.finish(doc, payload.get("arguments"))
        except Exception as e:
            del context._pending_sessions[session_id]
            future.set_exception(e)
            raise
        # What Panel's init_doc does for a session it knows (it did not know the stand-in).
        sessions = state.session_info["sessions"]
        if session_id in sessions:
            sessions[session_id].update({"started": dt.datetime.now().timestamp()})
            doc.on_event("document_ready", state._init_session)
        hardening.page_run_taken(context._url, session_id, ahead=True)
        session = ServerSession(session_id, doc, io_loop=context._loop, token=token)
        del context._pending_sessions[session_id]
        context._sessions[session_id] = session
        session_context._set_session(session)
        context._session_contexts[session_id] = session_context
        future.set_result(session)
        return session

    context.create_session_if_needed = create_session_if_needed


def pull_serialized_ahead(take: Callable[[Any], Any]) -> None:
    """A browser's first pull of a document (Bokeh's ``pull_doc_reply.create``, which walks the
    whole document with ``Document.to_json``) gets ``take(document)`` instead when that is not
    None: the document serialized in idle time right after it was built ahead, with the
    changes made since written in (app/serve/pull_ahead.py). Bokeh has no hook for the
    document a pull sends. The changes are seen by wrapping the document's own
    ``DocumentCallbackManager.trigger_on_change`` (:func:`record_document_changes`), the one
    place every change of a document passes through.

    Needed by the pages built ahead: the walk was ~25 % of the server CPU a /lab page built
    ahead still cost while a class opened it (py-spy, ``benchmarks/classroom_load.py open
    --students 50``); goes with them in stage 3."""
    from bokeh.protocol.messages.pull_doc_reply import PullDoc, pull_doc_reply

    if getattr(pull_doc_reply.create.__func__, "_dplab_original", None) is not None:
        return
    upstream = pull_doc_reply.create.__func__

    def create(cls: Any, request_id: Any, document: Any, **metadata: Any) -> Any:
        serialized = take(document)
        if serialized is None:
            return upstream(cls, request_id, document, **metadata)
        header = cls.create_header(request_id=request_id)
        msg = cls(header, metadata, PullDoc(doc=serialized.content))
        msg.add_buffers(*serialized.buffers)
        # As Document.to_json: what the browser now has counts as sent.
        document.models.flush_synced()
        return msg

    create._dplab_original = upstream  # type: ignore[attr-defined]
    pull_doc_reply.create = classmethod(create)


def record_document_changes(doc: Any, seen: Callable[[Any], None] | None) -> None:
    """Part of :func:`pull_serialized_ahead`: every event ``doc`` triggers is passed to
    ``seen`` before Bokeh handles it (its ``trigger_on_change``, wrapped on this document's
    callback manager only); ``seen=None`` stops it."""
    callbacks = doc.callbacks
    callbacks.__dict__.pop("trigger_on_change", None)
    if seen is None:
        return
    trigger = callbacks.trigger_on_change  # the bound method of Bokeh's class

    def recording(event: Any) -> None:
        seen(event)
        trigger(event)

    callbacks.trigger_on_change = recording


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

