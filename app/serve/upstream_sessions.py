"""The patches of Bokeh, Panel and Tornado internals around sessions and connections: the
websocket's TCP_NODELAY, closed pages reclaimed and discarded in turn, activity seen, builds in
turn, the request log and the origin check kept quiet, documents built ahead taken and their
pull served serialized, a document's changes recorded.

Registered, fingerprinted and installed by app/serve/upstream_patches.py (``PATCHES``); each
installer's docstring gives its measured reason, docs/upstream.md its upstream report.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

LOG = logging.getLogger("dplab.server")


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
