"""A browser tab on the Bokeh server protocol, without a browser (asyncio + Tornado's client).

What one :class:`LabTab` does, in the order a Chromium tab does it (frames captured from
Chromium 156 against /lab, Bokeh 3.9 / Panel 1.9):

1. ``GET /lab?...``: the server runs the page script and answers with HTML that carries the
   session token; optionally the page's scripts and style sheets are fetched too (a cold cache).
2. Websocket ``/lab/ws?...`` with the subprotocols ``["bokeh", token]`` and the cookies the page
   set (a balancer's session affinity); the server sends ACK.
3. ``PULL-DOC-REQ`` -> ``PULL-DOC-REPLY`` (the whole document, with binary buffers).
4. What BokehJS and Panel's JS send once the page is rendered: the Location's ``search``, the
   BrowserInfo fields, every figure's size, then the ``document_ready`` event. This client asks
   for an OK to each of these (header ``dplab_ack``; BokehJS asks for none and our server
   answers only when asked); the page is *complete* when the OK for ``document_ready`` arrives.
5. A slider move: PATCH-DOC ``value`` then PATCH-DOC ``value_throttled`` (a release after a
   drag, or one arrow key), no reply asked, as BokehJS sends them; the server pushes a
   PATCH-DOC whose card text shows the new σ/ε in the ``dp-sigma`` / ``dp-eps`` spans (next
   to ``dp-required-delta``). Latency = first frame of the ``value`` message sent -> that
   PATCH-DOC fully received. When the server updates the Location's ``search``, the tab
   answers with the new ``href`` like Panel's JS does.

A Bokeh message is 3 + 2·num_buffers websocket frames: header JSON (msgid, msgtype, optional
reqid, num_buffers), metadata JSON, content JSON, then for each buffer a JSON ``{"id": ...}``
frame followed by one binary frame. :class:`Assembler` and :func:`encode` implement exactly
that framing (unit-tested in tests/benchmarks/test_wsclient.py).

This is the one protocol-level client of the project: the load benchmark drives
:class:`LabTab`; the deployment tests (tests/deploy/test_serve_prod.py, which find this module
through tests/conftest.py) drive :class:`Tab` (any page: ``set(css_class, attr, value)``, then
``wait_text``), :func:`get_page` (the balancer's affinity cookies) and the ``raw_*`` functions
(a websocket on a plain socket that stops reading: the slow client). Both tab classes share
:class:`Session` (messages in and out, replies matched to requests, pushes). A following class
(benchmarks/room_follow.py and ``classroom_load.py follow``): :func:`teacher_sign_in`,
:func:`open_followers` (:class:`Follower` tabs) and :func:`teacher_move`; a student on the class
page instead (``classroom_load.py churn``): :func:`class_page`.

Only the standard library and Tornado (a dependency of Bokeh) are used.
"""

from __future__ import annotations

import asyncio
import base64
import html
import json
import math
import re
import socket
import struct
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

# ---------------------------------------------------------------------------------------------
# framing
# ---------------------------------------------------------------------------------------------


# TCP_NODELAY on the tabs' websockets, as Chromium sets it. Off by default (the figures in the
# README were measured so): a Bokeh message is 3+ frames, and without it the second frame of a
# tab's message waits for the server's delayed ACK (~40 ms on Linux loopback): a teacher's
# slider release (two messages, each answered) then takes ~90 ms before the server sees it.
NODELAY = False
# A lab's slider releases by the page's moves channel (app/lab/moves.py), as the browser sends
# them when the page offers one; False sends every move through Bokeh (the path before it).
MOVES_CHANNEL = True


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


# Header field asking the server for Bokeh's OK to a PATCH-DOC. Bokeh answers every patch
# with OK again since 2026-12-05 (the patch that answered only when asked was removed:
# docs/upstream.md); the field is harmless and still marks the patches the tabs wait for.
PATCH_ACK = "dplab_ack"


def encode(msgtype: str, content: Any, msgid: str | None = None,
           ack: bool = False) -> tuple[str, list[str]]:
    """(msgid, frames) of a client message without buffers: header, metadata, content;
    ``ack``: a PATCH-DOC that asks for the server's OK."""
    msgid = msgid or new_msgid()
    head: dict[str, Any] = {"msgid": msgid, "msgtype": msgtype}
    if ack:
        head[PATCH_ACK] = True
    header = json.dumps(head, separators=(",", ":"))
    return msgid, [header, "{}", json.dumps(content, separators=(",", ":"))]


def model_changed(model_id: str, attr: str, new: Any) -> dict[str, Any]:
    return {"kind": "ModelChanged", "model": {"id": model_id}, "attr": attr, "new": new}


