"""A following lab takes a teacher's change in two steps: the card at once (the same HTML for
every follower of the process, made once), then the rest of the state through the process's slow
lane; a student who detaches in between explores from the class's state; a tour step is applied
at once (the card may be concealed). A real lab page and room link, no server."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable

import wsclient

from app.lab.follow import LabFollowable, card_of
from app.lab.page import LabPage, attach_tour
from app.lab.state import LabState
from app.room import link as link_mod
from app.room.hub import RoomHub
from app.room.link import RoomLink
from app.room.state import RoomState, state_message
from app.room.store import MemoryStore

ROOM_LAB = {"q": "mean", "n": "4", "B": "1", "sigma": "2.5", "eps": "1", "delta": "1e-6"}


async def until(cond: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not cond():
        assert asyncio.get_running_loop().time() < deadline, "condition not reached"
        await asyncio.sleep(0.01)


def message(seq: int, lab: dict[str, str], tour: int = 0, revealed: bool = True
            ) -> RoomState:
    msg = RoomState.from_json(state_message(seq, "t", {"lab": lab, "tour": tour,
                                                       "revealed": revealed}, None))
    assert msg is not None
    return msg


async def a_student() -> tuple[RoomHub, LabPage, RoomLink]:
    hub = RoomHub(MemoryStore(60.0))
    code = await hub.create_room("en")
    lab = LabPage(LabState(), "en")
    attach_tour(lab, None)
    link = RoomLink(code, teacher=False, hub=hub)
    link.attach(LabFollowable(lab))
    await until(lambda: link.state.status == "live")
    return hub, lab, link


def test_the_card_first_then_the_rest() -> None:
    async def body() -> None:
        hub, lab, link = await a_student()
        paused = asyncio.Event()
        original = link_mod.SlowLane._run

        async def held(self: link_mod.SlowLane) -> None:
            await paused.wait()  # the lane waits: what the student has between the two steps
            await original(self)

        link_mod.SlowLane._run = held  # type: ignore[method-assign]
        try:
            link.deliver(message(5, ROOM_LAB))
            assert wsclient.card_sigma(lab.card.object) == "2.5"  # the card at once
            assert lab.state.sigma == 1.0 and link in link_mod.SLOW_LANE.queue  # the rest waits
            # every follower of the process gets the very same card string
            assert lab.card.object is card_of(ROOM_LAB, "en", False)
            paused.set()
            await until(lambda: lab.state.sigma == 2.5)
        finally:
            link_mod.SlowLane._run = original  # type: ignore[method-assign]
        assert link not in link_mod.SLOW_LANE.queue
        # the page's own refresh made the same card: nothing else to send
        assert lab.card.object == card_of(ROOM_LAB, "en", False)
        shown = json.loads(lab.controls.panel.values)  # (JSON text: one Bokeh value)
        assert shown["fields"]["sigma"] == "2.5"  # the controls too
        assert abs(shown["sliders"]["sigma"][0] - math.log10(2.5)) < 1e-9
        await hub.stop()

    asyncio.run(body())


def test_detaching_between_the_two_steps_starts_from_the_class() -> None:
    async def body() -> None:
        hub, lab, link = await a_student()
        link.deliver(message(5, {**ROOM_LAB, "sigma": "4"}))
        assert wsclient.card_sigma(lab.card.object) == "4" and lab.state.sigma == 1.0
        assert link.toggle is not None
        link.toggle.value = False  # "explore on my own" before the lane came to this lab
        assert lab.state.sigma == 4.0 and not link.state.following
        assert wsclient.card_sigma(lab.card.object) == "4"
        link.deliver(message(6, {**ROOM_LAB, "sigma": "3"}))  # not followed any more
        await asyncio.sleep(0.05)
        assert lab.state.sigma == 4.0 and wsclient.card_sigma(lab.card.object) == "4"
        await hub.stop()

    asyncio.run(body())


def test_a_tour_step_is_applied_at_once() -> None:
    async def body() -> None:
        hub, lab, link = await a_student()
        link.deliver(message(5, ROOM_LAB, tour=2, revealed=False))
        assert lab.tour is not None and lab.tour.step == 2 and lab.tour.concealed
        assert link not in link_mod.SLOW_LANE.queue
        assert wsclient.card_sigma(lab.card.object) is None  # concealed: no σ shown
        await hub.stop()

    asyncio.run(body())
