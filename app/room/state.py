"""What a room holds and what each page of the live class shows: plain data and param state.

The room's shared state is one JSON message (:func:`state_message`), stored under ``state`` and
published on every change: ``{"type": "state", "seq": n, "origin": id, "snap": {...},
"question": {...} | null}``. ``snap`` is the lab's snapshot (app/shell/follow.py); ``question``
is the class question open now: ``{"id", "kind": "tour" | "quiz", "ref", "n", "answer",
"revealed", "at"}`` (``at``: when it was asked, unix time: the projector shows the latest
item). A question names its text by reference (a tour step, or ``lesson:question-id``), so each
student reads it in their own language. Answers are a hash ``answers:<id>``: a student's
id (app/room/roster.py, one per device, not per tab) -> the option chosen, the first only.

:class:`FollowState` is the state of a student's (or a teacher's) lab in a room;
:class:`RoomView` the state of the teacher's room page. Both are tested without a browser.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import param

# Entries of the per-worker counts older than this are from a worker that stopped.
COUNT_STALE_S = 10.0
MAX_OPTIONS = 10


def state_message(seq: int, origin: str, snap: Mapping[str, Any],
                  question: Mapping[str, Any] | None) -> str:
    return json.dumps({"type": "state", "seq": int(seq), "origin": origin, "snap": dict(snap),
                       "question": dict(question) if question else None},
                      separators=(",", ":"), ensure_ascii=False)


def kept_question(current: Mapping[str, Any] | None,
                  snap: Mapping[str, Any]) -> dict[str, Any] | None:
    """The question a new state keeps from the ``current`` state message: its question, except
    a tour question whose step is no longer the snapshot's (a tour question belongs to its step).
    RedisStore's publish script does the same in Lua (app/room/store.py, _PUBLISH_STATE)."""
    q = current.get("question") if current else None
    if not isinstance(q, dict):
        return None
    if q.get("kind") == "tour" and str(snap.get("tour")) != str(q.get("ref")):
        return None
    return q


def ended_message() -> str:
    return json.dumps({"type": "ended"})


def parse_message(text: str | None) -> dict[str, Any] | None:
    """A room message, or None for anything that is not one (never raises)."""
    if not text:
        return None
    try:
        msg = json.loads(text)
    except ValueError:
        return None
    if not isinstance(msg, dict) or msg.get("type") not in ("state", "ended"):
        return None
    if msg["type"] == "state":
        if not isinstance(msg.get("seq"), int) or not isinstance(msg.get("snap"), dict):
            return None
        q = msg.get("question")
        if q is not None and not valid_question(q):
            msg["question"] = None
    return msg


def valid_question(q: Any) -> bool:
    return (isinstance(q, dict) and isinstance(q.get("id"), str)
            and q.get("kind") in ("tour", "quiz") and isinstance(q.get("ref"), str)
            and isinstance(q.get("n"), int) and 2 <= q["n"] <= MAX_OPTIONS
            and isinstance(q.get("revealed"), bool))


def new_question(kind: str, ref: str, n_options: int, answer: int | None) -> dict[str, Any]:
    if kind not in ("tour", "quiz") or not 2 <= n_options <= MAX_OPTIONS:
        raise ValueError(f"not a class question: {kind} {ref} with {n_options} options")
    return {"id": secrets.token_hex(6), "kind": kind, "ref": ref, "n": int(n_options),
            "answer": answer, "revealed": False, "at": round(time.time(), 3)}


def valid_answer(question: Mapping[str, Any] | None, option: Any) -> bool:
    """Whether ``option`` may be recorded for ``question`` (open, in range)."""
    return (question is not None and not question.get("revealed")
            and isinstance(option, int) and not isinstance(option, bool)
            and 0 <= option < int(question["n"]))


def tally(answers: Mapping[str, str], n_options: int) -> list[int]:
    """Count of each option among the stored answers (anything else is ignored)."""
    counts = [0] * n_options
    for v in answers.values():
        try:
            k = int(v)
        except (TypeError, ValueError):
            continue
        if 0 <= k < n_options:
            counts[k] += 1
    return counts


def sum_counts(entries: Mapping[str, str], now: float) -> tuple[int, int]:
    """(connected, following) summed over the workers' fresh count entries
    (``{"c": connected, "f": following, "t": unix time}``)."""
    connected = following = 0
    for raw in entries.values():
        try:
            e = json.loads(raw)
            if now - float(e["t"]) > COUNT_STALE_S:
                continue
            connected += int(e["c"])
            following += int(e["f"])
        except (ValueError, KeyError, TypeError):
            continue
    return connected, following


@dataclass(frozen=True)
class QuestionText:
    """A class question as one language reads it."""

    text: str
    options: tuple[str, ...]
    answer: int | None


