"""A minimal Bokeh-protocol client for the deployment tests (one "student tab", no browser).

What a browser tab does: GET the page (the balancer's affinity cookie comes back), open the
websocket ``<page>/ws`` with the subprotocols ``["bokeh", token]`` and that cookie, read ACK,
PULL-DOC, report ``document_ready``, then send widget changes (PATCH-DOC ``ModelChanged``) and
read the server's pushes. A Bokeh message is 3 text frames (header, metadata, content) plus, per
buffer, a text frame ``{"id": ...}`` and a binary frame.

Deliberately independent of benchmarks/wsclient.py (a fuller load client).
"""

from __future__ import annotations

import asyncio
import base64
import html
import json
import re
import socket
import struct
import uuid
from collections.abc import Callable, Iterator
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import urlsplit, urlunsplit

TOKEN_RE = re.compile(r'"token"\s*:\s*"([A-Za-z0-9_\-.]+)"')
# Affinity cookies set by scripts/serve-prod's HAProxy: dplab_w names a worker process,
# dplab_b a backend host of a front balancer (DPLAB_ROLE=balancer).
COOKIES = ("dplab_b", "dplab_w")
DOCUMENT_READY = {"kind": "MessageSent", "msg_type": "bokeh_event",
                  "msg_data": {"type": "event", "name": "document_ready",
                               "values": {"type": "map"}}}


class ClientError(RuntimeError):
    pass


def session_id(token: str) -> str:
    """The Bokeh session id inside a (possibly unsigned) session token."""
    payload = token.split(".")[0]
    data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    return str(data["session_id"])


def walk_models(obj: Any) -> Iterator[dict[str, Any]]:
    stack = [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, dict):
            if o.get("type") == "object" and "id" in o:
                yield o
            stack.extend(o.values())
        elif isinstance(o, list):
            stack.extend(o)


def frames(msgtype: str, content: Any) -> tuple[str, list[str]]:
    msgid = uuid.uuid4().hex.upper()
    header = json.dumps({"msgid": msgid, "msgtype": msgtype})
    return msgid, [header, "{}", json.dumps(content)]


def changed(model: str, attr: str, new: Any) -> dict[str, Any]:
    return {"kind": "ModelChanged", "model": {"id": model}, "attr": attr, "new": new}


def cookie_header(cookies: dict[str, str]) -> str:
    return "; ".join(f"{k}={v}" for k, v in cookies.items())


class Page:
    """The page GET: HTML, token, status, headers, the affinity cookies the balancer set."""

    def __init__(self, status: int, headers: Any, body: str, cookies: dict[str, str]) -> None:
        self.status, self.headers, self.body, self.cookies = status, headers, body, cookies
        # The front-most affinity: the host for a front balancer, else the worker.
        self.cookie = next((cookies[c] for c in COOKIES if c in cookies), None)
        m = TOKEN_RE.search(body)
        self.token = m.group(1) if m else None
        self.session_id = session_id(self.token) if self.token else None


async def get_page(url: str, cookie: str | None = None, timeout: float = 60.0) -> Page:
    """GET a page; ``cookie``: a worker name to be pinned to (the dplab_w cookie)."""
    from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest

    headers = {"Accept-Language": "en-US,en;q=0.9"}
    sent = {"dplab_w": cookie} if cookie else {}
    if sent:
        headers["Cookie"] = cookie_header(sent)
    req = HTTPRequest(url, headers=headers, request_timeout=timeout, follow_redirects=False)
    try:
        resp = await AsyncHTTPClient().fetch(req)
    except HTTPClientError as exc:
        if exc.response is None:
            raise
        resp = exc.response
    got = dict(sent)
    for raw in resp.headers.get_list("Set-Cookie"):
        c = SimpleCookie()
        c.load(raw)
        for name in COOKIES:
            if name in c:
                got[name] = c[name].value
    return Page(resp.code, resp.headers, resp.body.decode("utf-8", "replace"), got)


