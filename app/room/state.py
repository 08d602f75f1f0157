"""What a room holds and what each page of the live class shows: plain data and param state.

The room's shared state is one JSON message (:func:`state_message`), stored under ``state`` and
published on every change: ``{"type": "state", "seq": n, "origin": id, "snap": {...},
"question": {...} | null}``. ``snap`` is the lab's snapshot (app/shell/follow.py); ``question``
is the class question open now: ``{"id", "kind": "tour" | "quiz", "ref", "n", "answer",
"revealed", "at"}`` (``at``: when it was asked, unix time: the projector shows the latest
item). A question names its text by reference (a tour step, or ``lesson:question-id``), so each
student reads it in their own language. Answers are a hash ``answers:<id>``: a student's
id (app/room/roster.py, one per device, not per tab) -> the option chosen, the first only
(:class:`app.room.records.Answer`). In the code the message is a :class:`RoomState` (or
:data:`ENDED`) and its question a :class:`ClassQuestion`; they write and read exactly these
texts (the store's, and what every worker publishes).

:class:`FollowState` is the state of a student's (or a teacher's) lab in a room;
:class:`RoomView` the state of the teacher's room page. Both are tested without a browser.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import param

from app.room.records import Answer

# Entries of the per-worker counts older than this are from a worker that stopped.
COUNT_STALE_S = 10.0
MAX_OPTIONS = 10
QUESTION_KINDS = ("tour", "quiz")


@dataclass(frozen=True)
class ClassQuestion:
    """The class question open now: a tour step's prediction or a lesson's quiz question,
    named by reference (``ref``: the step, or ``lesson:question-id``) so that each student
    reads it in their own language, with ``n`` options."""

    id: str
    kind: str  # "tour" | "quiz"
    ref: str
    n: int
    answer: int | None = None  # the right option, when there is one
    revealed: bool = False
    at: float | None = None  # when it was asked (unix time); None: not written

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "kind": self.kind, "ref": self.ref, "n": self.n,
                               "answer": self.answer, "revealed": self.revealed}
        if self.at is not None:
            out["at"] = self.at
        return out

    @classmethod
    def from_dict(cls, q: Any) -> ClassQuestion | None:
        """The question ``q`` (a message's JSON) names, None for anything else."""
        if not (isinstance(q, dict) and isinstance(q.get("id"), str)
                and q.get("kind") in QUESTION_KINDS and isinstance(q.get("ref"), str)
                and isinstance(q.get("n"), int) and 2 <= q["n"] <= MAX_OPTIONS
                and isinstance(q.get("revealed"), bool)):
            return None
        answer, at = q.get("answer"), q.get("at")
        return cls(q["id"], q["kind"], q["ref"], q["n"],
                   answer if isinstance(answer, int) and not isinstance(answer, bool) else None,
                   q["revealed"],
                   at if isinstance(at, (int, float)) and not isinstance(at, bool) else None)


@dataclass(frozen=True)
class RoomState:
    """The room's shared state (the store's ``state``, published on every change): its
    sequence number, who made it, the lab's snapshot (app/shell/follow.py) and the class
    question."""

    seq: int
    origin: str
    snap: Mapping[str, Any]
    question: ClassQuestion | None = None
    type: ClassVar[str] = "state"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "state", "seq": int(self.seq), "origin": self.origin,
                "snap": dict(self.snap),
                "question": self.question.to_dict() if self.question else None}

    def to_json(self) -> str:
        return state_message(self.seq, self.origin, self.snap, self.question)

    @classmethod
    def from_dict(cls, msg: Any) -> RoomState | None:
        """The state a message's JSON holds; None for anything else (a question that is
        not one is dropped, the state kept)."""
        if not isinstance(msg, dict) or msg.get("type") != "state" \
                or not isinstance(msg.get("seq"), int) or not isinstance(msg.get("snap"), dict):
            return None
        origin = msg.get("origin", "room")
        return cls(msg["seq"], origin if isinstance(origin, str) else str(origin), msg["snap"],
                   ClassQuestion.from_dict(msg.get("question")))

    @classmethod
    def from_json(cls, text: str | None) -> RoomState | None:
        msg = parse_message(text)
        return msg if isinstance(msg, RoomState) else None


@dataclass(frozen=True)
class Ended:
    """The message that the class has ended (published once; never stored)."""

    type: ClassVar[str] = "ended"

    def to_json(self) -> str:
        return ended_message()


ENDED = Ended()
RoomMessage = RoomState | Ended


def state_message(seq: int, origin: str, snap: Mapping[str, Any],
                  question: ClassQuestion | None) -> str:
    """The state message's text, byte for byte what the store holds and publishes (RedisStore's
    publish script writes the same, app/room/store.py)."""
    return json.dumps({"type": "state", "seq": int(seq), "origin": origin, "snap": dict(snap),
                       "question": question.to_dict() if question else None},
                      separators=(",", ":"), ensure_ascii=False)


