"""A browser tab on the Bokeh server protocol, without a browser (asyncio + Tornado's client).

What one :class:`LabTab` does, in the order a Chromium tab does it (frames captured from
Chromium 156 against /lab, Bokeh 3.9 / Panel 1.9):

1. ``GET /lab?...``: the server runs the page script and answers with HTML that carries the
   session token; optionally the page's scripts and style sheets are fetched too (a cold cache).
2. Websocket ``/lab/ws?...`` with the subprotocols ``["bokeh", token]`` and the cookies the page
   set (a balancer's session affinity); the server sends ACK.
3. ``PULL-DOC-REQ`` -> ``PULL-DOC-REPLY`` (the whole document, with binary buffers).
4. What BokehJS and Panel's JS send once the page is rendered: the Location's ``search``, the
   BrowserInfo fields, every figure's size, then the ``document_ready`` event. Each PATCH-DOC
   is answered with OK; the page is *complete* when the OK for ``document_ready`` arrives.
5. A slider move: PATCH-DOC ``value`` then PATCH-DOC ``value_throttled`` (a release after a
   drag, or one arrow key); the server pushes a PATCH-DOC whose card text shows the new σ/ε in
   the ``dp-sigma`` / ``dp-eps`` spans (next to ``dp-required-delta``). Latency = first frame of
   the ``value`` message sent -> that PATCH-DOC fully received. When the server updates the
   Location's ``search``, the tab answers with the new ``href`` like Panel's JS does.

A Bokeh message is 3 + 2·num_buffers websocket frames: header JSON (msgid, msgtype, optional
reqid, num_buffers), metadata JSON, content JSON, then for each buffer a JSON ``{"id": ...}``
frame followed by one binary frame. :class:`Assembler` and :func:`encode` implement exactly
that framing (unit-tested in tests/test_wsclient.py).

Only the standard library and Tornado (a dependency of Bokeh) are used.
"""

from __future__ import annotations

import asyncio
import html
import json
import math
import re
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

# ---------------------------------------------------------------------------------------------
# framing
# ---------------------------------------------------------------------------------------------


class ProtocolError(RuntimeError):
    """The server sent frames that do not form Bokeh messages."""


@dataclass
class Message:
    """One assembled Bokeh message (content parsed lazily: most pushes are only scanned)."""

    header: dict[str, Any]
    metadata: dict[str, Any]
    content_json: str
    buffers: list[tuple[str, bytes]] = field(default_factory=list)
    received_at: float = 0.0  # time.perf_counter() when the last frame arrived
    size: int = 0  # bytes of all frames

    @property
    def msgtype(self) -> str:
        return str(self.header.get("msgtype", ""))

    @property
    def reqid(self) -> str | None:
        r = self.header.get("reqid")
        return None if r is None else str(r)

    @property
    def content(self) -> Any:
        return json.loads(self.content_json)


