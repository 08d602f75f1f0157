"""dplab's languages, registered once: the course (``lessons/<lesson>.<code>.toml``), the app's
message catalogues (``app/i18n/<page>.<code>.json``), the language switch and ``<html lang>``
all read :data:`REGISTRY`.

It lives here, not in app/, because the lessons must not import the app (pure content,
renderable anywhere); app/shell/i18n.py re-exports it. A new language is one entry below plus
its texts: every catalogue file and every lesson file in that language
(tests/app/shell/test_languages.py says which are missing).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class Language:
    code: str  # ``?lang=`` and the files' suffix
    name: str  # its own name: the language switch shows it so whatever the page's language
    html_lang: str  # BCP 47 tag of ``<html lang>`` and ``lang=""`` attributes
    #: Between a number and "%" (lessons/terms.toml, concept "percent": "95%", "95 %").
    percent_space: str
    #: The glossary tooltips' "also called: <other names>." (the lessons' one word of their own).
    also_called: str


def _register(*langs: Language) -> Mapping[str, Language]:
    out = {lang.code: lang for lang in langs}
    if len(out) != len(langs):
        raise ValueError("a language is registered twice")
    return MappingProxyType(out)


#: Korean first: the default (a request that names no language we have gets it).
REGISTRY: Mapping[str, Language] = _register(
    Language("ko", "한국어", "ko", "", "다른 이름"),
    Language("en", "English", "en", " ", "Also called"),
)
CODES: tuple[str, ...] = tuple(REGISTRY)
DEFAULT: str = CODES[0]