# The lab's controls are one component (app/lab/controls.py): a slider's release is a message
# to it, ``{"k": "slider", "c": "sigma"|"eps"|"delta", "v": position}``.
LAB_CONTROLS = "dp-lab-controls"


def data_event(model_id: str, data: dict[str, Any]) -> dict[str, Any]:
    """A component's message (Panel's ``model.send_msg``) as BokehJS sends it: a
    ``data_event`` in a PATCH-DOC, its values in Bokeh's map encoding."""
    entries = [[str(k), v] for k, v in data.items()]
    return {"kind": "MessageSent", "msg_type": "bokeh_event",
            "msg_data": {"type": "event", "name": "data_event", "values": {
                "type": "map", "entries": [["model", {"id": model_id}],
                                           ["data", {"type": "map", "entries": entries}]]}}}


def slider_patches(by_class: dict[str, str], release_only: set[str], slider: str,
                   value: float) -> list[list[dict[str, Any]]]:
    """The PATCH-DOCs (each a list of events) a browser sends when a slider of the page with
    models ``by_class`` is released at ``value``: one message to the lab's controls; for a
    Bokeh slider, ``value`` and ``value_throttled`` in one message (a release-only slider,
    assets/dplab-page-setup.js) or in two (BokehJS's own)."""
    if LAB_CONTROLS in by_class:
        return [[data_event(by_class[LAB_CONTROLS], {"k": "slider", "c": slider, "v": value})]]
    model = by_class.get(f"dp-slider-{slider}")
    if model is None:
        raise TabError(f"no dp-slider-{slider} in the document")
    if model in release_only:
        return [[model_changed(model, "value", value),
                 model_changed(model, "value_throttled", value)]]
    return [[model_changed(model, "value", value)],
            [model_changed(model, "value_throttled", value)]]


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


def models_by_class(doc: Any) -> dict[str, str]:
    """css class -> id of the first model in ``doc`` that carries it."""
    out: dict[str, str] = {}
    for m in walk_models(doc):
        for c in (m.get("attributes") or {}).get("css_classes") or []:
            out.setdefault(str(c), str(m["id"]))
    return out


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
    # sliders whose page sends a release as one message (class dp-release-only)
    release_only: set[str] = field(default_factory=set)
    moves: str = ""  # the lab's moves channel (path), '' when the page has none

    @classmethod
    def from_doc(cls, doc: dict[str, Any]) -> DocIndex:
        by_class: dict[str, str] = {}
        location = browser = None
        figures: list[str] = []
        n = 0
        texts: dict[str, str] = {}
        reveals: list[str] = []
        release_only: set[str] = set()
        moves = ""
        for m in walk_models(doc):
            n += 1
            attrs = m.get("attributes") or {}
            if isinstance(attrs.get("moves"), str) and attrs["moves"]:
                moves = attrs["moves"]
            name = str(m.get("name", ""))
            for c in attrs.get("css_classes") or []:
                by_class.setdefault(str(c), str(m["id"]))
                if c == "dp-release-only":
                    release_only.add(str(m["id"]))
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
                   reveals, release_only, moves)


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
    """ε the card shows after the ε slider is released at ``slider_value`` (app/lab/page.py)."""
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

    card: float = math.nan  # the HTML's first card arrived (app/shell/first_paint.py streams it)
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


