"""A closed page's objects freed by reference counting, in short steps, instead of by a full
garbage collection of the whole process.

Why (measured on the 2-core machine, benchmarks/README.md "Tab churn"): a /lab page is ~18,000
objects when built ahead and ~20,000-29,000 once used, nearly all of them in reference cycles
(param's watchers and instance parameters, Bokeh's property containers and their owners, Panel's
callbacks), so reference counting alone frees almost nothing of a closed page. Python 3.11's
collector has no incremental mode: a full collection walks every live object. The server
freezes each page after its build (app/serve/server.py), so automatic collections never walk
the pages; but then a closed page is freed only by an explicit full collection over
everything: with 100 pages built ahead that took 1.6 s with nothing to free, and 2.8-3.0 s (1.4
million objects freed) after 8 real tabs closed; with 150 open sessions per worker in a class it
would take several seconds, and HAProxy marked such workers down.

How: when a page's document is destroyed, :func:`walk` gathers the objects reachable from it
(not entering shared objects: classes, modules, event loops, servers, loggers, Panel's state,
other documents), ~20,000 objects in 30-100 ms. A few seconds later (Panel's session-destroyed
hooks have run) :func:`unreachable` finds those of them that nothing outside the set refers to,
with the rule CPython's own collector uses (an object's reference count minus the references
from inside the set; what is referred to from outside, and all it reaches, stays), and
:func:`break_cycles` empties their containers and instance dicts, so reference counting frees
the page at once. That step costs ~50-150 ms for a page, about what CPython spends per object,
but over one page instead of the whole process. A page that is still held (a callback not yet
run) is looked at again later; what is left in the end waits for the idle-time full collection
(server.py).

Safe by construction: an object is emptied only if no reference to it comes from outside the
set, so a wrong or incomplete walk frees less, never something still in use. The reference
counts are read against a canary held by the set alone (no assumption about the interpreter's
own temporary references), and :func:`self_check` verifies the rule on two small graphs before
the server uses it.
"""

from __future__ import annotations

import collections
import gc
import logging
import sys
import time
import types
from collections.abc import Callable, Iterable
from typing import Any

log = logging.getLogger("dplab.server.gc")

# A page is ~20,000-30,000 objects: a walk that grows past this has left the page (something
# shared that is not in the stop list); it is given up and the page waits for an idle collection.
WALK_LIMIT = 150_000
# After a page's document is destroyed, Panel runs its session-destroyed hooks (they drop the
# registries' references to the page): the page is looked at this long after, then again after
# each of RETRY_S while its document is still held (a pending callback of the page, mostly).
DELAY_S = 3.0
RETRY_S = (10.0, 30.0, 90.0)
# Bokeh discards the closed sessions it finds together: their freeing steps are spaced by this
# much, so that the event loop serves its connections between two of them.
SPACING_S = 0.25

_STOP: tuple[type, ...] = ()


def stop_types() -> tuple[type, ...]:
    """Objects a walk never enters: shared by every page, and each leads to all of them
    (the event loop's timers, the server's session lists, the loggers' registry, Panel's
    process-wide state and config, other Bokeh documents)."""
    global _STOP
    if not _STOP:
        import asyncio
        import threading

        import tornado.ioloop
        import tornado.web
        from bokeh.document import Document
        from bokeh.server.contexts import ApplicationContext, BokehServerContext
        from bokeh.server.tornado import BokehTornado
        from panel.config import _config
        from panel.io.state import _state

        _STOP = (type, types.ModuleType, asyncio.AbstractEventLoop, tornado.ioloop.IOLoop,
                 tornado.web.Application, BokehTornado, ApplicationContext, BokehServerContext,
                 logging.Logger, logging.Manager, threading.Thread, _state, _config, Document)
    return _STOP


def _module_dicts() -> set[int]:
    return {id(vars(m)) for m in list(sys.modules.values()) if isinstance(m, types.ModuleType)}


