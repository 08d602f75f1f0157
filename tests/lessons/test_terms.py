"""One vocabulary (issue 18, section 3): ``lessons/terms.toml`` is the terminology table; no
lesson source or message catalogue uses a rejected variant, and the glossary tooltips come from
the table."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import lessons

ROOT = Path(lessons.__file__).resolve().parent.parent
CATALOGUES = ROOT / "app" / "i18n"


def _sources(lang: str) -> list[tuple[str, str]]:
    """(where, text) for every lesson source and catalogue string in ``lang``, and every
    language-specific value (``*_ko`` / ``*_en``) computed for the lessons."""
    out: list[tuple[str, str]] = []
    for p in sorted(lessons.LESSON_DIR.glob(f"*.{lang}.toml")):
        for i, line in enumerate(p.read_text("utf-8").splitlines(), 1):
            if not line.lstrip().startswith("#"):
                out.append((f"{p.name}:{i}", line))
    for p in sorted(CATALOGUES.glob(f"*.{lang}.json")):
        for key, text in json.loads(p.read_text("utf-8")).items():
            out.append((f"{p.name} {key}", text))
    for lesson in lessons.LESSONS:
        for name, text in lessons.values(lesson).items():
            if name.endswith(f"_{lang}"):
                out.append((f"values_{lesson}.py {name}", text))
    return out


def _in_scope(where: str, scope: tuple[str, ...]) -> bool:
    """Is the source ``where`` (a _sources name) in a concept's ``where`` list (empty: all)?"""
    if not scope:
        return True
    if where.endswith(".toml") or ".toml:" in where or where.startswith("values_"):
        return "lessons" in scope
    return where.split(".", 1)[0] in scope


def _hits(lang: str) -> list[tuple[str, str, str]]:
    found = []
    for c in lessons.concepts():
        for pattern in c.rejected[lang]:
            rx = re.compile(pattern)
            for where, text in _sources(lang):
                if not _in_scope(where, c.where):
                    continue
                for m in rx.finditer(text):
                    found.append((c.id, where, text[max(0, m.start() - 20):m.end() + 20]))
    return found


def test_table_is_complete() -> None:
    cs = lessons.concepts()
    assert len(cs) >= 20
    for c in cs:
        for lang in lessons.LANGS:
            assert c.terms[lang].strip() and c.glosses[lang].strip(), (c.id, lang)
            for pattern in c.rejected[lang]:
                re.compile(pattern)  # a broken pattern fails here, not silently
                assert not re.search(pattern, c.terms[lang]), (c.id, "term matches its reject")


@pytest.mark.parametrize("lang", lessons.LANGS)
def test_no_rejected_variant_in_lessons_or_catalogues(lang: str) -> None:
    hits = _hits(lang)
    assert hits == [], "rejected variants (see lessons/terms.toml):\n" + "\n".join(
        f"  {cid}: {where}: …{ctx}…" for cid, where, ctx in hits)


def test_the_check_can_fail() -> None:
    record = next(c for c in lessons.concepts() if c.id == "record")
    rx = [re.compile(p) for p in record.rejected["ko"]]
    assert any(r.search("잘린 기록 수") for r in rx)
    assert not any(r.search("장부에 기록됩니다") for r in rx)  # the verb is fine
    private = next(c for c in lessons.concepts() if c.id == "private")
    assert any(re.search(p, "누적분포함수를 비공개로 추정하기") for p in private.rejected["ko"])


@pytest.mark.parametrize("lang", lessons.LANGS)
def test_glossary_tooltips_come_from_the_table(lang: str) -> None:
    glossary = lessons.glossary(lang)
    table = {c.id: c for c in lessons.concepts() if c.tooltip}
    assert set(table) <= set(glossary)
    for cid, c in table.items():
        assert glossary[cid].name == c.terms[lang], cid
        assert "{{" not in glossary[cid].tip, cid
    # every [[term]] used in a lesson or the tour is in the table
    used = set()
    for p in lessons.LESSON_DIR.glob(f"*.{lang}.toml"):
        used |= set(re.findall(r"\[\[([a-z0-9-]+)(?:\|[^\]]+)?\]\]", p.read_text("utf-8")))
    used -= {"section", "example", "exercise", "quiz", "step", "term", "concept",  # headers
             "teacher", "plan", "activity", "problem", "formula", "reading", "goal", "exit"}
    assert used <= set(table), used - set(table)


def test_the_names_shown_in_the_text_use_the_table_terms() -> None:
    """``[[id|shown]]`` in Korean may add a particle or a parenthesis, never another word."""
    table = {c.id: c for c in lessons.concepts() if c.tooltip}
    bad = []
    for p in lessons.LESSON_DIR.glob("*.ko.toml"):
        for tid, shown in re.findall(r"\[\[([a-z0-9-]+)\|([^\]]+)\]\]", p.read_text("utf-8")):
            core = re.sub(r"\(.*\)$", "", table[tid].terms["ko"]).strip()
            if core.split()[0] not in shown and shown not in table[tid].terms["ko"]:
                bad.append((p.name, tid, shown))
    assert bad == []
