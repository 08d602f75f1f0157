"""The languages are registered once (lessons/languages.py, re-exported by app/shell/i18n.py):
a registered language needs only its texts, every catalogue file and every lesson file, and the
switch, the pages built ahead, the command line and the lessons follow the registry."""

from __future__ import annotations

import html as htmllib

import pytest

import lessons
from app import cli
from app.serve import hardening, prebuild
from app.shell import html as plain
from app.shell import i18n, template
from app.shell.numbers import pct_text
from lessons import languages

CODES = list(i18n.LANGUAGES)


def test_app_and_lessons_read_one_registry() -> None:
    assert i18n.LANGUAGE_REGISTRY is languages.REGISTRY
    assert i18n.LANGUAGES == lessons.LANGS == tuple(languages.REGISTRY) == ("ko", "en")
    assert i18n.DEFAULT_LANGUAGE == i18n.LANGUAGES[0] == "ko"
    for code, lang in i18n.LANGUAGE_REGISTRY.items():
        assert lang.code == code and lang.name and lang.html_lang and lang.also_called
        assert i18n.html_lang(code) == lang.html_lang
    with pytest.raises(TypeError):  # read-only
        languages.REGISTRY["fr"] = languages.REGISTRY["en"]  # type: ignore[index]


@pytest.mark.parametrize("code", CODES)
def test_every_language_has_every_catalogue_and_lesson_file(code: str) -> None:
    pages = {p.name.split(".")[0] for p in i18n.CATALOGUE_DIR.glob("*.json")}
    for page in pages:
        assert (i18n.CATALOGUE_DIR / f"{page}.{code}.json").is_file(), (page, code)
    sources = {p.name.split(".")[0] for p in lessons.LESSON_DIR.glob("*.*.toml")}
    assert set(lessons.LESSONS) <= sources
    for stem in sources:
        assert (lessons.LESSON_DIR / f"{stem}.{code}.toml").is_file(), (stem, code)
    # the terminology table has the language's columns, and every lesson loads in it
    assert all(c.terms[code] and c.glosses[code] for c in lessons.concepts())
    for lesson in lessons.LESSONS:
        assert lessons.load(lesson, code).sections
    assert lessons.glossary(code)


@pytest.mark.parametrize("code", CODES)
def test_the_percent_spacing_is_the_terms_tables(code: str) -> None:
    rule = next(c for c in lessons.concepts() if c.id == "percent")
    assert pct_text("95", code) == rule.terms[code]


@pytest.mark.parametrize("page_lang", CODES)
def test_the_switches_offer_every_language_by_its_own_name(page_lang: str) -> None:
    header = template._header_markup(page_lang, "/lab")
    links = plain._switch_links(page_lang, {}, "/lesson", {})
    for code, lang in i18n.LANGUAGE_REGISTRY.items():
        name = htmllib.escape(lang.name)
        assert f">{name}</a>" in header and f"?lang={code}" in header
        assert f'lang="{lang.html_lang}"' in links and f">{name}</a>" in links
    page = plain.document(lang=page_lang, kept={}, notices=[], path="/", title="t", body="")
    assert f'<html lang="{i18n.html_lang(page_lang)}"' in page


@pytest.mark.parametrize("code", CODES)
def test_requests_pages_built_ahead_and_the_command_line_take_every_language(
        code: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert i18n.pick_language(code, None) == code
    assert i18n.pick_language(None, f"{code};q=0.9") == code
    assert (code, ()) in prebuild.KEYS and (code, (("lang", code),)) in prebuild.KEYS
    assert f'<section lang="{i18n.html_lang(code)}">' in hardening.unavailable_page("full")
    assert cli.main(["certify", "--query", "sum", "--n", "4", "--B", "1", "--sigma", "1",
                     "--eps", "1", "--delta", "0.13", "--lang", code]) == 0
    assert capsys.readouterr().out.strip()