class Assembler:
    """Feed websocket frames in arrival order; complete messages come out of :meth:`feed`."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._msg: Message | None = None
        self._buf_id: str | None = None
        self._size = 0

    def feed(self, frame: str | bytes) -> Message | None:
        self._size += len(frame)
        if self._msg is None:  # header, metadata, content
            if not isinstance(frame, str):
                raise ProtocolError("binary frame where a JSON fragment was expected")
            self._parts.append(frame)
            if len(self._parts) < 3:
                return None
            header_s, meta_s, content_s = self._parts
            self._parts = []
            try:
                header, meta = json.loads(header_s), json.loads(meta_s)
            except ValueError as exc:
                raise ProtocolError(f"bad header/metadata JSON: {exc}") from exc
            if not isinstance(header, dict) or "msgtype" not in header:
                raise ProtocolError(f"not a Bokeh header: {header_s[:80]}")
            self._msg = Message(header, meta, content_s)
            return self._finish_if_complete()
        if self._buf_id is None:  # buffer header: {"id": ...}
            if not isinstance(frame, str):
                raise ProtocolError("binary frame where a buffer header was expected")
            try:
                self._buf_id = str(json.loads(frame)["id"])
            except (ValueError, KeyError, TypeError) as exc:
                raise ProtocolError(f"bad buffer header: {frame[:80]!r}") from exc
            return None
        if not isinstance(frame, bytes):
            raise ProtocolError("text frame where a binary buffer was expected")
        self._msg.buffers.append((self._buf_id, frame))
        self._buf_id = None
        return self._finish_if_complete()

    def _finish_if_complete(self) -> Message | None:
        msg = self._msg
        assert msg is not None
        if len(msg.buffers) < int(msg.header.get("num_buffers", 0) or 0):
            return None
        msg.size, self._size, self._msg = self._size, 0, None
        msg.received_at = time.perf_counter()
        return msg


def new_msgid() -> str:
    return uuid.uuid4().hex.upper()  # BokehJS sends 32 upper-case hex digits


def encode(msgtype: str, content: Any, msgid: str | None = None) -> tuple[str, list[str]]:
    """(msgid, frames) of a client message without buffers: header, metadata, content."""
    msgid = msgid or new_msgid()
    header = json.dumps({"msgid": msgid, "msgtype": msgtype}, separators=(",", ":"))
    return msgid, [header, "{}", json.dumps(content, separators=(",", ":"))]


def model_changed(model_id: str, attr: str, new: Any) -> dict[str, Any]:
    return {"kind": "ModelChanged", "model": {"id": model_id}, "attr": attr, "new": new}


DOCUMENT_READY = {"kind": "MessageSent", "msg_type": "bokeh_event",
                  "msg_data": {"type": "event", "name": "document_ready",
                               "values": {"type": "map"}}}

# ---------------------------------------------------------------------------------------------
# the page and the document
# ---------------------------------------------------------------------------------------------
_TOKEN_RE = re.compile(r'"token"\s*:\s*"([A-Za-z0-9_\-.]+)"')
_ASSET_RE = re.compile(r'<(?:script|link)\b[^>]*?\b(?:src|href)="([^"]+)"', re.I)


def find_token(page_html: str) -> str:
    """The session token that Bokeh embeds in the page (render_items)."""
    m = _TOKEN_RE.search(page_html)
    if not m:
        raise ProtocolError("no session token in the page (not a Bokeh server page?)")
    return m.group(1)


def asset_urls(page_html: str, page_url: str) -> list[str]:
    """Same-origin scripts and style sheets a browser fetches for this page (no icons)."""
    origin = urlsplit(page_url)[:2]
    out: list[str] = []
    for raw in _ASSET_RE.findall(page_html):
        if raw.endswith((".png", ".ico", ".svg")):
            continue
        u = urljoin(page_url, html.unescape(raw))
        if urlsplit(u)[:2] == origin and u not in out:
            out.append(u)
    return out


def ws_url(page_url: str, path_suffix: str = "/ws") -> str:
    """``http://h/lab?x`` -> ``ws://h/lab/ws?x`` (what BokehJS derives from the page)."""
    scheme, netloc, path, query, _ = urlsplit(page_url)
    return urlunsplit(("wss" if scheme == "https" else "ws", netloc,
                       path.rstrip("/") + path_suffix, query, ""))


def walk_models(obj: Any) -> Iterator[dict[str, Any]]:
    """Every model definition (``{"type": "object", "id": ..., "attributes": ...}``) in a doc."""
    stack = [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, dict):
            if o.get("type") == "object" and "id" in o:
                yield o
            stack.extend(o.values())
        elif isinstance(o, list):
            stack.extend(o)


@dataclass
class DocIndex:
    """What a tab needs to know about the pulled document."""

    by_class: dict[str, str]  # css class -> model id (first model carrying it)
    card_id: str | None
    card_text: str
    location_id: str | None
    browser_info_id: str | None
    figure_ids: list[str]
    n_models: int
    reveal_ids: list[str] = field(default_factory=list)  # data models of "*-reveal" boxes

    @classmethod
    def from_doc(cls, doc: dict[str, Any]) -> DocIndex:
        by_class: dict[str, str] = {}
        location = browser = None
        figures: list[str] = []
        n = 0
        texts: dict[str, str] = {}
        reveals: list[str] = []
        for m in walk_models(doc):
            n += 1
            attrs = m.get("attributes") or {}
            name = str(m.get("name", ""))
            for c in attrs.get("css_classes") or []:
                by_class.setdefault(str(c), str(m["id"]))
                data = attrs.get("data")
                if str(c).endswith("-reveal") and isinstance(data, dict) and "id" in data:
                    reveals.append(str(data["id"]))
            if name.endswith("location.Location"):
                location = str(m["id"])
            elif name.endswith("browser.BrowserInfo"):
                browser = str(m["id"])
            elif name in ("Figure", "Plot", "figure"):
                figures.append(str(m["id"]))
            if "text" in attrs and isinstance(attrs["text"], str):
                texts[str(m["id"])] = attrs["text"]
        card = by_class.get("dp-card-pane")
        return cls(by_class, card, texts.get(card or "", ""), location, browser, figures, n,
                   reveals)


