"""Lab pages built ahead, in a worker's idle time, for the moment a whole class opens /lab.

A /lab page costs ~0.2 s of server CPU, about a quarter of it making the page's Panel objects
(the lab, its tour, its sidebar; app/lab/page.py :func:`build_parts`). Those objects depend only
on the language and the address, and almost every student of a class opens the plain address.
So while the worker has had nothing to do for :data:`QUIET_S`, it makes such parts, one set per
:data:`TICK_MS`, up to :data:`DEFAULT_SIZE` per process (``DPLAB_PREBUILT_PAGES``), split
between the languages as the recent requests were (Korean first until an English one
arrives). A request for the plain address takes a set and only attaches it to its document;
any other address (settings, a tour step, a room, ``size``/``theme``) is built as before. The
CPU is the same; it is spent before the class instead of while the class waits.

Nothing a student sees differs: a set is exactly what the page would build for that address
(tests/app/serve/test_prebuild.py compares the documents), and a set is used once.
``DPLAB_PREBUILT_PAGES=0`` turns it off.
"""

from __future__ import annotations

import gc
import logging
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from app.lab.page import LabParts

T = TypeVar("T")

DEFAULT_SIZE = 24  # ~1.5 MB each (scripts/serve-prod counts them in a worker's base)
QUIET_S = 1.0
TICK_MS = 200
LANGUAGES = ("ko", "en")

log = logging.getLogger("dplab.server.prebuild")


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
    """Sets of parts per language, filled by :meth:`fill_one` and emptied by :meth:`take`.

    ``build(lang)`` makes one set outside any session; ``quiet()`` says whether the worker is
    idle enough to make one now. Demand is counted with a decay, so the split follows the last
    few dozen requests; it starts at 3:1 for Korean.
    """

    def __init__(self, build: Callable[[str], T], size: int, quiet: Callable[[], bool],
                 languages: tuple[str, ...] = LANGUAGES) -> None:
        self.build, self.size, self.quiet = build, size, quiet
        self.ready: dict[str, list[T]] = {lang: [] for lang in languages}
        self.demand: dict[str, float] = {lang: (3.0 if i == 0 else 1.0)
                                         for i, lang in enumerate(languages)}
        self.taken = self.missed = self.built = 0
        self._full_logged = False

    def take(self, lang: str) -> T | None:
        """A set for ``lang``, or None when none is ready (the caller builds its own)."""
        if lang not in self.ready:
            return None
        for k in self.demand:
            self.demand[k] *= 0.97
        self.demand[lang] += 1.0
        if self.ready[lang]:
            self.taken += 1
            self._full_logged = False
            return self.ready[lang].pop()
        self.missed += 1
        return None

    def targets(self) -> dict[str, int]:
        """How many sets each language should hold: ``size`` split by demand, at least one
        for a language asked for recently (demand above 0.5)."""
        total = sum(self.demand.values()) or 1.0
        out = {lang: round(self.size * d / total) for lang, d in self.demand.items()}
        for lang, d in self.demand.items():
            if self.size and d > 0.5:
                out[lang] = max(out[lang], 1)
        return out

    def fill_one(self) -> bool:
        """Make one set for the language furthest below its target; False when all are full."""
        targets = self.targets()
        short = [(targets[lang] - len(sets), lang) for lang, sets in self.ready.items()
                 if len(sets) < targets[lang]]
        if not short:
            if not self._full_logged:
                self._full_logged = True
                log.info("lab pages built ahead: %s",
                         ", ".join(f"{k} {len(v)}" for k, v in self.ready.items()))
            return False
        _, lang = max(short)
        self.ready[lang].append(self.build(lang))
        self.built += 1
        return True

    def tick(self) -> None:
        """One step of the idle-time filler (called every :data:`TICK_MS`)."""
        if not self.size or not self.quiet():
            return
        t0 = time.thread_time()
        try:
            built = self.fill_one()
        except Exception:  # a failed set only means the next request builds its own
            log.exception("building a page ahead failed")
            self.size = 0
            return
        if built:
            # The new set joins the objects the collector no longer walks, as a page does
            # after its build (app/serve/server.py).
            gc.collect(1)
            gc.freeze()
            log.debug("page set built ahead in %.0f ms", 1000 * (time.thread_time() - t0))


_POOL: Pool[LabParts] | None = None


def lab_pool() -> Pool[LabParts] | None:
    """The process's pool of lab parts, once :func:`start_lab_pool` ran."""
    return _POOL


def start_lab_pool(quiet: Callable[[], bool], size: int | None = None
                   ) -> Pool[LabParts] | None:
    """Start filling lab parts on the running IOLoop (idempotent); None when the size is 0."""
    global _POOL
    if _POOL is not None:
        return _POOL
    n = size_from_env() if size is None else size
    if n <= 0:
        return None
    import panel as pn
    from tornado.ioloop import PeriodicCallback

    from app.lab.page import build_parts

    def build(lang: str) -> LabParts:
        # Outside any session: the parts of the plain address (no settings, no page options).
        doc = pn.state.curdoc
        if doc is not None and doc.session_context is not None:
            raise RuntimeError("a page built ahead must not belong to a session")
        parts = build_parts(lang, {})
        parts.lab.build_offscreen()
        return parts

    _POOL = Pool(build, n, quiet)
    PeriodicCallback(_POOL.tick, TICK_MS).start()
    return _POOL
