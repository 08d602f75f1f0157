"""The hub when the store restarts and comes back empty (persistence off): the processes whose
labs are in a room write it back from the last state they hold and their labs follow again; a
room nobody holds ends for its labs; a store that only paused loses nothing and writes nothing
back. Two hubs (two workers) on one in-process store, and the same store interface on Redis."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from app.room import hub as hub_mod
from app.room.hub import RoomHub
from app.room.state import ENDED, RoomMessage, RoomState, state_message
from app.room.store import MemoryStore, RedisStore, RoomStore


class Lab:
    """A stand-in for a lab's RoomLink."""

    def __init__(self, code: str, student: bool = True) -> None:
        self.code, self.student = code, student
        self.got: list[RoomMessage] = []
        self.status: list[bool] = []

    def deliver(self, msg: RoomMessage) -> None:
        self.got.append(msg)

    def store_status(self, ok: bool) -> None:
        self.status.append(ok)

    def counts(self) -> tuple[int, int]:
        return 1, 1


async def until(cond: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not cond():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.01)


def snap(sigma: str) -> dict[str, Any]:
    return {"lab": {"sigma": sigma}, "tour": 0, "revealed": True}


def run(body: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(body())


def test_two_workers_write_the_room_back_and_follow_again() -> None:
    async def body() -> None:
        store = MemoryStore(60.0)
        teacher_hub, other_hub = RoomHub(store), RoomHub(store)
        code = await teacher_hub.create_room("en")
        teacher, a, b = Lab(code, student=False), Lab(code), Lab(code)
        teacher_hub.join(teacher)
        teacher_hub.join(a)
        other_hub.join(b)
        await until(lambda: teacher_hub._epoch is not None and other_hub._epoch is not None)
        await teacher_hub.publish(code, snap("2"), "t")
        await teacher_hub.ask(code, "quiz", "gaussian:q-1", 3, 1)
        await until(lambda: all(len(m.got) == 2 for m in (teacher, a, b)))
        before = json.loads(await store.get(code, "state") or "")
        store.restart()
        assert not await store.exists(code)
        for h in (teacher_hub, other_hub):
            await h.ping_ok()  # each process notices (the count writer does every 2 s)
        assert await store.exists(code)
        after = json.loads(await store.get(code, "state") or "")
        assert after["snap"] == before["snap"] and after["seq"] == before["seq"]
        assert after["question"] == before["question"]  # the question stays open
        for m in (teacher, a, b):  # every lab got the room's state again, none was ended
            last = m.got[-1]
            assert isinstance(last, RoomState) and last.snap == snap("2")
            assert all(isinstance(g, RoomState) for g in m.got)
        # the class goes on: the next change has a later number and reaches everyone
        seq = await teacher_hub.publish(code, snap("3"), "t")
        assert seq == before["seq"] + 1
        await until(lambda: all(getattr(m.got[-1], "snap", None) == snap("3") for m in (a, b)))
        for h in (teacher_hub, other_hub):
            await h.stop()

    run(body)


async def _room_with_lab() -> tuple[MemoryStore, RoomHub, str, Lab]:
    """A room in a memory store with one lab on a connected hub."""
    store = MemoryStore(60.0)
    h = RoomHub(store)
    code = await h.create_room("en")
    lab = Lab(code)
    h.join(lab)
    await until(lambda: h._epoch is not None)
    return store, h, code, lab


async def _restart_unseen() -> tuple[MemoryStore, RoomHub, str, Lab]:
    """A room with one lab on a hub that never saw the room's state, then the store restarted
    empty and the hub reconnected."""
    store, h, code, lab = await _room_with_lab()
    h.latest.pop(code, None)  # this process never saw the room's state
    store.restart()
    await h.ping_ok()
    return store, h, code, lab


def test_a_room_nobody_holds_ends_after_the_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hub_mod, "RESTORE_WAIT_S", 0.3)

    async def body() -> None:
        store, h, code, lab = await _restart_unseen()
        assert lab.got == []  # not at once: another process may write it back
        await until(lambda: bool(lab.got))
        assert lab.got[-1] == ENDED and not await store.exists(code)
        await h.stop()

    run(body)


def test_a_room_written_back_by_another_process_is_followed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hub_mod, "RESTORE_WAIT_S", 5.0)

    async def body() -> None:
        store, h, code, lab = await _restart_unseen()
        # another worker, which held the room, writes it back a moment later
        await store.restore(code, {"created": "0"}, {"seq": "7", "state": state_message(
            7, "t", snap("5"), None)})
        await until(lambda: bool(lab.got))
        last = lab.got[-1]
        assert isinstance(last, RoomState) and last.snap == snap("5")
        await h.stop()

    run(body)


def test_a_pause_writes_nothing_back_and_an_ended_room_stays_ended() -> None:
    async def body() -> None:
        store, h, code, lab = await _room_with_lab()
        await h.publish(code, snap("2"), "t")
        await until(lambda: bool(lab.got))
        h._set_ok(False)  # lost for a while, the store kept running (same epoch)
        await store.delete(code)  # and the room went (ended, expired) meanwhile
        await h.ping_ok()
        assert lab.status == [False, True]
        assert lab.got[-1] == ENDED
        assert not await store.exists(code)  # not brought back
        await h.stop()

    run(body)


@pytest.fixture(params=["memory", "redis"])
def make_store(request: pytest.FixtureRequest) -> Callable[[], RoomStore]:
    if request.param == "memory":
        return lambda: MemoryStore(60.0)
    redis = request.getfixturevalue("redis_server")
    return lambda: RedisStore(redis.url, 60.0)


def test_store_restore(make_store: Callable[[], RoomStore]) -> None:
    async def body() -> None:
        s = make_store()
        try:
            await s.delete("RSTRQA")
            epoch = await s.epoch()
            assert epoch and await s.epoch() == epoch
            assert await s.restore("RSTRQA", {"lang": "en"}, {"seq": "4", "state": "x"})
            assert await s.fields("RSTRQA") == {"lang": "en"}
            assert await s.get("RSTRQA", "seq") == "4" and await s.get("RSTRQA", "state") == "x"
            assert await s.incr("RSTRQA", "seq") == 5
            # once there, it is not written over
            assert not await s.restore("RSTRQA", {}, {"seq": "1", "state": "y"})
            assert await s.get("RSTRQA", "state") == "x"
            await s.delete("RSTRQA")  # and it all goes at once
            assert await s.stored_keys("RSTRQA") == []
        finally:
            await s.close()

    run(body)
