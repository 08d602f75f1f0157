"""Patches of Bokeh and Panel internals that a lecture hall's server measurably needs.

Each function copies or narrows one piece of Bokeh 3.9 / Panel 1.9 (checked by version, and
idempotent) where a profile of benchmarks/classroom_load.py showed it costing the server CPU
per page or per move; app.serve.server.tune_process installs them all. The websocket framing
and message patches live in app/serve/wsframes.py and app/serve/messages.py.
"""

from __future__ import annotations

from typing import Any


def cache_bokeh_defaults() -> None:
    """Compute each Bokeh property's plain default once per model class, not per access.

    Bokeh recomputes a property's default (class overrides walked along the MRO, then
    validated) every time an unset property is read; building one /lab page read ~7,800
    defaults and serialising it as many again, ~1/3 of the page build (cProfile under
    benchmarks/classroom_load.py).
    Only immutable results of non-callable defaults are kept (None, bool, numbers, strings and
    tuples of them), so no instance can share a mutable default or a generated value (ids).
    Idempotent.
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

    PropertyDescriptor.has_unstable_default = cached_has_unstable_default


def synced_params_once() -> None:
    """Panel's ``Syncable._init_params`` asks for the list of synced parameters once per
    parameter, and each ask rebuilds that list: ~25 lists per component, ~5 % of attaching a
    /lab page to its document (in-process cProfile of ``server_doc``). The same result from
    one list. Only for Panel 1.9.x, whose method this copies. Idempotent."""
    import panel as pn
    from panel.reactive import Syncable

    if getattr(Syncable, "_dplab_synced_once", False) or not pn.__version__.startswith("1.9."):
        return

    def init_params(self: Any) -> dict[str, Any]:
        synced = set(self._synced_params)
        params = {}
        for p in self.param:
            if p in synced:
                v = getattr(self, p)
                if v is not None:
                    params[p] = v
        return params

    Syncable._init_params = init_params  # type: ignore[method-assign]
    Syncable._dplab_synced_once = True


def lean_edit_readonly() -> None:
    """Panel's ``edit_readonly`` (around every browser event a component processes, and
    around many of its own updates) sets ``readonly`` and ``constant`` to False on *every*
    parameter of the object and back again: ~66 attribute assignments through param's
    machinery for a slider, twice per event. Under 500 moving students (py-spy) it was ~6 %
    of the server's CPU. The same context manager touching only the parameters that are
    readonly or constant (the others are False already; Panel's restore order kept:
    ``readonly`` first, then ``constant``). Installed in every loaded Panel module that
    imported it by name. Only for Panel 1.9.x, whose function this follows. Idempotent."""
    import sys
    from contextlib import contextmanager

    import panel as pn
    import panel.util
    import panel.util.parameters as pn_parameters

    original = pn_parameters.edit_readonly
    if getattr(original, "_dplab_lean", False) or not pn.__version__.startswith("1.9."):
        return

    @contextmanager
    def edit_readonly(parameterized: Any) -> Any:
        locked = [p for p in parameterized.param.objects("existing").values()
                  if p.readonly or p.constant]
        readonlys = [p.readonly for p in locked]
        constants = [p.constant for p in locked]
        for p in locked:
            p.readonly = False
            p.constant = False
        try:
            yield
        finally:
            for p, readonly in zip(locked, readonlys, strict=True):
                p.readonly = readonly
            for p, constant in zip(locked, constants, strict=True):
                p.constant = constant

    edit_readonly._dplab_lean = True  # type: ignore[attr-defined]
    edit_readonly._dplab_original = original  # type: ignore[attr-defined]
    for name, module in list(sys.modules.items()):
        if (name == "panel" or name.startswith("panel.")) and \
                getattr(module, "edit_readonly", None) is original:
            module.edit_readonly = edit_readonly  # type: ignore[attr-defined]
    panel.util.edit_readonly = edit_readonly


def write_tasks_per_document() -> None:
    """Panel keeps the tasks that write a session's messages in a list per document, and each
    finished task removed itself by searching the lists of *every* document of the process
    (``panel.io.document._cleanup_task``): work that grows with the number of open sessions,
    on every message (1.9 % of the server's CPU under 500 moving students, py-spy). The same
    bookkeeping, each task removing itself from its own document's list. Only for Panel
    1.9.x, whose ``_dispatch_write_task`` this copies. Idempotent."""
    import asyncio
    from functools import partial

    import panel as pn
    from panel.io import document as pn_document

    original = pn_document._dispatch_write_task
    if getattr(original, "_dplab", False) or not pn.__version__.startswith("1.9."):
        return

    def dispatch_write_task(doc: Any, func: Any, *args: Any, **kwargs: Any) -> None:
        try:
            task = asyncio.ensure_future(func(*args, **kwargs))
            tasks = pn_document._write_tasks.setdefault(doc, [])
            tasks.append(task)
            task.add_done_callback(partial(_drop_task, tasks))
        except RuntimeError:
            doc.add_next_tick_callback(partial(func, *args, **kwargs))

    dispatch_write_task._dplab = True  # type: ignore[attr-defined]
    pn_document._dispatch_write_task = dispatch_write_task


def _drop_task(tasks: list[Any], task: Any) -> None:
    if task in tasks:
        tasks.remove(task)


def lazy_pane_layouts() -> None:
    """Make a Panel pane's wrapper layout (``pane.layout``) when it is first used.

    Panel gives every pane a ``Row`` around it for the case where the pane is shown on its own
    or replaced; inside our pages' columns it is never rendered, yet each /lab page built ~40
    of them (Reactive objects with their watchers, ~7 % of a page build; in-process cProfile
    of create_page + server_doc + to_json). Now the Row is made, with the pane's current
    layout parameters, on first access; it then follows them as before. Only for the Panel
    version this copy of ``PaneBase.__init__`` was taken from (1.9.x). Idempotent.
    """
    import panel as pn
    from panel.pane.base import PaneBase
    from panel.viewable import Layoutable

    if getattr(PaneBase, "_dplab_lazy_layout", False) or not pn.__version__.startswith("1.9."):
        return
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

    PaneBase.__init__ = init  # type: ignore[method-assign]
    PaneBase.layout = property(get_layout, set_layout)
    PaneBase._sync_layoutable = sync_layoutable  # type: ignore[method-assign]
    PaneBase._dplab_lazy_layout = True


def patch_references_by_copy() -> None:
    """Bokeh applies every browser message (``Document.apply_json_patch``) with a
    ``Deserializer`` that first builds ``{model.id: model}`` for *all* the document's models,
    one Python property read per model (~400 on /lab), although a slider move names one of
    them: 5.6 % of the server's CPU per move (py-spy, 40 tabs moving in turn; two messages
    per release). The document already keeps that map (``DocumentModelManager._models``, the
    same ids to the same models): the deserializer gets a copy of it (a C-level dict copy, so
    new models in the message never enter the document's own map). Everything else is
    Bokeh's own code. Only for Bokeh 3.9.x. Idempotent."""
    import threading

    import bokeh
    from bokeh.core.serialization import Deserializer
    from bokeh.document import document as bk_document

    if getattr(bk_document.Deserializer, "_dplab", False) or \
            not bokeh.__version__.startswith("3.9."):
        return
    current = threading.local()
    original = bk_document.Document.apply_json_patch

    class DocumentDeserializer(Deserializer):
        _dplab = True

        def __init__(self, references: Any = None, *, setter: Any = None) -> None:
            by_id = getattr(current, "models", None)
            if by_id is None or references is None or len(references) != len(by_id):
                super().__init__(references, setter=setter)
                return
            super().__init__(None, setter=setter)
            self._references = dict(by_id)

    def apply_json_patch(self: Any, patch_json: Any, *, setter: Any = None) -> None:
        outer = getattr(current, "models", None)
        current.models = self.models._models
        try:
            original(self, patch_json, setter=setter)
        finally:
            current.models = outer

    apply_json_patch._dplab_original = original  # type: ignore[attr-defined]
    bk_document.Deserializer = DocumentDeserializer
    bk_document.Document.apply_json_patch = apply_json_patch


# The header field of a PATCH-DOC that asks for Bokeh's OK reply (our load client and tests).
PATCH_ACK = "dplab_ack"


def patch_replies_on_request() -> None:
    """Bokeh answers every browser ``PATCH-DOC`` with an ``OK`` message, and BokehJS ignores
    it (``ClientSession._handle_ok`` only logs at trace level; BokehJS waits for replies to
    ``PULL-DOC-REQ`` and ``SERVER-INFO-REQ`` only). A slider release sends two patches
    (``value``, then ``value_throttled``), so two of the four messages a move writes were
    those replies: 5.4 % of the server's samples under 300 moving students (py-spy), besides
    the balancer relaying them. Now a patch is answered with OK only when its header asks
    (:data:`PATCH_ACK`: benchmarks/wsclient.py does, where it waits for the server to have
    applied a patch); a patch that fails is still answered with ERROR (Bokeh's protocol
    handler makes that reply, not this one). Only for Bokeh 3.9.x. Idempotent."""
    import bokeh
    from bokeh.server.session import ServerSession

    current = ServerSession.__dict__["patch"]
    if getattr(current.__func__, "_dplab_original", None) is not None or \
            not bokeh.__version__.startswith("3.9."):
        return
    original = current.__func__

    async def patch(cls: Any, message: Any, connection: Any) -> Any:
        reply = await original(cls, message, connection)
        return reply if message.header.get(PATCH_ACK) else None

    patch._dplab_original = original  # type: ignore[attr-defined]
    ServerSession.patch = classmethod(patch)


def lean_param_update() -> None:
    """param's ``update()`` (Panel applies every browser change with it, the lab state
    several moves) first reads *all* the object's parameter values (``values()``) to keep
    the old values of the few it sets: ~70 reads for a slider, 3 % of a move's server CPU
    (in-process cProfile, 20 tabs moving). The same method reading only the parameters it
    is given; what it returns (the values to restore, as ``update``'s context manager
    uses them) is the same. Only for param 2.4.x, whose ``Parameters._update`` this copies.
    Idempotent."""
    import param
    from param.parameterized import Parameters, Undefined

    if getattr(Parameters._update, "_dplab", False) or not param.__version__.startswith("2.4."):
        return

    def _update(self_: Any, arg: Any = Undefined, /, **kwargs: Any) -> dict[str, Any]:
        BATCH_WATCH = self_._BATCH_WATCH
        self_._BATCH_WATCH = True
        self_or_cls = self_.self_or_cls
        base: dict[str, Any] = {}
        if arg is not Undefined:
            base.update(arg)
        base.update(kwargs)
        trigger_params = [k for k in base
                          if k in self_ and hasattr(self_[k], "_autotrigger_value")]
        for tp in trigger_params:
            self_[tp]._mode = "set"
        # (param: ``values = self_.values()``, every parameter read)
        objects = self_.objects("existing")
        restore = {k: self_.get_value_generator(k, objects) for k in base if k in objects}
        for k, v in base.items():
            if k not in self_:
                self_._BATCH_WATCH = False
                raise ValueError(f"{k!r} is not a parameter of {self_.cls.__name__}")
            try:
                setattr(self_or_cls, k, v)
            except Exception:
                self_._BATCH_WATCH = False
                raise
        self_._BATCH_WATCH = BATCH_WATCH
        if not BATCH_WATCH:
            self_._batch_call_watchers()
        for tp in trigger_params:
            p = self_[tp]
            p._mode = "reset"
            setattr(self_or_cls, tp, p._autotrigger_reset_value)
            p._mode = "set-reset"
        return restore

    _update._dplab = True  # type: ignore[attr-defined]
    _update._dplab_original = Parameters._update  # type: ignore[attr-defined]
    Parameters._update = _update  # type: ignore[method-assign]


def _written(logger: Any, level: int) -> bool:
    """Would a record of ``level`` on ``logger`` reach a handler that writes it? Panel's
    logger is at DEBUG with its one handler at WARNING, so the logger alone says yes to every
    debug line; the handlers' levels (up the propagation chain, else logging's last resort)
    decide. A handler's filters are left to logging itself (the record is then made)."""
    import logging

    if not logger.isEnabledFor(level):
        return False
    found = False
    node = logger
    while node is not None:
        for h in node.handlers:
            found = True
            if level >= h.level:
                return True
        if not node.propagate:
            break
        node = node.parent
    last = logging.lastResort
    return not found and last is not None and level >= last.level


def quiet_panel_debug_log() -> None:
    """Panel's components log every browser event they process at debug level, formatting
    the message's arguments (``id(state.curdoc)``, an f-string) before the logger decides
    to drop it: 1.2 % of a move's server CPU (in-process cProfile). The same call, made only
    when a handler would write it (:func:`_written`: Panel's logger itself is at DEBUG, so
    asking the logger alone skipped nothing in a running server). Only for Panel 1.9.x.
    Idempotent."""
    import logging

    import panel as pn
    from panel.viewable import Viewable

    if getattr(Viewable._log, "_dplab", False) or not pn.__version__.startswith("1.9."):
        return
    original = Viewable._log
    levels = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
              "error": logging.ERROR}

    def _log(self: Any, msg: str, *args: Any, level: str = "debug") -> None:
        if _written(self._logger, levels.get(level, logging.DEBUG)):
            original(self, msg, *args, level=level)

    _log._dplab = True  # type: ignore[attr-defined]
    _log._dplab_original = original  # type: ignore[attr-defined]
    Viewable._log = _log  # type: ignore[method-assign]