class Tab:
    """One session: ``await Tab.open(url)``; ``set(css_class, attr, value)``; ``wait_push``."""

    def __init__(self, url: str, page: Page, ws: Any) -> None:
        self.url, self.page, self.ws = url, page, ws
        self.models: dict[str, dict[str, Any]] = {}
        self.by_class: dict[str, str] = {}
        self.pushes: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self._replies: dict[str, asyncio.Future[tuple[str, Any]]] = {}
        self._push_event = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None
        self.closed_by_server = False

    @property
    def worker(self) -> str | None:
        return self.page.cookie

    @classmethod
    async def open(cls, url: str, cookie: str | None = None, origin: str | None = None,
                   timeout: float = 60.0) -> Tab:
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        page = await get_page(url, cookie, timeout)
        if page.status != 200 or page.token is None:
            raise ClientError(f"GET {url}: HTTP {page.status}, token={page.token is not None}")
        scheme, netloc, path, query, _ = urlsplit(url)
        ws_url = urlunsplit(("ws", netloc, path.rstrip("/") + "/ws", query, ""))
        headers = {"Origin": origin or f"{scheme}://{netloc}"}
        if page.cookies:
            headers["Cookie"] = cookie_header(page.cookies)
        ws = await websocket_connect(HTTPRequest(ws_url, headers=headers,
                                                 request_timeout=timeout),
                                     subprotocols=["bokeh", page.token],
                                     max_message_size=256 << 20)
        tab = cls(url, page, ws)
        msgtype, _ = await asyncio.wait_for(tab._read(), timeout)
        if msgtype != "ACK":
            raise ClientError(f"expected ACK, got {msgtype}")
        _, fr = frames("PULL-DOC-REQ", {})
        for f in fr:
            await ws.write_message(f)
        msgtype, content = await asyncio.wait_for(tab._read(), timeout)
        if msgtype != "PULL-DOC-REPLY":
            raise ClientError(f"expected PULL-DOC-REPLY, got {msgtype}")
        for m in walk_models(content["doc"]):
            tab.models[str(m["id"])] = m
            for c in (m.get("attributes") or {}).get("css_classes") or []:
                tab.by_class.setdefault(str(c), str(m["id"]))
        tab._reader = asyncio.create_task(tab._read_loop())
        await asyncio.wait_for(await tab.patch([DOCUMENT_READY]), timeout)
        return tab

    async def _read(self) -> tuple[str, Any]:
        parts: list[str] = []
        while len(parts) < 3:
            f = await self.ws.read_message()
            if f is None:
                raise ClientError("websocket closed by the server")
            if not isinstance(f, str):
                raise ClientError("binary frame where JSON was expected")
            parts.append(f)
        header = json.loads(parts[0])
        for _ in range(int(header.get("num_buffers", 0) or 0) * 2):
            if await self.ws.read_message() is None:
                raise ClientError("websocket closed inside a message")
        self._last_header = header
        return str(header["msgtype"]), json.loads(parts[2])

    async def _read_loop(self) -> None:
        try:
            while True:
                msgtype, content = await self._read()
                reqid = str(self._last_header.get("reqid", ""))
                if msgtype in ("OK", "ERROR"):
                    if msgtype == "ERROR":
                        self.errors.append(json.dumps(content)[:300])
                    fut = self._replies.pop(reqid, None)
                    if fut is not None and not fut.done():
                        fut.set_result((msgtype, content))
                elif msgtype == "PATCH-DOC":
                    self.pushes.append(content)
                    self._push_event.set()
        except ClientError:
            self.closed_by_server = True
        except asyncio.CancelledError:
            pass
        finally:
            for fut in self._replies.values():
                if not fut.done():
                    fut.set_exception(ClientError("connection closed before the reply"))

    async def patch(self, events: list[dict[str, Any]]) -> asyncio.Future[tuple[str, Any]]:
        msgid, fr = frames("PATCH-DOC", {"events": events})
        fut: asyncio.Future[tuple[str, Any]] = asyncio.get_running_loop().create_future()
        self._replies[msgid] = fut
        for f in fr:
            await self.ws.write_message(f)
        return fut

    def model(self, css_class: str) -> str:
        if css_class not in self.by_class:
            raise ClientError(f"no model with class {css_class} in the document")
        return self.by_class[css_class]

    async def set(self, css_class: str, attr: str, value: Any) -> tuple[str, Any]:
        """Change a widget like the browser does; returns the server's (OK|ERROR, content)."""
        fut = await self.patch([changed(self.model(css_class), attr, value)])
        return await asyncio.wait_for(fut, 30)

    def texts(self, model_id: str) -> Iterator[str]:
        for p in self.pushes:
            for ev in p.get("events", []):
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
                raise ClientError(f"no matching push for {css_class} within {timeout} s "
                                  f"(closed={self.closed_by_server}, errors={self.errors})")
            self._push_event.clear()
            try:
                await asyncio.wait_for(self._push_event.wait(), left)
            except TimeoutError:
                pass

    async def close(self) -> None:
        self.ws.close()
        if self._reader is not None:
            self._reader.cancel()
            try:
                await self._reader
            except (asyncio.CancelledError, Exception):
                pass


# ---- lab helpers ------------------------------------------------------------------------------
SIGMA_RE = re.compile(r'class="dp-sigma">([^<]*)<')


def card_sigma(text: str) -> str | None:
    m = SIGMA_RE.search(text)
    return m.group(1).strip() if m else None


async def move_sigma(tab: Tab, log10_sigma: float, timeout: float = 30.0) -> str:
    """Move the lab's σ slider (value = log10 σ) and wait for the card to show the new σ."""
    want = float(f"{10 ** log10_sigma:.4g}")
    await tab.set("dp-slider-sigma", "value", log10_sigma)
    await tab.set("dp-slider-sigma", "value_throttled", log10_sigma)

    def shows(text: str) -> bool:
        s = card_sigma(text)
        try:
            return s is not None and abs(float(s) - want) <= 1e-9 * max(1.0, want)
        except ValueError:
            return False

    return await tab.wait_text("dp-card-pane", shows, timeout)


# ---- a raw websocket that never reads (the slow client) ---------------------------------------
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
            raise ClientError("handshake: connection closed")
        reply += chunk
    if not reply.startswith(b"HTTP/1.1 101"):
        raise ClientError(f"handshake refused: {reply[:100]!r}")
    return s


def raw_send_message(s: socket.socket, msgtype: str, content: Any) -> None:
    for f in frames(msgtype, content)[1]:
        s.sendall(raw_ws_frame(f.encode()))


def _recv_exactly(s: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise ClientError("connection closed")
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
    """(msgtype, content) of the next Bokeh message; pings and buffers are skipped."""
    parts: list[bytes] = []
    while len(parts) < 3:
        op, payload = raw_read_frame(s)
        if op == 1:
            parts.append(payload)
        elif op == 8:
            raise ClientError("closed by the server")
    header = json.loads(parts[0])
    for _ in range(int(header.get("num_buffers", 0) or 0) * 2):
        raw_read_frame(s)
    return str(header["msgtype"]), json.loads(parts[2])


def models_by_class(doc: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    for m in walk_models(doc):
        for c in (m.get("attributes") or {}).get("css_classes") or []:
            out.setdefault(str(c), str(m["id"]))
    return out
