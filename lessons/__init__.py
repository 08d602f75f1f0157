"""Lesson content: one TOML source per lesson and language (see ``lessons/FORMAT.md``).

Pure Python (tomllib + dpcore): no Panel, Bokeh or param, so the content is testable and
renderable anywhere. ``load(lesson, lang)`` returns a :class:`Lesson` whose text fields already
carry the values computed by ``dpcore`` (``{{name}}`` placeholders, ``values_<lesson>.py``).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import platform
import re
import tempfile
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from lessons.languages import CODES, REGISTRY

LESSON_DIR = Path(__file__).resolve().parent
LESSONS: tuple[str, ...] = ("gaussian", "cdf")
LANGS: tuple[str, ...] = CODES  # the registered languages (lessons/languages.py)
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
LAB_KEYS = ("q", "n", "B", "sigma", "eps", "delta")
CDF_KEYS = ("data", "n", "eps", "delta", "method", "degree", "seed")


@dataclass(frozen=True)
class Option:
    text: str
    correct: bool
    why: str


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    options: tuple[Option, ...]


@dataclass(frozen=True)
class Exercise:
    id: str
    question: str
    steps: tuple[str, ...]
    link: str  # /lab?... or /cdf?...


@dataclass(frozen=True)
class Example:
    id: str
    section: str
    title: str
    body: str
    link: str


@dataclass(frozen=True)
class Section:
    id: str
    title: str
    body: str


@dataclass(frozen=True)
class Term:
    id: str
    name: str
    tip: str


@dataclass(frozen=True)
class Note:
    """One block of the teacher notes (``[[teacher]]``: goals, prerequisites, tour, errors)."""

    id: str
    title: str
    body: str


@dataclass(frozen=True)
class PlanRow:
    """One block of the timed lesson plan (``[[plan]]``); ``level`` core/optional/graduate."""

    id: str
    minutes: int
    title: str
    body: str
    sections: tuple[str, ...]
    level: str
    tour: tuple[str, ...] = ()  # ids of the guided tour's steps opened in this block, in order


@dataclass(frozen=True)
class Goal:
    """A learning goal (``[[goal]]``), named by exit-ticket items."""

    id: str
    text: str


@dataclass(frozen=True)
class ExitItem:
    """One question of the exit ticket (``[[exit]]``): the learning goal it checks."""

    id: str
    goal: str
    question: str
    answer: str


@dataclass(frozen=True)
class Activity:
    """An in-class activity shown at the end of its section (``[[activity]]``).

    ``kind``: "think-pair-share" or "sketch" (draw before you see it; ``figure`` names the
    curve the reveal draws, ``reveal`` says what it shows)."""

    id: str
    section: str
    kind: str
    title: str
    body: str
    reveal: str
    figure: str
    link: str
    minutes: int = 0  # class time the activity takes inside its plan block
    expected: str = ""  # the instructor's guide: expected answers,
    listen: str = ""  # what to listen for,
    close: str = ""  # and the closing line


@dataclass(frozen=True)
class Problem:
    """A graded problem (``[[problem]]``): difficulty 1-3, the solution in steps."""

    id: str
    level: int
    question: str
    steps: tuple[str, ...]
    link: str
    rubric: tuple[tuple[int, str], ...] = ()  # (points, what earns them)

    @property
    def points(self) -> int:
        return sum(p for p, _ in self.rubric)


@dataclass(frozen=True)
class Formula:
    """A key formula of the printable handout (``[[formula]]``)."""

    id: str
    title: str
    body: str


PLAN_LEVELS = ("core", "optional", "graduate", "slack")  # slack: stated spare minutes
ACTIVITY_KINDS = ("think-pair-share", "sketch")


@dataclass(frozen=True)
class Lesson:
    id: str
    lang: str
    title: str
    lead: str
    sections: tuple[Section, ...]
    examples: tuple[Example, ...]
    exercises: tuple[Exercise, ...]
    quiz: tuple[Question, ...]
    terms: tuple[Term, ...] = field(default=())
    teacher: tuple[Note, ...] = field(default=())
    plan: tuple[PlanRow, ...] = field(default=())
    activities: tuple[Activity, ...] = field(default=())
    problems: tuple[Problem, ...] = field(default=())
    formulas: tuple[Formula, ...] = field(default=())
    reading: tuple[PlanRow, ...] = field(default=())  # blocks outside class time
    goals: tuple[Goal, ...] = field(default=())
    exits: tuple[ExitItem, ...] = field(default=())


@dataclass(frozen=True)
class TourStep:
    id: str
    title: str
    body: str
    lab: dict[str, str]
    predict: str | None
    options: tuple[str, ...]
    answer: int | None
    reveal: str | None


@dataclass(frozen=True)
class CDFTourStep:
    """One step of the guided tour of /cdf (``lessons/cdftour.<lang>.toml``): ``start`` is the
    page state the step opens with, ``cdf`` the state shown with the reveal (the change the
    student predicts); both use the /cdf address names."""

    id: str
    title: str
    body: str
    start: dict[str, str]
    cdf: dict[str, str]
    predict: str | None
    options: tuple[str, ...]
    answer: int | None
    reveal: str | None


def source_path(lesson: str, lang: str) -> Path:
    return LESSON_DIR / f"{lesson}.{lang}.toml"


def read_source(lesson: str, lang: str) -> dict[str, Any]:
    """The raw TOML of one lesson (no values filled in)."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; use one of {', '.join(LANGS)}")
    with source_path(lesson, lang).open("rb") as fh:
        return tomllib.load(fh)


