"""The card streamed before /lab?room=CODE is built (app/serve/stream.py) shows the room's state,
read from the store, and the page is built from the same state: not the lab's default, nor the
student's own address. A concealed tour step sends no early card; no such room, or a store that
does not answer, gives the card of the address itself."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import wsclient

from app.lab.first_paint import early_first_paint
from app.room.hub import RoomHub, set_hub
from app.room.link import RoomLink
from app.room.store import MemoryStore, StoreDown
from app.serve import room_wiring

ROOM_LAB = {"q": "mean", "n": "4", "B": "1", "sigma": "2.5", "eps": "1", "delta": "1e-6"}


def run(body: Callable[[RoomHub], Awaitable[None]], store: Any = None) -> None:
    async def main() -> None:
        hub = RoomHub(store or MemoryStore(60.0))
        set_hub(hub)
        try:
            await body(hub)
        finally:
            set_hub(None)

    asyncio.run(main())


def card_sigma(args: dict[str, str]) -> str | None:
    early = early_first_paint(args, None)
    assert early is not None
    return wsclient.card_sigma(early.fragment)


def test_the_first_card_is_the_rooms_state() -> None:
    async def body(hub: RoomHub) -> None:
        code = await hub.create_room("en")
        await hub.publish(code, {"lab": ROOM_LAB, "tour": 0, "revealed": True}, "t")
        own = {"room": code.lower(), "lang": "en", "size": "large", "sigma": "9"}
        assert card_sigma(own) == "9"  # what the card showed before: the address's own σ
        args = await room_wiring.first_paint_args(own)
        assert card_sigma(args) == "2.5"
        assert args["lang"] == "en" and args["size"] == "large"  # the page's own options
        early = early_first_paint(args, None)
        assert early is not None and early.key == ("/lab", "en", "large", "default")
        # the page is then built from the very state its first card showed
        link = room_wiring.lab_link({"room": code, "lang": "en"})
        assert isinstance(link, RoomLink) and link.student
        assert link._known is not None and link._known.snap["lab"] == ROOM_LAB

    run(body)


def test_a_concealed_tour_step_sends_no_early_card() -> None:
    async def body(hub: RoomHub) -> None:
        code = await hub.create_room("en")
        await hub.publish(code, {"lab": ROOM_LAB, "tour": 3, "revealed": False}, "t")
        args = await room_wiring.first_paint_args({"room": code, "lang": "ko"})
        assert args["tour"] == "3" and early_first_paint(args, None) is None

    run(body)


def test_no_room_or_no_store_gives_the_addresss_own_card() -> None:
    async def body(hub: RoomHub) -> None:
        args = await room_wiring.first_paint_args({"room": "ZZZZZZ", "sigma": "3"})
        assert card_sigma(args) == "3"
        assert room_wiring._ROOM_STATE.get() is None
        link = room_wiring.lab_link({"room": "ZZZZZZ"})
        assert link._known is None

    run(body)

    class Down(MemoryStore):
        async def get(self, code: str, name: str) -> str | None:
            raise StoreDown("stopped")

    run(lambda hub: _own_card(hub), Down(60.0))

    class Hung(MemoryStore):
        async def get(self, code: str, name: str) -> str | None:
            await asyncio.sleep(60)
            return None

    run(lambda hub: _own_card(hub), Hung(60.0))


async def _own_card(hub: RoomHub) -> None:
    code = await hub.create_room("en")
    args = await room_wiring.first_paint_args({"room": code, "sigma": "3"})
    assert card_sigma(args) == "3"


@pytest.fixture(autouse=True)
def quick_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(room_wiring, "STATE_READ_S", 0.2)
