"""The pages' one refresh scheduler (app/shell/refresh.py), without a browser or a server.

A stand-in document records the callbacks the scheduler asks for (next tick, timeout in ms);
a stand-in clock says when each input came. The switch points: two inputs less than
``burst_ms`` apart form a burst (the later part then waits for ``pause_ms`` of quiet); a
single input runs the later part on the next tick.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest

from app.shell.refresh import Scheduler


class Doc:
    """Records what the scheduler asks of a Bokeh document."""

    def __init__(self) -> None:
        self.ticks: list[Callable[[], None]] = []
        self.timeouts: list[tuple[Callable[[], None], int]] = []

    def add_next_tick_callback(self, fn: Callable[[], None]) -> None:
        self.ticks.append(fn)

    def add_timeout_callback(self, fn: Callable[[], None], ms: int) -> None:
        self.timeouts.append((fn, ms))

    def run_all(self) -> None:
        while self.ticks or self.timeouts:
            fn = self.ticks.pop(0) if self.ticks else self.timeouts.pop(0)[0]
            fn()


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def make(doc: Doc | None, clock: Clock | None = None,
         fail: bool = False) -> tuple[Scheduler, list[set[str]]]:
    made: list[set[str]] = []

    def run_later(names: set[str]) -> None:
        made.append(set(names))
        if fail:
            raise RuntimeError("a view failed")

    sched = Scheduler(run_later, page="test", burst_ms=400, pause_ms=150,
                      doc=lambda: doc, clock=clock or Clock())
    return sched, made


def test_outside_a_session_everything_runs_at_once() -> None:
    sched, made = make(None)
    calls: list[int] = []
    sched.now(calls.append, 1)
    sched.later({"sigma"})
    assert calls == [1] and made == [{"sigma"}] and not sched.pending


def test_one_input_runs_the_later_part_on_the_next_tick() -> None:
    doc = Doc()
    sched, made = make(doc)
    sched.later({"sigma"})
    assert made == [] and len(doc.ticks) == 1 and not doc.timeouts
    assert sched.pending == {"sigma"}
    doc.run_all()
    assert made == [{"sigma"}] and not sched.pending


def test_what_is_asked_before_the_tick_is_made_once_together() -> None:
    doc, clock = Doc(), Clock()
    sched, made = make(doc, clock)
    sched.later({"sigma"})
    clock.t += 1.0  # not a burst: one second apart
    sched.later({"eps"})
    assert len(doc.ticks) == 1  # one callback for both
    doc.run_all()
    assert made == [{"sigma", "eps"}]


@pytest.mark.parametrize(("gap_ms", "burst"), [(399.0, True), (401.0, False)])
def test_a_burst_waits_for_the_input_to_pause(gap_ms: float, burst: bool) -> None:
    doc, clock = Doc(), Clock()
    sched, made = make(doc, clock)
    sched.later({"sigma"})
    doc.run_all()  # the first input: next tick
    clock.t += gap_ms / 1000.0
    sched.later({"eps"})
    if not burst:
        assert len(doc.ticks) == 1 and not doc.timeouts
        doc.run_all()
        assert made == [{"sigma"}, {"eps"}]
        return
    assert not doc.ticks and doc.timeouts[0][1] == 150
    # a third input 100 ms later: still in the burst, the same wait
    clock.t += 0.1
    sched.later({"delta"})
    assert len(doc.timeouts) == 1
    fn, _ = doc.timeouts.pop(0)
    clock.t += 0.05  # 50 ms after the last input: it waits the remaining 100 ms
    fn()
    assert made == [{"sigma"}] and doc.timeouts[0][1] == 100
    fn, _ = doc.timeouts.pop(0)
    clock.t += 0.101
    fn()
    assert made == [{"sigma"}, {"eps", "delta"}]


def test_a_failing_part_is_logged_and_the_next_still_runs(
        caplog: pytest.LogCaptureFixture) -> None:
    doc, clock = Doc(), Clock()
    sched, made = make(doc, clock, fail=True)
    with caplog.at_level(logging.WARNING, logger="app.shell.refresh"):
        sched.later({"degree"})
        doc.run_all()
    assert made == [{"degree"}]
    assert "test: deferred update skipped (degree)" in caplog.text
    clock.t += 1.0
    sched.later({"stream"})  # the scheduler is not stuck
    doc.run_all()
    assert made == [{"degree"}, {"stream"}]


def test_now_runs_at_once_in_a_session_too() -> None:
    doc = Doc()
    sched, made = make(doc)
    seen: list[Any] = []
    sched.now(seen.append, "card")
    assert seen == ["card"] and made == [] and not doc.ticks
