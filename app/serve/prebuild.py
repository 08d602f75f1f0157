"""Lab pages built ahead, in a worker's idle time, for the moment a whole class opens /lab.

A /lab page costs ~0.2 s of server CPU: making its Panel objects and its Bokeh models in the
session's document. Almost every student of a class opens the same address (``/lab``,
``/lab?lang=ko``, perhaps with the projector size or the dark theme), and that page depends
only on those options. So while the worker has had nothing to do for :data:`QUIET_S`, it
builds such documents, one per :data:`TICK_MS`, exactly as Bokeh builds a session's document
(the Panel application runs our page function), under a stand-in session whose request is
that address in that language; up to :data:`DEFAULT_SIZE` per process
(``DPLAB_PREBUILT_PAGES``; 0 = off), split between the addresses as the recent requests were
(Korean first until another is asked for; a few requests move the split).

A key is the language and the page options the address names (``lang``, ``size``,
``theme``, each once with a known value): the four plain addresses are built for from the
start, an address with ``size`` or ``theme`` once it has been asked for. When a request for
such an address arrives, its new session takes a document built for it instead of an empty
one and skips the build. A live class's link (``/lab?room=CODE`` with such options) takes
one too, and the page follows the room from then on (``follow``: app.lab.page.follow_later
adds what the room link adds, as a page built for the room has it). Any other address (lab
settings such as ``sigma``, a tour step, an unknown value) is built on demand as before.
The CPU is the same; it is spent before the class instead of while it waits. The document's
first serialization (the browser's pull) and the simulation figure (joining the page when
scrolled to) are made then too: app/serve/pull_ahead.py, app.lab.page ``create_page(ahead=)``.

Nothing a student sees differs: a document is used once, and it is the document the page
builds for that request (tests/app/serve/test_prebuild_live.py pulls one of each from a
started server and compares them).
"""

from __future__ import annotations

import gc
import logging
import os
import time
import weakref
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

from app.serve import pull_ahead
from app.shell.i18n import LANGUAGES

T = TypeVar("T")

DEFAULT_SIZE = 24  # ~3.3 MB each, its first pull included (scripts/serve-prod counts them)
QUIET_S = 1.0
# Demand kept per request. A lecture hall asks for one address (the instructor's link): after
# the instructor and a few early students, the pool should hold that address's pages. Each
# worker counts only the requests the balancer gave it (about half). With 0.9, the six
# requests before 200 students opened /lab?lang=en left 26 of each worker's 100 pages to other
# addresses (152 of 206 pages came from the pool); 0.7 left 18; 0.5 leaves a few.
DEMAND_DECAY = 0.5
TICK_MS = 200
# (the page's language, the options the address names, sorted): ``("ko", ())`` is ``/lab``
# from a Korean browser, ``("en", (("lang", "en"), ("theme", "dark")))`` is
# ``/lab?lang=en&theme=dark``.
Key = tuple[str, tuple[tuple[str, str], ...]]
KEYS: tuple[Key, ...] = tuple((lang, named) for lang in LANGUAGES
                              for named in ((), (("lang", lang),)))

log = logging.getLogger("dplab.server.prebuild")
# A build ahead holds the serving thread as a page build does: logged with the server's other
# pauses from this long (app/serve/server.py GC_PAUSE_LOG_S).
PAUSE_LOG_S = 0.2
pause_log = logging.getLogger("dplab.server.gc")
# True while a document is built ahead: app/serve/hardening.py logs its page-run line when a
# student's session takes it instead.
building_ahead = False


def size_from_env(default: int = DEFAULT_SIZE) -> int:
    """``DPLAB_PREBUILT_PAGES`` (a whole number ≥ 0), else ``default``."""
    raw = os.environ.get("DPLAB_PREBUILT_PAGES", "").strip()
    if not raw:
        return default
    try:
        n = int(raw)
    except ValueError:
        raise ValueError(f"DPLAB_PREBUILT_PAGES must be a whole number of pages, got {raw!r}"
                         ) from None
    if n < 0:
        raise ValueError(f"DPLAB_PREBUILT_PAGES must be 0 or more, got {n}")
    return n


