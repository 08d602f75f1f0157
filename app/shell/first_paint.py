"""The first screen of a Panel page before its JavaScript has run (issue 8, "a light first load").

A Panel page shows nothing until the server has built it (~0.4 s of CPU here), the browser has
run ~3.4 MB of BokehJS, Panel and Fast (~0.9 s), fetched the document over the websocket and
built ~200 Bokeh views (~0.6 s more). Three changes let a student read the certification card
of /lab within a few hundred milliseconds:

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
(Bokeh calls only its ``render``). String functions are unit-tested in tests/test_first_paint.py;
the browser behaviour and the stream in tests/ui/test_first_paint_ui.py. Measured with
benchmarks/first_load.py (figures in the README).
"""

from __future__ import annotations

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
# Where the main area's Bokeh roots go in Panel's Fast templates (list and grid).
MAIN_MARK = '<div class="main" id="main">'

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

    def add_defer(m: re.Match[str]) -> str:
        attrs = m.group(1) + "src=" + m.group(2)
        if re.search(r"\b(defer|async)\b", attrs) or re.search(r'type=["\']?module', attrs):
            return m.group(0)
        return f"<script{m.group(1)}defer src={m.group(2)}></script>"

    head = _HEAD_SCRIPT.sub(add_defer, head)
    head = _INLINE_LOG_LEVEL.sub(
        lambda m: (f"{m.group(1)}document.addEventListener('DOMContentLoaded', function () "
                   f"{{ {m.group(2)} }});{m.group(3)}"), head)
    return head + rest


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
    if i < 0 or not frag:
        return page
    j = i + len(MAIN_MARK)
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
# Head key -> the page's <head> (through the <body> tag) as last rendered for that key.
_HEADS: dict[tuple[str, ...], str] = {}
_BODY_TAG = re.compile(r"<body\b[^>]*>", re.IGNORECASE)
_HEAD_TAG = re.compile(
    r"<(?:script|style|title)\b.*?</(?:script|style|title)>|<(?:link|meta)\b[^>]*>",
    re.IGNORECASE | re.DOTALL)
_FIRST_RESOURCE = re.compile(r'<script\b|<link\b[^>]*\brel="stylesheet"', re.IGNORECASE)
_RESOURCE = re.compile(r'<script\b[^>]*\bsrc=[^>]*>|<link\b[^>]*\brel="stylesheet"[^>]*>',
                       re.IGNORECASE)
_HREF = re.compile(r'\bhref="([^"]+)"', re.IGNORECASE)
# Before the page's own layout has arrived, the card stands where the main area will be.
EARLY_CLASS = "dp-first-paint-early"
_EARLY_CSS = "<style>" + assets.text("dplab-first-paint-early.css") + "</style>"
# (Each page's own fragment CSS puts the card beside its sidebar: app/lab/page.py.)
# Put where the page's main area starts: the early card moves into it (same spot on screen).
_MOVE_JS = "<script>" + assets.text("dplab-first-paint-move.js") + "</script>"
_DROP_JS = (f'<script>(function () {{ var f = document.getElementById("{FRAGMENT_ID}"); '
            f"if (f) f.remove(); }})();</script>")


def split_head(page: str) -> tuple[str, str] | None:
    """``(head, rest)``: the page through its ``<body>`` tag, and the rest; None without one."""
    m = _BODY_TAG.search(page)
    if m is None:
        return None
    return page[:m.end()], page[m.end():]


def remember_head(key: tuple[str, ...], page: str) -> None:
    """Keep the <head> of a page made by :class:`FirstPaintTemplate` for the next request."""
    parts = split_head(page)
    if parts and MAIN_MARK in parts[1] and FRAGMENT_BEGIN in parts[1]:
        _HEADS[key] = parts[0]


def early_head(key: tuple[str, ...]) -> str | None:
    return _HEADS.get(key)


def generic_head(lang: str) -> str:
    """The start of a page whose <head> is not known yet (the first of its key since the server
    started): the whole real <head> then follows in :func:`rest_chunk`, in the body, where
    browsers apply its scripts, style sheets and title alike."""
    return (f'<!DOCTYPE html>\n<html lang="{html.escape(lang)}">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n</head>\n'
            "<body>")


def split_resources(head: str) -> tuple[str, str, str]:
    """``head`` (a page through its ``<body>`` tag) as ``(prefix, tail, close)``: the <head>
    up to its first script or style sheet, the rest of the <head> (scripts, style sheets and
    styles, in order), and ``</head>`` through ``<body>``."""
    end = head.rfind("</head>")
    if end < 0:
        return head, "", ""
    m = _FIRST_RESOURCE.search(head, 0, end)
    if m is None:
        return head[:end], "", head[end:]
    return head[:m.start()], head[m.start():end], head[end:]