def walk(seed: Iterable[Any], stop: tuple[type, ...] = (), own: Any = None,
         limit: int = WALK_LIMIT) -> list[Any] | None:
    """The objects the collector tracks that are reachable from ``seed``, the seed's first:
    never entering a module's dict nor an instance of ``stop`` (except ``own``, e.g. the page's
    own document). None when they are more than ``limit``.

    Breadth first, a whole frontier at a time: ``gc.get_referents`` and the set operations run
    in C, Python code runs once per object found (not once per reference)."""
    seen: dict[int, Any] = {}
    skip = _module_dicts()
    stops: dict[type, bool] = {}  # per type: is it one of ``stop`` (a subclass included)
    frontier: list[Any] = []
    for o in seed:
        if gc.is_tracked(o) and id(o) not in seen:
            seen[id(o)] = o
            frontier.append(o)
    while frontier:
        refs = list(filter(gc.is_tracked, gc.get_referents(*frontier)))
        fresh = dict(zip(map(id, refs), refs, strict=True))
        del refs
        frontier = []
        # (set.difference with a dict or a smaller set walks only ``fresh``)
        for k in set(fresh).difference(seen).difference(skip):
            r = fresh[k]
            t = type(r)
            hit = stops.get(t)
            if hit is None:
                hit = stops[t] = issubclass(t, stop)
            if hit and r is not own:
                skip.add(k)
                continue
            seen[k] = r
            frontier.append(r)
        del fresh
        if len(seen) > limit:
            return None
    return list(seen.values())


def unreachable(objs: list[Any]) -> tuple[list[Any], list[Any]]:
    """(the objects of ``objs`` that nothing outside ``objs`` refers to, directly or through
    others of them; the others), both in the order of ``objs``.

    ``objs`` must hold each object once and be the caller's only reference to them (the walk's
    list itself; any other reference, a variable included, counts as a reference from outside and
    keeps its object)."""
    canary: list[Any] = []  # referred to by ``objs`` alone: the count that means "no one else"
    objs.append(canary)
    del canary
    n = len(objs)
    # References from inside the set, per object (the referents' list is gone before counting).
    inside = collections.Counter(map(id, gc.get_referents(*objs)))
    counts = list(map(sys.getrefcount, objs))
    alone = counts[-1]
    index = dict(zip(map(id, objs), range(n), strict=True))
    get = inside.get
    held = bytearray(n)
    held[-1] = 1
    stack = [i for i, (k, c) in enumerate(zip(map(id, objs), counts, strict=True))
             if c - alone - get(k, 0) > 0]
    for i in stack:
        held[i] = 1
    while stack:
        for r in gc.get_referents(objs[stack.pop()]):
            j = index.get(id(r))
            if j is not None and not held[j]:
                held[j] = 1
                stack.append(j)
    objs.pop()
    free = [o for o, h in zip(objs, held, strict=False) if not h]
    kept = [o for o, h in zip(objs, held, strict=False) if h]
    return free, kept


def break_cycles(garbage: list[Any]) -> int:
    """Empty the containers and instance dicts of ``garbage`` (objects nothing else refers to,
    from :func:`unreachable`), then drop the list: reference counting frees them. Returns how
    many there were. The base classes' methods are used (``dict.clear``, not a subclass's
    ``clear`` that would notify the object's owners)."""
    n = len(garbage)
    for o in garbage:
        try:
            if isinstance(o, dict):
                dict.clear(o)
            elif isinstance(o, list):
                list.clear(o)
            elif isinstance(o, set):
                set.clear(o)
            elif isinstance(o, collections.deque):
                collections.deque.clear(o)
            elif isinstance(o, types.CellType):
                try:
                    del o.cell_contents
                except ValueError:  # an empty cell
                    pass
            if type(o).__dictoffset__:
                d = object.__getattribute__(o, "__dict__")
                if type(d) is dict:
                    dict.clear(d)
        except Exception:  # one object that resists is left for the full collection
            log.debug("could not empty a %s of a closed page", type(o).__name__, exc_info=True)
    garbage.clear()
    return n


