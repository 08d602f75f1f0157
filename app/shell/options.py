"""The page options every address may carry (lang, size, theme) and the session's query arguments.

Read from the current Panel session (``pn.state.session_args``); an unknown value of a page
option falls back to the default and is reported by :func:`bad_options` (never a traceback).
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlencode

import panel as pn

from app.shell.i18n import LANGUAGES, pick_language

# Query options that every internal link carries over (language, projector type, theme).
KEPT_OPTIONS = ("lang", "size", "theme")


SIZES = ("normal", "large")


THEMES = ("default", "dark")


OPTION_VALUES: dict[str, tuple[str, ...]] = {"lang": LANGUAGES, "size": SIZES, "theme": THEMES}


# ---------------------------------------------------------------------------------------------
# query options
# ---------------------------------------------------------------------------------------------
def session_args() -> dict[str, str]:
    """The current session's query arguments as text (the first value of each; bytes decoded
    as UTF-8 with replacement). The one place the pages read ``pn.state.session_args``."""
    out: dict[str, str] = {}
    for k, vs in (pn.state.session_args or {}).items():
        if vs:
            raw = vs[0]
            out[k] = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    return out


def session_flag(name: str) -> str | None:
    """A query argument of the current session as text (None when absent or empty)."""
    return session_args().get(name) or None


def request_language() -> str:
    """Language of the current Panel session: ``?lang``, else Accept-Language, else Korean."""
    headers = pn.state.headers or {}
    accept = headers.get("Accept-Language")
    return pick_language(session_args().get("lang", ""),
                         accept if isinstance(accept, str) else None)


def option(name: str) -> str | None:
    """The value of a page option (lang, size, theme) when it is a known one, else None."""
    v = session_flag(name)
    return v if v in OPTION_VALUES[name] else None


def bad_options() -> list[tuple[str, str]]:
    """(name, value) of every page option in the address whose value is unknown (cut to 40)."""
    out = []
    for name in KEPT_OPTIONS:
        v = session_flag(name)
        if v and v not in OPTION_VALUES[name]:
            out.append((name, v[:40]))
    return out


def is_large() -> bool:
    return option("size") == "large"


def is_dark() -> bool:
    return option("theme") == "dark"


def kept_query(lang: str, args: Mapping[str, str] | None = None) -> str:
    """``?lang=..&size=..&theme=..`` for an internal link: the options a student chose stay.

    ``args``: the request's query arguments, already checked (default: the current Panel
    session's; unknown values are left out).
    """
    if args is None:
        args = {k: v for k in KEPT_OPTIONS[1:] if (v := option(k))}
    parts = [("lang", lang)]
    for k in KEPT_OPTIONS[1:]:
        v = args.get(k)
        if v and not (k == "size" and v == "normal") and not (k == "theme" and v == "default"):
            parts.append((k, v))
    return "?" + urlencode(parts)


def current_query(**change: str) -> str:
    """The current address's query with ``change`` applied (unknown page options dropped)."""
    q: dict[str, str] = {}
    for k, v in session_args().items():
        if k in OPTION_VALUES and v not in OPTION_VALUES[k]:
            continue
        q[k] = v
    q.update(change)
    return "?" + urlencode(q)