class FollowState(param.Parameterized):
    """A lab's place in a room: which room, leading or following, what the student sees."""

    code = param.String(default="", doc="The room's code ('' when the address had none).")
    role: str = param.Selector(  # type: ignore[assignment]
        default="student", objects=["student", "teacher"],
        doc="teacher: this lab's changes are the room's state.")
    status: str = param.Selector(  # type: ignore[assignment]
        default="connecting", objects=["connecting", "live", "unknown", "lost", "ended"],
        doc="The room connection: live, no such room, lost (retrying), or the class has ended.")
    following = param.Boolean(default=True, doc="A student's lab follows the room's state.")
    seq = param.Integer(default=-1, doc="Sequence number of the last room state applied.")
    question = param.Dict(default=None, allow_None=True, doc="The class question open now.")
    answered = param.Integer(default=-1, doc="Option this session answered (-1: none).")
    answered_id = param.String(default="", doc="Which question that answer belongs to.")
    answer_result = param.String(default="", doc=(
        "The room's word on that answer when it was not taken: 'already' (another tab of this "
        "student answered first; ``answered`` is then the answer on record), 'full', 'gone'."))
    answer_refused = param.Boolean(default=False, doc=(
        "This lab has no student credential (opened after the room was locked)."))

    @property
    def follows(self) -> bool:
        """True while the room's changes are applied to this lab."""
        return self.status == "live" and (self.role == "teacher" or self.following)

    def accept(self, msg: Mapping[str, Any]) -> bool:
        """Take a room message; True when the lab should now show ``msg["snap"]``."""
        if msg.get("type") == "ended":
            self.param.update(status="ended", question=None)
            return False
        if self.status in ("ended", "unknown"):
            return False
        seq = int(msg.get("seq", -1))
        if seq < self.seq:
            return False  # an older change that arrived late: the last change wins
        q = msg.get("question")
        self._set(seq=seq, question=q if valid_question(q) else None, status="live")
        if self.question is None or self.question.get("id") != self.answered_id:
            self._set(answered=-1, answered_id="", answer_result="")
        return self.follows

    def _set(self, **values: Any) -> None:
        """Set only what differs: each room message (every move, for every lab of a worker)
        changes ``seq`` alone, and ``param.update`` reads every parameter per call (~0.5 ms
        a lab with 150 labs per worker; py-spy, benchmarks/real_followers.py)."""
        diff = {k: v for k, v in values.items() if getattr(self, k) != v}
        if len(diff) == 1:
            (name, value), = diff.items()
            setattr(self, name, value)
        elif diff:
            self.param.update(**diff)

    def may_answer(self, option: int) -> bool:
        return (self.role == "student" and self.follows and self.answered < 0
                and valid_answer(self.question, option))

    def record_answer(self, option: int) -> None:
        q = self.question or {}
        self.param.update(answered=int(option), answered_id=str(q.get("id", "")))

    def detach(self) -> None:
        """"Explore on my own"."""
        self.following = False

    def reattach(self) -> bool:
        """"Follow again": True when the lab should jump to the room's state."""
        self.following = True
        return self.follows

    def banner_key(self) -> str:
        """Message key of the banner that says which mode the lab is in."""
        if self.status != "live":
            return f"room.banner.{self.status}"
        if self.role == "teacher":
            return "room.banner.leading"
        return "room.banner.following" if self.following else "room.banner.own"


class RoomView(param.Parameterized):
    """The teacher's room page: counts, the open question and its answers."""

    code = param.String(default="", doc="The room's code.")
    connected = param.Integer(default=0, bounds=(0, None), doc="Students with the lab open.")
    following = param.Integer(default=0, bounds=(0, None), doc="Of those, following.")
    question = param.Dict(default=None, allow_None=True, doc="The class question open now.")
    counts = param.List(default=[], item_type=int, doc="Answers per option.")
    snap = param.Dict(default={}, doc="The room's lab snapshot.")

    @property
    def answers(self) -> int:
        return sum(self.counts)

    def load(self, state: Mapping[str, Any] | None, workers: Mapping[str, str],
             answers: Mapping[str, str], now: float) -> None:
        c, f = sum_counts(workers, now)
        q = (state or {}).get("question")
        q = q if valid_question(q) else None
        self.param.update(connected=c, following=f, question=q,
                          snap=dict((state or {}).get("snap") or {}),
                          counts=tally(answers, int(q["n"])) if q else [])

    def as_json(self) -> dict[str, Any]:
        return {"code": self.code, "connected": self.connected, "following": self.following,
                "question": self.question, "counts": list(self.counts), "answers": self.answers}


def shares(counts: Sequence[int]) -> list[float]:
    total = sum(counts)
    return [c / total if total else 0.0 for c in counts]
