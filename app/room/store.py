"""Where rooms live: Redis in production, an in-process store for ``make serve``; one interface.

A room is a few named values and hashes under one code, all with the same lifetime: every
write extends the whole room to ``ttl_s`` (``DPLAB_ROOM_TTL``, default 4 h) and a room nobody
writes to disappears by itself. :meth:`RoomStore.delete` removes everything of a room at once.
Writes to a room that does not exist (ended, expired) change nothing and return ``None``.
Messages published to a room reach every process listening (:meth:`RoomStore.listen`).

Redis keys (persistence is off where serve-prod starts Redis: nothing reaches the disk)::

    dplab:room:{CODE}           hash: the room's own fields (created, ...): the room is open
    dplab:room:{CODE}:keys      set: every other key of the room (so delete/expire find them)
    dplab:room:{CODE}:<name>    a value (state, question, ...) or a hash (answers:<id>, workers)
    dplab:room:{CODE}:events    pub/sub channel

Names are plain strings chosen by the callers (the polls add their own: ``poll``, ``values``, …).
A lost Redis raises :class:`StoreDown` from any call; callers keep the page working and retry.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from app.room.state import ClassQuestion

DEFAULT_TTL_S = 4 * 3600.0
ENV_URL = "DPLAB_REDIS_URL"
ENV_TTL = "DPLAB_ROOM_TTL"
PREFIX = "dplab:room:"


class StoreDown(RuntimeError):
    """The store cannot be reached (Redis stopped, network lost)."""


def room_ttl() -> float:
    """``DPLAB_ROOM_TTL`` in seconds (plain number, or with s/m/h), default 4 h."""
    raw = os.environ.get(ENV_TTL, "").strip().lower()
    if not raw:
        return DEFAULT_TTL_S
    scale = {"s": 1, "m": 60, "h": 3600}.get(raw[-1], 0)
    try:
        value = float(raw[:-1]) * scale if scale else float(raw)
    except ValueError as exc:
        raise ValueError(f"{ENV_TTL} must be seconds (e.g. 14400 or 4h), got {raw!r}") from exc
    if not value > 0:
        raise ValueError(f"{ENV_TTL} must be positive, got {raw!r}")
    return value


class RoomStore(ABC):
    """The small interface both stores implement (tests run each against both)."""

    def __init__(self, ttl_s: float | None = None) -> None:
        self.ttl_s = float(ttl_s) if ttl_s is not None else room_ttl()

    kind = "abstract"

    @abstractmethod
    async def create(self, code: str, fields: Mapping[str, str]) -> bool:
        """Open room ``code`` with its own fields; False when the code is in use."""

    @abstractmethod
    async def exists(self, code: str) -> bool: ...

    @abstractmethod
    async def fields(self, code: str) -> dict[str, str] | None:
        """The room's own fields (given to :meth:`create`), None when there is no such room."""

    @abstractmethod
    async def get(self, code: str, name: str) -> str | None: ...

    @abstractmethod
    async def set(self, code: str, name: str, value: str) -> bool | None:
        """Store a value; None (nothing stored) when the room does not exist."""

    @abstractmethod
    async def incr(self, code: str, name: str) -> int | None: ...

    @abstractmethod
    async def hset(self, code: str, name: str, field: str, value: str) -> bool | None: ...

    @abstractmethod
    async def hsetnx(self, code: str, name: str, field: str, value: str) -> bool | None:
        """Set ``field`` only if it is not set yet: True if set, False if it was already."""

    @abstractmethod
    async def hdel(self, code: str, name: str, field: str) -> bool | None: ...

    @abstractmethod
    async def hgetall(self, code: str, name: str) -> dict[str, str]: ...

    @abstractmethod
    async def remove(self, code: str, name: str) -> None:
        """Drop one named value or hash of the room."""

    @abstractmethod
    async def touch(self, code: str) -> bool:
        """Extend the whole room to ``ttl_s``; False when it does not exist."""

    @abstractmethod
    async def delete(self, code: str) -> None:
        """Remove everything of the room at once."""

    @abstractmethod
    async def stored_keys(self, code: str) -> list[str]:
        """Every key that holds something of the room (tests: nothing left after delete)."""

    @abstractmethod
    async def publish(self, code: str, message: str) -> None: ...

    async def publish_state(self, code: str, origin: str, snap: Mapping[str, Any],
                            question: ClassQuestion | Literal["keep"] | None = "keep"
                            ) -> tuple[int, str] | None:
        """Number, store and publish a new state of the room (app/room/state.py's message; the
        question kept from the stored state unless given): ``(seq, message)``, None when the
        room is gone. RedisStore does it in one round trip, so the class hears of a move as
        soon as the teacher's worker sends it."""
        from app.room.state import kept_question, parse_message, state_message

        if isinstance(question, str):  # "keep"
            question = kept_question(parse_message(await self.get(code, "state")), snap)
        seq = await self.incr(code, "seq")
        if seq is None:
            return None
        text = state_message(seq, origin, snap, question)
        await self.set(code, "state", text)
        await self.publish(code, text)
        return seq, text

    @abstractmethod
    def listen(self) -> AsyncIterator[tuple[str, str]]:
        """(code, message) of every room's messages, until the connection is lost
        (:class:`StoreDown`) or the iterator is closed; first ``("", "")`` once subscribed
        (from then on nothing published is missed)."""

    @abstractmethod
    async def ping(self) -> None:
        """Raise :class:`StoreDown` when the store cannot be reached."""

    @abstractmethod
    async def epoch(self) -> str:
        """An id of this run of the store: it changes when the store restarted (and, with
        persistence off, lost every room), not when it only stopped answering for a while."""

    @abstractmethod
    async def restore(self, code: str, fields: Mapping[str, str],
                      values: Mapping[str, str]) -> bool:
        """Open room ``code`` again with its own fields and named values (what a lab that
        held the room knows of it), unless it exists: True when this call restored it."""

    async def close(self) -> None:  # noqa: B027 (optional)
        """Release connections."""