def preload_hints(tail: str) -> str:
    """``<link rel="preload" as="style">`` for the style sheets in ``tail``.

    Not for the scripts: behind serve-prod (HAProxy's cache) 3.4 MB of them then arrived while
    the card was still to be painted, and the first paint came later (median of 6 cold loads,
    benchmarks/first_load.py: card 681 ms with script hints, 349 ms without; the live card
    2.70 s and 3.01 s, within this machine's spread).
    """
    out = []
    for tag in _RESOURCE.findall(tail):
        if not tag.lower().startswith("<script"):
            href = _HREF.search(tag)
            if href:
                out.append(f'<link rel="preload" as="style" href="{href.group(1)}">')
    return "".join(out)


def early_chunk(head: str, frag: str) -> str:
    """What a streamed page sends before it is built: the start of its <head>, and the card
    where the main area will be.

    The head's scripts and style sheets follow in :func:`rest_chunk`, in their order, above the
    page's own layout: a style sheet holds back the first paint until it has arrived, from a
    process that is busy building the page, and scripts that arrive while the card is still
    to be painted keep the browser busy. Style sheets are announced (``preload``).
    """
    prefix, tail, close = split_resources(head)
    return (prefix + preload_hints(tail) + close + _EARLY_CSS
            + frag.replace(f'class="{FRAGMENT_CLASS}', f'class="{FRAGMENT_CLASS} {EARLY_CLASS}',
                           1))


def rest_chunk(page: str, sent_head: str) -> str:
    """The rest of the built ``page`` after :func:`early_chunk` sent ``sent_head`` and a card.

    First the part of the <head> the early chunk held back; then the page's body, where its own
    copy of the card is replaced by a script that moves the early one into the main area. If
    the page's <head> differs from the one sent (it should not: same key), its missing tags
    come first; a page without the card (a failed build) drops the early card.
    """
    _, tail, _ = split_resources(sent_head)
    parts = split_head(page)
    if parts is None:
        return tail + _DROP_JS + page
    head, rest = parts
    extra = "" if head == sent_head else "".join(
        tag for tag in _HEAD_TAG.findall(head) if tag not in sent_head)
    first = tail + extra
    i, j = rest.find(FRAGMENT_BEGIN), rest.find(FRAGMENT_END)
    if i < 0 or j < i:
        return first + _DROP_JS + rest
    return first + rest[:i] + _MOVE_JS + rest[j + len(FRAGMENT_END):]


def streaming_doc_handler(base: type) -> type:
    """Panel's page handler, but a page with an :data:`EARLY` function sends its <head> and
    the first card at once, then builds the page (its turn may come later when a class opens
    it together) and sends the rest. The <head> is the one of the last page built with the same
    key; until there is one (a server that just started: a whole class may arrive before the
    first page is built), a minimal one, and the real one follows with the page."""

    class FirstPaintDocHandler(base):
        _dp_stream: tuple[tuple[str, ...], str] | None = None

        async def get(self, *args: Any, **kwargs: Any) -> None:
            plan = self._dp_plan()
            if plan is None:
                await super().get(*args, **kwargs)
                return
            head = early_head(plan.key) or generic_head(plan.lang)
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.set_header("Cache-Control", "no-store")
            super().write(early_chunk(head, plan.fragment))
            try:
                await self.flush()
            except Exception:  # the browser left; build nothing
                return
            self._dp_stream = (plan.key, head)  # the next write is the built page
            await super().get(*args, **kwargs)

        def _dp_plan(self) -> Early | None:
            if not ENABLED:
                return None
            early = EARLY.get(getattr(self.application_context, "url", ""))
            if early is None:
                return None
            args = {k: v[0].decode("utf-8", "replace")
                    for k, v in (self.request.arguments or {}).items() if v}
            try:
                return early(args, self.request.headers.get("Accept-Language"))
            except Exception:  # the page build reports its own errors
                return None

        def write(self, chunk: Any) -> None:
            stream, self._dp_stream = self._dp_stream, None
            if stream is None or not isinstance(chunk, str):
                if stream is not None:
                    self._dp_stream = stream
                super().write(chunk)
                return
            key, sent = stream
            remember_head(key, chunk)
            super().write(rest_chunk(chunk, sent))

    FirstPaintDocHandler._dplab_stream = True
    return FirstPaintDocHandler


def install_streaming() -> None:
    """Replace the page handler in Bokeh's per-app routes (before the server is built, and
    before app.serve.hardening.install_session_cap, whose "class is full" answer must come
    first)."""
    from bokeh.server import urls

    for i, (pattern, handler, *rest) in enumerate(urls.per_app_patterns):
        if pattern == r"/?" and not getattr(handler, "_dplab_stream", False):
            urls.per_app_patterns[i] = (pattern, streaming_doc_handler(handler), *rest)
