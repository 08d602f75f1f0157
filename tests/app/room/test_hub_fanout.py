"""How a worker hands one room message to its labs (app/room/hub.py ``_dispatch``): every
following lab's card goes out before any lab's document callback is queued; for those labs the
rest (views, then their documents' callbacks) follows ``AFTER_CARDS_S`` later, so the last card
of 150 does not wait behind 149 callbacks and the cards are relayed before the heavy part
(benchmarks/real_followers.py: the worker's stages). A lab whose card did not go (exploring on
its own, a tour step) gets no views and takes the message at once."""

from __future__ import annotations

import asyncio

import pytest

from app.room import hub as hub_mod
from app.room.hub import RoomHub
from app.room.state import RoomMessage, state_message
from app.room.store import MemoryStore


class Lab:
    """A stand-in for a RoomLink that writes what happens to it in one shared log."""

    def __init__(self, name: str, log: list[tuple[str, str]], code: str,
                 shows_card: bool = True) -> None:
        self.name, self.log, self.code = name, log, code
        self.student = True
        self.shows_card = shows_card

    def push_card(self, msg: RoomMessage) -> bool:
        self.log.append(("card", self.name))
        return self.shows_card

    def push_views(self) -> None:
        self.log.append(("views", self.name))

    def deliver(self, msg: RoomMessage) -> None:
        self.log.append(("deliver", self.name))

    def store_status(self, ok: bool) -> None:
        pass

    def counts(self) -> tuple[int, int]:
        return 1, 1


def test_every_card_before_any_callback_and_the_views_after(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hub_mod, "AFTER_CARDS_S", 0.2)

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
        # in the same turn: six card attempts, then the lab without a card takes the message
        assert [k for k, _ in log] == ["card"] * 6 + ["deliver"]
        assert log[-1] == ("deliver", "own")
        t0 = asyncio.get_running_loop().time()
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert len(log) == 7  # the rest waits while the cards travel
        while len(log) < 17:
            assert asyncio.get_running_loop().time() - t0 < 10, log
            await asyncio.sleep(0.01)
        assert asyncio.get_running_loop().time() - t0 >= 0.2
        rest = log[7:]
        carded = [f"l{i}" for i in range(5)]
        assert sorted(n for k, n in rest if k == "views") == carded  # not the lab alone
        assert [k for k, _ in rest] == ["views"] * 5 + ["deliver"] * 5
        assert sorted(n for k, n in rest if k == "deliver") == carded

    asyncio.run(body())