# ---------------------------------------------------------------------------------------------
# in-process


class MemoryStore(RoomStore):
    """One process's rooms in a dict (``make serve``); expiry checked on every access."""

    kind = "memory"

    def __init__(self, ttl_s: float | None = None, clock: Any = time.monotonic) -> None:
        super().__init__(ttl_s)
        self._clock = clock
        self._rooms: dict[str, dict[str, Any]] = {}
        self._expires: dict[str, float] = {}
        self._listeners: set[asyncio.Queue[tuple[str, str]]] = set()
        self._epoch = secrets.token_hex(8)

    def _room(self, code: str) -> dict[str, Any] | None:
        exp = self._expires.get(code)
        if exp is None:
            return None
        if exp <= self._clock():
            self._rooms.pop(code, None)
            self._expires.pop(code, None)
            return None
        return self._rooms[code]

    def _write(self, code: str) -> dict[str, Any] | None:
        room = self._room(code)
        if room is not None:
            self._expires[code] = self._clock() + self.ttl_s
        return room

    def sweep(self) -> None:
        """Forget expired rooms now (they are also forgotten when next looked at)."""
        for code in list(self._expires):
            self._room(code)

    async def create(self, code: str, fields: Mapping[str, str]) -> bool:
        if self._room(code) is not None:
            return False
        self.sweep()
        self._rooms[code] = {"": dict(fields)}
        self._expires[code] = self._clock() + self.ttl_s
        return True

    async def exists(self, code: str) -> bool:
        return self._room(code) is not None

    async def fields(self, code: str) -> dict[str, str] | None:
        room = self._room(code)
        return None if room is None else dict(room[""])

    async def get(self, code: str, name: str) -> str | None:
        room = self._room(code)
        v = None if room is None else room.get(f"v:{name}")
        return v if isinstance(v, str) else None

    async def set(self, code: str, name: str, value: str) -> bool | None:
        room = self._write(code)
        if room is None:
            return None
        room[f"v:{name}"] = str(value)
        return True

    async def incr(self, code: str, name: str) -> int | None:
        room = self._write(code)
        if room is None:
            return None
        n = int(room.get(f"v:{name}", "0")) + 1
        room[f"v:{name}"] = str(n)
        return n

    def _hash(self, code: str, name: str, write: bool) -> dict[str, str] | None:
        room = self._write(code) if write else self._room(code)
        if room is None:
            return None
        h = room.get(f"h:{name}")
        if h is None:
            if not write:
                return {}
            h = room[f"h:{name}"] = {}
        return h

    async def hset(self, code: str, name: str, field: str, value: str) -> bool | None:
        h = self._hash(code, name, True)
        if h is None:
            return None
        h[field] = str(value)
        return True

    async def hsetnx(self, code: str, name: str, field: str, value: str) -> bool | None:
        h = self._hash(code, name, True)
        if h is None:
            return None
        if field in h:
            return False
        h[field] = str(value)
        return True

    async def hdel(self, code: str, name: str, field: str) -> bool | None:
        h = self._hash(code, name, True)
        if h is None:
            return None
        return h.pop(field, None) is not None

    async def hgetall(self, code: str, name: str) -> dict[str, str]:
        return dict(self._hash(code, name, False) or {})

    async def remove(self, code: str, name: str) -> None:
        room = self._write(code)
        if room is not None:
            room.pop(f"v:{name}", None)
            room.pop(f"h:{name}", None)

    async def touch(self, code: str) -> bool:
        return self._write(code) is not None

    async def delete(self, code: str) -> None:
        self._rooms.pop(code, None)
        self._expires.pop(code, None)

    async def stored_keys(self, code: str) -> list[str]:
        room = self._room(code)
        return [] if room is None else [f"{PREFIX}{{{code}}}", *(k for k in room if k)]

    async def publish(self, code: str, message: str) -> None:
        for q in list(self._listeners):
            q.put_nowait((code, message))

    async def listen(self) -> AsyncIterator[tuple[str, str]]:
        q: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._listeners.add(q)
        try:
            yield "", ""
            while True:
                yield await q.get()
        finally:
            self._listeners.discard(q)

    async def ping(self) -> None:
        return None

    async def epoch(self) -> str:
        return self._epoch

    async def restore(self, code: str, fields: Mapping[str, str],
                      values: Mapping[str, str]) -> bool:
        if not await self.create(code, fields):
            return False
        for name, value in values.items():
            await self.set(code, name, value)
        return True

    def restart(self) -> None:
        """Tests: what a restarted store without persistence is (no rooms, a new epoch)."""
        self._rooms.clear()
        self._expires.clear()
        self._epoch = secrets.token_hex(8)


