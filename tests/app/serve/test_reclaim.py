"""Closed pages freed by reference counting (app/serve/reclaim.py) and the server's collection
policy (app/serve/server.py GcPolicy): a closed page must not wait for a full collection, and
nothing still in use may be emptied."""

from __future__ import annotations

import gc
import logging
import weakref
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import panel as pn
import param
import pytest
from bokeh.document import Document
from panel.io import document as pn_document

from app.serve import reclaim, server


class Counter(param.Parameterized):
    """A page's state: watched by its own widgets (param keeps cycles through the watchers)."""

    value = param.Number(default=1.0)


def build_page() -> tuple[Document, Any, Counter]:
    """A small Panel page in a Bokeh document, as a session's: widgets, panes, watchers."""
    state = Counter()
    slider = pn.widgets.FloatSlider(start=0, end=10, value=1)
    text = pn.pane.HTML("1")
    slider.param.watch(lambda e: state.param.update(value=e.new), "value")
    state.param.watch(lambda e: setattr(text, "object", str(e.new)), "value")
    layout = pn.Column(slider, text, pn.Row(pn.widgets.Button(label="go")))
    doc = Document()
    layout.server_doc(doc, location=False)
    # As Panel's server does (panel.io.application): its destroy, not Bokeh's (which collects)
    doc.destroy = partial(pn_document._destroy_document, doc)
    return doc, slider, state


def close_page(doc: Document) -> None:
    """What a session's end does to the page: Panel's views cleaned up and its document
    destroyed (without the collection Panel schedules after it)."""
    from panel.io.state import state as pn_state

    schedule = pn_state.schedule_task
    setattr(pn_state, "schedule_task", lambda *a, **k: None)  # noqa: B010 (a method)
    try:
        pn_document._cleanup_doc(doc)
    finally:
        setattr(pn_state, "schedule_task", schedule)  # noqa: B010


@pytest.fixture
def frozen() -> Iterator[list[int]]:
    """Objects frozen as the server freezes each page after its build; records the generations
    of the collections that run meanwhile (a 2 is a full collection)."""
    generations: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            generations.append(info["generation"])

    gc.collect()
    gc.callbacks.append(seen)
    try:
        yield generations
    finally:
        gc.callbacks.remove(seen)
        gc.unfreeze()


def test_the_reference_rule_holds_on_this_interpreter() -> None:
    assert reclaim.self_check()


def test_a_closed_page_is_freed_without_a_full_collection(frozen: list[int]) -> None:
    doc, slider, state = build_page()
    gone = [weakref.ref(slider), weakref.ref(state), weakref.ref(doc)]
    gc.freeze()
    seed = [doc, *vars(doc).values(), *list(doc.models)]
    objs = reclaim.walk(seed, reclaim.stop_types(), doc)
    del seed
    assert objs is not None and len(objs) > 500
    close_page(doc)
    del doc, slider, state
    # Without the step the page stays: its cycles keep it (the server would need a full
    # collection over everything to free it).
    assert all(w() is not None for w in gone)
    free, kept = reclaim.unreachable(objs)
    del objs
    assert len(free) > len(kept)
    reclaim.break_cycles(free)
    del kept
    assert [w() for w in gone] == [None, None, None]
    assert 2 not in frozen


def test_nothing_held_from_outside_is_emptied(frozen: list[int]) -> None:
    doc, slider, state = build_page()
    gc.freeze()
    objs = reclaim.walk([doc, *vars(doc).values(), *list(doc.models)], reclaim.stop_types(), doc)
    assert objs is not None
    close_page(doc)
    keep = [slider]  # e.g. a live class's link to a widget of the closed page
    del doc, slider, state
    free, kept = reclaim.unreachable(objs)
    del objs
    reclaim.break_cycles(free)
    del kept
    alive = keep[0]
    assert alive.value == 1 and alive.start == 0 and alive.end == 10
    alive.value = 3  # still works: its watcher (and the state it updates) were kept
    assert alive.value == 3


def test_the_reclaimer_frees_a_page_later_and_looks_again_while_it_is_held(
        frozen: list[int]) -> None:
    calls: list[tuple[float, Callable[..., Any], tuple[Any, ...]]] = []
    rec = reclaim.Reclaimer(lambda s, fn, *a: calls.append((s, fn, a)))
    doc, slider, state = build_page()
    gone = weakref.ref(state)
    gc.freeze()
    rec.later([doc, *vars(doc).values(), *list(doc.models)], own=doc)
    close_page(doc)
    pending = [doc, state]  # a callback of the page, not yet run, holds them
    del doc, slider, state
    (delay, fn, args), = calls
    assert delay == reclaim.DELAY_S
    calls.clear()
    fn(*args)
    assert gone() is not None and rec.freed == 0
    (delay, fn, args), = calls  # looked at again
    assert delay == reclaim.RETRY_S[0]
    calls.clear()
    pending.clear()
    fn(*args)
    assert gone() is None and rec.freed == 1 and rec.left == 0 and not calls
    assert 2 not in frozen


def test_no_full_collection_while_a_session_is_open() -> None:
    full: list[int] = []

    def collect() -> int:
        full.append(1)
        return 0

    policy = server.GcPolicy(logging.getLogger("test"), collect=collect,
                             call_later=lambda *a: None)
    for _ in range(60):  # a class's tabs closing (Panel asks for a collection after each)
        policy.closed += 1
        policy.closed_collect()
        policy.idle_tick(sessions_open=150, quiet_s=120.0)
    assert full == []
    policy.idle_tick(sessions_open=0, quiet_s=5.0)  # the class just ended: not yet
    assert full == []
    policy.idle_tick(sessions_open=0, quiet_s=server.IDLE_FULL_GC_S)
    assert full == [1]
    policy.idle_tick(sessions_open=0, quiet_s=server.IDLE_FULL_GC_S * 2)  # nothing new closed
    assert full == [1]


def test_no_page_is_built_ahead_while_a_class_follows(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.room import hub
    from app.room.store import MemoryStore

    class Lab:  # a room's lab on this worker (hub.Member's counts())
        code, student, open = "H8XEX4", True, True

        def counts(self) -> tuple[int, int]:
            return (1, 1) if self.open else (0, 0)

    room_hub = hub.RoomHub(MemoryStore())
    monkeypatch.setattr(hub, "_HUB", [room_hub])
    monkeypatch.setattr(server, "_ACTIVITY", [0.0, 0.1, 0.0])  # nothing for a long time
    assert server.worker_quiet()
    lab = Lab()
    room_hub.members["H8XEX4"] = {lab}  # type: ignore[arg-type]  # a following page
    assert not server.worker_quiet()
    lab.open = False  # its tab closed; Bokeh discards the session up to 2 min later
    assert server.worker_quiet()
    room_hub.members["H8XEX4"].clear()  # the class has left
    assert server.worker_quiet()
