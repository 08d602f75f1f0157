"""The room's polls and the class's numbers in the room store (every name room-scoped, so
everything expires and is deleted with the room; nothing is written after it ended).

Names: ``poll`` (the current poll, JSON), ``polls`` (poll id -> its results once closed),
``pollans:<id>`` (a student's id, app/room/roster.py -> the option the browser sent: for a
local poll the randomized one, the true answer exists only in the student's browser), ``ask``
(the current number question), ``values:<id>`` (student id -> the number sent), ``cdf`` (the
latest release of the class's CDF, curves only), ``ledger`` (release id -> its ledger step).
"""

from __future__ import annotations

import json
import time
from typing import Any

from app.room import poll as P
from app.room import roster
from app.room.store import RoomStore


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


async def current_poll(store: RoomStore, code: str) -> dict[str, Any] | None:
    return P.parse_poll(await store.get(code, "poll"))


async def open_poll(store: RoomStore, code: str, poll: dict[str, Any]) -> bool:
    """Make ``poll`` the room's current poll (the previous one is closed first)."""
    await close_poll(store, code)
    return bool(await store.set(code, "poll", _dumps(poll)))


async def close_poll(store: RoomStore, code: str) -> dict[str, Any] | None:
    """Close the current poll; a central poll releases its noisy counts now, once."""
    poll = await current_poll(store, code)
    if poll is None or not poll.get("open"):
        return poll
    answers = await store.hgetall(code, f"pollans:{poll['id']}")
    poll["open"] = False
    if poll["model"] == "central":
        counts = P.tally(answers, int(poll["k"]))
        if sum(counts):
            rel = P.central_release(counts, float(poll["eps"]), float(poll["delta"]) or
                                    P.DEFAULT_DELTA, str(poll["mech"]))
            poll["released"] = rel
            step = P.central_step(rel)
            await store.hset(code, "ledger", poll["id"], _dumps(
                {"eps": step.eps, "delta": step.delta, "mu": step.mu, "what": "poll",
                 "method": rel["mech"]}))
    await store.set(code, "poll", _dumps(poll))
    await store.hset(code, "polls", poll["id"], _dumps(P.results(poll, answers)))
    return poll


async def answer_poll(store: RoomStore, code: str, poll_id: str, sid: str,
                      sent: Any) -> str:
    """"ok", "closed", "already", "bad" or "gone" (the room ended)."""
    poll = await current_poll(store, code)
    if poll is None:
        return "gone" if not await store.exists(code) else "closed"
    if poll["id"] != poll_id or not poll.get("open"):
        return "closed"
    k = P.option_index(poll, sent)
    if k is None:
        return "bad"
    return await roster.add_answer(store, code, f"pollans:{poll_id}", sid, str(k))


async def sent_answer(store: RoomStore, code: str, poll_id: str, sid: str) -> Any:
    """What student ``sid`` sent to poll ``poll_id`` ("yes"/"no" or the option), or None: the
    randomized report of a local poll, the answer of a central one (their own, shown back)."""
    poll = await current_poll(store, code)
    raw = (await store.hgetall(code, f"pollans:{poll_id}")).get(sid)
    if poll is None or raw is None or not raw.isdigit():
        return None
    k = int(raw)
    return ("yes", "no")[k] if poll["kind"] == "yesno" and k < 2 else k


async def poll_results(store: RoomStore, code: str) -> dict[str, Any] | None:
    poll = await current_poll(store, code)
    if poll is None:
        return None
    return P.results(poll, await store.hgetall(code, f"pollans:{poll['id']}"))


async def past_polls(store: RoomStore, code: str) -> list[dict[str, Any]]:
    out = []
    for text in (await store.hgetall(code, "polls")).values():
        try:
            out.append(json.loads(text))
        except ValueError:
            continue
    return out


# ---- the class's numbers -----------------------------------------------------------------------
async def current_ask(store: RoomStore, code: str) -> dict[str, Any] | None:
    return P.parse_poll(await store.get(code, "ask"))


async def open_ask(store: RoomStore, code: str, ask: dict[str, Any]) -> bool:
    old = await current_ask(store, code)
    if old is not None:
        await store.remove(code, f"values:{old['id']}")
    await store.remove(code, "cdf")
    return bool(await store.set(code, "ask", _dumps(ask)))


async def close_ask(store: RoomStore, code: str) -> None:
    ask = await current_ask(store, code)
    if ask is not None and ask.get("open"):
        ask["open"] = False
        await store.set(code, "ask", _dumps(ask))


async def send_value(store: RoomStore, code: str, ask_id: str, sid: str, sent: Any) -> str:
    ask = await current_ask(store, code)
    if ask is None:
        return "gone" if not await store.exists(code) else "closed"
    if ask["id"] != ask_id or not ask.get("open"):
        return "closed"
    x = P.parse_value(sent, float(ask["lo"]), float(ask["hi"]))
    if x is None:
        return "bad"
    return await roster.add_answer(store, code, f"values:{ask_id}", sid, repr(x))


async def values(store: RoomStore, code: str, ask_id: str) -> list[float]:
    return [float(v) for v in (await store.hgetall(code, f"values:{ask_id}")).values()]


async def release(store: RoomStore, code: str, eps: float, delta: float,
                  method: str) -> dict[str, Any]:
    """Release the class's CDF once, add it to the room's ledger, store the curves only."""
    ask = await current_ask(store, code)
    if ask is None:
        raise P.PollError("cdf", "poll.err.no_ask")
    vals = await values(store, code, ask["id"])
    rel = P.release_cdf(vals, float(ask["lo"]), float(ask["hi"]), eps, delta, method)
    rel["ask"] = ask["id"]
    rel["released_at"] = time.time()
    await store.hset(code, "ledger", rel["id"], _dumps({**rel["step"], "what": "cdf",
                                                        "method": method}))
    await store.set(code, "cdf", _dumps(rel))
    return rel


async def current_cdf(store: RoomStore, code: str) -> dict[str, Any] | None:
    return P.parse_poll(await store.get(code, "cdf"))


async def ledger(store: RoomStore, code: str) -> dict[str, Any]:
    steps = []
    for text in (await store.hgetall(code, "ledger")).values():
        try:
            steps.append(json.loads(text))
        except ValueError:
            continue
    deltas = [float(s["delta"]) for s in steps if s.get("mu") is not None]
    read = max(deltas) if deltas else P.DEFAULT_DELTA
    out = P.ledger(steps, read)
    out["read_delta"] = read
    out["steps"] = steps
    return out
