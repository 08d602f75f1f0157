"""Lesson sources: both languages have the same structure, every number comes from dpcore,
every link loads a valid lab / CDF state, and the pages render with the fixed class names."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlparse

import pytest

import lessons
from app.cdf.state import CDFState
from app.lab.state import LabState
from app.lesson import page as lesson_page

LESSONS = lessons.LESSONS
LANGS = lessons.LANGS
TEXT_FIELDS = ("title", "lead", "body", "question", "steps", "text", "why", "tip", "predict",
               "options", "reveal", "name", "expected", "listen", "close", "answer")
# A decimal literal with four or more significant digits (e.g. 0.1269, 3.7306, 2223595.49):
# such a number must come from dpcore through a {{placeholder}}, never be typed by hand.
TYPED_NUMBER = re.compile(r"(?<![\w.{])(\d+\.\d+|\d{4,}(?:\.\d+)?)(?![\w}])")


def _significant(lit: str) -> int:
    digits = lit.replace(".", "").lstrip("0")
    return len(digits.rstrip("0")) if "." not in lit else len(digits)


def _ids(raw: dict[str, Any], table: str) -> list[str]:
    return [e["id"] for e in raw.get(table, [])]


def _texts(node: Any) -> list[str]:
    """Every text field of a TOML tree (keys in TEXT_FIELDS), recursively."""
    out: list[str] = []
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ("lab", "cdf"):
                continue  # inputs of the lab, not prose
            if k in TEXT_FIELDS and isinstance(v, str):
                out.append(v)
            elif k in TEXT_FIELDS and isinstance(v, list) and all(isinstance(x, str) for x in v):
                out.extend(v)
            else:
                out.extend(_texts(v))
    elif isinstance(node, list):
        for x in node:
            out.extend(_texts(x))
    return out


SOURCES = [(lesson, lang) for lesson in (*LESSONS, "tour") for lang in LANGS]


@pytest.mark.parametrize("lesson", [*LESSONS, "tour"])
def test_korean_and_english_have_the_same_structure(lesson: str) -> None:
    ko, en = lessons.read_source(lesson, "ko"), lessons.read_source(lesson, "en")
    for table in ("section", "example", "exercise", "quiz", "term", "step"):
        assert _ids(ko, table) == _ids(en, table), table
    for a, b in zip(ko.get("exercise", []), en.get("exercise", []), strict=True):
        assert len(a["steps"]) == len(b["steps"]), a["id"]
        assert a.get("lab", a.get("cdf")) == b.get("lab", b.get("cdf")), a["id"]
    for a, b in zip(ko.get("quiz", []), en.get("quiz", []), strict=True):
        assert [o["correct"] for o in a["options"]] == [o["correct"] for o in b["options"]], a["id"]
    for a, b in zip(ko.get("step", []), en.get("step", []), strict=True):
        assert a["lab"] == b["lab"] and a.get("answer") == b.get("answer"), a["id"]
        assert len(a.get("options", [])) == len(b.get("options", [])), a["id"]
    for a, b in zip(ko.get("example", []), en.get("example", []), strict=True):
        assert a.get("lab", a.get("cdf")) == b.get("lab", b.get("cdf")), a["id"]


@pytest.mark.parametrize(("lesson", "lang"), SOURCES)
def test_no_computed_number_is_typed_by_hand(lesson: str, lang: str) -> None:
    raw = lessons.read_source(lesson, lang)
    typed = []
    for text in _texts(raw):
        plain = re.sub(r"\{\{[^}]*\}\}", "", text)
        for m in TYPED_NUMBER.finditer(plain):
            if _significant(m.group(1)) >= 4:
                typed.append((m.group(1), text[max(0, m.start() - 30):m.end() + 30]))
    assert typed == [], f"numbers typed by hand (use a {{{{value}}}} from values_{lesson}.py)"


def test_the_typed_number_check_can_fail() -> None:
    hits = [m.group(1) for m in TYPED_NUMBER.finditer("δ ≈ 0.12693674 and 3.7306, n = 4, 0.13")]
    assert [h for h in hits if _significant(h) >= 4] == ["0.12693674", "3.7306"]


@pytest.mark.parametrize("lang", LANGS)
def test_counts_required_by_the_course(lang: str) -> None:
    g, c = lessons.load("gaussian", lang), lessons.load("cdf", lang)
    assert len(g.exercises) >= 10 and len(g.quiz) >= 10
    assert len(c.exercises) >= 5 and len(c.quiz) >= 5
    assert "underflow" in [s.id for s in g.sections]
    for q in (*g.quiz, *c.quiz):
        assert 3 <= len(q.options) <= 4 and all(o.why.strip() for o in q.options), q.id
    for e in (*g.exercises, *c.exercises):
        assert len(e.steps) >= 2, e.id


@pytest.mark.parametrize(("lesson", "lang"), [(le, la) for le in LESSONS for la in LANGS])
def test_every_lab_link_is_a_valid_lab_state(lesson: str, lang: str) -> None:
    les = lessons.load(lesson, lang)
    linked = [x for x in (*les.problems, *les.activities) if x.link]  # the instructor's too
    for item in (*les.examples, *les.exercises, *linked):
        url = urlparse(item.link)
        args = dict(parse_qsl(url.query))
        if url.path == "/lab":
            assert set(lessons.LAB_KEYS) <= set(args), item.id
            state = LabState()
            assert state.apply_url(args) == [], (item.id, args)
            q = state.url_query()
            assert all(q[k] == args[k] for k in lessons.LAB_KEYS), item.id
        else:
            assert url.path == "/cdf", item.id
            assert set(args) <= set(lessons.CDF_KEYS), item.id
            assert "data" in args and "eps" in args, item.id
            cdf = CDFState()
            assert cdf.apply_url(args) == [], (item.id, args)
            q = cdf.url_query()
            for k in args:
                if k in ("eps", "delta"):
                    assert float(q[k]) == float(args[k]), (item.id, k)
                elif k != "n" or cdf.is_synthetic:
                    assert q[k] == args[k], (item.id, k)


@pytest.mark.parametrize(("lesson", "lang"), [(le, la) for le in LESSONS for la in LANGS])
def test_page_renders_with_fixed_classes(lesson: str, lang: str) -> None:
    status, page = lesson_page.render({"topic": lesson, "lang": lang}, None)
    les = lessons.load(lesson, lang)
    assert status == 200
    assert f'<html lang="{lang}"' in page
    assert page.count('class="dp-quiz-question"') == len(les.quiz)
    assert page.count('class="dp-quiz-explanation" hidden') == len(les.quiz)
    assert page.count('class="dp-exercise"') == len(les.exercises)
    assert page.count('class="dp-exercise-answer"') == len(les.exercises)
    assert page.count('class="dp-open-in-lab"') == len(les.exercises) + len(les.examples)
    for s in les.sections:
        assert f'id="{s.id}"' in page
    assert "{{" not in page and "[[" not in page  # every value and term was filled in
    assert "http://" not in page and "https://" not in page  # nothing from the internet


def test_unknown_topic_falls_back_with_a_notice() -> None:
    status, page = lesson_page.render({"topic": "nope", "lang": "en"}, None)
    assert status == 200 and 'class="dp-notice"' in page and "nope" in page


def test_placeholders_fail_loudly() -> None:
    with pytest.raises(KeyError):
        lessons.fill("δ = {{no_such_value}}", {}, "test")


# The lab's views move with the page size (at size=large the density plot sits under the card,
# beside the tour panel), so a tour step names a view by its heading, never by where it sits.
# (A point far to the left on an axis is not a place on the page.)
PLACE_WORDS = {
    "en": re.compile(r"\b(card|plot|curve|table|panel|slider)\*?\*? (on|to) the (left|right)\b"
                     r"|\bscroll (down|up)\b", re.I),
    "ko": re.compile(r"(왼쪽|오른쪽)(의|에 있는)?\s*(아래|위)?\s*(\*\*)?\"?"
                     r"(인증|밀도|카드|그림|곡선|표|조절기|프라이버시)"
                     r"|아래로 내려|위로 올라"),
}


@pytest.mark.parametrize("tour", ["tour", "cdftour"])
@pytest.mark.parametrize("lang", LANGS)
def test_tour_steps_name_views_by_heading_not_position(lang: str, tour: str) -> None:
    raw = lessons.read_source(tour, lang)
    placed = [(s["id"], m.group(0)) for s in raw["step"] for field in ("body", "predict")
              for m in PLACE_WORDS[lang].finditer(s.get(field, ""))]
    assert placed == []