# ---------------------------------------------------------------------------------------------
# Redis

# Every write: only while the room exists; then the whole room lives ttl seconds more.
# KEYS: room hash, key set, target key; ARGV: op, ttl, field/value, value
_WRITE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return {0} end
local op, ttl = ARGV[1], tonumber(ARGV[2])
local r = 1
if op == 'set' then redis.call('SET', KEYS[3], ARGV[3])
elseif op == 'incr' then r = redis.call('INCR', KEYS[3])
elseif op == 'hset' then redis.call('HSET', KEYS[3], ARGV[3], ARGV[4])
elseif op == 'hsetnx' then r = redis.call('HSETNX', KEYS[3], ARGV[3], ARGV[4])
elseif op == 'hdel' then r = redis.call('HDEL', KEYS[3], ARGV[3])
elseif op == 'del' then redis.call('DEL', KEYS[3]); redis.call('SREM', KEYS[2], KEYS[3])
elseif op == 'touch' then r = 1
end
if op ~= 'del' and op ~= 'touch' then redis.call('SADD', KEYS[2], KEYS[3]) end
for _, k in ipairs(redis.call('SMEMBERS', KEYS[2])) do redis.call('EXPIRE', k, ttl) end
redis.call('EXPIRE', KEYS[2], ttl)
redis.call('EXPIRE', KEYS[1], ttl)
return {1, r}
"""
# One new room state (RoomStore.publish_state) in one round trip. KEYS: room hash, key set,
# state, seq; ARGV: ttl, channel, origin (JSON), snap (JSON), the snapshot's tour step, "keep"
# or the question (JSON). The message is app/room/state.py's state_message byte for byte; a
# kept question is the stored message's own text after its last field's name (kept_question's
# rule, read with cjson).
_PUBLISH_STATE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return {0} end
local ttl = tonumber(ARGV[1])
local q = ARGV[6]
if q == 'keep' then
  q = 'null'
  local cur = redis.call('GET', KEYS[3])
  if cur then
    local i = string.find(cur, ',"question":', 1, true)
    if i then
      local raw = string.sub(cur, i + 12, -2)
      local ok, obj = pcall(cjson.decode, raw)
      if ok and type(obj) == 'table' then
        if obj.kind ~= 'tour' or tostring(obj.ref) == ARGV[5] then q = raw end
      end
    end
  end
end
local seq = redis.call('INCR', KEYS[4])
local msg = '{"type":"state","seq":' .. seq .. ',"origin":' .. ARGV[3] .. ',"snap":' ..
  ARGV[4] .. ',"question":' .. q .. '}'
redis.call('SET', KEYS[3], msg)
redis.call('SADD', KEYS[2], KEYS[3], KEYS[4])
for _, k in ipairs(redis.call('SMEMBERS', KEYS[2])) do redis.call('EXPIRE', k, ttl) end
redis.call('EXPIRE', KEYS[2], ttl)
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('PUBLISH', ARGV[2], msg)
return {1, seq, msg}
"""
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[1]))
return 1
"""
# KEYS: room hash, key set, then one key per value; ARGV: ttl, number of field pairs, the
# fields' names and values, then the values (in the order of their keys)
_RESTORE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local ttl, nf = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[1], unpack(ARGV, 3, 2 + 2 * nf))
redis.call('EXPIRE', KEYS[1], ttl)
for i = 3, #KEYS do
  redis.call('SET', KEYS[i], ARGV[2 + 2 * nf + i - 2], 'EX', ttl)
  redis.call('SADD', KEYS[2], KEYS[i])
end
if #KEYS > 2 then redis.call('EXPIRE', KEYS[2], ttl) end
return 1
"""
_DELETE = """
for _, k in ipairs(redis.call('SMEMBERS', KEYS[2])) do redis.call('DEL', k) end
redis.call('DEL', KEYS[2], KEYS[1])
return 1
"""