# Where computed values are kept between processes (:func:`keep_values_in`); None: each process
# computes its own (the default, and what the tests of this package use).
_STORE: Path | None = None
_KEPT: dict[str, dict[str, str]] = {}


def keep_values_in(directory: Path | None) -> None:
    """Keep each lesson's computed values in ``directory`` too, under a name that hashes the
    code and data that make them (:func:`code_key`), so other processes of the same code read
    them instead of computing them again. A server does this at its start
    (app/serve/server.py): the CDF lesson's values are ~3 s of CPU, which each worker (and
    every server a test run starts) paid once; a changed file of dpcore/ or lessons/, or
    another version of Python, numpy, scipy or mpmath, makes a new name."""
    global _STORE
    _STORE = directory
    _KEPT.clear()


def default_store() -> Path:
    """``DPLAB_CACHE_DIR``, else ``dplab-values`` in the system's temporary directory."""
    return Path(os.environ.get("DPLAB_CACHE_DIR") or
                Path(tempfile.gettempdir()) / f"dplab-values-{os.getuid()}")


@cache
def code_key() -> str:
    """A hash of everything the values are computed from: every file of dpcore/ and lessons/
    (path and bytes) and the versions of Python and the numeric libraries."""
    import mpmath
    import numpy
    import scipy

    h = hashlib.sha256()
    h.update(f"{platform.python_version()} {numpy.__version__} {scipy.__version__} "
             f"{mpmath.__version__}".encode())
    root = LESSON_DIR.parent
    for top in ("dpcore", "lessons"):
        for p in sorted((root / top).rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts:
                h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:24]


def values(lesson: str) -> dict[str, str]:
    """``{{name}}`` -> text, computed by dpcore (``lessons/values_<lesson>.py``), or read from
    the store of a process that computed them with the same code (:func:`keep_values_in`)."""
    if _STORE is None or not _store_is_ours(_STORE):
        return _computed(lesson)
    got = _KEPT.get(lesson)
    if got is not None:
        return got
    path = _STORE / f"{lesson}-{code_key()}.json"
    stored = _read_stored(path)
    if stored is None:
        # One process computes, the others wait for its file: serve-prod's workers start
        # together, and each computed the CDF lesson's values (~2.7 s of CPU) at the same time.
        with _computing(path):
            stored = _read_stored(path)  # (written while this one waited)
            if stored is None:
                stored = _computed(lesson)
                try:  # written whole under another name, then renamed: no half file is read
                    fd, tmp = tempfile.mkstemp(dir=_STORE, suffix=".tmp")
                    with os.fdopen(fd, "w", encoding="utf-8") as f:
                        json.dump(stored, f, ensure_ascii=False)
                    os.replace(tmp, path)
                except OSError:
                    pass  # a read-only place: each process computes its own, as without a store
    _KEPT[lesson] = stored
    return stored


def _read_stored(path: Path) -> dict[str, str] | None:
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(stored, dict) and all(isinstance(k, str) and isinstance(v, str)
                                        for k, v in stored.items()):
        return stored
    return None


