"""One spelling of a percentage (issue 39, "95 %" one way): Korean writes the sign right after
the number ("95%"), English leaves a space ("95 %"), as lessons/terms.toml says (concept
"percent"). The percent helper of app/shell/numbers.py and every catalogue of app/i18n (the
command line's too) follow that rule."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

import lessons
from app.shell.numbers import fmt_pct, pct_text

ROOT = Path(lessons.__file__).resolve().parent.parent
LANGS = ("ko", "en")
RULE = next(c for c in lessons.concepts() if c.id == "percent")


def rejected(text: str, lang: str) -> list[str]:
    """The terms table's patterns for a percentage spelled the other way that ``text`` has."""
    return [p for p in RULE.rejected[lang] if re.search(p, text)]


def test_the_rule_is_one_spelling_per_language() -> None:
    assert (RULE.terms["ko"], RULE.terms["en"]) == ("95%", "95 %")
    # each language's patterns catch the other's spelling, and not its own
    for lang, other in (("ko", "en"), ("en", "ko")):
        assert rejected(RULE.terms[other], lang) != []
        assert rejected(RULE.terms[lang], lang) == []


@pytest.mark.parametrize("lang", LANGS)
def test_the_percent_helper_spells_as_the_terms_table(lang: str) -> None:
    assert fmt_pct(0.95, lang, 0) == RULE.terms[lang]
    assert pct_text("95", lang) == RULE.terms[lang]
    assert pct_text("{keep}", lang) == ("{keep}%" if lang == "ko" else "{keep} %")
    assert fmt_pct(0.123, lang) == ("12.3%" if lang == "ko" else "12.3 %")
    assert fmt_pct(1 / 3, lang, 2) == ("33.33%" if lang == "ko" else "33.33 %")
    for share in (0.0, 0.004, 0.5, 0.999, 1.0, 12.5):
        for decimals in (0, 1, 2):
            text = fmt_pct(share, lang, decimals)
            assert rejected(f"그 {text} 확률" if lang == "ko" else f"a {text} chance", lang) == []
            assert text.endswith("%") and float(text.rstrip(" %")) == pytest.approx(
                100 * share, abs=0.51 * 10 ** -decimals)
    # the same number, the same digits: only the space before the sign differs
    assert fmt_pct(0.123, "ko").replace("%", "") == fmt_pct(0.123, "en").replace(" %", "")
    for missing in (None, math.nan, math.inf):
        assert fmt_pct(missing, lang) == "—"


@pytest.mark.parametrize("lang", LANGS)
def test_every_catalogue_spells_a_percentage_one_way(lang: str) -> None:
    """All of app/i18n, not only the pages the terms table lists (the command line's "95%
    of noise" was the one English text with the sign glued to the number)."""
    bad = []
    files = sorted((ROOT / "app" / "i18n").glob(f"*.{lang}.json"))
    assert len(files) >= 14
    for f in files:
        for key, text in json.loads(f.read_text("utf-8")).items():
            if rejected(text, lang):
                bad.append((f.name, key, text))
    assert bad == []
