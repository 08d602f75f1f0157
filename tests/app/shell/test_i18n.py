"""Message catalogues: every language has the same keys and the same format fields."""

from __future__ import annotations

import json
import string
from pathlib import Path

import pytest

from app.shell import i18n

FILES = sorted(i18n.CATALOGUE_DIR.glob("*.json"))


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


def test_catalogue_files_exist_for_every_language() -> None:
    pages = {p.name.split(".")[0] for p in FILES}
    assert {"common", "lab"} <= pages
    for page in pages:
        for lang in i18n.LANGUAGES:
            assert (i18n.CATALOGUE_DIR / f"{page}.{lang}.json").is_file(), (page, lang)


@pytest.mark.parametrize("page", sorted({p.name.split(".")[0] for p in FILES}))
def test_same_keys_and_fields_in_every_language(page: str) -> None:
    cats = {lang: json.loads(Path(i18n.CATALOGUE_DIR / f"{page}.{lang}.json").read_text("utf-8"))
            for lang in i18n.LANGUAGES}
    ko = cats["ko"]
    for lang, cat in cats.items():
        assert set(cat) == set(ko), (lang, set(cat) ^ set(ko))
        for key, text in cat.items():
            assert text.strip(), (lang, key)
            assert _fields(text) == _fields(ko[key]), (lang, key)


def test_merged_catalogues_have_identical_keys() -> None:
    assert set(i18n.catalogue("ko")) == set(i18n.catalogue("en"))


def test_lookup_and_format() -> None:
    assert i18n.t("lab.verdict.pass", "en") == "pass"
    assert i18n.t("lab.verdict.pass", "ko") == "통과"
    assert "7" in i18n.t("lab.err.record", "en", n=7)
    with pytest.raises(KeyError):
        i18n.t("no.such.key", "en")
    with pytest.raises(ValueError):
        i18n.catalogue("fr")


@pytest.mark.parametrize(("query", "header", "expect"), [
    ("en", "ko-KR,ko;q=0.9", "en"),
    ("ko", "en-US", "ko"),
    (None, "en-US,en;q=0.9,ko;q=0.8", "en"),
    (None, "fr-FR,ko;q=0.5,en;q=0.4", "ko"),
    (None, "fr-FR", "ko"),
    (None, None, "ko"),
    ("xx", "en", "en"),
    (None, "en;q=0", "ko"),
])
def test_pick_language(query: str | None, header: str | None, expect: str) -> None:
    assert i18n.pick_language(query, header) == expect
