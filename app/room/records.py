"""The live class's records as the room store holds them (app/room/activities.py says under
which names): a poll and the central release of its counts, one student's answer, a poll's
results, the number question, a release of the class's CDF, a step of the room's privacy ledger,
and the ledger read from those steps.

Each record writes and reads exactly the JSON this wing wrote when these were dicts
(``to_json``/``from_json``; ``to_dict``/``from_dict`` for one inside another record or a
notice), key for key and in the same order, so a room saved by an older worker loads in a newer
one and back (tests/app/room/test_records.py keeps texts written then). ``from_json`` and
``from_dict`` never raise: what is not such a record is None, which the store's readers treat
as nothing stored.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Self

from app.room.kinds import KINDS, PollKind, poll_kind
from dpcore import accounting

_BAD = (KeyError, TypeError, ValueError, IndexError, AttributeError)


def dumps(obj: Any) -> str:
    """A record's text in the store: compact, UTF-8 as it is."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def _object(text: str | None) -> dict[str, Any] | None:
    if not text:
        return None
    try:
        d = json.loads(text)
    except ValueError:
        return None
    return d if isinstance(d, dict) else None


def _finite(x: float) -> float | None:  # JSON has no NaN
    return x if math.isfinite(x) else None


def _nan(v: Any) -> float:
    return math.nan if v is None else float(v)


def _opt_float(v: Any) -> float | None:
    return None if v is None else float(v)


def _opt_str(v: Any) -> str | None:
    return None if v is None else str(v)


def _pair(v: Any) -> tuple[float, float]:
    lo, hi = v
    return float(lo), float(hi)


class _Record:
    """``to_json``/``from_json`` from a record's ``to_dict`` and ``_read`` (which may raise on
    what is not the record; ``from_dict`` says None instead)."""

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    @classmethod
    def _read(cls, d: Mapping[str, Any]) -> Self:
        raise NotImplementedError

    @classmethod
    def from_dict(cls, d: Any) -> Self | None:
        if not isinstance(d, Mapping):
            return None
        try:
            return cls._read(d)
        except _BAD:
            return None

    def to_json(self) -> str:
        return dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str | None) -> Self | None:
        return cls.from_dict(_object(text))


# ---------------------------------------------------------------------------------------------
# polls


@dataclass(frozen=True)
class Answer:
    """One student's answer as a room's answers hash holds it (student id -> this): the index of
    the option chosen (a local poll's randomized report; the true answer never leaves the
    student's browser). Its text is the number alone."""

    option: int

    def to_json(self) -> str:
        return str(self.option)

    @classmethod
    def from_json(cls, text: str | None) -> Answer | None:
        return cls(int(text)) if text and text.isascii() and text.isdigit() else None


@dataclass(frozen=True)
class Estimate(_Record):
    """The estimate of one option's share in the class, with its 95 % interval."""

    reported: int  # how many reports (or true answers, central) named this option
    raw_share: float  # reported / n
    estimate: float  # unbiased (may lie outside [0, 1]); NaN without any answer
    sd: float
    lo: float  # interval, clipped to [0, 1]
    hi: float
    clipped: bool  # the interval was clipped

    @property
    def ci95(self) -> tuple[float, float]:
        return self.lo, self.hi

    def to_dict(self) -> dict[str, Any]:
        return {"reported": self.reported, "raw_share": self.raw_share,
                "estimate": _finite(self.estimate), "sd": _finite(self.sd),
                "ci95": [self.lo, self.hi], "clipped": self.clipped}

    @classmethod
    def _read(cls, d: Mapping[str, Any]) -> Self:
        lo, hi = _pair(d["ci95"])
        return cls(int(d["reported"]), float(d["raw_share"]), _nan(d["estimate"]),
                   _nan(d["sd"]), lo, hi, bool(d["clipped"]))