_SPAN_RE = {k: re.compile(rf'class="dp-{k}">([^<]*)<') for k in ("sigma", "eps", "required-delta")}


def card_values(text: str) -> dict[str, str] | None:
    """σ, ε and required δ as shown by the card (None when the text is not the card)."""
    if "&lt;" in text or "&quot;" in text:
        text = html.unescape(text)  # Panel's HTML pane sends its text escaped
    out = {}
    for k, rx in _SPAN_RE.items():
        m = rx.search(text)
        if not m:
            return None
        out[k] = m.group(1).strip()
    return out


def same_number(shown: str, expected: float) -> bool:
    try:
        x = float(shown)
    except ValueError:
        return False
    return math.isclose(x, expected, rel_tol=1e-9, abs_tol=1e-12)


def eps_shown(slider_value: float) -> float:
    """ε the card shows after the ε slider is released at ``slider_value`` (app/lab_page.py)."""
    return round(slider_value, 4)


def sigma_shown(log10_value: float) -> float:
    """σ the card shows after the σ slider (log10 σ) is released at ``log10_value``."""
    return float(f"{10 ** log10_value:.4g}")


# ---------------------------------------------------------------------------------------------
# a tab
# ---------------------------------------------------------------------------------------------
@dataclass
class OpenTimes:
    """Seconds from the start of the page GET (perf_counter based)."""

    card: float = math.nan  # the HTML's first card arrived (app/first_paint.py streams it)
    html: float = math.nan  # HTML received (the server built the page)
    assets: float = math.nan  # scripts and style sheets received (when fetched)
    doc: float = math.nan  # PULL-DOC-REPLY received
    complete: float = math.nan  # OK for document_ready received
    html_bytes: int = 0
    asset_bytes: int = 0
    doc_bytes: int = 0


@dataclass
class Move:
    slider: str  # "sigma" | "eps"
    value: float  # the slider's value (log10 σ for the σ slider)
    expect: tuple[float | None, float | None]  # (σ, ε) the card must show
    sent: float  # perf_counter when the first frame was written
    latency: float | None = None  # seconds; None while pending / when lost


class TabError(RuntimeError):
    pass


