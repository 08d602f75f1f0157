"""The dplab web server: ``/`` (our own index), ``/lab``, ``/cdf`` and ``/assets``.

Everything a page needs (Bokeh, Panel and Fast JS/CSS, our CSS and icon) is served by this
process; no CDN, no web font, no BOKEH_RESOURCES=cdn/inline (the browser tests fail on any
non-local request: tests/ui/conftest.py).
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from app.lab import moves as lab_moves
from app.serve import prebuild, stream, upstream_patches
from app.shell import assets, plainws

if TYPE_CHECKING:
    import panel as pn

ASSETS_DIR = assets.ASSETS


def _lab() -> pn.template.FastListTemplate:
    from app.lab.page import create_page
    from app.serve import prebuild
    from app.serve.room_wiring import lab_link
    from app.shell.options import session_args

    return create_page(link=lab_link(session_args()), ahead=prebuild.building_ahead)


def _lab_follow_later(doc: Any, args: dict[str, str]) -> bool:
    """A /lab page built ahead, taken by a ``/lab?room=CODE`` session: its room link now."""
    from app.lab.page import follow_later
    from app.serve.room_wiring import lab_link

    link = lab_link(args)
    return link is not None and follow_later(doc, link)


def _register_early() -> None:
    """Pages that can show their first card before they are built (app/shell/first_paint.py)."""
    from app.lab.first_paint import early_first_paint
    from app.shell import first_paint

    first_paint.EARLY["/lab"] = early_first_paint


def _cdf() -> pn.template.FastListTemplate:
    from app.cdf.page import create_page

    return create_page(None)


def routes() -> dict[str, Callable[[], Any]]:
    """URL path -> Panel page factory (``/`` and ``/lesson`` are plain HTML:
    app.serve.plain_pages)."""
    return {"/lab": _lab, "/cdf": _cdf}


# A page built for a GET but whose websocket has not connected yet is kept this long (Bokeh:
# 15 s). When a whole class opens /lab at once the websockets queue behind other page builds;
# with 15 s the server threw those sessions away and built the same pages a second time.
UNUSED_SESSION_LIFETIME_MS = 120_000
# Young-generation threshold (CPython: 700). A young collection walks about this many objects:
# 50,000 (one page build's allocations) took 0.58 s on a loaded machine during a class
# (2026-12-03, issue 37); 10,000 keeps each under ~0.1 s there, for about the same total work.
GC_GEN0_THRESHOLD = 10_000
GC_PAUSE_LOG_S = 0.2
# Before a page build, the server first does whatever else is waiting, and waits BUILD_QUIET_S
# after the last websocket message (a browser's next step comes within milliseconds), for at
# most as long as the last build took and never more than BUILD_YIELD_MAX_S.
BUILD_QUIET_S = 0.03
BUILD_YIELD_MAX_S = 1.0
# A full collection walks every live object: 1.6 s with 100 pages built ahead and nothing to free,
# 2.8-3.0 s after 8 real tabs closed (2026-12-03), several seconds with a class's sessions; HAProxy
# then marked workers down. None runs while a class does: a closed page is freed by reference
# counting (app/serve/reclaim.py), and what that leaves waits for a full collection once the
# worker has had no open session and no request for IDLE_FULL_GC_S.
IDLE_FULL_GC_S = 60.0
DISCARD_SPACING_S = 0.1
IDLE_CHECK_MS = 5_000
_TUNED: dict[str, Any] = {}
# The process-wide patches (app/serve/upstream_patches.py), in installation order.
PROCESS_PATCHES = (
    "cache_bokeh_defaults", "lazy_layouts", "attach_template_frozen", "websocket_nodelay",
    "busy_events_when_shown", "design_on_stylesheets_only", "page_resources",
)


def tune_process() -> dict[str, Any]:
    """Process-wide settings for a lecture hall (measured with benchmarks/classroom_load.py);
    returns extra ``pn.serve`` options.

    Each item was measured with benchmarks/classroom_load.py (figures in benchmarks/README.md):

    - Bokeh's document validation is off: it only logs developer warnings, and it walked every
      new page's model graph (~8 % of the server's CPU while a class opened /lab).
    - So are Bokeh's error diagnostics: they check the signature of every property callback
      Panel registers (``inspect.signature`` ~360 times per /lab page, ~7 % of a page build)
      and only improve a developer's error message.
    - The patches of Bokeh and Panel internals that still pay (app/serve/upstream_patches.py,
      each with its measured reason; docs/upstream.md): plain property defaults computed once
      per class, a pane's wrapper Row made only when used, a template attached under one
      ``models.freeze()``, TCP_NODELAY on websockets, Panel's busy-spinner bookkeeping only
      with a busy indicator, a component's design looked up only when its ``stylesheets``
      change, a page's scripts and styles worked out once per kind of page (and without
      Google's font, MathJax or WebGL).
    - /lab pages for the plain address are made ahead in idle time (app/serve/prebuild.py).
    - GC: the page modules are imported, then everything alive at start-up is moved out of the
      collector's sight (``gc.freeze``) and the young generation is larger, so collections scan
      session objects only and run less often. Collections of 0.2 s or more are logged.
    - Unconnected sessions live ``UNUSED_SESSION_LIFETIME_MS`` (see above).
    - Page builds take turns: one at a time, and before each the server first does the other
      work waiting on its event loop and the websocket round trips of pages already sent (see
      ``BUILD_QUIET_S``). When a class opens /lab at once, students get complete pages in
      arrival order instead of all at the very end (a page needs ~5 round trips after its
      build).
    - Each new page's objects are frozen after its build, so automatic full collections no
      longer walk every open session (1-3 s pauses with 150 students). A closed page (a
      session's, or one built ahead and discarded) is freed by reference counting in two short
      steps (app/serve/reclaim.py) instead of Panel's full collection after each close; a full
      collection runs only when the worker is idle (:class:`GcPolicy`). Page builds of 0.2 s
      or more are logged with the collections.

    Idempotent; the returned options are also used when called again.
    """
    if _TUNED:
        return dict(_TUNED)
    import gc
    import time

    from bokeh.settings import settings

    settings.perform_document_validation.set_value(False)
    settings.perform_error_diagnostics.set_value(False)
    for name in PROCESS_PATCHES:
        upstream_patches.install(name)

    # Warm-up: the page modules' imports are most of the objects alive at start-up.
    import app.cdf.page  # noqa: F401
    import app.lab.page  # noqa: F401
    gc.collect()
    gc.freeze()
    _, g1, g2 = gc.get_threshold()
    gc.set_threshold(GC_GEN0_THRESHOLD, g1, g2)
    started: list[float] = [0.0, 0.0]
    gc_log = logging.getLogger("dplab.server.gc")

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[:] = time.perf_counter(), time.thread_time()
            return
        dt = time.perf_counter() - started[0]
        if dt >= GC_PAUSE_LOG_S and not (_TUNED_GC and _TUNED_GC[0].idle):
            gc_log.warning("gc generation %d paused the server %.2f s (%.2f s of CPU, %d "
                           "objects freed)", info["generation"], dt,
                           time.thread_time() - started[1], info.get("collected", 0))

    gc.callbacks.append(on_gc)

    import asyncio

    from app.serve.hardening import HealthHandler

    policy = GcPolicy(gc_log)
    _TUNED_GC.append(policy)
    upstream_patches.install("reclaim_closed_pages", page_closed=policy.page_closed,
                             connection_closed=policy.connection_closed,
                             collect_after_close=policy.closed_collect)
    upstream_patches.install("discard_in_turn", spacing_s=DISCARD_SPACING_S)

    activity = _ACTIVITY

    def seen() -> None:
        activity[0] = time.monotonic()

    # Any request (a plain page, a poll answer, a static file) or websocket message is
    # activity: pages are built ahead only while nobody is waiting for anything
    # (app/serve/prebuild.py). The balancer's health checks (every 2 s) are not: nobody waits
    # behind them.
    upstream_patches.install("activity_seen", seen=seen, not_activity=(HealthHandler,))
    plainws.on_activity(seen)  # (a lab's moves channel: app/lab/moves.py)
    turn = asyncio.Lock()

    async def get_session_in_turn(self: Any, build_session: Callable[[Any], Any]) -> Any:
        activity[2] += 1
        try:
            return await build_in_turn(self, build_session)
        finally:
            activity[2] -= 1

    async def build_in_turn(self: Any, build_session: Callable[[Any], Any]) -> Any:
        docs = prebuild.lab_documents()
        if docs is not None and docs.ready_for(self):
            # A page built ahead is only handed over (a few ms): nothing to yield to first.
            return await build_session(self)
        async with turn:
            end = time.monotonic() + min(BUILD_YIELD_MAX_S, activity[1])
            while time.monotonic() < end:
                cpu = time.thread_time()
                await asyncio.sleep(0.005)
                # Did this thread do other work meanwhile? (CPU time: other processes on the
                # machine do not count.)
                busy = time.thread_time() - cpu > 0.002
                if not busy and time.monotonic() - activity[0] >= BUILD_QUIET_S:
                    break
            t0, c0 = time.monotonic(), time.thread_time()
            session = await build_session(self)
            built = time.monotonic() - t0
            activity[1] = max(0.1, built)
            if built >= GC_PAUSE_LOG_S:
                # (the CPU time tells the page's cost from other processes' share of the cores)
                gc_log.warning("a page build paused the server %.2f s (%.2f s of CPU)", built,
                               time.thread_time() - c0)
            gc.collect(1)
            gc.freeze()
            return session

    upstream_patches.install("builds_in_turn", get_session=get_session_in_turn)
    _TUNED.update(unused_session_lifetime_milliseconds=UNUSED_SESSION_LIFETIME_MS)
    return dict(_TUNED)


# Last request or websocket message (monotonic s), duration of the last page build (s), page
# requests waiting for or in their build.
_ACTIVITY: list[float] = [0.0, 0.1, 0.0]


_TUNED_GC: list[GcPolicy] = []


def _shared_types() -> tuple[type, ...]:
    """The live class's process-wide objects (the room hub and its store): every following
    page is linked to them, a walk from one page must not go on to all the others."""
    from app.room.hub import RoomHub
    from app.room.store import RoomStore

    return (RoomHub, RoomStore)


class GcPolicy:
    """When a worker gives memory back (figures: benchmarks/README.md "Tab churn").

    - A closed page (a session's, or one built ahead and discarded) is walked at once and freed
      by reference counting a few seconds later (app/serve/reclaim.py): two steps of ~30-150 ms
      instead of a full collection over every page of the process. A closed websocket's
      objects (its connection, stream and request), likewise.
    - Panel's full collection after each close does nothing (:meth:`closed_collect`). A full
      collection (everything unfrozen, collected, frozen again: ~1.6 s with 100 pages built
      ahead) runs only from :meth:`idle_tick`: no open session, no request for
      ``IDLE_FULL_GC_S``, and pages closed since the last one. Never while a class runs.
    - Steps of ``GC_PAUSE_LOG_S`` or more are logged as pauses, like collections.
    """

    def __init__(self, log: logging.Logger, collect: Callable[[], int] | None = None,
                 call_later: Callable[..., Any] | None = None) -> None:
        from app.serve import reclaim

        self.log = log
        self.collect = collect or self._full_collect
        self.reclaimer = reclaim.Reclaimer(call_later or self._call_later, self._step)
        self.closed = 0  # pages closed since the last full collection
        self.full = 0
        self.idle = False  # True during an idle collection (the pause log names it so)
        self._said = ""

    @staticmethod
    def _call_later(seconds: float, fn: Callable[..., Any], *args: Any) -> None:
        from tornado.ioloop import IOLoop

        IOLoop.current().call_later(seconds, fn, *args)

    def _step(self, what: str, seconds: float, cpu: float) -> None:
        if seconds >= GC_PAUSE_LOG_S:
            self.log.warning("%s paused the server %.2f s (%.2f s of CPU)", what, seconds, cpu)

    @staticmethod
    def _full_collect() -> int:
        import gc

        gc.unfreeze()
        try:
            return gc.collect()
        finally:
            gc.freeze()

    def page_closed(self, doc: Any) -> None:
        """A page's document is about to be destroyed (its roots, template and models still in
        place)."""
        self.closed += 1
        self.reclaimer.later([doc, *vars(doc).values(), *list(doc.models)], own=doc,
                             stop=_shared_types())

    def connection_closed(self, handler: Any) -> None:
        """A websocket closed: its handler, connection and stream (not its session: that lives
        on until Bokeh discards it, then it is a closed page)."""
        from bokeh.server.session import ServerSession

        self.reclaimer.later([handler], stop=(ServerSession,))

    def closed_collect(self) -> None:
        """Panel's collection after a close (``panel.io.document._garbage_collect``): none."""

    def idle_tick(self, sessions_open: int, quiet_s: float) -> None:
        """Every ``IDLE_CHECK_MS``: the idle full collection when it is due; the reclaim's
        figures in the log when they changed."""
        if self.closed and not sessions_open and quiet_s >= IDLE_FULL_GC_S:
            self.closed = 0
            self.full += 1
            self.idle = True
            t0 = time.perf_counter()
            try:
                freed = self.collect()
            finally:
                self.idle = False
            self.log.info("idle full collection (no open session): %.2f s, %d objects freed",
                          time.perf_counter() - t0, freed)
        said = self.reclaimer.summary()
        if said != self._said and self.reclaimer.pages:
            self._said = said
            self.log.info("%s", said)

    def install(self, tornado_app: Any) -> None:
        """Run :meth:`idle_tick` for ``tornado_app`` (a BokehTornado)."""
        from tornado.ioloop import PeriodicCallback

        def tick() -> None:
            contexts = getattr(tornado_app, "_applications", {}).values()
            connected = sum(s.connection_count for c in contexts for s in c.sessions)
            self.idle_tick(connected, time.monotonic() - _ACTIVITY[0])

        PeriodicCallback(tick, IDLE_CHECK_MS).start()


def class_following() -> bool:
    """A live class has pages on this worker: the teacher's next move reaches them at any
    moment. A page built ahead meanwhile held the worker 0.7-0.9 s on a loaded machine, and
    a move arriving then waited for it on both workers (benchmarks/README.md, real_followers)."""
    from app.room import hub

    return bool(hub._HUB) and hub._HUB[0].connected_here()


def worker_quiet() -> bool:
    """No page waiting to be built, no request or websocket message for ``prebuild.QUIET_S``
    and no class following on this worker: time to build a page ahead (app/serve/prebuild.py;
    the pool built before a class serves the students who come back to the lab during it)."""
    return (not _ACTIVITY[2] and time.monotonic() - _ACTIVITY[0] >= prebuild.QUIET_S
            and not class_following())


def serve(address: str = "127.0.0.1", port: int = 5006,
          allow_websocket_origin: list[str] | None = None, show: bool = False, *,
          prefix: str = "", max_sessions: int | None = None,
          max_message_bytes: int | None = None, frame_ancestors: list[str] | None = None,
          worker: str | None = None) -> None:
    """Start the server and block. Never debug or autoreload (production and tests alike).

    ``allow_websocket_origin``: the browser-facing host[:port] names (e.g. the balancer's), and
    those in ``DPLAB_ALLOW_WEBSOCKET_ORIGIN`` (comma separated, as for scripts/serve-prod, so
    the name a page's alert gives works for ``make serve`` too: app/serve/origin.py); only
    those, this address and the loopback names are accepted. ``prefix``: URL prefix behind a
    reverse proxy (``/dplab``). ``max_sessions``: Bokeh sessions in this process before a page
    request gets the "class is full" page (HTTP 503). ``max_message_bytes``: largest websocket
    message accepted from a browser. ``frame_ancestors``: CSP sources that may frame the pages
    (default ``'self'``; an LMS: ``https://lms.example.org``). ``worker``: name in the page-run
    log lines. See app/serve/hardening.py.
    """
    # Never CDN or inline resources: both make the browser fetch from the internet.
    if os.environ.get("BOKEH_RESOURCES", "server") != "server":
        os.environ["BOKEH_RESOURCES"] = "server"
    import panel as pn

    from app.serve import hardening, logs, origin, plain_pages, room_wiring, static_gzip
    from app.shell.plainjs import serve_by_address

    # Nothing about a student or a browser in the log (app/serve/logs.py), from the start.
    logs.install()
    origin.install_check_origin()
    pn.extension(design="fast", notifications=False)
    # Every component takes its design when it is made: Fast plus assets/dplab-controls.css
    # (keyboard focus inside the widgets' shadow roots; app/shell/template.py).
    from app.shell.template import DESIGN

    pn.config.design = DESIGN
    pn.config.autoreload = False
    cap = hardening.DEFAULT_MAX_SESSIONS if max_sessions is None else max_sessions
    msg_bytes = max_message_bytes or hardening.DEFAULT_MAX_MESSAGE_BYTES
    name = worker or f"{socket.gethostname()}:{port}"
    # The first card goes out before the page is built (app/shell/first_paint.py); the "class is
    # full" answer comes before either (installed after, so it runs first).
    _register_early()
    stream.install_streaming()
    hardening.install_session_cap(cap)
    room_wiring.install_teacher_check()
    pages = hardening.log_page_runs({**routes(), **hardening.test_routes()}, name)
    logging.getLogger("app").setLevel(logging.WARNING)
    env_origins = os.environ.get(origin.SETTING, "").replace(",", " ").split()
    origins = hardening.websocket_origins(address, port,
                                          [*(allow_websocket_origin or []), *env_origins])
    server = pn.serve(
        pages,
        address=address,
        port=port,
        websocket_origin=origins,
        show=show,
        start=False,
        title="dplab",
        static_dirs={"assets": str(ASSETS_DIR)},
        extra_patterns=[*plain_pages.routes(),
                        # components' modules by address, once per page (app/shell/plainjs.py)
                        *serve_by_address(),
                        *lab_moves.routes(),  # a lab's own slider moves (app/lab/moves.py)
                        *room_wiring.plain_routes(
                            https=os.environ.get("DPLAB_HTTPS", "") in ("1", "true", "yes")),
                        (r"/healthz", hardening.HealthHandler,
                         {"worker": name, "max_sessions": cap}),
                        (r"/dplab-origin", origin.CheckHandler)],
        admin=False,
        verbose=True,
        prefix=prefix.strip("/"),
        websocket_max_message_size=msg_bytes,
        # gzip here, also behind scripts/serve-prod: /lab 3.7 MB -> 0.96 MB on the wire; static
        # files are compressed once per process (app/serve/static_gzip.py), and HAProxy caches that
        # copy. HAProxy's own compression (libslz, one fixed level) sent 1.53 MB
        # (benchmarks/first_load.py).
        compress_response=True,
        # The teacher cookie is read from the page request, never copied into the session
        # token that the page embeds (app/serve/room_wiring.py).
        exclude_cookies=room_wiring.EXCLUDE_COOKIES,
        exclude_headers=room_wiring.EXCLUDE_HEADERS,
        **tune_process(),
    )
    # Static files: compressed once per process, not once per student (app/serve/static_gzip.py).
    server._tornado.transforms = static_gzip.install(server._tornado.transforms)
    server._tornado.transforms.append(
        hardening.header_transform(hardening.security_headers(frame_ancestors or ["'self'"])))
    plain_pages.install_not_found(server._tornado)
    server.start()
    logs.announce(address, port, origins)
    prebuild.install(server._tornado, worker_quiet, follow=_lab_follow_later)
    for policy in _TUNED_GC:
        policy.install(server._tornado)
    room_wiring.announce_token(address, port, prefix)
    # The lessons' computed values: read from a process of the same code that computed them
    # (~3 s of CPU for the CDF lesson's, once per machine and code instead of once per worker).
    import lessons

    lessons.keep_values_in(lessons.default_store())
    # /cdf's process-wide caches, filled beside the serving thread (not by the first /cdf page)
    from app.cdf.page import warm_up_in_background

    warm_up_in_background()
    server.io_loop.start()


if __name__ == "__main__":  # python -m app.serve.server [port]
    import sys

    serve(port=int(sys.argv[1]) if len(sys.argv) > 1 else 5006)