class Session:
    """One Bokeh websocket session: whole messages written one at a time, frames read into
    messages, OK/ERROR answers matched to the request's future, every PATCH-DOC push handed to
    :meth:`_on_push`."""

    def __init__(self) -> None:
        self.ws: Any = None
        self._asm = Assembler()
        self._replies: dict[str, asyncio.Future[Message]] = {}
        self._reader: asyncio.Task[None] | None = None
        self._write_lock = asyncio.Lock()
        self.pushes = 0
        self.bytes_in = 0
        self.errors: list[str] = []
        self.unasked: list[tuple[str, str]] = []  # (OK|ERROR, reqid) of patches sent quietly
        self.closed = False  # closed by this side
        self.closed_by_server = False

    async def _connect(self, request: Any, token: str, max_message_size: int,
                       timeout: float | None = None) -> None:
        """Open the websocket (subprotocols ``bokeh`` + token) and read the server's ACK."""
        from tornado.websocket import websocket_connect

        self.ws = await websocket_connect(request, subprotocols=["bokeh", token],
                                          max_message_size=max_message_size)
        if NODELAY:
            self.ws.stream.set_nodelay(True)
        read = self._read_message()
        ack = await (read if timeout is None else asyncio.wait_for(read, timeout))
        if ack.msgtype != "ACK":
            raise TabError(f"expected ACK, got {ack.msgtype}")

    async def _pull_doc(self, timeout: float | None = None) -> Message:
        """PULL-DOC-REQ -> the PULL-DOC-REPLY (the whole document)."""
        msgid, frames = encode("PULL-DOC-REQ", {})
        await self._send(frames)

        async def reply() -> Message:
            while True:
                msg = await self._read_message()
                # The server may push changes before it answers (e.g. Panel's busy indicator
                # when another session is busy); the pulled document already contains them.
                if msg.msgtype != "PATCH-DOC":
                    return msg

        msg = await (reply() if timeout is None else asyncio.wait_for(reply(), timeout))
        if msg.msgtype != "PULL-DOC-REPLY" or msg.reqid != msgid:
            raise TabError(f"expected PULL-DOC-REPLY, got {msg.msgtype}")
        return msg

    async def _send(self, frames: list[str]) -> None:
        # One message at a time: frames of two messages must not interleave (the reader
        # loop answers Location changes while a student's move is being written).
        async with self._write_lock:
            for f in frames:
                await self.ws.write_message(f)

    async def _patch(self, events: list[dict[str, Any]]) -> asyncio.Future[Message]:
        """Send a PATCH-DOC that asks for the server's reply; the future resolves with its
        OK (applied) or ERROR."""
        msgid, frames = encode("PATCH-DOC", {"events": events}, ack=True)
        fut: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._replies[msgid] = fut
        await self._send(frames)
        return fut

    async def _patch_quietly(self, events: list[dict[str, Any]]) -> str:
        """Send a PATCH-DOC as BokehJS does, asking for no reply; returns its msgid."""
        msgid, frames = encode("PATCH-DOC", {"events": events})
        await self._send(frames)
        return msgid

    async def _read_message(self) -> Message:
        while True:
            frame = await self.ws.read_message()
            if frame is None:
                raise TabError("websocket closed by the server")
            self.bytes_in += len(frame)
            msg = self._asm.feed(frame)
            if msg is not None:
                return msg

    async def _read_loop(self) -> None:
        try:
            while True:
                msg = await self._read_message()
                if msg.msgtype in ("OK", "ERROR"):
                    fut = self._replies.pop(msg.reqid or "", None)
                    if msg.msgtype == "ERROR":
                        self.errors.append(msg.content_json[:200])
                    if fut is None:
                        self.unasked.append((msg.msgtype, msg.reqid or ""))
                    if fut is not None and not fut.done():
                        fut.set_result(msg)
                elif msg.msgtype == "PATCH-DOC":
                    self.pushes += 1
                    await self._on_push(msg)
        except (TabError, ProtocolError, asyncio.CancelledError) as exc:
            if not self.closed and not isinstance(exc, asyncio.CancelledError):
                self.closed_by_server = True
                self.errors.append(str(exc))
        except Exception as exc:  # a tab never takes the whole run down
            self.errors.append(f"{type(exc).__name__}: {exc}")
        finally:
            for fut in self._replies.values():
                if not fut.done():
                    self._abandon(fut)

    def _abandon(self, fut: asyncio.Future[Message]) -> None:
        """A request the server will not answer any more (the reader stopped)."""
        fut.cancel()

    async def _on_push(self, msg: Message) -> None:
        """A PATCH-DOC pushed by the server."""

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

    @staticmethod
    def _close_side(ws: Any, reader: asyncio.Task[None] | None) -> None:
        """A second websocket of the tab (a page's own channel) and its reader, closed."""
        if ws is not None:
            ws.close()
        if reader is not None:
            reader.cancel()