class Pool(Generic[T]):
    """Items per key, filled by :meth:`fill_one` and emptied by :meth:`take`.

    ``build(key)`` makes one item; ``quiet()`` says whether the worker is idle enough to make
    one now. Demand is counted with a decay (:data:`DEMAND_DECAY` per request), so the split
    follows the last few requests; it starts at ``prior`` (default: 1 for the first key, 0.25
    for the others: a class asks for one address, so a few requests move the split).
    """

    def __init__(self, build: Callable[[Any], T], size: int, quiet: Callable[[], bool],
                 keys: tuple[Hashable, ...], prior: dict[Any, float] | None = None,
                 discard: Callable[[T], None] | None = None) -> None:
        self.build, self.size, self.quiet = build, size, quiet
        self.discard = discard or (lambda item: None)
        self.ready: dict[Any, list[T]] = {k: [] for k in keys}
        self.demand: dict[Any, float] = prior or {k: (1.0 if i == 0 else 0.25)
                                                 for i, k in enumerate(keys)}
        self.taken = self.missed = self.built = self.discarded = 0
        self._full_logged = False

    def take(self, key: Hashable) -> T | None:
        """An item for ``key``, or None when none is ready (the caller builds its own). A key
        not seen before joins the pool (with no items yet): it is built for from now on."""
        if key not in self.ready:
            self.ready[key] = []
            self.demand[key] = 0.0
        for k in self.demand:
            self.demand[k] *= DEMAND_DECAY
        self.demand[key] += 1.0
        self._full_logged = False  # taken, or the split moved: it is full again later
        if self.ready[key]:
            self.taken += 1
            return self.ready[key].pop()
        self.missed += 1
        return None

    def targets(self) -> dict[Any, int]:
        """How many items each key should hold: ``size`` split by demand (rounded down, the
        rest to the most asked for), at least one for a key asked for recently (demand > 0.5)
        while there is room."""
        total = sum(self.demand.values()) or 1.0
        out = {k: int(self.size * d / total) for k, d in self.demand.items()}
        order = sorted(self.demand, key=lambda k: -self.demand[k])
        for k in order:
            if sum(out.values()) >= self.size:
                break
            if out[k] == 0 and self.demand[k] > 0.5:
                out[k] = 1
        if order and sum(out.values()) < self.size:
            out[order[0]] += self.size - sum(out.values())
        return out

    def fill_one(self) -> bool:
        """Make one item for the key furthest below its target; False when all are full.

        The pool never holds more than ``size`` items: when the split has moved, the oldest
        item of the key most above its target is discarded first."""
        targets = self.targets()
        short = [(targets[k] - len(items), i, k) for i, (k, items) in enumerate(self.ready.items())
                 if len(items) < targets[k]]
        if short and sum(len(v) for v in self.ready.values()) >= self.size:
            over = max(self.ready, key=lambda k: len(self.ready[k]) - targets[k])
            self.discard(self.ready[over].pop(0))
            self.discarded += 1
        if not short:
            if not self._full_logged:
                self._full_logged = True
                log.info("lab pages built ahead: %s",
                         ", ".join(f"{_label(k)} {len(v)}" for k, v in self.ready.items()))
            return False
        _, _, key = max(short, key=lambda s: (s[0], -s[1]))
        self.ready[key].append(self.build(key))
        self.built += 1
        return True

    def tick(self) -> None:
        """One step of the idle-time filler (called every :data:`TICK_MS`)."""
        if not self.size or not self.quiet():
            return
        t0, w0 = time.thread_time(), time.perf_counter()
        try:
            built = self.fill_one()
        except Exception:  # a failed build only means the next request builds its own
            log.exception("building a page ahead failed; no more pages are built ahead")
            self.size = 0
            return
        if built:
            # The new document joins the objects the collector no longer walks, as a page
            # does after its build (app/serve/server.py).
            gc.collect(1)
            gc.freeze()
            log.debug("page built ahead in %.0f ms", 1000 * (time.thread_time() - t0))
        wall = time.perf_counter() - w0
        if wall >= PAUSE_LOG_S:  # the serving thread did nothing else meanwhile
            pause_log.warning("a page built ahead paused the server %.2f s (%.2f s of CPU)",
                              wall, time.thread_time() - t0)


def _label(key: Any) -> str:
    """A key as the log names it: ``ko`` (the plain /lab), ``ko+lang`` (/lab?lang=ko),
    ``en+lang+theme=dark`` (/lab?lang=en&theme=dark)."""
    if isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], tuple):
        return "+".join([key[0], *("lang" if k == "lang" else f"{k}={v}" for k, v in key[1])])
    return str(key)


# Query arguments a page built ahead can take after it was built, when a session takes it
# (``follow`` of :class:`LabDocuments`: a live class's room, app.lab.page.follow_later).
LATER = ("room",)


def request_key(arguments: dict[str, list[bytes]], headers: dict[str, Any],
                later: tuple[str, ...] = ()) -> Key | None:
    """The pool key of a /lab request (its query arguments and headers), or None when the
    address names anything but page options with known values (each once) and the
    arguments in ``later`` (once each; not part of the key)."""
    from app.shell.i18n import pick_language
    from app.shell.options import OPTION_VALUES  # lang, size, theme

    named: list[tuple[str, str]] = []
    for name, values in arguments.items():
        if name in later:
            if len(values) != 1:
                return None
            continue
        known = OPTION_VALUES.get(name)
        if known is None or len(values) != 1:
            return None
        value = values[0].decode("utf-8", "replace")
        if value not in known:
            return None
        named.append((name, value))
    accept = headers.get("Accept-Language")
    lang = pick_language(dict(named).get("lang", ""), accept if isinstance(accept, str) else None)
    return (lang, tuple(sorted(named)))


