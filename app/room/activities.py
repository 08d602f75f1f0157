"""The room's polls and the class's numbers in the room store (every name room-scoped, so
everything expires and is deleted with the room; nothing is written after it ended).

Names: ``poll`` (the current poll, JSON), ``polls`` (poll id -> its results once closed),
``pollans:<id>`` (a student's id, app/room/roster.py -> the option the browser sent: for a
local poll the randomized one, the true answer exists only in the student's browser), ``ask``
(the current number question), ``values:<id>`` (student id -> the number sent), ``cdf`` (the
latest release of the class's CDF, curves only), ``ledger`` (release id -> its ledger step).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from app.room import poll as P
from app.room import roster
from app.room.records import Answer, Ask, CdfRelease, Ledger, LedgerStep, Poll, PollResults
from app.room.store import RoomStore


async def current_poll(store: RoomStore, code: str) -> Poll | None:
    return Poll.from_json(await store.get(code, "poll"))


async def open_poll(store: RoomStore, code: str, poll: Poll) -> bool:
    """Make ``poll`` the room's current poll (the previous one is closed first)."""
    await close_poll(store, code)
    return bool(await store.set(code, "poll", poll.to_json()))


async def close_poll(store: RoomStore, code: str) -> Poll | None:
    """Close the current poll; a central poll releases its noisy counts now, once."""
    poll = await current_poll(store, code)
    if poll is None or not poll.open:
        return poll
    answers = await store.hgetall(code, f"pollans:{poll.id}")
    poll = dataclasses.replace(poll, open=False)
    if not poll.local:
        counts = P.tally(answers, poll.k)
        if sum(counts):
            rel = P.central_release(counts, poll.eps, poll.delta or P.DEFAULT_DELTA, poll.mech)
            poll = dataclasses.replace(poll, released=rel)
            step = P.central_step(rel)
            await store.hset(code, "ledger", poll.id, LedgerStep(
                step.eps, step.delta, step.mu, what="poll", method=rel.mech).to_json())
    await store.set(code, "poll", poll.to_json())
    await store.hset(code, "polls", poll.id, P.results(poll, answers).to_json())
    return poll


async def answer_poll(store: RoomStore, code: str, poll_id: str, sid: str,
                      sent: Any) -> str:
    """"ok", "closed", "already", "bad" or "gone" (the room ended)."""
    poll = await current_poll(store, code)
    if poll is None:
        return "gone" if not await store.exists(code) else "closed"
    if poll.id != poll_id or not poll.open:
        return "closed"
    k = P.option_index(poll, sent)
    if k is None:
        return "bad"
    return await roster.add_answer(store, code, f"pollans:{poll_id}", sid, Answer(k).to_json())


async def sent_answer(store: RoomStore, code: str, poll_id: str, sid: str) -> Any:
    """What student ``sid`` sent to poll ``poll_id`` (as their browser sent it: "yes"/"no" or
    the option), or None: the randomized report of a local poll, the answer of a central one
    (their own, shown back)."""
    poll = await current_poll(store, code)
    answer = Answer.from_json((await store.hgetall(code, f"pollans:{poll_id}")).get(sid))
    if poll is None or answer is None:
        return None
    return poll.poll_kind.sent(answer.option)


async def poll_results(store: RoomStore, code: str) -> PollResults | None:
    poll = await current_poll(store, code)
    if poll is None:
        return None
    return P.results(poll, await store.hgetall(code, f"pollans:{poll.id}"))


async def past_polls(store: RoomStore, code: str) -> list[PollResults]:
    out = []
    for text in (await store.hgetall(code, "polls")).values():
        res = PollResults.from_json(text)
        if res is not None:
            out.append(res)
    return out


# ---- the class's numbers -----------------------------------------------------------------------
async def current_ask(store: RoomStore, code: str) -> Ask | None:
    return Ask.from_json(await store.get(code, "ask"))


async def open_ask(store: RoomStore, code: str, ask: Ask) -> bool:
    old = await current_ask(store, code)
    if old is not None:
        await store.remove(code, f"values:{old.id}")
    await store.remove(code, "cdf")
    return bool(await store.set(code, "ask", ask.to_json()))


async def close_ask(store: RoomStore, code: str) -> None:
    ask = await current_ask(store, code)
    if ask is not None and ask.open:
        await store.set(code, "ask", dataclasses.replace(ask, open=False).to_json())


async def send_value(store: RoomStore, code: str, ask_id: str, sid: str, sent: Any) -> str:
    ask = await current_ask(store, code)
    if ask is None:
        return "gone" if not await store.exists(code) else "closed"
    if ask.id != ask_id or not ask.open:
        return "closed"
    x = P.parse_value(sent, ask.lo, ask.hi)
    if x is None:
        return "bad"
    return await roster.add_answer(store, code, f"values:{ask_id}", sid, repr(x))


async def values(store: RoomStore, code: str, ask_id: str) -> list[float]:
    return [float(v) for v in (await store.hgetall(code, f"values:{ask_id}")).values()]


async def release(store: RoomStore, code: str, eps: float, delta: float,
                  method: str) -> CdfRelease:
    """Release the class's CDF once, add it to the room's ledger, store the curves only."""
    ask = await current_ask(store, code)
    if ask is None:
        raise P.PollError("cdf", "poll.err.no_ask")
    vals = await values(store, code, ask.id)
    rel = P.release_cdf(vals, ask.lo, ask.hi, eps, delta, method)
    rel = dataclasses.replace(rel, ask=ask.id, released_at=time.time())
    await store.hset(code, "ledger", rel.id, dataclasses.replace(
        rel.step, what="cdf", method=method).to_json())
    await store.set(code, "cdf", rel.to_json())
    return rel


async def current_cdf(store: RoomStore, code: str) -> CdfRelease | None:
    return CdfRelease.from_json(await store.get(code, "cdf"))


async def ledger_steps(store: RoomStore, code: str) -> dict[str, LedgerStep]:
    """The room's ledger hash: release id -> its step (what is not a step is left out)."""
    out = {}
    for rid, text in (await store.hgetall(code, "ledger")).items():
        step = LedgerStep.from_json(text)
        if step is not None:
            out[rid] = step
    return out


async def ledger(store: RoomStore, code: str) -> Ledger:
    steps = list((await ledger_steps(store, code)).values())
    deltas = [s.delta for s in steps if s.mu is not None]
    read = max(deltas) if deltas else P.DEFAULT_DELTA
    return Ledger(**P.ledger(steps, read), read_delta=read, steps=tuple(steps))