@dataclass(frozen=True)
class ReleasedOption(_Record):
    """One option of a central poll's release: its noisy count and the share read from it."""

    noisy_count: float
    estimate: float  # noisy count / n
    lo: float  # 95 % interval, clipped to [0, 1]
    hi: float
    clipped: bool

    @property
    def ci95(self) -> tuple[float, float]:
        return self.lo, self.hi

    def to_dict(self) -> dict[str, Any]:
        return {"noisy_count": self.noisy_count, "estimate": self.estimate,
                "ci95": [self.lo, self.hi], "clipped": self.clipped}

    @classmethod
    def _read(cls, d: Mapping[str, Any]) -> Self:
        lo, hi = _pair(d["ci95"])
        return cls(float(d["noisy_count"]), float(d["estimate"]), lo, hi, bool(d["clipped"]))


@dataclass(frozen=True)
class CentralRelease(_Record):
    """A central poll's counts released once with calibrated noise (the true counts are not
    in it)."""

    mech: str  # "gaussian" | "laplace"
    scale: float  # σ, or Laplace b
    sensitivity: float
    n: int  # answers (public)
    options: tuple[ReleasedOption, ...]
    eps: float
    delta: float  # 0 for Laplace

    def to_dict(self) -> dict[str, Any]:
        return {"mech": self.mech, "scale": self.scale, "sensitivity": self.sensitivity,
                "n": self.n, "options": [o.to_dict() for o in self.options], "eps": self.eps,
                "delta": self.delta}

    @classmethod
    def _read(cls, d: Mapping[str, Any]) -> Self:
        return cls(str(d["mech"]), float(d["scale"]), float(d["sensitivity"]), int(d["n"]),
                   tuple(ReleasedOption._read(o) for o in d["options"]), float(d["eps"]),
                   float(d["delta"]))


@dataclass(frozen=True)
class Poll(_Record):
    """A private poll (the store's ``poll``): its question, ε, model and kind, open or closed,
    and once a central poll is closed its release."""

    id: str
    question: str  # typed by the teacher ("" for a prepared question)
    preset: str  # a prepared question's name (catalogue poll.preset.<name>), or ""
    eps: float
    model: str  # "local" | "central"
    kind: str  # a name of app/room/kinds.py's KINDS
    k: int  # how many options
    options: tuple[str, ...]  # typed options (none for a kind with fixed ones)
    delta: float  # the central Gaussian's δ, else 0
    mech: str  # "rr" (local), "gaussian" | "laplace" (central)
    open: bool
    opened: float  # unix time
    released: CentralRelease | None = None
    reopens: str = ""  # the poll a store restart lost, opened again as this one (its id)

    @property
    def poll_kind(self) -> PollKind:
        return KINDS[self.kind]  # (a stored poll of an unknown kind is not read)

    @property
    def local(self) -> bool:
        return self.model == "local"

    def to_dict(self) -> dict[str, Any]:
        out = {"id": self.id, "question": self.question, "preset": self.preset,
               "eps": self.eps, "model": self.model, "kind": self.kind, "k": self.k,
               "options": list(self.options), "delta": self.delta, "mech": self.mech,
               "open": self.open, "opened": self.opened,
               "released": None if self.released is None else self.released.to_dict()}
        if self.reopens:
            out["reopens"] = self.reopens
        return out

    @classmethod
    def _read(cls, d: Mapping[str, Any]) -> Self:
        kind = poll_kind(d["kind"])
        if not isinstance(d["id"], str) or kind is None:
            raise ValueError("not a poll")
        rel = d.get("released")
        return cls(d["id"], str(d.get("question") or ""), str(d.get("preset") or ""),
                   float(d["eps"]), str(d["model"]), kind.name, int(d["k"]),
                   tuple(str(o) for o in d.get("options") or ()), float(d.get("delta") or 0.0),
                   str(d.get("mech") or ""), bool(d.get("open")),
                   float(d.get("opened") or 0.0),
                   CentralRelease._read(rel) if rel else None, str(d.get("reopens") or ""))