def _stand_in_request(key: Key) -> tuple[Any, dict[str, list[bytes]], dict[str, str]]:
    """A tornado request for the address of ``key`` (what a browser sends)."""
    from urllib.parse import urlencode

    from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine

    lang, named = key
    uri = f"/lab?{urlencode(named)}" if named else "/lab"
    headers = {"Accept-Language": lang}
    # (start_line: method and uri as arguments are deprecated; HTTP/1.0 needs no Host, as
    # the stand-in had none before)
    request = HTTPServerRequest(start_line=RequestStartLine("GET", uri, "HTTP/1.0"),
                                headers=HTTPHeaders(headers))
    return request, {k: [v.encode()] for k, v in named}, headers


class LabDocuments:
    """Whole /lab documents built ahead for one Bokeh application context (one process)."""

    def __init__(self, context: Any, size: int, quiet: Callable[[], bool],
                 follow: Callable[[Any, dict[str, str]], bool] | None = None) -> None:
        self.context = context
        self.pool: Pool[Any] = Pool(self._build, size, quiet, KEYS, discard=self._discard)
        # follow(doc, args): gives a taken document what the arguments in LATER ask for.
        self.follow = follow
        self.later = LATER if follow is not None else ()

    def _build(self, key: Key) -> Any:
        global building_ahead
        from bokeh.document import Document
        from bokeh.server.contexts import BokehSessionContext, _RequestProxy

        request, arguments, headers = _stand_in_request(key)
        doc = Document()
        stand_in = BokehSessionContext(f"ahead-{id(doc)}", self.context.server_context, doc)
        stand_in._request = _RequestProxy(request, arguments=arguments, cookies={},
                                          headers=headers)
        doc._session_context = weakref.ref(stand_in)
        building_ahead = True
        try:
            self.context._application.initialize_document(doc)
        finally:
            building_ahead = False
        # The stand-in lives as long as the document waits; the real context replaces it.
        doc.__dict__["_dplab_stand_in"] = stand_in
        # Its first pull's walk, now too (app/serve/pull_ahead.py).
        pull_ahead.serialize_ahead(doc)
        return doc

    def _discard(self, doc: Any) -> None:
        """End a document nobody took, as Bokeh ends an unused session: the document first,
        then the session-destroyed hooks (Panel's bookkeeping of the page lets go of it)."""
        from tornado.ioloop import IOLoop

        stand_in = doc.__dict__.pop("_dplab_stand_in", None)
        pull_ahead.forget(doc)
        doc.destroy(None)
        if stand_in is not None:
            IOLoop.current().spawn_callback(self.context._application.on_session_destroyed,
                                            stand_in)

    def ready_for(self, handler: Any) -> bool:
        """Whether a page request (a Bokeh DocHandler) would take a document built ahead now:
        its application is this one and a document for its address is ready."""
        if getattr(handler, "application_context", None) is not self.context:
            return False
        request = handler.request
        key = request_key(request.arguments, dict(request.headers), self.later)
        return key is not None and bool(self.pool.ready.get(key))

    def take(self, token: str | None) -> Any:
        """A document built ahead for the request behind ``token``, or None."""
        from bokeh.util.token import get_token_payload

        if not token:
            return None
        payload = get_token_payload(token)
        key = request_key(payload.get("arguments") or {}, payload.get("headers") or {},
                          self.later)
        return self.pool.take(key) if key is not None else None

    def finish(self, doc: Any, arguments: dict[str, list[bytes]] | None) -> None:
        """What the arguments in LATER ask of a taken document (with ``doc`` as Panel's
        current document and its session's context in place)."""
        args = {k: v[0].decode("utf-8", "replace") for k, v in (arguments or {}).items() if v}
        if self.follow is not None and any(k in args for k in self.later):
            if not self.follow(doc, args):
                raise RuntimeError("a page built ahead could not take its address's room")


_DOCS: LabDocuments | None = None


def lab_documents() -> LabDocuments | None:
    """The process's documents built ahead, once :func:`install` ran."""
    return _DOCS


def install(tornado_app: Any, quiet: Callable[[], bool], size: int | None = None,
            path: str = "/lab", follow: Callable[[Any, dict[str, str]], bool] | None = None
            ) -> LabDocuments | None:
    """Build /lab documents ahead for ``tornado_app`` (a BokehTornado) and let its new sessions
    take them (idempotent per process); None when the size is 0. ``follow``: see
    :class:`LabDocuments` (None: an address with a room is built on demand)."""
    global _DOCS
    if _DOCS is not None:
        return _DOCS
    from app.serve import upstream_patches

    n = size_from_env() if size is None else size
    context = getattr(tornado_app, "_applications", {}).get(path)
    if n <= 0 or context is None:
        return None
    docs = LabDocuments(context, n, quiet, follow)
    # The session hand-over copies Bokeh's method: left out (no pool) when Bokeh changed it.
    if not upstream_patches.install("take_documents_built_ahead", context=context, docs=docs):
        return None
    from tornado.ioloop import PeriodicCallback

    pull_ahead.install()
    _DOCS = docs
    PeriodicCallback(docs.pool.tick, TICK_MS).start()
    return docs