def kept_question(current: RoomMessage | None,
                  snap: Mapping[str, Any]) -> ClassQuestion | None:
    """The question a new state keeps from the ``current`` state: its question, except a tour
    question whose step is no longer the snapshot's (a tour question belongs to its step).
    RedisStore's publish script does the same in Lua (app/room/store.py, _PUBLISH_STATE)."""
    q = current.question if isinstance(current, RoomState) else None
    if q is None:
        return None
    if q.kind == "tour" and str(snap.get("tour")) != q.ref:
        return None
    return q


def ended_message() -> str:
    return json.dumps({"type": "ended"})


def parse_message(text: str | None) -> RoomMessage | None:
    """A room message, or None for anything that is not one (never raises)."""
    if not text:
        return None
    try:
        msg = json.loads(text)
    except ValueError:
        return None
    if isinstance(msg, dict) and msg.get("type") == "ended":
        return ENDED
    return RoomState.from_dict(msg)


def new_question(kind: str, ref: str, n_options: int, answer: int | None) -> ClassQuestion:
    if kind not in QUESTION_KINDS or not 2 <= n_options <= MAX_OPTIONS:
        raise ValueError(f"not a class question: {kind} {ref} with {n_options} options")
    return ClassQuestion(secrets.token_hex(6), kind, ref, int(n_options), answer, False,
                         round(time.time(), 3))


def valid_answer(question: ClassQuestion | None, option: Any) -> bool:
    """Whether ``option`` may be recorded for ``question`` (open, in range)."""
    return (question is not None and not question.revealed
            and isinstance(option, int) and not isinstance(option, bool)
            and 0 <= option < question.n)


def tally(answers: Mapping[str, str], n_options: int) -> list[int]:
    """Count of each option among the stored answers (anything else is ignored)."""
    counts = [0] * n_options
    for text in answers.values():
        a = Answer.from_json(text)
        if a is not None and a.option < n_options:
            counts[a.option] += 1
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
    question = param.ClassSelector(class_=ClassQuestion, default=None, allow_None=True,
                                   doc="The class question open now.")
    answered = param.Integer(default=-1, doc="Option this session answered (-1: none).")
    answered_id = param.String(default="", doc="Which question that answer belongs to.")
    answer_result = param.String(default="", doc=(
        "The room's word on that answer when it was not taken: 'already' (another tab of this "
        "student answered first; ``answered`` is then the answer on record), 'full', 'gone'."))
    answer_refused = param.Boolean(default=False, doc=(
        "This lab has no student credential (opened after the room was locked)."))

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        # The sequence number of the last room state applied: a plain attribute, not a
        # parameter (no view shows it and nothing watches it; a follower writes it on every
        # teacher move, and a parameter's write was ~8 % of a worker's CPU in a following
        # class: py-spy, classroom_load.py follow --students 300, 2026-12-07).
        self.seq = -1
        # ``follows``, kept by a watcher: a worker's card pass reads it for every follower and
        # move, three parameter reads each time (~2.5 µs of ~28 µs per card)
        self._follows = self._now_follows()
        self.param.watch(self._follows_changed, ["status", "role", "following"])

    def _now_follows(self) -> bool:
        return self.status == "live" and (self.role == "teacher" or self.following)

    def _follows_changed(self, *_: Any) -> None:
        self._follows = self._now_follows()

    @property
    def follows(self) -> bool:
        """True while the room's changes are applied to this lab."""
        return self._follows

    def accept(self, msg: RoomMessage) -> bool:
        """Take a room message; True when the lab should now show ``msg.snap``."""
        if isinstance(msg, Ended):
            self.param.update(status="ended", question=None)
            return False
        if self.status in ("ended", "unknown"):
            return False
        if msg.seq < self.seq:
            return False  # an older change that arrived late: the last change wins
        self.seq = msg.seq
        self._set(question=msg.question, status="live")
        if self.question is None or self.question.id != self.answered_id:
            self._set(answered=-1, answered_id="", answer_result="")
        return self.follows

    def _set(self, **values: Any) -> None:
        """Set only what differs: each room message (every move, for every lab of a worker)
        usually changes none of them, and ``param.update`` reads every parameter per call (~0.5 ms
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
        q = self.question
        self.param.update(answered=int(option), answered_id=q.id if q else "")

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
    question = param.ClassSelector(class_=ClassQuestion, default=None, allow_None=True,
                                   doc="The class question open now.")
    counts = param.List(default=[], item_type=int, doc="Answers per option.")
    snap = param.Dict(default={}, doc="The room's lab snapshot.")

    @property
    def answers(self) -> int:
        return sum(self.counts)

    def load(self, state: RoomState | None, workers: Mapping[str, str],
             answers: Mapping[str, str], now: float) -> None:
        c, f = sum_counts(workers, now)
        q = state.question if state else None
        self.param.update(connected=c, following=f, question=q,
                          snap=dict(state.snap) if state else {},
                          counts=tally(answers, q.n) if q else [])

    def as_json(self) -> dict[str, Any]:
        q = self.question
        return {"code": self.code, "connected": self.connected, "following": self.following,
                "question": q.to_dict() if q else None, "counts": list(self.counts),
                "answers": self.answers}


def shares(counts: Sequence[int]) -> list[float]:
    total = sum(counts)
    return [c / total if total else 0.0 for c in counts]
