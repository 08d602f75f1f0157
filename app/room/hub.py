"""One per process: the room store, the listener that hands room messages to this process's
labs, and the room operations the pages use (create, publish, ask, reveal, answer, end).

A teacher's change reaches each process once (pub/sub) and each following lab on it through
its own document's next tick; the values a snapshot sets are computed once per process
(app/lab/follow.py). Each process writes how many of its labs are connected and following
every ``COUNT_EVERY_S`` (``workers`` hash of the room, one field per process); the room page
sums the fresh entries. When the store is lost every lab keeps working on its own, the links
say so, and the listener retries; once it is back each room's current state is fetched again.
A store that comes back after a restart has lost its rooms (persistence is off): each process
then writes back the rooms its labs are in, from the last state it holds (the first to do so
wins; the class question stays open, the answers given before are lost), and its labs follow
again. A room that no process can write back is ended for its labs after
``RESTORE_WAIT_S`` (another process may still hold it).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import resource
import secrets
import socket
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Literal, Protocol

from app.room import codes, roster
from app.room.records import Answer
from app.room.state import (
    ClassQuestion,
    RoomMessage,
    RoomState,
    ended_message,
    new_question,
    parse_message,
    state_message,
    tally,
)
from app.room.store import RoomStore, StoreDown, open_store

log = logging.getLogger("dplab.room")
COUNT_EVERY_S = 2.0
# benchmarks/real_followers.py: one log line per room message a process hands to its labs
# (when it arrived, how long the cards and the labs' callbacks took); off in production.
TIMING = os.environ.get("DPLAB_ROOM_TIMING") == "1"
# After a room message's cards, the rest for those labs (see ``_dispatch``).
AFTER_CARDS_S = float(os.environ.get("DPLAB_AFTER_CARDS_S", "0.05"))
timing_log = logging.getLogger("dplab.server.timing")  # (the server log's handler)
RETRY_MIN_S, RETRY_MAX_S = 0.5, 5.0
RESTORE_WAIT_S = 10.0


class Member(Protocol):
    """A lab in a room (app/room/link.py's RoomLink)."""

    code: str
    student: bool

    def deliver(self, msg: RoomMessage) -> None: ...

    def store_status(self, ok: bool) -> None: ...

    def counts(self) -> tuple[int, int]:
        """(connected, following) this member adds to the room's count."""
        ...


class RoomHub:
    def __init__(self, store: RoomStore) -> None:
        self.store = store
        self.worker = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
        self.members: dict[str, set[Member]] = {}
        self.latest: dict[str, RoomState] = {}  # code -> last state seen here
        self.ok = True
        self._tasks: list[asyncio.Task[None]] = []
        self._counted: set[str] = set()
        self._epoch: str | None = None  # the store's run id when last reached
        self._recovering: asyncio.Lock | None = None
        self._waiting: dict[str, asyncio.Task[None]] = {}  # rooms lost in a restart
        self._restarted_at: float | None = None  # time.monotonic() when a restart was seen
        # code -> what a teacher page on this process last read of the room (its poll, number
        # question, ledger, lock, ...; the records of app/room/records.py): written back or
        # named as lost after a store restart
        self.watched: dict[str, dict[str, Any]] = {}

    # ---- lifecycle -----------------------------------------------------------------------
    def start(self) -> None:
        """Start the listener and the count writer on the running loop (idempotent)."""
        if self._tasks and not all(t.done() for t in self._tasks):
            return
        loop = asyncio.get_event_loop()
        self._tasks = [loop.create_task(self._listen()), loop.create_task(self._count_loop())]

    async def stop(self) -> None:
        for t in self._tasks:
            t.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        self._tasks = []

    def _set_ok(self, ok: bool) -> None:
        if ok != self.ok:
            self.ok = ok
            log.warning("room store %s", "back" if ok else "lost: labs work on their own")
            for members in list(self.members.values()):
                for m in list(members):
                    m.store_status(ok)

    async def _listen(self) -> None:
        delay = RETRY_MIN_S
        lost = False
        while True:
            try:
                await self.store.ping()
                stream = self.store.listen()
                try:
                    async for code, text in stream:
                        if not code:  # subscribed again: fetch what was missed meanwhile
                            delay = RETRY_MIN_S
                            if lost or self._epoch is None:
                                lost = False
                                await self._recover()
                            continue
                        self._dispatch(code, text)
                finally:
                    with contextlib.suppress(Exception):
                        await stream.aclose()  # type: ignore[attr-defined]
            except StoreDown:
                lost = True
                self._set_ok(False)
                await asyncio.sleep(delay)
                delay = min(RETRY_MAX_S, delay * 2)
                continue
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("room listener failed; retrying", exc_info=True)
                await asyncio.sleep(delay)

    async def _recover(self) -> None:
        """The store answers (again): write back the rooms a restart lost, then every room
        with labs here gets its current state. One at a time (the listener and the count
        writer both notice)."""
        if self._recovering is None:
            self._recovering = asyncio.Lock()
        async with self._recovering:
            epoch = await self.store.epoch()
            restarted = self._epoch is not None and epoch != self._epoch
            first = self._epoch is None
            self._epoch = epoch
            if first and self.ok:
                return
            if restarted:
                self._restarted_at = time.monotonic()
                log.warning("room store restarted: writing back the rooms held here")
                for code in self._held():
                    await self._restore(code)
                    await self._note_lost(code)
            self._set_ok(True)
            await self._resync(restarted)

    async def _restore(self, code: str) -> bool:
        """Write room ``code`` back from the last state known here (False: nothing known, or
        the room is there already)."""
        msg = self.latest.get(code)
        if msg is None:
            return False
        return await self.store.restore(
            code, {"created": str(int(time.time())), "restored": "1"},
            {"seq": str(msg.seq), "state": msg.to_json()})

    def _held(self) -> list[str]:
        """Rooms this process writes back after a restart: those its labs are in and those a
        teacher page here has read within the room's lifetime."""
        now = time.monotonic()
        for code in [c for c, w in self.watched.items() if now - w["t"] > self.store.ttl_s]:
            del self.watched[code]
        return list(dict.fromkeys([*self.members, *self.watched]))

    def watch(self, code: str, **seen: Any) -> None:
        """A teacher page here read room ``code``: keep what it saw (``poll``, ``poll_n``,
        ``ask``, ``ask_n``, ``question_n``, ``release``, ``ledger``, ``past``, ``locked``,
        ``size``) for :meth:`_note_lost` after a store restart."""
        w = self.watched.setdefault(code, {})
        w.update(seen)
        w["t"] = time.monotonic()

    async def _note_lost(self, code: str) -> None:
        """After a restart wrote room ``code`` back (only its state message): put back what a
        teacher page here saw that is safe to repeat (the privacy ledger of central releases,
        the closed polls' published results, the room lock and class size), and name in the
        room's ``lost`` hash what cannot come back (the open poll and its answers, the number
        question and its values, the question's answers), each with what reopening it needs.
        The first process to write a field wins."""
        w = self.watched.get(code)
        if not w or not await self.store.exists(code):
            return
        at = json.dumps(time.time())
        msg = self.latest.get(code)
        q = msg.question if msg else None
        lost: dict[str, Any] = {}
        if w.get("poll") and await self.store.get(code, "poll") is None:
            lost["poll"] = {"poll": w["poll"].to_dict(), "n": int(w.get("poll_n") or 0)}
        if w.get("ask") and await self.store.get(code, "ask") is None:
            lost["ask"] = {"ask": w["ask"].to_dict(), "n": int(w.get("ask_n") or 0)}
        if w.get("release") and await self.store.get(code, "cdf") is None:
            lost["release"] = w["release"]
        if q and int(w.get("question_n") or 0) and w.get("question_id") == q.id:
            lost["question"] = {"id": q.id, "n": int(w["question_n"])}
        for name, value in lost.items():
            await self.store.hsetnx(code, "lost", name, json.dumps(value, ensure_ascii=False))
        if lost:
            await self.store.hsetnx(code, "lost", "at", at)
        # (these two were written back as json.dumps writes them, spaced: kept so)
        for sid, step in (w.get("ledger") or {}).items():
            await self.store.hsetnx(code, "ledger", sid,
                                    json.dumps(step.to_dict(), ensure_ascii=False))
        for pid, res in (w.get("past") or {}).items():
            await self.store.hsetnx(code, "polls", pid,
                                    json.dumps(res.to_dict(), ensure_ascii=False))
        if w.get("locked") and await self.store.get(code, "locked") is None:
            await roster.set_locked(self.store, code, True)
        if w.get("size") and await self.store.get(code, "size") is None:
            await roster.set_size(self.store, code, int(w["size"]))

    async def _resync(self, restarted: bool = False) -> None:
        """After the store came back: every room with labs here gets its current state."""
        for code in list(self.members):
            try:
                text = await self.store.get(code, "state")
                exists = await self.store.exists(code)
            except StoreDown:
                return
            if not exists:
                if restarted:  # another process may write it back
                    self._wait_for(code)
                else:
                    self._dispatch(code, ended_message())
            elif text:
                self._dispatch(code, text)

    def _wait_for(self, code: str) -> None:
        if code in self._waiting and not self._waiting[code].done():
            return

        async def wait() -> None:
            deadline = time.monotonic() + RESTORE_WAIT_S
            while time.monotonic() < deadline:
                await asyncio.sleep(RETRY_MIN_S)
                try:
                    if await self._restore(code) or await self.store.exists(code):
                        text = await self.store.get(code, "state")
                        if text:
                            self._dispatch(code, text)
                        return
                except StoreDown:
                    return  # the next recovery looks again
            self._dispatch(code, ended_message())

        self._waiting[code] = asyncio.get_event_loop().create_task(wait())

    async def check_restart(self) -> None:
        """A teacher page's read: when the store restarted since this process last reached it,
        recover now (write back and note what was lost) rather than at the next count tick.
        Raises :class:`StoreDown`."""
        if self._epoch is None:
            self._epoch = await self.store.epoch()
        elif await self.store.epoch() != self._epoch:
            await self._recover()

    async def being_restored(self, code: str) -> bool:
        """For a page that did not find room ``code``: True while the rooms lost in a store
        restart are being written back (the page says "retrying" instead of "no such room").
        Raises :class:`StoreDown`."""
        if self._epoch is not None and await self.store.epoch() != self._epoch:
            await self._recover()
        return (self._restarted_at is not None
                and time.monotonic() - self._restarted_at < RESTORE_WAIT_S)

    async def know_epoch(self) -> None:
        """Note the store's run id once (a process that only serves the room's pages, whose
        listener never ran, can then tell a restart). Raises :class:`StoreDown`."""
        if self._epoch is None:
            self._epoch = await self.store.epoch()

    def _dispatch(self, code: str, text: str) -> None:
        msg = parse_message(text)
        if msg is None:
            return
        if isinstance(msg, RoomState):
            old = self.latest.get(code)
            if old is not None and old.seq > msg.seq:
                return
            self.latest[code] = msg
        else:
            self.latest.pop(code, None)
        members = list(self.members.get(code, ()))
        t0, w0, c0 = time.perf_counter(), time.time(), time.thread_time()
        g0 = _collections() if TIMING else 0
        r0 = resource.getrusage(resource.RUSAGE_THREAD) if TIMING else None
        # Two passes: every following lab's card goes out over its channel first (a few µs
        # each), then each lab's document takes the message (a Bokeh callback each, ~10x
        # that): with 150 followers the last card no longer waits behind 149 callbacks.
        carded = []
        for m in members:
            first = getattr(m, "push_card", None)
            try:
                if first is not None and first(msg):
                    carded.append(m)
            except Exception:
                log.warning("room: a lab's card could not be sent", exc_info=True)
        t1, c1 = time.perf_counter(), time.thread_time()
        g1 = _collections() if TIMING else 0
        r1 = resource.getrusage(resource.RUSAGE_THREAD) if TIMING else None
        # The rest, for the labs whose card went, a moment later: in that moment the balancer,
        # the network and the students' devices take the cards (on a 2-core machine they
        # share the cores with the workers: a card pass of 156 labs took 9 ms of CPU and
        # 44 ms of wall time while the views and callbacks went at once;
        # benchmarks/real_followers.py's worker stages). Every other lab takes it now.
        done = set(carded)
        now = [m for m in members if m not in done] if carded else members
        if carded:
            try:
                asyncio.get_running_loop().call_later(AFTER_CARDS_S, self._after_cards, carded,
                                                      msg)
            except RuntimeError:  # (no loop: a test calling in directly)
                self._after_cards(carded, msg)
        for m in now:
            try:
                m.deliver(msg)
            except Exception:
                log.warning("room: a lab could not take the room's state", exc_info=True)
        if TIMING:
            # (cards' CPU below their wall time: the worker waited for a core; collections:
            # the garbage collector ran inside the cards' pass)
            timing_log.info("room timing: pid %d seq %s members %d received %.6f cards %.2f ms "
                            "delivered %.2f ms cards_cpu %.2f ms collections %d switches %d/%d",
                            os.getpid(), getattr(msg, "seq", None), len(members), w0,
                            1e3 * (t1 - t0),
                            1e3 * (time.perf_counter() - t0), 1e3 * (c1 - c0), g1 - g0,
                            r1.ru_nvcsw - r0.ru_nvcsw if r0 and r1 else 0,
                            r1.ru_nivcsw - r0.ru_nivcsw if r0 and r1 else 0)

    @staticmethod
    def _after_cards(members: list[Any], msg: RoomMessage) -> None:
        """The views (one frame each) and then each lab's own document, after the cards."""
        for m in members:
            try:
                m.push_views()
            except Exception:
                log.warning("room: a lab's views could not be sent", exc_info=True)
        for m in members:
            try:
                m.deliver(msg)
            except Exception:
                log.warning("room: a lab could not take the room's state", exc_info=True)

    async def _count_loop(self) -> None:
        while True:
            await asyncio.sleep(COUNT_EVERY_S)
            try:
                await self.ping_ok()
                await self.write_counts()
            except StoreDown:
                self._set_ok(False)
            except Exception:
                log.warning("room counts not written", exc_info=True)

    async def ping_ok(self) -> None:
        """Reach the store; recover when it was lost or has restarted meanwhile."""
        epoch = await self.store.epoch()
        if not self.ok or (self._epoch is not None and epoch != self._epoch):
            await self._recover()

    async def write_counts(self) -> None:
        now = time.time()
        for code in set(self.members) | self._counted:
            members = self.members.get(code, set())
            c = f = 0
            for m in members:
                if m.student:
                    mc, mf = m.counts()
                    c, f = c + mc, f + mf
            if members:
                self._counted.add(code)
                await self.store.hset(code, "workers", self.worker,
                                      json.dumps({"c": c, "f": f, "t": now}))
            else:
                self._counted.discard(code)
                await self.store.hdel(code, "workers", self.worker)

    # ---- members ---------------------------------------------------------------------------
    def connected_here(self) -> bool:
        """A lab of a live room is open on this worker (a closed tab stays a member until
        Bokeh discards its session, up to two minutes later, but receives nothing)."""
        return any(m.counts()[0] for ms in list(self.members.values()) for m in list(ms))

    def join(self, member: Member) -> RoomState | None:
        """Add a lab to its room; returns the room's last state known here (or None)."""
        self.start()
        self.members.setdefault(member.code, set()).add(member)
        return self.latest.get(member.code)

    def leave(self, member: Member) -> None:
        ms = self.members.get(member.code)
        if ms is not None:
            ms.discard(member)
            if not ms:
                del self.members[member.code]

    # ---- room operations (teacher) -------------------------------------------------------
    async def create_room(self, lang: str = "ko") -> str:
        for _ in range(20):
            code = codes.new_code()
            if await self.store.create(code, {"created": str(int(time.time())), "lang": lang}):
                await self.store.set(code, "state", state_message(0, "room", _empty_snap(),
                                                                  None))
                return code
        raise RuntimeError("no free room code after 20 tries")

    async def room_state(self, code: str) -> RoomState | None:
        """The room's current state (None: no such room)."""
        msg = RoomState.from_json(await self.store.get(code, "state"))
        if msg is None:
            return None
        if code in self.members or code in self.watched:  # written back after a restart
            old = self.latest.get(code)
            if old is None or old.seq <= msg.seq:
                self.latest[code] = msg
        return msg

    async def publish(self, code: str, snap: Mapping[str, Any], origin: str,
                      question: ClassQuestion | Literal["keep"] | None = "keep") -> int | None:
        """Make ``snap`` the room's state (and ``question``, unless "keep"); every lab of the
        room shows it. Returns the new sequence number, None when the room is gone."""
        # one round trip with Redis: numbered, stored and published at once (a tour question
        # belongs to its step: state.kept_question)
        r = await self.store.publish_state(code, origin, snap, question)
        return None if r is None else r[0]

    async def ask(self, code: str, kind: str, ref: str, n_options: int,
                  answer: int | None) -> ClassQuestion | None:
        """Open a class question; a tour question also conceals the card for everyone."""
        cur = await self.room_state(code)
        if cur is None:
            return None
        q = new_question(kind, ref, n_options, answer)
        snap = dict(cur.snap)
        if kind == "tour":
            snap.update(tour=int(ref), revealed=False)
        await self.publish(code, snap, "room", q)
        return q

    async def reveal(self, code: str) -> bool:
        cur = await self.room_state(code)
        if cur is None:
            return False
        snap = {**cur.snap, "revealed": True}
        q = replace(cur.question, revealed=True) if cur.question else None
        return await self.publish(code, snap, "room", q) is not None

    async def start_tour(self, code: str, step: int = 1) -> bool:
        cur = await self.room_state(code)
        if cur is None:
            return False
        import lessons

        steps = lessons.tour("ko")
        step = max(1, min(len(steps), step))
        lab = {**steps[step - 1].lab}
        snap = {"lab": lab, "tour": step, "revealed": steps[step - 1].predict is None}
        return await self.publish(code, snap, "room", None) is not None

    async def answer(self, code: str, qid: str, student: str, option: int) -> tuple[str, int]:
        """Record one answer per student (app/room/roster.py: "ok", "already", "full" or
        "gone") and the option on record for them (-1: none)."""
        r = await roster.add_answer(self.store, code, f"answers:{qid}", student,
                                    Answer(int(option)).to_json())
        if r == "ok":
            return r, int(option)
        held = Answer.from_json((await self.store.hgetall(code, f"answers:{qid}")).get(student))
        return r, held.option if held else -1

    async def counts_of(self, code: str, question: ClassQuestion) -> list[int]:
        return tally(await self.store.hgetall(code, f"answers:{question.id}"), question.n)

    async def end(self, code: str) -> None:
        """End the class: everything of the room is deleted at once, the labs are told."""
        await self.store.delete(code)
        await self.store.publish(code, ended_message())


def _empty_snap() -> dict[str, Any]:
    return {"lab": {}, "tour": 0, "revealed": True}


_HUB: list[RoomHub] = []


def _collections() -> int:
    import gc

    return sum(int(g["collections"]) for g in gc.get_stats())


def get_hub() -> RoomHub:
    """This process's hub (the store from ``DPLAB_REDIS_URL``, else in-process)."""
    if not _HUB:
        _HUB.append(RoomHub(open_store()))
    return _HUB[0]


def set_hub(hub: RoomHub | None) -> None:
    """Tests: use ``hub`` (None: make a new one from the environment next time)."""
    _HUB.clear()
    if hub is not None:
        _HUB.append(hub)
