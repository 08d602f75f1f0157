"""The first screen of a Panel page before its JavaScript has run (a light first load).

A Panel page shows nothing until the server has built it (~0.15 s of CPU here), the browser
has run ~2.5 MB of BokehJS and Panel (~0.4 s), fetched the document over the websocket and
built ~130 Bokeh views (~0.3 s more; figures of 2026-12-01). Three changes let a student read
the certification card of /lab within a few hundred milliseconds:

1. :func:`defer_scripts`: the classic ``<script src>`` tags in ``<head>`` get ``defer``. The
   browser lays out the body while the scripts download; they run afterwards, in the same
   order, still before ``DOMContentLoaded`` (when Bokeh's embed code starts, as before). The
   one inline head script that calls Bokeh at once (``Bokeh.set_log_level``) waits for
   ``DOMContentLoaded`` too.
2. :func:`insert_fragment`: a server-rendered copy of the card, made by the same function as the
   live card from the same state, sits where the page's main area will be. It carries the same
   classes (``dp-verdict``, ``dp-required-delta`` ...), says that the controls are still loading
   (``aria-busy``), and removes itself the moment the live card can be seen, so no script finds
   both or neither (the swap script below).
3. Streaming (:func:`streaming_doc_handler`): a page that has an :data:`EARLY` function (/lab)
   sends the start of its ``<head>`` and the card at once, before it is built (and before its
   turn when a whole class opens it), then the rest: the held-back scripts and style sheets,
   and the page. The ``<head>`` comes from the last page built for the same key (path,
   language, size, theme); the first request of a key is sent whole.

1 and 2 are applied by :class:`FirstPaintTemplate`, a wrapper around the page's Jinja template
(Bokeh calls only its ``render``). String functions are unit-tested in
tests/app/shell/test_first_paint.py;
the browser behaviour and the stream in tests/ui/test_first_paint_ui.py. Measured with
benchmarks/first_load.py (figures in the README).
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable
from typing import Any, NamedTuple

import jinja2

from app.shell import assets

# False: pages render as Panel makes them (benchmarks/first_load.py's "before" variant).
ENABLED = True
FRAGMENT_ID = "dp-first-paint"
FRAGMENT_CLASS = "dp-first-paint"
FRAGMENT_BEGIN = "<!--dp-first-paint-->"
FRAGMENT_END = "<!--/dp-first-paint-->"
# Where the main area's Bokeh roots go in Panel's Fast templates (list and grid): the start of
# its tag (ours, assets/dplab-list-template.html, adds role="main" and tabindex to it).
MAIN_MARK = '<div class="main" id="main"'

_HEAD_SCRIPT = re.compile(r"<script\b([^>]*)\bsrc=([^>]*)>\s*</script>", re.IGNORECASE)
_HTML_LANG = re.compile(r'<html\s+lang="[^"]*"', re.IGNORECASE)
_INLINE_LOG_LEVEL = re.compile(
    r"(<script[^>]*>)\s*(Bokeh\.set_log_level\([^)]*\);)\s*(</script>)")

# Removes the server-rendered card when the live card (inside a Bokeh shadow root) is on screen.
# It runs while the HTML is parsed, before BokehJS: every shadow root made from then on gets a
# MutationObserver, which finds the live card when it is inserted; it and one on the light DOM
# watch style changes too (Bokeh keeps a new layout ``visibility: hidden`` until it is laid
# out). Their callbacks run right after the script that made the change, before any other
# task, so no script (a test's, a screen reader's) finds both cards or neither.
# A per-frame search after DOMContentLoaded is the fallback; after 60 s without a live card
# the note says so.
_SWAP_JS = assets.text("dplab-first-paint-swap.js")


def defer_scripts(page: str) -> str:
    """``page`` with every classic external script in ``<head>`` deferred (order kept).

    Module scripts are deferred already; inline scripts cannot be, so the only one that uses
    Bokeh at parse time (the log level) is moved into a ``DOMContentLoaded`` listener, which
    runs after every deferred script. The body is left as it is.
    """
    head_end = page.find("</head>")
    if head_end < 0:
        return page
    head, rest = page[:head_end], page[head_end:]
    # The <head> of every page of one address is the same text (scripts, style sheets, the
    # title): its two regular-expression passes (~1 ms) run once per distinct head.
    return _defer_head(head) + rest


@functools.lru_cache(maxsize=64)
def _defer_head(head: str) -> str:
    def add_defer(m: re.Match[str]) -> str:
        attrs = m.group(1) + "src=" + m.group(2)
        if re.search(r"\b(defer|async)\b", attrs) or re.search(r'type=["\']?module', attrs):
            return m.group(0)
        return f"<script{m.group(1)}defer src={m.group(2)}></script>"

    head = _HEAD_SCRIPT.sub(add_defer, head)
    return _INLINE_LOG_LEVEL.sub(
        lambda m: (f"{m.group(1)}document.addEventListener('DOMContentLoaded', function () "
                   f"{{ {m.group(2)} }});{m.group(3)}"), head)


def fragment(body: str, *, css: str, loading: str, failed: str, label: str,
             classes: str = "") -> str:
    """The server-rendered first screen: ``body`` (trusted HTML made by the page) inside a
    ``<section>`` that reads as busy, with its own stylesheet and the swap script.

    ``loading`` / ``failed``: the note shown while the controls load / if they never do
    (plain text, escaped here); ``label``: the section's accessible name; ``classes``: more
    CSS classes of the section.
    """
    cls = html.escape(f"{FRAGMENT_CLASS} {classes}".strip())
    return (
        f"{FRAGMENT_BEGIN}"
        f'<section id="{FRAGMENT_ID}" class="{cls}" aria-busy="true" '
        f'aria-label="{html.escape(label)}">'
        f"<style>{css}</style>"
        f'<p class="dp-first-paint-note" role="status" data-failed="{html.escape(failed)}">'
        f"{html.escape(loading)}</p>{body}</section>"
        f"<script>{_SWAP_JS % {'id': FRAGMENT_ID}}</script>{FRAGMENT_END}")


def set_html_lang(page: str, lang: str) -> str:
    """``page`` with ``<html lang>`` set to ``lang`` (Panel's templates write "en" on every page;
    the browser fixed it only once the page's JavaScript ran). Unchanged when ``lang`` is ''."""
    if not lang:
        return page
    return _HTML_LANG.sub(f'<html lang="{html.escape(lang)}"', page, count=1)


def insert_fragment(page: str, frag: str) -> str:
    """``page`` with ``frag`` as the first thing of its main area (unchanged without one)."""
    i = page.find(MAIN_MARK)
    j = page.find(">", i + len(MAIN_MARK)) if i >= 0 else -1
    if j < 0 or not frag:
        return page
    j += 1
    return page[:j] + frag + page[j:]


class FirstPaintTemplate(jinja2.Template):
    """A page's Jinja template with :func:`defer_scripts`, :func:`set_html_lang` and
    :func:`insert_fragment` applied to what it renders. A subclass (Bokeh accepts only Jinja
    templates or strings as a document's template) sharing the compiled template of ``inner``.
    """

    fragment: str
    lang: str

    @classmethod
    def wrap(cls, inner: jinja2.Template, frag: str = "", lang: str = "") -> FirstPaintTemplate:
        t = object.__new__(cls)
        t.__dict__.update(inner.__dict__)
        t.fragment = frag
        t.lang = lang
        return t

    def render(self, *args: Any, **kwargs: Any) -> str:
        page = defer_scripts(super().render(*args, **kwargs))
        return insert_fragment(set_html_lang(page, self.lang), self.fragment)


# ---------------------------------------------------------------------------------------------
# streaming: the first card before the page is built
# ---------------------------------------------------------------------------------------------
class Early(NamedTuple):
    """What a page can send before it is built (the value of an :data:`EARLY` function)."""

    key: tuple[str, ...]  # everything the page's <head> depends on (path, language, size, theme)
    fragment: str  # :func:`fragment`
    lang: str  # the page language (<html lang>)


# Route path -> early(args, accept_language) -> Early or None.
EARLY: dict[str, Callable[[dict[str, str], str | None], Early | None]] = {}




















