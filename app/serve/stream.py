"""The first card streamed before its page is built (a whole class opening /lab at once).

A page with an :data:`app.shell.first_paint.EARLY` function (/lab) sends the start of its
``<head>`` and its card at once, before it is built (and before its turn), then the held-back
scripts and style sheets and the page itself. The ``<head>`` comes from the last page built for
the same key (path, language, size, theme); until one exists a minimal ``<head>`` goes first.
In a live class (``/lab?room=CODE``) the card is made from the room's state
(app/serve/room_wiring.py).
"""

from __future__ import annotations

import html
import re
from typing import Any

from app.shell import assets, first_paint
from app.shell.first_paint import (
    EARLY,
    FRAGMENT_BEGIN,
    FRAGMENT_CLASS,
    FRAGMENT_END,
    MAIN_MARK,
    Early,
)
from app.shell.i18n import html_lang

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


_DROP_JS = "<script>" + assets.text("dplab-first-paint-drop.js") + "</script>"


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
    return (f'<!DOCTYPE html>\n<html lang="{html.escape(html_lang(lang))}">\n<head>\n'
            '<meta charset="utf-8">\n'
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


def early_chunk(head: str, frag: str, notice: str = "") -> str:
    """What a streamed page sends before it is built: the start of its <head>, ``notice``
    (app/serve/origin.py) and the card where the main area will be.

    The head's scripts and style sheets follow in :func:`rest_chunk`, in their order, above the
    page's own layout: a style sheet holds back the first paint until it has arrived, from a
    process that is busy building the page, and scripts that arrive while the card is still
    to be painted keep the browser busy. Style sheets are announced (``preload``).
    """
    prefix, tail, close = split_resources(head)
    return (prefix + preload_hints(tail) + close + notice + _EARLY_CSS
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


def insert_after_body(page: str, notice: str) -> str:
    """``page`` with ``notice`` right after its ``<body>`` tag (unchanged without one)."""
    m = _BODY_TAG.search(page)
    return page if m is None or not notice else page[:m.end()] + notice + page[m.end():]


PAGE_CONTENT_TYPE = "text/html; charset=utf-8"


def streaming_doc_handler(base: type) -> type:
    """Panel's page handler, but a page with an :data:`EARLY` function sends its <head> and
    the first card at once, then builds the page (its turn may come later when a class opens
    it together) and sends the rest. The <head> is the one of the last page built with the same
    key; until there is one (a server that just started: a whole class may arrive before the
    first page is built), a minimal one, and the real one follows with the page.

    Every page (streamed or not) carries the websocket-origin alerts of app/serve/origin.py
    right after ``<body>``, and answers HEAD (:meth:`head`)."""

    class FirstPaintDocHandler(base):
        _dp_stream: tuple[tuple[str, ...], str] | None = None
        _dp_notice = ""  # for the page Bokeh writes next (not streamed)

        def compute_etag(self) -> None:
            # Each page carries its own session token (and is no-store): an ETag could never
            # match, and hashing a 300 KB page per request is wasted.
            return None

        async def head(self, *args: Any, **kwargs: Any) -> None:
            """An uptime monitor's probe: the page's status and headers, no page built (a GET
            builds a Bokeh session, kept two minutes for a websocket that never comes). The
            headers go out like a streamed page's: without a length."""
            self.set_header("Content-Type", PAGE_CONTENT_TYPE)
            self.set_header("Cache-Control", "no-store")
            await self.flush()
            self.finish()

        async def get(self, *args: Any, **kwargs: Any) -> None:
            from app.serve import origin

            notice = origin.page_notice(self)
            plan = await self._dp_plan()
            if plan is None:
                self._dp_notice = notice
                await super().get(*args, **kwargs)
                return
            head = early_head(plan.key) or generic_head(plan.lang)
            self.set_header("Content-Type", PAGE_CONTENT_TYPE)
            self.set_header("Cache-Control", "no-store")
            super().write(early_chunk(head, plan.fragment, notice))
            try:
                await self.flush()
            except Exception:  # the browser left; build nothing
                return
            self._dp_stream = (plan.key, head)  # the next write is the built page
            await super().get(*args, **kwargs)

        async def _dp_plan(self) -> Early | None:
            if not first_paint.ENABLED:  # read at each request (benchmarks switch it)
                return None
            early = EARLY.get(getattr(self.application_context, "url", ""))
            if early is None:
                return None
            args = {k: v[0].decode("utf-8", "replace")
                    for k, v in (self.request.arguments or {}).items() if v}
            try:
                if "room" in args:  # a live class: the card shows the room's state
                    from app.serve.room_wiring import first_paint_args

                    args = await first_paint_args(args)
                return early(args, self.request.headers.get("Accept-Language"))
            except Exception:  # the page build reports its own errors
                return None

        def write(self, chunk: Any) -> None:
            if self._dp_notice and isinstance(chunk, str):  # the page Bokeh built
                notice, self._dp_notice = self._dp_notice, ""
                # (Bokeh says text/html; the page is UTF-8, as the streamed pages say.)
                self.set_header("Content-Type", PAGE_CONTENT_TYPE)
                chunk = insert_after_body(chunk, notice)
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
