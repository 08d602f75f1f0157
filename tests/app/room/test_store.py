"""The room store: the same behaviour from the in-process store and from a real Redis."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from app.room import store as store_mod
from app.room.state import ClassQuestion, kept_question, parse_message, state_message
from app.room.store import MemoryStore, RedisStore, RoomStore, StoreDown


@pytest.fixture(params=["memory", "redis"])
def make_store(request: pytest.FixtureRequest) -> Callable[..., RoomStore]:
    if request.param == "memory":
        return lambda ttl_s=60.0: MemoryStore(ttl_s)
    redis = request.getfixturevalue("redis_server")
    return lambda ttl_s=60.0: RedisStore(redis.url, ttl_s)


def run(make: Callable[..., RoomStore], body: Callable[[RoomStore], Awaitable[Any]],
        **kw: Any) -> Any:
    async def main() -> Any:
        s = make(**kw)
        try:
            return await body(s)
        finally:
            await s.close()

    return asyncio.run(main())


def test_room_values_hashes_and_delete(make_store: Callable[..., RoomStore]) -> None:
    async def body(s: RoomStore) -> None:
        await s.delete("ABCDEF")
        assert await s.create("ABCDEF", {"lang": "ko"})
        assert not await s.create("ABCDEF", {})
        assert await s.fields("ABCDEF") == {"lang": "ko"}
        assert await s.set("ABCDEF", "state", '{"seq": 1}')
        assert await s.get("ABCDEF", "state") == '{"seq": 1}'
        assert await s.incr("ABCDEF", "seq") == 1
        assert await s.incr("ABCDEF", "seq") == 2
        assert await s.hsetnx("ABCDEF", "answers:q1", "sid1", "0") is True
        assert await s.hsetnx("ABCDEF", "answers:q1", "sid1", "2") is False
        assert await s.hset("ABCDEF", "answers:q1", "sid2", "1")
        assert await s.hgetall("ABCDEF", "answers:q1") == {"sid1": "0", "sid2": "1"}
        assert await s.hdel("ABCDEF", "answers:q1", "sid2") is True
        await s.remove("ABCDEF", "seq")
        assert await s.get("ABCDEF", "seq") is None
        assert await s.stored_keys("ABCDEF")
        await s.delete("ABCDEF")
        assert not await s.exists("ABCDEF")
        assert await s.stored_keys("ABCDEF") == []
        # nothing is written into a room that is gone
        assert await s.set("ABCDEF", "state", "x") is None
        assert await s.hsetnx("ABCDEF", "answers:q1", "sid3", "0") is None
        assert await s.stored_keys("ABCDEF") == []
        assert await s.fields("ABCDEF") is None

    run(make_store, body)


def test_room_expires_without_activity(make_store: Callable[..., RoomStore]) -> None:
    async def body(s: RoomStore) -> None:
        await s.delete("EXPIRE")
        assert await s.create("EXPIRE", {})
        await s.set("EXPIRE", "state", "1")
        await asyncio.sleep(0.7)
        await s.set("EXPIRE", "other", "1")  # activity: the whole room lives on
        await asyncio.sleep(0.7)
        assert await s.get("EXPIRE", "state") == "1"
        await asyncio.sleep(1.6)
        assert not await s.exists("EXPIRE")
        assert await s.stored_keys("EXPIRE") == []

    run(make_store, body, ttl_s=1.2)


def test_publish_reaches_every_listener(make_store: Callable[..., RoomStore]) -> None:
    async def body(s: RoomStore) -> list[tuple[str, str]]:
        got: list[tuple[str, str]] = []
        # two processes on one Redis; two listeners in one process for the in-process store
        other = s if isinstance(s, MemoryStore) else make_store()

        async def listen(st: RoomStore) -> None:
            async for item in st.listen():
                if item[0]:  # ("", "") first: subscribed
                    got.append(item)

        tasks = [asyncio.create_task(listen(s)), asyncio.create_task(listen(other))]
        await asyncio.sleep(0.3)  # subscribed
        await s.publish("QWERTY", "hello")
        for _ in range(100):
            if len(got) >= 2:
                break
            await asyncio.sleep(0.02)
        for t in tasks:
            t.cancel()
            with contextlib.suppress(asyncio.CancelledError, StoreDown):
                await t
        if other is not s:
            await other.close()
        return got

    assert run(make_store, body) == [("QWERTY", "hello")] * 2


def test_redis_down_raises_store_down(redis_server: Any) -> None:
    async def body() -> None:
        s = RedisStore("unix:///nonexistent/dplab-redis.sock", 60)
        with pytest.raises(StoreDown):
            await s.ping()
        with pytest.raises(StoreDown):
            await s.set("ABCDEF", "x", "1")
        await s.close()

    asyncio.run(body())


def test_more_operations_than_connections_wait_instead_of_failing(
        redis_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """300 answers sent together once lost 25-31 of them: redis-py's default pool refused the
    101st concurrent operation (MaxConnectionsError). The store's pool is bounded and makes
    callers wait; only a wait longer than POOL_WAIT_S counts as the store being down."""
    monkeypatch.setattr(store_mod, "POOL_SIZE", 3)

    async def body() -> None:
        s = RedisStore(redis_server.url, 60)
        await s.delete("POOLED")
        assert await s.create("POOLED", {"lang": "ko"})
        got = await asyncio.gather(*(s.hsetnx("POOLED", "answers", f"s{i}", "1")
                                     for i in range(200)))
        assert got == [True] * 200
        assert len(await s.hgetall("POOLED", "answers")) == 200
        pool = s._redis.connection_pool
        assert pool.max_connections == 3
        assert len(pool._available_connections) + len(pool._in_use_connections) <= 3
        await s.delete("POOLED")
        await s.close()

    asyncio.run(body())

    # a pool that never frees a connection: the wait is bounded and ends in StoreDown
    monkeypatch.setattr(store_mod, "POOL_SIZE", 1)
    monkeypatch.setattr(store_mod, "POOL_WAIT_S", 0.2)

    async def held() -> None:
        s = RedisStore(redis_server.url, 60)
        conn = await s._redis.connection_pool.get_connection()
        with pytest.raises(StoreDown):
            await s.exists("POOLED")
        await s._redis.connection_pool.release(conn)
        await s.close()

    asyncio.run(held())


def test_open_store_and_ttl(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DPLAB_REDIS_URL", raising=False)
    monkeypatch.setenv("DPLAB_ROOM_TTL", "2h")
    s = store_mod.open_store()
    assert isinstance(s, MemoryStore) and s.ttl_s == 7200
    monkeypatch.setenv("DPLAB_ROOM_TTL", "90")
    assert store_mod.room_ttl() == 90
    monkeypatch.delenv("DPLAB_ROOM_TTL")
    assert store_mod.room_ttl() == 4 * 3600
    for bad in ("x", "-1", "0"):
        monkeypatch.setenv("DPLAB_ROOM_TTL", bad)
        with pytest.raises(ValueError):
            store_mod.room_ttl()
    assert isinstance(store_mod.open_store("redis://127.0.0.1:1/0", 5), RedisStore)


def test_publish_state_is_the_state_message_in_one_call(
        make_store: Callable[..., RoomStore]) -> None:
    """publish_state numbers, stores and publishes app/room/state.py's message byte for byte
    (Redis in one script), keeping the stored question by state.kept_question's rule."""
    tour_q = ClassQuestion(id="q1", kind="tour", ref="3", n=2, answer=1, revealed=False)
    quiz_q = ClassQuestion(id="q2", kind="quiz", ref="gaussian:q-pure", n=4, answer=None,
                           revealed=False)
    snap3 = {"lab": "q=sum&n=4&sigma=1.5", "tour": 3, "revealed": False}
    snap4 = {"lab": "q=mean&lang=ko&x=\"é,\\\"question\\\":", "tour": 4, "revealed": True}

    async def body(s: RoomStore) -> list[Any]:
        got: list[str] = []

        async def listen() -> None:
            async for code, text in s.listen():
                if code:
                    got.append(text)

        task = asyncio.create_task(listen())
        await asyncio.sleep(0.3)  # subscribed
        await s.delete("ZXCVBN")
        assert await s.create("ZXCVBN", {"lang": "ko"})
        out = [await s.publish_state("ZXCVBN", "t1", snap3, tour_q),
               await s.publish_state("ZXCVBN", "t1", snap3),          # keeps the tour question
               await s.publish_state("ZXCVBN", "t2", snap4),          # next step: drops it
               await s.publish_state("ZXCVBN", "t2", snap4, quiz_q),
               await s.publish_state("ZXCVBN", "t2", snap3)]          # a quiz question stays
        stored = await s.get("ZXCVBN", "state")
        for _ in range(100):
            if len(got) >= 5:
                break
            await asyncio.sleep(0.02)
        await s.delete("ZXCVBN")
        gone = await s.publish_state("ZXCVBN", "t1", snap3)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, StoreDown):
            await task
        return [out, stored, got, gone]

    out, stored, got, gone = run(make_store, body)
    expected = [state_message(1, "t1", snap3, tour_q), state_message(2, "t1", snap3, tour_q),
                state_message(3, "t2", snap4, None), state_message(4, "t2", snap4, quiz_q),
                state_message(5, "t2", snap3, quiz_q)]
    assert out == [(i + 1, m) for i, m in enumerate(expected)]
    assert stored == expected[-1]
    assert got == expected
    assert gone is None
    assert kept_question(parse_message(expected[1]), snap4) is None