@dataclass(frozen=True)
class PollResults(_Record):
    """What the projector, the JSON API and the export show of a poll (app/room/poll.py's
    ``results``), and what the store keeps of each closed poll (``polls``). The first option's
    estimate and interval stand for the poll (the past polls' table)."""

    id: str
    model: str
    kind: str
    question: str
    preset: str
    eps: float
    n: int  # answers (public)
    open: bool
    few: bool  # fewer than FEW_ANSWERS answers
    keep_probability: float
    likelihood_ratio: float
    options: tuple[str, ...]
    reported: Mapping[str, int] | None = None  # local: reports per option; central: never
    per_option: tuple[Estimate, ...] = ()  # local only
    estimate: float | None = None
    ci95: tuple[float, float] | None = None
    clipped: bool = False
    delta: float = 0.0
    mech: str = ""  # central only
    released: CentralRelease | None = None  # central, once closed with answers

    @property
    def local(self) -> bool:
        return self.model == "local"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id, "model": self.model, "kind": self.kind, "question": self.question,
            "preset": self.preset, "eps": self.eps, "n": self.n, "open": self.open,
            "few": self.few, "keep_probability": self.keep_probability,
            "likelihood_ratio": self.likelihood_ratio, "options": list(self.options)}
        ci = None if self.ci95 is None else list(self.ci95)
        if self.local:
            out.update(reported=dict(self.reported or {}),
                       per_option=[e.to_dict() for e in self.per_option],
                       estimate=self.estimate, ci95=ci, clipped=self.clipped, delta=self.delta)
        else:
            out.update(delta=self.delta, mech=self.mech, reported=None)
            if self.released is not None:
                out["released"] = self.released.to_dict()
            out.update(estimate=self.estimate, ci95=ci, clipped=self.clipped)
        return out

    @classmethod
    def _read(cls, d: Mapping[str, Any]) -> Self:
        if not isinstance(d["id"], str):
            raise ValueError("not a poll's results")
        rep, ci, rel = d.get("reported"), d.get("ci95"), d.get("released")
        return cls(
            d["id"], str(d["model"]), str(d.get("kind") or ""), str(d.get("question") or ""),
            str(d.get("preset") or ""), float(d["eps"]), int(d["n"]), bool(d.get("open")),
            bool(d.get("few")), float(d.get("keep_probability") or 0.0),
            float(d.get("likelihood_ratio") or 0.0),
            tuple(str(o) for o in d.get("options") or ()),
            {str(k): int(v) for k, v in rep.items()} if isinstance(rep, dict) else None,
            tuple(Estimate._read(e) for e in d.get("per_option") or ()),
            _opt_float(d.get("estimate")), None if ci is None else _pair(ci),
            bool(d.get("clipped")), float(d.get("delta") or 0.0), str(d.get("mech") or ""),
            CentralRelease._read(rel) if rel else None)


# ---------------------------------------------------------------------------------------------
# the class's numbers, their CDF and the ledger


@dataclass(frozen=True)
class Ask(_Record):
    """The number question of the class's CDF (the store's ``ask``)."""

    id: str
    question: str
    preset: str
    lo: float  # the public range of the answers
    hi: float
    unit: str
    open: bool
    opened: float

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "question": self.question, "preset": self.preset, "lo": self.lo,
                "hi": self.hi, "unit": self.unit, "open": self.open, "opened": self.opened}

    @classmethod
    def _read(cls, d: Mapping[str, Any]) -> Self:
        if not isinstance(d["id"], str):
            raise ValueError("not a number question")
        return cls(d["id"], str(d.get("question") or ""), str(d.get("preset") or ""),
                   float(d["lo"]), float(d["hi"]), str(d.get("unit") or ""),
                   bool(d.get("open")), float(d.get("opened") or 0.0))