@contextlib.contextmanager
def _computing(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path``'s lock file while one process (or thread) computes what
    goes in ``path`` (flock: released when its holder ends, however it ends); no lock where
    there is no flock or the lock file cannot be made."""
    try:
        import fcntl
        fh = open(path.with_suffix(".lock"), "a")  # (closed below)
    except (ImportError, OSError):
        yield
        return
    try:
        fcntl.flock(fh, fcntl.LOCK_EX)
        yield
    finally:
        fh.close()  # (and the lock with it)


@cache
def _store_is_ours(directory: Path) -> bool:
    """The store exists (made here if not) as a directory of this user that nobody else may
    write: in a shared temporary directory, another user could otherwise put values there."""
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = directory.lstat()
    except OSError:
        return False
    import stat

    return (stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid()
            and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


@cache
def _computed(lesson: str) -> dict[str, str]:
    mod = importlib.import_module(f"lessons.values_{lesson}")
    out = mod.values()
    for k, v in out.items():
        if not isinstance(v, str):
            raise TypeError(f"value {k!r} of lesson {lesson!r} must be text, got {type(v)}")
    return out


def fill(text: str, vals: dict[str, str], where: str = "") -> str:
    """Replace every ``{{name}}``; an unknown name is an error (never a silent blank)."""

    def sub(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in vals:
            raise KeyError(f"unknown value {{{{{name}}}}} in {where}")
        return vals[name]

    return PLACEHOLDER.sub(sub, text)


def _fmt_param(v: object) -> str:
    if isinstance(v, bool):
        raise TypeError("a lab parameter cannot be true/false")
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return str(v)


def link_for(entry: dict[str, Any], where: str) -> str:
    """The "open in the lab" address of an example / exercise (``lab`` or ``cdf`` table)."""
    from urllib.parse import urlencode

    if "lab" in entry:
        lab = entry["lab"]
        missing = [k for k in LAB_KEYS if k not in lab]
        if missing:
            raise KeyError(f"{where}: lab link lacks {', '.join(missing)}")
        return "/lab?" + urlencode([(k, _fmt_param(v)) for k, v in lab.items()])
    if "cdf" in entry:
        cdf = entry["cdf"]
        unknown = [k for k in cdf if k not in CDF_KEYS]
        if unknown:
            raise KeyError(f"{where}: unknown /cdf parameter {', '.join(unknown)}")
        return "/cdf?" + urlencode([(k, _fmt_param(v)) for k, v in cdf.items()])
    raise KeyError(f"{where}: needs a lab = {{...}} or cdf = {{...}} table")


@cache
def load(lesson: str, lang: str) -> Lesson:
    """One lesson in one language, values filled in. Raises on a malformed source."""
    if lesson not in LESSONS:
        raise ValueError(f"unknown lesson {lesson!r}; use one of {', '.join(LESSONS)}")
    raw = read_source(lesson, lang)
    vals = values(lesson)
    where = f"{lesson}.{lang}.toml"

    def f(text: str, ctx: str) -> str:
        return fill(text, vals, f"{where} {ctx}")

    sections = tuple(Section(s["id"], f(s["title"], s["id"]), f(s["body"], s["id"]))
                     for s in raw.get("section", []))
    examples = tuple(Example(e["id"], e["section"], f(e["title"], e["id"]), f(e["body"], e["id"]),
                             link_for(e, f"{where} {e['id']}"))
                     for e in raw.get("example", []))
    exercises = tuple(Exercise(e["id"], f(e["question"], e["id"]),
                               tuple(f(s, e["id"]) for s in e["steps"]),
                               link_for(e, f"{where} {e['id']}"))
                      for e in raw.get("exercise", []))
    quiz = tuple(Question(q["id"], f(q["question"], q["id"]),
                          tuple(Option(f(o["text"], q["id"]), bool(o["correct"]),
                                       f(o["why"], q["id"])) for o in q["options"]))
                 for q in raw.get("quiz", []))
    terms = tuple(Term(tm["id"], tm["name"], f(tm["tip"], tm["id"]))
                  for tm in raw.get("term", []))
    for q in quiz:
        if sum(o.correct for o in q.options) != 1:
            raise ValueError(f"{where} {q.id}: exactly one option must be correct")
    known = {s.id for s in sections}
    for e in examples:
        if e.section not in known:
            raise ValueError(f"{where} {e.id}: unknown section {e.section!r}")
    teacher = tuple(Note(b["id"], f(b["title"], b["id"]), f(b["body"], b["id"]))
                    for b in raw.get("teacher", []))

    def rows(table: str) -> tuple[PlanRow, ...]:
        return tuple(PlanRow(b["id"], int(b["minutes"]), f(b["title"], b["id"]),
                             f(b.get("body", ""), b["id"]), tuple(b.get("sections", [])),
                             b.get("level", "core"), tuple(b.get("tour", [])))
                     for b in raw.get(table, []))

    plan, reading = rows("plan"), rows("reading")
    for row in (*plan, *reading):
        if row.level not in PLAN_LEVELS or row.minutes <= 0:
            raise ValueError(f"{where} {row.id}: level in {PLAN_LEVELS}, minutes > 0")
        bad = [s for s in row.sections if s not in known]
        if bad:
            raise ValueError(f"{where} {row.id}: unknown sections {bad}")
    activities = tuple(
        Activity(a["id"], a["section"], a["kind"], f(a["title"], a["id"]), f(a["body"], a["id"]),
                 f(a.get("reveal", ""), a["id"]), a.get("figure", ""),
                 link_for(a, f"{where} {a['id']}") if ("lab" in a or "cdf" in a) else "",
                 int(a.get("minutes", 0)), f(a.get("expected", ""), a["id"]),
                 f(a.get("listen", ""), a["id"]), f(a.get("close", ""), a["id"]))
        for a in raw.get("activity", []))
    for a in activities:
        if a.section not in known or a.kind not in ACTIVITY_KINDS:
            raise ValueError(f"{where} {a.id}: unknown section or kind")
        if a.kind == "sketch" and not (a.figure and a.reveal):
            raise ValueError(f"{where} {a.id}: a sketch needs a figure and a reveal")
    problems = tuple(
        Problem(p["id"], int(p["level"]), f(p["question"], p["id"]),
                tuple(f(s, p["id"]) for s in p["steps"]),
                link_for(p, f"{where} {p['id']}") if ("lab" in p or "cdf" in p) else "",
                tuple((int(r["points"]), f(r["text"], p["id"])) for r in p.get("rubric", [])))
        for p in raw.get("problem", []))
    for p in problems:
        if not 1 <= p.level <= 3 or not p.steps:
            raise ValueError(f"{where} {p.id}: level 1-3 and a solution")
    formulas = tuple(Formula(b["id"], f(b["title"], b["id"]), f(b["body"], b["id"]))
                     for b in raw.get("formula", []))
    goals = tuple(Goal(g["id"], f(g["text"], g["id"])) for g in raw.get("goal", []))
    exits = tuple(ExitItem(e["id"], e["goal"], f(e["question"], e["id"]), f(e["answer"], e["id"]))
                  for e in raw.get("exit", []))
    known_goals = {g.id for g in goals}
    for item in exits:
        if item.goal not in known_goals:
            raise ValueError(f"{where} {item.id}: unknown learning goal {item.goal!r}")
    return Lesson(lesson, lang, f(raw["title"], "title"), f(raw.get("lead", ""), "lead"),
                  sections, examples, exercises, quiz, terms, teacher, plan, activities,
                  problems, formulas, reading, goals, exits)


TERMS_PATH = LESSON_DIR / "terms.toml"


@dataclass(frozen=True)
class Concept:
    """One entry of ``lessons/terms.toml``: the one term per language, its gloss, the variants
    the course does not use (regular expressions, checked by tests/lessons/test_terms.py, in
    the sources named by ``where``; empty: all), and the other names Korean (or English)
    papers and agencies use (``also``), which the glossary tooltip lists."""

    id: str
    terms: dict[str, str]
    glosses: dict[str, str]
    rejected: dict[str, tuple[str, ...]]
    tooltip: bool
    also: dict[str, tuple[str, ...]] = field(default_factory=dict)
    where: tuple[str, ...] = ()


@cache
def concepts() -> tuple[Concept, ...]:
    """The terminology table ``lessons/terms.toml`` (raw: glosses not filled in)."""
    with TERMS_PATH.open("rb") as fh:
        raw = tomllib.load(fh)
    out = []
    for c in raw.get("concept", []):
        out.append(Concept(
            c["id"], {lang: c[lang] for lang in LANGS},
            {lang: c[f"gloss_{lang}"] for lang in LANGS},
            {lang: tuple(c.get(f"reject_{lang}", [])) for lang in LANGS},
            bool(c.get("tooltip", False)),
            {lang: tuple(c.get(f"also_{lang}", [])) for lang in LANGS},
            tuple(c.get("where", []))))
    ids = [c.id for c in out]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise ValueError(f"lessons/terms.toml: concept ids defined twice: {sorted(dup)}")
    return tuple(out)


@cache
def glossary(lang: str) -> dict[str, Term]:
    """Every glossary term in ``lang``: the ``tooltip`` concepts of ``lessons/terms.toml``
    (name = the concept's term, tip = its gloss, values filled in), then any ``[[term]]``
    table of a lesson file (ids unique across both)."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; use one of {', '.join(LANGS)}")
    vals: dict[str, str] = {}
    for lesson in LESSONS:
        vals.update(values(lesson))
    out: dict[str, Term] = {}
    also_word = REGISTRY[lang].also_called
    for c in concepts():
        if c.tooltip:
            tip = fill(c.glosses[lang], vals, f"terms.toml {c.id}")
            if c.also.get(lang):
                tip += f" {also_word}: {', '.join(c.also[lang])}."
            out[c.id] = Term(c.id, c.terms[lang], tip)
    for lesson in LESSONS:
        if not source_path(lesson, lang).exists():
            continue
        for tm in load(lesson, lang).terms:
            if tm.id in out:
                raise ValueError(f"glossary term {tm.id!r} is defined twice ({lang})")
            out[tm.id] = tm
    return out


@cache
def tour(lang: str) -> tuple[TourStep, ...]:
    """The guided tour of /lab (``lessons/tour.<lang>.toml``), values filled in."""
    raw = read_source("tour", lang)
    vals = values("gaussian")
    steps = []
    for s in raw.get("step", []):
        where = f"tour.{lang}.toml {s['id']}"
        lab = {k: _fmt_param(v) for k, v in s["lab"].items()}
        missing = [k for k in LAB_KEYS if k not in lab]
        if missing:
            raise KeyError(f"{where}: lab lacks {', '.join(missing)}")
        predict = s.get("predict")
        options = tuple(fill(o, vals, where) for o in s.get("options", []))
        answer = s.get("answer")
        if predict is not None and (answer is None or not 0 <= answer < len(options)):
            raise ValueError(f"{where}: a prediction needs options and a valid answer index")
        steps.append(TourStep(
            s["id"], fill(s["title"], vals, where), fill(s["body"], vals, where), lab,
            fill(predict, vals, where) if predict else None, options, answer,
            fill(s["reveal"], vals, where) if s.get("reveal") else None))
    return tuple(steps)


@cache
def cdf_tour(lang: str) -> tuple[CDFTourStep, ...]:
    """The guided tour of /cdf (``lessons/cdftour.<lang>.toml``), values of the CDF lesson
    filled in."""
    raw = read_source("cdftour", lang)
    vals = values("cdf")
    steps = []
    for s in raw.get("step", []):
        where = f"cdftour.{lang}.toml {s['id']}"
        states = []
        for key in ("start", "cdf"):
            st = {k: _fmt_param(v) for k, v in s.get(key, s.get("start", {})).items()}
            unknown = [k for k in st if k not in CDF_KEYS]
            if unknown or "data" not in st:
                raise KeyError(f"{where}: {key} needs data and only /cdf names ({unknown})")
            states.append(st)
        predict = s.get("predict")
        options = tuple(fill(o, vals, where) for o in s.get("options", []))
        answer = s.get("answer")
        if predict is not None and (answer is None or not 0 <= answer < len(options)):
            raise ValueError(f"{where}: a prediction needs options and a valid answer index")
        steps.append(CDFTourStep(
            s["id"], fill(s["title"], vals, where), fill(s["body"], vals, where),
            states[0], states[1], fill(predict, vals, where) if predict else None, options,
            answer, fill(s["reveal"], vals, where) if s.get("reveal") else None))
    return tuple(steps)
