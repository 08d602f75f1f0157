"""The one refresh scheduler of a page (/lab and /cdf): the card now, the rest a tick later.

A state change updates what a student reads first (the card, the numbers) at once, in one
small message; the views that take longer to make or to draw (figures, tables) follow on the
next turn of the event loop, so the browser paints the card without waiting for them. During a
burst of changes (inputs closer than ``burst_ms``: a held arrow key) the later part waits until
the input has been quiet for ``pause_ms``: the card is never queued behind figures drawn for a
value already superseded. What is asked for meanwhile is gathered (a set of names) and made
once.

One error convention: a part that raises is logged (``<page>: ... skipped``) and the page keeps
its last good views; the other parts still run. Outside a served session (tests, a page built
ahead) everything runs at once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

import panel as pn

log = logging.getLogger(__name__)

BURST_MS = 400
PAUSE_MS = 150


def _session_doc() -> Any:
    doc = pn.state.curdoc
    return doc if doc is not None and doc.session_context is not None else None


class Scheduler:
    """Runs ``now(...)`` at once and ``later(names)`` on the next tick (or after a burst's
    pause) with every name asked for since: ``run_later(names)``."""

    def __init__(self, run_later: Callable[[set[str]], None], *, page: str,
                 burst_ms: float = BURST_MS, pause_ms: float = PAUSE_MS,
                 doc: Callable[[], Any] = _session_doc,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._run_later = run_later
        self._page = page
        self._burst_ms, self._pause_ms = burst_ms, pause_ms
        self._doc, self._clock = doc, clock
        self._pending: set[str] = set()
        self._scheduled = False
        self._last_input = -1e9
        self._in_burst = False

    def now(self, fn: Callable[..., object], *args: object) -> None:
        """``fn(*args)`` at once; in a session inside Panel's ``unlocked()``, so its model
        changes are sent now (a button's click arrives outside Panel's hold and would
        otherwise wait in the document until the next event)."""
        if self._doc() is None:
            fn(*args)
            return
        with pn.io.unlocked():
            fn(*args)

    def later(self, names: Iterable[str] | None = None) -> None:
        """Ask for ``names`` to be made after the card (all of them are made together)."""
        self._pending.update(names or ())
        doc = self._doc()
        if doc is None:
            self._flush()
            return
        now = self._clock()
        burst = (now - self._last_input) * 1000.0 < self._burst_ms
        self._last_input, self._in_burst = now, burst
        if self._scheduled:
            return
        self._scheduled = True
        if burst:
            doc.add_timeout_callback(self._tick, int(self._pause_ms))
        else:
            doc.add_next_tick_callback(self._tick)

    @property
    def pending(self) -> frozenset[str]:
        """What is asked for and not made yet."""
        return frozenset(self._pending)

    def _tick(self) -> None:
        quiet_ms = (self._clock() - self._last_input) * 1000.0
        doc = self._doc()
        if self._in_burst and quiet_ms < self._pause_ms and doc is not None:
            doc.add_timeout_callback(self._tick, max(1, int(self._pause_ms - quiet_ms)))
            return
        self._scheduled = False
        if doc is None:
            self._flush()
            return
        with pn.io.unlocked():
            self._flush()

    def _flush(self) -> None:
        names, self._pending = self._pending, set()
        try:
            self._run_later(names)
        except Exception:
            log.warning("%s: deferred update skipped (%s)", self._page,
                        ", ".join(sorted(names)) or "all", exc_info=True)
