"""Message catalogues: one JSON file per page and language, ``app/i18n/<page>.<lang>.json``.

All files of one language are merged into a single flat catalogue (keys are unique across pages,
e.g. ``common.*``, ``lab.*``, ``cdf.*``). Korean is the default language, English the second.
``t(key, lang, **fmt)`` looks a message up and fills ``str.format`` fields; a Korean particle
after a value is a format spec, ``{code:를}`` (app/shell/korean.py).

The languages are registered once, in lessons/languages.py (the lessons read them too and do
not import the app): ``LANGUAGE_REGISTRY`` (code -> :class:`Language`: its own name for the
switch, its ``<html lang>`` tag, ...), ``LANGUAGES`` (the codes, Korean first) and
``DEFAULT_LANGUAGE`` are that registry, as the app has always named them.
"""

from __future__ import annotations

import json
from functools import cache

from app.shell.assets import CATALOGUES
from app.shell.korean import FORMATTER, has_particle_field
from lessons import languages
from lessons.languages import Language

__all__ = ["CATALOGUE_DIR", "DEFAULT_LANGUAGE", "LANGUAGES", "LANGUAGE_REGISTRY", "Language",
           "catalogue", "html_lang", "pick_language", "t"]

CATALOGUE_DIR = CATALOGUES
LANGUAGE_REGISTRY = languages.REGISTRY
LANGUAGES: tuple[str, ...] = languages.CODES
DEFAULT_LANGUAGE: str = languages.DEFAULT


def html_lang(lang: str) -> str:
    """The ``<html lang>`` / ``lang=""`` tag of the language ``lang`` ('' stays '')."""
    return LANGUAGE_REGISTRY[lang].html_lang if lang else ""


@cache
def catalogue(lang: str) -> dict[str, str]:
    """Merged catalogue of every ``*.<lang>.json`` file; a key defined twice is an error."""
    if lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {', '.join(LANGUAGES)}, got {lang!r}")
    merged: dict[str, str] = {}
    for path in sorted(CATALOGUE_DIR.glob(f"*.{lang}.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for key, text in data.items():
            if key in merged:
                raise ValueError(f"message key {key!r} is defined twice ({path.name})")
            merged[key] = text
    return merged


def t(key: str, lang: str = DEFAULT_LANGUAGE, **fmt: object) -> str:
    """The message ``key`` in ``lang``; ``fmt`` fills its ``{name}`` fields.

    A missing key raises KeyError: every key must exist in every language (unit-tested).
    """
    text = catalogue(lang)[key]
    if not fmt:
        return text
    if has_particle_field(text):  # "{code:를}": the particle chosen by the value's last sound
        return FORMATTER.format(text, **fmt)
    return text.format(**fmt)


def pick_language(query_lang: str | None, accept_language: str | None) -> str:
    """Language for a request: ``?lang=`` wins, then the Accept-Language header, then Korean."""
    if query_lang in LANGUAGES:
        return query_lang
    if accept_language:
        ranked: list[tuple[float, int, str]] = []
        for pos, part in enumerate(accept_language.split(",")):
            fields = part.strip().split(";")
            tag = fields[0].strip().lower()
            weight = 1.0
            for f in fields[1:]:
                f = f.strip()
                if f.startswith("q="):
                    try:
                        weight = float(f[2:])
                    except ValueError:
                        weight = 0.0
            primary = tag.split("-")[0]
            if primary in LANGUAGES and weight > 0:
                ranked.append((-weight, pos, primary))
        if ranked:
            return min(ranked)[2]
    return DEFAULT_LANGUAGE
