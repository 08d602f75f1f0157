"""How a worker hands one room message to its labs (app/room/hub.py ``_dispatch``): every
following lab's card goes out before any lab's document callback is queued, and the rest of the
view follows in one pass on a later loop turn, so the last card of 150 does not wait behind
149 callbacks (benchmarks/real_followers.py: the worker's stages). A lab whose card did not go
(exploring on its own, a tour step) gets no views and still gets the message."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from app.room.hub import RoomHub
from app.room.state import state_message
from app.room.store import MemoryStore


class Lab:
    """A stand-in for a RoomLink that writes what happens to it in one shared log."""

    def __init__(self, name: str, log: list[tuple[str, str]], code: str,
                 shows_card: bool = True) -> None:
        self.name, self.log, self.code = name, log, code
        self.student = True
        self.shows_card = shows_card

    def push_card(self, msg: Mapping[str, Any]) -> bool:
        self.log.append(("card", self.name))
        return self.shows_card

    def push_views(self, msg: Mapping[str, Any]) -> None:
        self.log.append(("views", self.name))

    def deliver(self, msg: Mapping[str, Any]) -> None:
        self.log.append(("deliver", self.name))

    def store_status(self, ok: bool) -> None:
        pass

    def counts(self) -> tuple[int, int]:
        return 1, 1


def test_every_card_before_any_callback_and_the_views_after() -> None:
    async def body() -> None:
        hub = RoomHub(MemoryStore(60.0))
        code = "ABC234"
        log: list[tuple[str, str]] = []
        labs = [Lab(f"l{i}", log, code) for i in range(5)]
        labs.append(Lab("own", log, code, shows_card=False))
        hub.members[code] = set(labs)
        text = state_message(3, "t", {"lab": {"sigma": "2"}, "tour": 0, "revealed": True},
                             None)
        hub._dispatch(code, text)
        kinds = [k for k, _ in log]
        # in the same turn: six card attempts, then six deliveries; no views yet
        assert kinds == ["card"] * 6 + ["deliver"] * 6
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        views = [n for k, n in log if k == "views"]
        assert sorted(views) == [f"l{i}" for i in range(5)]  # not the lab exploring alone
        assert log[-5:] == [("views", n) for n in views]

    asyncio.run(body())