class LabTab:
    """One simulated browser tab on ``/lab``. Use ``await open()``, ``move()``, ``close()``."""

    def __init__(self, page_url: str, *, fetch_assets: bool = False, timeout: float = 60.0,
                 on_result: Callable[[Move], None] | None = None,
                 http_client: Any = None) -> None:
        self.page_url = page_url
        self.fetch_assets = fetch_assets
        self.timeout = timeout
        self.on_result = on_result
        self._http = http_client
        self.times = OpenTimes()
        self.index: DocIndex | None = None
        self.ws: Any = None
        self._asm = Assembler()
        self._replies: dict[str, asyncio.Future[Message]] = {}
        self._pending: list[Move] = []
        self._reader: asyncio.Task[None] | None = None
        self.card: dict[str, str] | None = None
        self.sigma_log = 0.0
        self.eps = 1.0
        self.pushes = 0
        self.bytes_in = 0
        self.errors: list[str] = []
        self.closed = False
        self._built: asyncio.Future[float] | None = None
        self._write_lock = asyncio.Lock()
        self._built_marker = ""

    # ---- opening ----------------------------------------------------------------------------
    async def open(self) -> OpenTimes:
        from tornado.httpclient import AsyncHTTPClient, HTTPRequest
        from tornado.websocket import websocket_connect

        http = self._http or AsyncHTTPClient()
        t0 = time.perf_counter()
        # A browser waits minutes for a busy server to accept: no 20 s connect timeout.
        parts: list[bytes] = []

        def on_chunk(chunk: bytes) -> None:
            # A browser paints the card as soon as its HTML is in (before the page is built
            # when the server streams it).
            parts.append(chunk)
            if math.isnan(self.times.card) and b"dp-verdict" in b"".join(parts[-2:]):
                self.times.card = time.perf_counter() - t0

        resp = await http.fetch(HTTPRequest(self.page_url, request_timeout=self.timeout,
                                            connect_timeout=self.timeout,
                                            headers={"Accept-Language": "en-US,en;q=0.9"},
                                            streaming_callback=on_chunk))
        raw = b"".join(parts)
        body = raw.decode("utf-8", "replace")
        self.times.html = time.perf_counter() - t0
        # Like a browser, send the cookies back (a balancer's session affinity depends on it).
        cookies = "; ".join(c.split(";", 1)[0].strip() for c in resp.headers.get_list("Set-Cookie"))
        headers = {"Cookie": cookies} if cookies else {}
        self.times.html_bytes = len(raw)
        token = find_token(body)
        if self.fetch_assets:
            urls = asset_urls(body, self.page_url)
            sem = asyncio.Semaphore(6)  # a browser's connections per host

            async def get(u: str) -> int:
                async with sem:
                    r = await http.fetch(HTTPRequest(u, request_timeout=self.timeout,
                                                     connect_timeout=self.timeout,
                                                     headers=headers))
                    return len(r.body)

            sizes = await asyncio.gather(*(get(u) for u in urls), return_exceptions=True)
            failed = [x for x in sizes if isinstance(x, BaseException)]
            if failed:
                raise TabError(f"asset: {type(failed[0]).__name__}: {failed[0]}")
            self.times.asset_bytes = sum(x for x in sizes if isinstance(x, int))
            self.times.assets = time.perf_counter() - t0
        req = HTTPRequest(ws_url(self.page_url), request_timeout=self.timeout,
                          connect_timeout=self.timeout, headers=headers)
        self.ws = await websocket_connect(req, subprotocols=["bokeh", token],
                                          max_message_size=200 * 1024 * 1024)
        ack = await self._read_message()
        if ack.msgtype != "ACK":
            raise TabError(f"expected ACK, got {ack.msgtype}")
        msgid, frames = encode("PULL-DOC-REQ", {})
        await self._send(frames)
        while True:
            reply = await self._read_message()
            # The server may push changes before it answers (e.g. Panel's busy indicator when
            # another session is busy); the pulled document already contains them.
            if reply.msgtype != "PATCH-DOC":
                break
        if reply.msgtype != "PULL-DOC-REPLY" or reply.reqid != msgid:
            raise TabError(f"expected PULL-DOC-REPLY, got {reply.msgtype}")
        self.times.doc = time.perf_counter() - t0
        self.times.doc_bytes = reply.size
        self.index = DocIndex.from_doc(reply.content["doc"])
        self.card = card_values(self.index.card_text)
        if self.card:
            self.sigma_log = math.log10(float(self.card["sigma"]))
            self.eps = float(self.card["eps"])
        self._reader = asyncio.create_task(self._read_loop())
        # What the rendered page reports back (see the module docstring), then document_ready.
        ix = self.index
        events: list[list[dict[str, Any]]] = []
        if ix.location_id:
            events.append([model_changed(ix.location_id, "search",
                                         "?" + urlsplit(self.page_url).query)])
        if ix.browser_info_id:
            for attr, v in (("dark_mode", False), ("device_pixel_ratio", 1),
                            ("language", "en-US"), ("timezone", "UTC"),
                            ("timezone_offset", 0), ("webgl", True)):
                events.append([model_changed(ix.browser_info_id, attr, v)])
        for fid in ix.figure_ids:
            events.append([model_changed(fid, a, v) for a, v in (
                ("inner_width", 752), ("inner_height", 175), ("outer_width", 853),
                ("outer_height", 380))])
        waits = [await self._patch(ev) for ev in events]
        waits.append(await self._patch([DOCUMENT_READY]))
        replies = await asyncio.gather(*waits, return_exceptions=True)
        if any(isinstance(r, BaseException) for r in replies):
            raise TabError("the connection closed before the page was ready")
        self.times.complete = time.perf_counter() - t0
        return self.times

    async def scroll_down(self) -> float:
        """Scroll through the whole page: every place-holder box ("*-reveal", an
        IntersectionObserver in the browser) reports itself seen; returns the seconds until the
        server pushed what it builds there (nan when the page has no such box)."""
        ix = self.index
        if ix is None or not ix.reveal_ids:
            return math.nan
        t0 = time.perf_counter()
        self._built = asyncio.get_running_loop().create_future()
        self._built_marker = '"dp-sim-plot"'
        waits = [await self._patch([model_changed(r, "seen", True)]) for r in ix.reveal_ids]
        await asyncio.gather(*waits)
        await asyncio.wait_for(self._built, self.timeout)
        return time.perf_counter() - t0

    async def _send(self, frames: list[str]) -> None:
        # One message at a time: frames of two messages must not interleave (the reader
        # loop answers Location changes while a student's move is being written).
        async with self._write_lock:
            for f in frames:
                await self.ws.write_message(f)

    async def _patch(self, events: list[dict[str, Any]]) -> asyncio.Future[Message]:
        msgid, frames = encode("PATCH-DOC", {"events": events})
        fut: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._replies[msgid] = fut
        await self._send(frames)
        return fut

    async def _read_message(self) -> Message:
        while True:
            frame = await self.ws.read_message()
            if frame is None:
                raise TabError("websocket closed by the server")
            self.bytes_in += len(frame)
            msg = self._asm.feed(frame)
            if msg is not None:
                return msg

    # ---- running ----------------------------------------------------------------------------
    async def _read_loop(self) -> None:
        try:
            while True:
                msg = await self._read_message()
                if msg.msgtype in ("OK", "ERROR"):
                    fut = self._replies.pop(msg.reqid or "", None)
                    if msg.msgtype == "ERROR":
                        self.errors.append(msg.content_json[:200])
                    if fut is not None and not fut.done():
                        fut.set_result(msg)
                elif msg.msgtype == "PATCH-DOC":
                    self.pushes += 1
                    await self._on_push(msg)
        except (TabError, ProtocolError, asyncio.CancelledError) as exc:
            if not self.closed and not isinstance(exc, asyncio.CancelledError):
                self.errors.append(str(exc))
        except Exception as exc:  # a tab never takes the whole run down
            self.errors.append(f"{type(exc).__name__}: {exc}")
        finally:
            for fut in self._replies.values():
                if not fut.done():
                    fut.cancel()

    async def _on_push(self, msg: Message) -> None:
        ix = self.index
        assert ix is not None
        cj = msg.content_json
        if self._built is not None and not self._built.done() and self._built_marker in cj:
            self._built.set_result(msg.received_at)
        if ix.card_id and f'"id":"{ix.card_id}"' in cj and "dp-required-delta" in cj:
            for ev in msg.content.get("events", []):
                if ev.get("attr") == "text" and (ev.get("model") or {}).get("id") == ix.card_id:
                    vals = card_values(str(ev.get("new", "")))
                    if vals:
                        self.card = vals
                        self._resolve(vals, msg.received_at)
        if ix.location_id and f'"id":"{ix.location_id}"' in cj and '"search"' in cj:
            for ev in msg.content.get("events", []):
                if ev.get("attr") == "search" and (ev.get("model") or {}).get("id") == \
                        ix.location_id:
                    href = urlunsplit((*urlsplit(self.page_url)[:3], str(ev["new"]).lstrip("?"),
                                       ""))
                    await self._patch([model_changed(ix.location_id, "href", href)])

    def _resolve(self, vals: dict[str, str], at: float) -> None:
        # Moves are answered in order; a card for a later move also answers the earlier ones
        # still pending (the student sees the newer value).
        hit = None
        for i, m in enumerate(self._pending):
            s, e = m.expect
            if (s is None or same_number(vals["sigma"], s)) and \
                    (e is None or same_number(vals["eps"], e)):
                hit = i
        if hit is None:
            return
        for m in self._pending[:hit + 1]:
            m.latency = at - m.sent
            if self.on_result:
                self.on_result(m)
        del self._pending[:hit + 1]

    def expire(self, older_than: float) -> list[Move]:
        """Drop moves still unanswered after ``older_than`` seconds; they are lost."""
        now = time.perf_counter()
        lost = [m for m in self._pending if now - m.sent > older_than]
        if lost:
            self._pending = [m for m in self._pending if now - m.sent <= older_than]
            for m in lost:
                if self.on_result:
                    self.on_result(m)
        return lost

    @property
    def pending(self) -> int:
        return len(self._pending)

    async def move(self, slider: str, value: float) -> Move:
        """Move the σ (value = log10 σ) or ε slider to ``value`` and release it."""
        ix = self.index
        if ix is None:
            raise TabError("open() first")
        model = ix.by_class.get(f"dp-slider-{slider}")
        if model is None:
            raise TabError(f"no dp-slider-{slider} in the document")
        if slider == "sigma":
            self.sigma_log = value
        else:
            self.eps = value
        m = Move(slider, value, (sigma_shown(self.sigma_log), eps_shown(self.eps)),
                 time.perf_counter())
        self._pending.append(m)
        await self._patch([model_changed(model, "value", value)])
        await self._patch([model_changed(model, "value_throttled", value)])
        return m

    async def close(self) -> None:
        self.closed = True
        if self.ws is not None:
            self.ws.close()
        if self._reader is not None:
            self._reader.cancel()
            try:
                await self._reader
            except (asyncio.CancelledError, Exception):
                pass