def self_check() -> bool:
    """Whether :func:`unreachable` tells, on this interpreter, a cycle nobody holds (to be
    freed) from one held from outside (to be kept)."""
    class Node:
        a: Node
        b: Node
        items: list[Any]

    def pair() -> Node:
        a, b = Node(), Node()
        a.b, b.a = b, a
        a.items = [a, b, {"b": b}]
        return a

    held = pair()
    loose = pair()
    loose_ids = {id(loose), id(loose.b), id(loose.items)}
    held_ids = {id(held), id(held.b), id(held.items)}
    objs = walk([loose, held.b])
    del loose
    if objs is None:
        return False
    free, _ = unreachable(objs)
    del objs
    free_ids = {id(o) for o in free}
    ok = loose_ids <= free_ids and not held_ids & free_ids
    break_cycles(free)
    return ok and held.b.a is held and len(held.items) == 3


class Reclaimer:
    """Frees closed pages: :meth:`later` walks a page now (before its document is taken apart)
    and frees, ``DELAY_S`` later, whatever of it nothing else refers to any more; a page whose
    document is still held then is looked at again after each of ``RETRY_S``.

    ``call_later(seconds, fn, *args)``: the event loop's (IOLoop.call_later). ``on_step(what,
    seconds, cpu)``: told how long each step held the serving thread and the CPU time it took
    (the server's pause log)."""

    def __init__(self, call_later: Callable[..., Any],
                 on_step: Callable[[str, float, float], None] | None = None) -> None:
        self.call_later = call_later
        self.on_step = on_step or (lambda what, seconds, cpu: None)
        self.pages = self.freed = self.objects = self.left = self.too_big = 0
        self.connections = self.connection_objects = 0
        self._next = 0.0  # (monotonic) the earliest time for the next freeing step
        self.enabled = self_check()
        if not self.enabled:
            log.warning("closed pages are left to full collections: the reference check "
                        "failed on this interpreter")

    def later(self, seed: list[Any], own: Any = None, stop: tuple[type, ...] = ()) -> None:
        """Walk ``seed`` now (``own``: the page's document, entered although a document is a
        stop; ``stop``: more types not to enter) and free what of it nobody holds any more,
        later."""
        if not self.enabled:
            return
        t0, c0 = time.perf_counter(), time.thread_time()
        objs = walk(seed, stop_types() + stop, own)
        self.on_step("walking a closed page", time.perf_counter() - t0, time.thread_time() - c0)
        if own is None:
            self.connections += 1
        else:
            self.pages += 1
        if objs is None:
            self.too_big += 1
            self.left += own is not None
            return
        holder = [objs]
        del objs
        self._later(DELAY_S, holder, own is not None, 0)

    def _later(self, seconds: float, holder: list[list[Any]], has_own: bool, tries: int) -> None:
        now = time.monotonic()
        at = max(now + seconds, self._next)
        self._next = at + SPACING_S
        self.call_later(at - now, self._free, holder, has_own, tries)

    def _free(self, holder: list[list[Any]], has_own: bool, tries: int) -> None:
        t0, c0 = time.perf_counter(), time.thread_time()
        objs = holder.pop()
        # The document is the first object (its id only: a reference would hold it).
        first = id(objs[0]) if objs else 0
        free, kept = unreachable(objs)
        del objs
        own_free = has_own and not (kept and id(kept[0]) == first)
        n = break_cycles(free)
        if has_own:
            self.objects += n
        else:
            self.connection_objects += n
        self.on_step("freeing a closed page", time.perf_counter() - t0, time.thread_time() - c0)
        if own_free or not has_own:
            self.freed += own_free
            return
        if tries < len(RETRY_S) and kept:
            # The document is kept first: it is the first of ``kept`` next time too.
            self._later(RETRY_S[tries], [kept], True, tries + 1)
        else:
            self.left += 1

    def summary(self) -> str:
        return (f"{self.pages} closed pages walked, {self.freed} freed by reference counting "
                f"({self.objects} objects), {self.left} left for an idle full collection; "
                f"{self.connections} closed connections ({self.connection_objects} objects)")