class LabTab(Session):
    """One simulated browser tab on ``/lab``. Use ``await open()``, ``move()``, ``close()``."""

    def __init__(self, page_url: str, *, fetch_assets: bool = False, timeout: float = 60.0,
                 on_result: Callable[[Move], None] | None = None,
                 http_client: Any = None) -> None:
        super().__init__()
        self.page_url = page_url
        self.fetch_assets = fetch_assets
        self.timeout = timeout
        self.on_result = on_result
        self._http = http_client
        self.times = OpenTimes()
        self.index: DocIndex | None = None
        self._pending: list[Move] = []
        self.card: dict[str, str] | None = None
        self.sigma_log = 0.0
        self.eps = 1.0
        self._built: asyncio.Future[float] | None = None
        self._built_marker = ""
        self.doc_json: dict[str, Any] = {}
        self.moves_ws: Any = None  # the page's moves channel (MOVES_CHANNEL)
        self._moves_reader: asyncio.Task[None] | None = None
        self._moves_n = 0
        self._moves_sent: dict[int, tuple[str, float]] = {}

    # ---- opening ----------------------------------------------------------------------------
    async def open(self) -> OpenTimes:
        from tornado.httpclient import AsyncHTTPClient, HTTPRequest

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
        await self._connect(req, token, 200 * 1024 * 1024)
        reply = await self._pull_doc()
        self.times.doc = time.perf_counter() - t0
        self.times.doc_bytes = reply.size
        self.doc_json = reply.content["doc"]
        self.index = DocIndex.from_doc(self.doc_json)
        self.card = card_values(self.index.card_text)
        if self.card:
            self.sigma_log = math.log10(float(self.card["sigma"]))
            self.eps = float(self.card["eps"])
        self._reader = asyncio.create_task(self._read_loop())
        moves = self.index.moves
        if MOVES_CHANNEL and moves:
            from tornado.websocket import websocket_connect

            parts_url = urlsplit(self.page_url)
            scheme = "wss" if parts_url.scheme == "https" else "ws"
            self.moves_ws = await websocket_connect(HTTPRequest(
                f"{scheme}://{parts_url.netloc}{moves}", request_timeout=self.timeout,
                connect_timeout=self.timeout, headers=headers))
            self.moves_ws.stream.set_nodelay(True)  # (the page's script: Chromium sets it)
            self._moves_reader = asyncio.create_task(self._read_moves())
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

    async def close(self) -> None:
        self._close_side(self.moves_ws, self._moves_reader)
        self.moves_ws = None
        await super().close()

    async def _read_moves(self) -> None:
        """The moves channel's answers: the card of a move's views answers it; a move the
        session must answer goes through Bokeh (as the page's script does)."""
        while True:
            frame = await self.moves_ws.read_message()
            if frame is None:
                self.moves_ws = None
                return
            at = time.perf_counter()
            self.bytes_in += len(frame)
            m = json.loads(frame)
            if m.get("session"):
                c, v = self._moves_sent.pop(m["n"], ("sigma", 0.0))
                assert self.index is not None
                for events in slider_patches(self.index.by_class, self.index.release_only, c, v):
                    await self._patch_quietly(events)
                continue
            self._moves_sent.pop(m.get("n"), None)
            vals = card_values(str((m.get("views") or {}).get("panes", {}).get("dp-card-pane", "")))
            if vals:
                self.card = vals
                self._resolve(vals, at)

    async def move(self, slider: str, value: float) -> Move:
        """Move the σ (value = log10 σ) or ε slider to ``value`` and release it."""
        ix = self.index
        if ix is None:
            raise TabError("open() first")
        if slider == "sigma":
            self.sigma_log = value
        else:
            self.eps = value
        m = Move(slider, value, (sigma_shown(self.sigma_log), eps_shown(self.eps)),
                 time.perf_counter())
        self._pending.append(m)
        if self.moves_ws is not None:  # by the page's moves channel, as the page's script
            self._moves_n += 1
            self._moves_sent[self._moves_n] = (slider, value)
            await self.moves_ws.write_message(json.dumps(
                {"n": self._moves_n, "c": slider, "v": value}))
            return m
        # As the page's slider on a tap or key press, no reply awaited.
        for events in slider_patches(ix.by_class, ix.release_only, slider, value):
            await self._patch_quietly(events)
        return m

    async def move_and_wait(self, slider: str, value: float, timeout: float = 30.0) -> Move:
        """:meth:`move`, then poll until its card has come (``latency`` set) or ``timeout``
        seconds have passed (``latency`` still None)."""
        m = await self.move(slider, value)
        deadline = time.monotonic() + timeout
        while m.latency is None and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        return m


# ---------------------------------------------------------------------------------------------
# any page, as the deployment tests drive it (behind scripts/serve-prod's balancer)
# ---------------------------------------------------------------------------------------------
# Affinity cookies set by scripts/serve-prod's HAProxy: dplab_w names a worker process,
# dplab_b a backend host of a front balancer (DPLAB_ROLE=balancer).
COOKIES = ("dplab_b", "dplab_w")


def session_id(token: str) -> str:
    """The Bokeh session id inside a (possibly unsigned) session token."""
    payload = token.split(".")[0]
    data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    return str(data["session_id"])


def cookie_header(cookies: dict[str, str]) -> str:
    return "; ".join(f"{k}={v}" for k, v in cookies.items())


class Page:
    """The page GET: HTML, token, status, headers, the affinity cookies the balancer set."""

    def __init__(self, status: int, headers: Any, body: str, cookies: dict[str, str]) -> None:
        self.status, self.headers, self.body, self.cookies = status, headers, body, cookies
        # The front-most affinity: the host for a front balancer, else the worker.
        self.cookie = next((cookies[c] for c in COOKIES if c in cookies), None)
        m = _TOKEN_RE.search(body)
        self.token = m.group(1) if m else None
        self.session_id = session_id(self.token) if self.token else None