@dataclass(frozen=True)
class LedgerStep(_Record):
    """One central release in the room's privacy ledger (the store's ``ledger`` hash: release
    id -> this): its ε and δ and, for a Gaussian release, μ (exact GDP composition); what it
    released (``what``: "poll" | "cdf"; ``method``), absent in a release's own step."""

    eps: float
    delta: float
    mu: float | None = None
    what: str | None = None
    method: str | None = None

    @classmethod
    def of(cls, step: LedgerStep | Mapping[str, Any]) -> LedgerStep:
        """``step``, or the step its JSON fields name (raises KeyError/ValueError if none)."""
        return step if isinstance(step, LedgerStep) else cls._read(step)

    def step(self) -> accounting.Step:
        return accounting.Step(self.eps, self.delta, self.mu)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"eps": self.eps, "delta": self.delta, "mu": self.mu}
        if self.what is not None:
            out["what"] = self.what
        if self.method is not None:
            out["method"] = self.method
        return out

    @classmethod
    def _read(cls, d: Mapping[str, Any]) -> Self:
        return cls(float(d["eps"]), float(d["delta"]), _opt_float(d.get("mu")),
                   _opt_str(d.get("what")), _opt_str(d.get("method")))


@dataclass(frozen=True)
class CdfRelease(_Record):
    """One release of the class's CDF (the store's ``cdf``): the curves sampled on a public
    grid (for "pp" every degree 0..CDF_K_MAX, post-processing of the one release), how it was
    made and its ledger step; no value any student sent is in it."""

    id: str
    method: str
    eps: float
    delta: float
    n: int
    lo: float
    hi: float
    xs: tuple[float, ...]
    curves: Mapping[str, tuple[float, ...]]  # degree (or "-") -> the curve at xs
    degree: int | None  # the degree released ("pp" only)
    mechanism: str
    sensitivity: float
    norm: str
    noise_scale: float
    step: LedgerStep
    ask: str | None = None  # the number question it released
    released_at: float | None = None  # unix time

    def curve(self, degree: int | None = None) -> tuple[float, ...]:
        """The curve at ``degree`` (a "pp" release), else the release's own."""
        key = str(self.degree if degree is None else degree) if self.method == "pp" else "-"
        return self.curves[key]

    def summary(self) -> dict[str, Any]:
        """What a notice says of the release (no curve)."""
        return {"id": self.id, "method": self.method, "eps": self.eps, "delta": self.delta,
                "n": self.n}

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id, "method": self.method, "eps": self.eps, "delta": self.delta,
            "n": self.n, "lo": self.lo, "hi": self.hi, "xs": list(self.xs),
            "curves": {k: list(v) for k, v in self.curves.items()}, "degree": self.degree,
            "mechanism": self.mechanism, "sensitivity": self.sensitivity, "norm": self.norm,
            "noise_scale": self.noise_scale, "step": self.step.to_dict()}
        if self.ask is not None:
            out["ask"] = self.ask
        if self.released_at is not None:
            out["released_at"] = self.released_at
        return out

    @classmethod
    def _read(cls, d: Mapping[str, Any]) -> Self:
        if not isinstance(d["id"], str):
            raise ValueError("not a release")
        degree = d.get("degree")
        return cls(
            d["id"], str(d["method"]), float(d["eps"]), float(d["delta"]), int(d["n"]),
            float(d["lo"]), float(d["hi"]), tuple(float(x) for x in d["xs"]),
            {str(k): tuple(float(y) for y in v) for k, v in d["curves"].items()},
            None if degree is None else int(degree), str(d["mechanism"]),
            float(d["sensitivity"]), str(d["norm"]), float(d["noise_scale"]),
            LedgerStep._read(d["step"]), _opt_str(d.get("ask")),
            _opt_float(d.get("released_at")))


@dataclass(frozen=True)
class Ledger:
    """The room's privacy ledger of central releases (app/room/poll.py's ``ledger``), read at
    ``read_delta``: exact GDP for the Gaussian steps, basic composition for the rest."""

    count: int
    eps: float
    delta: float
    rule: str  # "none" | "gdp" | "basic" | "mixed"
    basic_eps: float
    basic_delta: float
    read_delta: float
    steps: tuple[LedgerStep, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"count": self.count, "eps": self.eps, "delta": self.delta, "rule": self.rule,
                "basic_eps": self.basic_eps, "basic_delta": self.basic_delta,
                "read_delta": self.read_delta, "steps": [s.to_dict() for s in self.steps]}