POOL_SIZE = 48  # Redis connections per worker, pub/sub included
POOL_WAIT_S = 10.0  # how long an operation waits for one before the store counts as down


class RedisStore(RoomStore):
    """Rooms in Redis (``DPLAB_REDIS_URL``, e.g. ``redis://127.0.0.1:6379/0`` or
    ``unix:///run/dplab/redis.sock``), redis-py's asyncio client, pub/sub for the messages."""

    kind = "redis"

    def __init__(self, url: str, ttl_s: float | None = None) -> None:
        super().__init__(ttl_s)
        import redis.asyncio as aioredis

        self.url = url
        # A bounded pool whose callers wait for a free connection: redis-py's default pool
        # refuses the 101st operation at once (MaxConnectionsError), which lost 25-31 of 300
        # answers sent together (benchmarks/poll_load.py, 2026-12-07). Queued operations take
        # a few ms each, so waiting beats refusing; the wait is capped so a dead store still
        # answers 503 in bounded time.
        pool = aioredis.BlockingConnectionPool.from_url(
            url, decode_responses=True, socket_timeout=3, socket_connect_timeout=2,
            health_check_interval=10, max_connections=POOL_SIZE, timeout=POOL_WAIT_S)
        self._redis = aioredis.Redis(connection_pool=pool)
        self._write_script = self._redis.register_script(_WRITE)
        self._create_script = self._redis.register_script(_CREATE)
        self._delete_script = self._redis.register_script(_DELETE)
        self._restore_script = self._redis.register_script(_RESTORE)
        self._publish_state_script = self._redis.register_script(_PUBLISH_STATE)

    @staticmethod
    def _k(code: str, name: str = "") -> str:
        base = f"{PREFIX}{{{code}}}"
        return f"{base}:{name}" if name else base

    async def _call(self, coro: Any) -> Any:
        import redis.exceptions as rexc

        try:
            return await coro
        except (rexc.ConnectionError, rexc.TimeoutError, OSError) as exc:
            raise StoreDown(str(exc) or type(exc).__name__) from exc

    async def _w(self, code: str, op: str, name: str, *args: str) -> Any:
        keys = [self._k(code), self._k(code, "keys"), self._k(code, name)]
        r = await self._call(self._write_script(keys=keys,
                                                args=[op, int(self.ttl_s), *args]))
        return None if not r or int(r[0]) == 0 else int(r[1])

    async def create(self, code: str, fields: Mapping[str, str]) -> bool:
        flat: list[str] = []
        for k, v in {"open": "1", **fields}.items():
            flat += [str(k), str(v)]
        r = await self._call(self._create_script(
            keys=[self._k(code), self._k(code, "keys")], args=[int(self.ttl_s), *flat]))
        return bool(int(r))

    async def exists(self, code: str) -> bool:
        return bool(await self._call(self._redis.exists(self._k(code))))

    async def fields(self, code: str) -> dict[str, str] | None:
        h = await self._call(self._redis.hgetall(self._k(code)))
        if not h:
            return None
        h.pop("open", None)
        return dict(h)

    async def get(self, code: str, name: str) -> str | None:
        v = await self._call(self._redis.get(self._k(code, name)))
        return None if v is None else str(v)

    async def set(self, code: str, name: str, value: str) -> bool | None:
        r = await self._w(code, "set", name, str(value))
        return None if r is None else True

    async def incr(self, code: str, name: str) -> int | None:
        r = await self._w(code, "incr", name)
        return None if r is None else int(r)

    async def hset(self, code: str, name: str, field: str, value: str) -> bool | None:
        r = await self._w(code, "hset", name, field, str(value))
        return None if r is None else True

    async def hsetnx(self, code: str, name: str, field: str, value: str) -> bool | None:
        r = await self._w(code, "hsetnx", name, field, str(value))
        return None if r is None else bool(r)

    async def hdel(self, code: str, name: str, field: str) -> bool | None:
        r = await self._w(code, "hdel", name, field)
        return None if r is None else bool(r)

    async def hgetall(self, code: str, name: str) -> dict[str, str]:
        return dict(await self._call(self._redis.hgetall(self._k(code, name))))

    async def remove(self, code: str, name: str) -> None:
        await self._w(code, "del", name)

    async def touch(self, code: str) -> bool:
        return await self._w(code, "touch", "keys") is not None

    async def delete(self, code: str) -> None:
        await self._call(self._delete_script(keys=[self._k(code), self._k(code, "keys")]))

    async def stored_keys(self, code: str) -> list[str]:
        found: list[str] = []
        async for k in self._redis.scan_iter(match=f"{PREFIX}{{{code}}}*"):
            found.append(str(k))
        return found

    async def publish(self, code: str, message: str) -> None:
        await self._call(self._redis.publish(self._k(code, "events"), message))

    async def publish_state(self, code: str, origin: str, snap: Mapping[str, Any],
                            question: ClassQuestion | Literal["keep"] | None = "keep"
                            ) -> tuple[int, str] | None:
        def js(v: Any) -> str:  # as state_message writes each part
            return json.dumps(v, separators=(",", ":"), ensure_ascii=False)

        q = "keep" if isinstance(question, str) else js(question.to_dict() if question else None)
        keys = [self._k(code), self._k(code, "keys"), self._k(code, "state"),
                self._k(code, "seq")]
        r = await self._call(self._publish_state_script(keys=keys, args=[
            int(self.ttl_s), self._k(code, "events"), js(origin), js(dict(snap)),
            str(snap.get("tour")), q]))
        if not r or int(r[0]) == 0:
            return None
        return int(r[1]), str(r[2])

    async def listen(self) -> AsyncIterator[tuple[str, str]]:
        import redis.exceptions as rexc

        pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
        try:
            await self._call(pubsub.psubscribe(f"{PREFIX}{{*}}:events"))
            yield "", ""
            while True:
                try:
                    msg = await pubsub.get_message(timeout=5.0)
                except (rexc.ConnectionError, rexc.TimeoutError, OSError) as exc:
                    raise StoreDown(str(exc) or type(exc).__name__) from exc
                if msg is None:
                    await self.ping()  # notices a Redis that went away while all was quiet
                    continue
                channel = str(msg.get("channel", ""))
                code = channel[len(PREFIX) + 1:].split("}", 1)[0]
                yield code, str(msg.get("data", ""))
        finally:
            try:
                await pubsub.aclose()
            except Exception:  # closing a broken connection
                pass

    async def ping(self) -> None:
        await self._call(self._redis.ping())

    async def epoch(self) -> str:
        info = await self._call(self._redis.info("server"))
        return str(info.get("run_id", ""))

    async def restore(self, code: str, fields: Mapping[str, str],
                      values: Mapping[str, str]) -> bool:
        flat: list[str] = []
        for k, v in {"open": "1", **fields}.items():
            flat += [str(k), str(v)]
        keys = [self._k(code), self._k(code, "keys"), *(self._k(code, n) for n in values)]
        args: list[str | int] = [int(self.ttl_s), len(flat) // 2, *flat,
                                 *(str(v) for v in values.values())]
        return bool(int(await self._call(self._restore_script(keys=keys, args=args))))

    async def close(self) -> None:
        await self._redis.aclose()
        await self._redis.connection_pool.disconnect()  # a pool we made: the client leaves it open


def open_store(url: str | None = None, ttl_s: float | None = None) -> RoomStore:
    """``DPLAB_REDIS_URL`` (or ``url``) -> :class:`RedisStore`; unset -> :class:`MemoryStore`."""
    url = url if url is not None else os.environ.get(ENV_URL, "").strip()
    return RedisStore(url, ttl_s) if url else MemoryStore(ttl_s)