async def get_page(url: str, cookie: str | None = None, timeout: float = 60.0,
                   extra_cookies: dict[str, str] | None = None) -> Page:
    """GET a page; ``cookie``: a worker name to be pinned to (the dplab_w cookie);
    ``extra_cookies``: more cookies to send (e.g. the live class's ``dplab_teacher``)."""
    from tornado.httpclient import AsyncHTTPClient, HTTPRequest

    headers = {"Accept-Language": "en-US,en;q=0.9"}
    sent = {"dplab_w": cookie} if cookie else {}
    sent.update(extra_cookies or {})
    if sent:
        headers["Cookie"] = cookie_header(sent)
    req = HTTPRequest(url, headers=headers, request_timeout=timeout, follow_redirects=False)
    # an HTTP error status is an answer here; a connection error or timeout still raises
    resp = await AsyncHTTPClient().fetch(req, raise_error=False)
    got = dict(sent)
    for raw in resp.headers.get_list("Set-Cookie"):
        c: SimpleCookie = SimpleCookie()
        c.load(raw)
        for name in COOKIES:
            if name in c:
                got[name] = c[name].value
    return Page(resp.code, resp.headers, resp.body.decode("utf-8", "replace"), got)


class Tab(Session):
    """One session on any page: ``await Tab.open(url)``; ``set(css_class, attr, value)``;
    ``wait_text``."""

    def __init__(self, url: str, page: Page) -> None:
        super().__init__()
        self.url, self.page = url, page
        self.by_class: dict[str, str] = {}
        self.doc: dict[str, Any] = {}  # the document as pulled (before any push)
        self.pushed: list[Message] = []
        self._push_event = asyncio.Event()

    @property
    def worker(self) -> str | None:
        return self.page.cookie

    @classmethod
    async def open(cls, url: str, cookie: str | None = None, origin: str | None = None,
                   timeout: float = 60.0, extra_cookies: dict[str, str] | None = None) -> Tab:
        from tornado.httpclient import HTTPRequest

        page = await get_page(url, cookie, timeout, extra_cookies)
        if page.status != 200 or page.token is None:
            raise TabError(f"GET {url}: HTTP {page.status}, token={page.token is not None}")
        scheme, netloc = urlsplit(url)[:2]
        headers = {"Origin": origin or f"{scheme}://{netloc}"}
        if page.cookies:
            headers["Cookie"] = cookie_header(page.cookies)
        tab = cls(url, page)
        await tab._connect(HTTPRequest(ws_url(url), headers=headers, request_timeout=timeout),
                           page.token, 256 << 20, timeout)
        reply = await tab._pull_doc(timeout)
        tab.doc = reply.content["doc"]
        tab.by_class = models_by_class(tab.doc)
        tab._reader = asyncio.create_task(tab._read_loop())
        await asyncio.wait_for(await tab._patch([DOCUMENT_READY]), timeout)
        return tab

    def _abandon(self, fut: asyncio.Future[Message]) -> None:
        # A test awaiting a reply learns why it will not come.
        fut.set_exception(TabError("connection closed before the reply"))

    async def _on_push(self, msg: Message) -> None:
        self.pushed.append(msg)
        self._push_event.set()

    def model(self, css_class: str) -> str:
        if css_class not in self.by_class:
            raise TabError(f"no model with class {css_class} in the document")
        return self.by_class[css_class]

    async def set(self, css_class: str, attr: str, value: Any) -> tuple[str, Any]:
        """Change a widget like the browser does; returns the server's (OK|ERROR, content)."""
        fut = await self._patch([model_changed(self.model(css_class), attr, value)])
        reply = await asyncio.wait_for(fut, 30)
        return reply.msgtype, reply.content

    async def slide_sent(self, slider: str, value: float) -> asyncio.Future[Message]:
        """Release a slider of the page at ``value`` as the browser does (log10 σ for σ);
        returns the future of the server's reply to the last message."""
        release_only = DocIndex.from_doc(self.doc).release_only
        *first, last = slider_patches(self.by_class, release_only, slider, value)
        for events in first:
            await self._patch_quietly(events)
        return await self._patch(last)

    async def slide(self, slider: str, value: float) -> tuple[str, Any]:
        """:meth:`slide_sent`, then the server's (OK|ERROR, content)."""
        reply = await asyncio.wait_for(await self.slide_sent(slider, value), 30)
        return reply.msgtype, reply.content

    def initial_text(self, css_class: str) -> str:
        """The text (HTML pane ``text``/``object``) of the model with ``css_class`` in the
        document as pulled, before any push."""
        mid = self.model(css_class)
        for m in walk_models(self.doc):
            if str(m.get("id")) == mid:
                attrs = m.get("attributes") or {}
                return html.unescape(str(attrs.get("text", attrs.get("object", ""))))
        raise TabError(f"model {mid} not in the pulled document")

    def texts(self, model_id: str) -> Iterator[str]:
        """Every text (HTML pane ``text``/``object``) pushed so far for ``model_id``."""
        for msg in self.pushed:
            for ev in msg.content.get("events", []):
                if (ev.get("model") or {}).get("id") == model_id and ev.get("attr") in (
                        "text", "object"):
                    yield html.unescape(str(ev.get("new", "")))

    async def wait_text(self, css_class: str, pred: Callable[[str], bool],
                        timeout: float = 30.0) -> str:
        """Wait until the server pushes a text for the model with ``css_class`` that matches."""
        model = self.model(css_class)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            for text in self.texts(model):
                if pred(text):
                    return text
            left = deadline - loop.time()
            if left <= 0 or self.closed_by_server:
                raise TabError(f"no matching push for {css_class} within {timeout} s "
                               f"(closed={self.closed_by_server}, errors={self.errors})")
            await self._next_push(left)

    async def _next_push(self, timeout: float) -> None:
        """Wait up to ``timeout`` s for the next pushed change of any model."""
        self._push_event.clear()
        try:
            await asyncio.wait_for(self._push_event.wait(), timeout)
        except TimeoutError:
            pass

    async def wait_latest(self, css_class: str, pred: Callable[[str], bool],
                          timeout: float = 30.0) -> str:
        """Wait until the model with ``css_class`` shows a matching text: the newest pushed,
        or the pulled one while nothing was pushed."""
        model = self.model(css_class)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            texts = list(self.texts(model)) or [self.initial_text(css_class)]
            if texts and pred(texts[-1]):
                return texts[-1]
            left = deadline - loop.time()
            if left <= 0 or self.closed_by_server:
                raise TabError(f"the newest {css_class} text does not match within {timeout} s"
                               f" (it is {texts[-1][:200] if texts else None!r}, "
                               f"closed={self.closed_by_server}, errors={self.errors})")
            await self._next_push(left)


def card_sigma(text: str) -> str | None:
    """σ as the lab's card shows it (None when the text is not the card)."""
    m = _SPAN_RE["sigma"].search(text)
    return m.group(1).strip() if m else None


async def move_sigma(tab: Tab, log10_sigma: float, timeout: float = 30.0) -> str:
    """Move the lab's σ slider (value = log10 σ) and wait for the card to show the new σ."""
    want = sigma_shown(log10_sigma)
    await tab.slide("sigma", log10_sigma)

    def shows(text: str) -> bool:
        s = card_sigma(text)
        try:
            return s is not None and abs(float(s) - want) <= 1e-9 * max(1.0, want)
        except ValueError:
            return False

    return await tab.wait_text("dp-card-pane", shows, timeout)


# ---------------------------------------------------------------------------------------------
# a raw websocket that never reads (the slow client)
# ---------------------------------------------------------------------------------------------
def raw_ws_frame(payload: bytes, opcode: int = 1) -> bytes:
    """One masked client frame (RFC 6455)."""
    mask = uuid.uuid4().bytes[:4]
    n = len(payload)
    head = bytes([0x80 | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 1 << 16:
        head += bytes([0x80 | 126]) + struct.pack(">H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", n)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return head + mask + masked


def raw_ws_connect(host: str, port: int, path: str, token: str, cookies: dict[str, str],
                   rcvbuf: int = 4096) -> socket.socket:
    """Websocket handshake on a plain socket with a tiny receive buffer; returns the socket."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(30)
    s.connect((host, port))
    key = base64.b64encode(uuid.uuid4().bytes).decode()
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}:{port}", "Upgrade: websocket",
             "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13",
             f"Sec-WebSocket-Protocol: bokeh, {token}", f"Origin: http://{host}:{port}"]
    if cookies:
        lines.append(f"Cookie: {cookie_header(cookies)}")
    s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    reply = b""
    while b"\r\n\r\n" not in reply:
        chunk = s.recv(1)
        if not chunk:
            raise TabError("handshake: connection closed")
        reply += chunk
    if not reply.startswith(b"HTTP/1.1 101"):
        raise TabError(f"handshake refused: {reply[:100]!r}")
    return s


def raw_send_message(s: socket.socket, msgtype: str, content: Any) -> None:
    for f in encode(msgtype, content)[1]:
        s.sendall(raw_ws_frame(f.encode()))


def _recv_exactly(s: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise TabError("connection closed")
        data += chunk
    return data


def raw_read_frame(s: socket.socket) -> tuple[int, bytes]:
    """(opcode, payload) of one unmasked server frame (no fragmentation in Bokeh's frames)."""
    b0, b1 = _recv_exactly(s, 2)
    n = b1 & 0x7F
    if n == 126:
        n = struct.unpack(">H", _recv_exactly(s, 2))[0]
    elif n == 127:
        n = struct.unpack(">Q", _recv_exactly(s, 8))[0]
    return b0 & 0x0F, _recv_exactly(s, n)


def raw_read_message(s: socket.socket) -> tuple[str, Any]:
    """(msgtype, content) of the next Bokeh message; pings are skipped."""
    asm = Assembler()
    while True:
        op, payload = raw_read_frame(s)
        if op == 8:
            raise TabError("closed by the server")
        if op not in (1, 2):  # ping, pong
            continue
        msg = asm.feed(payload.decode() if op == 1 else payload)
        if msg is not None:
            return msg.msgtype, msg.content


# ---------------------------------------------------------------------------------------------
# a following class (the live class: benchmarks/room_follow.py, classroom_load.py follow)
# ---------------------------------------------------------------------------------------------
class Follower(Tab):
    """A student's tab in a room that notes when its card first shows each σ (and keeps no
    other push: hundreds of them run in one load client)."""

    def __init__(self, url: str, page: Page) -> None:
        super().__init__(url, page)
        self.seen: dict[str, float] = {}
        self.channel: Any = None  # the card channel, as assets/dplab-room-card.js opens it
        self._channel_reader: asyncio.Task[None] | None = None
        self.via_channel = 0  # cards first seen from the channel

    @classmethod
    async def open(cls, url: str, cookie: str | None = None, origin: str | None = None,
                   timeout: float = 60.0, extra_cookies: dict[str, str] | None = None) -> Tab:
        tab = await super().open(url, cookie, origin, timeout, extra_cookies)
        assert isinstance(tab, Follower)
        await tab._open_channel(origin, timeout)
        return tab

    async def _open_channel(self, origin: str | None, timeout: float) -> None:
        """The card channel of a following lab (app/room/channel.py), when the page has one."""
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        try:
            m = re.search(r'class="dp-card-channel"[^>]*data-url="([^"]+)"',
                          self.initial_text("dp-conn-watch"))
        except TabError:
            m = None
        if m is None:
            return
        scheme, netloc = urlsplit(self.url)[:2]
        headers = {"Origin": origin or f"{scheme}://{netloc}"}
        if self.page.cookies:
            headers["Cookie"] = cookie_header(self.page.cookies)
        ws_scheme = "wss" if scheme == "https" else "ws"
        req = HTTPRequest(f"{ws_scheme}://{netloc}{html.unescape(m.group(1))}", headers=headers,
                          request_timeout=timeout)
        self.channel = await websocket_connect(req)
        self._channel_reader = asyncio.create_task(self._read_channel())

    async def _read_channel(self) -> None:
        while self.channel is not None:
            text = await self.channel.read_message()
            at = time.perf_counter()  # the clock of Message.received_at
            if text is None:
                return
            if '"card":' not in text[:40]:
                continue  # the views' frame (its card came first)
            try:
                card = json.loads(text).get("card", "")
            except (ValueError, AttributeError):
                continue
            s = card_sigma(str(card))
            if s is not None and s not in self.seen:
                self.seen[s] = at
                self.via_channel += 1

    async def close(self) -> None:
        self._close_side(self.channel, self._channel_reader)
        self.channel = None
        await super().close()

    async def _on_push(self, msg: Message) -> None:
        card = self.by_class.get("dp-card-pane")
        cj = msg.content_json
        if card is None or f'"id":"{card}"' not in cj or "dp-sigma" not in cj:
            return
        for ev in msg.content.get("events", []):
            if (ev.get("model") or {}).get("id") == card and ev.get("attr") == "text":
                s = card_sigma(html.unescape(str(ev.get("new", ""))))
                if s is not None and s not in self.seen:
                    self.seen[s] = msg.received_at

    def seen_at(self, want: float) -> float | None:
        """When the card first showed σ = ``want`` (None: not yet)."""
        for k, at in self.seen.items():
            try:
                if abs(float(k) - want) <= 1e-9 * max(1.0, want):
                    return at
            except ValueError:
                continue
        return None


async def teacher_sign_in(base: str, token: str) -> tuple[str, str]:
    """``POST /teach`` with the teacher token: (the ``dplab_teacher`` cookie, the room code)."""
    from tornado.httpclient import AsyncHTTPClient, HTTPRequest

    req = HTTPRequest(base + "/teach", method="POST", body=f"token={token}",
                      follow_redirects=False, headers={"Origin": base})
    r = await AsyncHTTPClient().fetch(req, raise_error=False)
    if r.code != 303:
        raise TabError(f"POST /teach answered {r.code}")
    cookie = next(c.split(";", 1)[0].split("=", 1)[1] for c in r.headers.get_list("Set-Cookie")
                  if c.startswith("dplab_teacher="))
    m = re.search(r"room=([A-Z0-9]{6})", r.headers["Location"])
    if m is None:
        raise TabError(f"no room in {r.headers['Location']!r}")
    return cookie, m.group(1)


async def open_followers(base: str, code: str, n: int, concurrency: int = 8,
                         timeout: float = 120.0) -> tuple[list[Follower], list[str]]:
    """``n`` students open ``/lab?room=code`` (half in Korean), ``concurrency`` at a time:
    (the tabs that opened, the errors of the others)."""
    sem = asyncio.Semaphore(concurrency)
    errors: list[str] = []

    async def one(i: int) -> Follower | None:
        async with sem:
            url = f"{base}/lab?room={code}&lang={'en' if i % 2 else 'ko'}"
            try:
                tab = await Follower.open(url, timeout=timeout)
                assert isinstance(tab, Follower)
                return tab
            except Exception as exc:
                errors.append(f"{type(exc).__name__}: {exc}"[:200])
                return None

    opened = await asyncio.gather(*(one(i) for i in range(n)))
    return [t for t in opened if t is not None], errors


async def fetch_keeping_cookies(url: str, cookies: dict[str, str], timeout: float = 30.0,
                                accept_language: str = "en-US,en;q=0.9") -> tuple[int, bytes]:
    """GET ``url`` as a browser tab would, sending ``cookies`` and keeping every cookie the
    answer sets in it (the balancer's affinity, the class's student credential):
    (status, body)."""
    from tornado.httpclient import AsyncHTTPClient, HTTPRequest

    headers = {"Accept-Language": accept_language}
    if cookies:
        headers["Cookie"] = cookie_header(cookies)
    req = HTTPRequest(url, headers=headers, request_timeout=timeout, follow_redirects=False)
    resp = await AsyncHTTPClient().fetch(req, raise_error=False)
    for raw in resp.headers.get_list("Set-Cookie"):
        c: SimpleCookie = SimpleCookie()
        c.load(raw)
        for name, morsel in c.items():
            cookies[name] = morsel.value
    return resp.code, resp.body


async def class_page(base: str, code: str, lang: str, cookies: dict[str, str], seconds: float,
                     every: float = 2.0, timeout: float = 30.0) -> list[float]:
    """A student on the live class's page for ``seconds``: ``GET /join?room=CODE``, then
    ``/join/state`` every ``every`` s (as assets/dplab-poll.js polls), with the browser's
    ``cookies`` (kept up to date). Returns each poll's time to its answer (s); a page or poll
    that does not answer 200 raises :class:`TabError`."""
    from urllib.parse import urlencode

    q = urlencode({"room": code, "lang": lang})
    status, _ = await fetch_keeping_cookies(f"{base}/join?{q}", cookies, timeout)
    if status != 200:
        raise TabError(f"GET /join answered {status}")
    waits: list[float] = []
    end = time.perf_counter() + seconds
    while True:
        t0 = time.perf_counter()
        status, _ = await fetch_keeping_cookies(f"{base}/join/state?{q}", cookies, timeout)
        if status != 200:
            raise TabError(f"GET /join/state answered {status}")
        waits.append(time.perf_counter() - t0)
        left = end - time.perf_counter()
        if left <= 0:
            return waits
        await asyncio.sleep(max(0.0, min(every - (time.perf_counter() - t0), left)))


def follow_values(moves: int) -> list[float]:
    """The teacher's σ slider positions (log10 σ): each differs from the one before."""
    return [0.05 * ((k % 20) + 1) * (1 if k % 2 else -1) for k in range(moves)]


async def teacher_move(teacher: Tab, followers: list[Follower], log10_sigma: float,
                       lost_after: float) -> tuple[list[float], int]:
    """The teacher releases the σ slider at ``log10_sigma``: (seconds from the teacher's first
    frame to each follower's card showing the new σ, followers that did not within
    ``lost_after`` s)."""
    want = sigma_shown(log10_sigma)
    for f in followers:
        f.seen.clear()
    sent = time.perf_counter()
    await teacher.slide("sigma", log10_sigma)
    deadline = sent + lost_after
    while time.perf_counter() < deadline:
        if all(f.seen_at(want) is not None for f in followers):
            break
        await asyncio.sleep(0.005)
    lat: list[float] = []
    lost = 0
    for f in followers:
        at = f.seen_at(want)
        if at is None:
            lost += 1
        else:
            lat.append(at - sent)
    return lat, lost
