"""A Bokeh message written to its websocket in one piece.

A Bokeh protocol message is 3 + 2·(number of buffers) websocket frames (header, metadata,
content, then a reference frame and a binary frame per array). Bokeh's ``WSHandler`` and
Panel's direct dispatch (``panel.io.document.dispatch_tornado``) hand each frame to Tornado
separately, and Tornado's ``IOStream.write`` sends each at once: one ``send()`` system call
per frame, ~32 per slider move on /lab with the simulation open. In a class load's profile
(py-spy, ``benchmarks/classroom_load.py moves``) those writes were ~15 % of the server's CPU.

:func:`install` makes both paths build the same frames (byte for byte what Tornado's
``WebSocketProtocol13._write_frame`` makes for a server: FIN set, no mask) and write them
with one ``IOStream.write``. A connection that negotiated compression (``permessage-deflate``:
each frame goes through the connection's compressor) keeps Tornado's own path.
"""

from __future__ import annotations

import asyncio
import json
import struct
from collections.abc import Iterable
from typing import Any

_INSTALLED: list[bool] = []
TEXT, BINARY = 0x1, 0x2
FIN = 0x80


def frame(data: bytes, opcode: int) -> bytes:
    """One unmasked, unfragmented websocket frame (RFC 6455 §5.2) around ``data``."""
    n = len(data)
    if n < 126:
        head = struct.pack("!BB", FIN | opcode, n)
    elif n <= 0xFFFF:
        head = struct.pack("!BBH", FIN | opcode, 126, n)
    else:
        head = struct.pack("!BBQ", FIN | opcode, 127, n)
    return head + data


def message_parts(msg: Any) -> list[tuple[bytes, int]]:
    """The frames' payloads of a Bokeh ``Message``, in the order Bokeh writes them."""
    parts = [(msg.header_json.encode(), TEXT), (msg.metadata_json.encode(), TEXT),
             (msg.content_json.encode(), TEXT)]
    for buffer in msg._buffers:
        parts.append((json.dumps(buffer.ref).encode(), TEXT))
        parts.append((buffer.to_bytes(), BINARY))
    return parts


def write_parts(handler: Any, parts: Iterable[tuple[bytes, int]]) -> asyncio.Future[None] | None:
    """Write the frames in one stream write; ``None`` when the connection needs Tornado's own
    path (compression). Raises ``WebSocketClosedError`` as ``write_message`` does."""
    from tornado.iostream import StreamClosedError
    from tornado.websocket import WebSocketClosedError

    ws = handler.ws_connection
    if ws is None or ws.is_closing():
        raise WebSocketClosedError()
    if getattr(ws, "_compressor", None) is not None or getattr(ws, "mask_outgoing", False):
        return None
    payload = 0
    frames = []
    for data, opcode in parts:
        payload += len(data)
        frames.append(frame(data, opcode))
    wire = b"".join(frames)
    ws._message_bytes_out += payload
    ws._wire_bytes_out += len(wire)
    try:
        fut = ws.stream.write(wire)
    except StreamClosedError as exc:
        raise WebSocketClosedError() from exc

    async def wrapper() -> None:
        try:
            await fut
        except StreamClosedError as exc:
            raise WebSocketClosedError() from exc

    return asyncio.ensure_future(wrapper())


def install() -> None:
    """Patch Bokeh's ``WSHandler.send_message`` and Panel's ``dispatch_tornado`` (idempotent)."""
    if _INSTALLED:
        return
    from bokeh.server.views import ws as bokeh_ws
    from panel.io import document as pn_document
    from tornado.websocket import WebSocketClosedError

    send_message = bokeh_ws.WSHandler.send_message
    dispatch = pn_document.dispatch_tornado

    async def send_one_write(self: Any, message: Any) -> None:
        if bokeh_ws._message_test_port is not None:
            return await send_message(self, message)
        try:
            with await self.write_lock.acquire():
                fut = write_parts(self, message_parts(message))
                if fut is not None:
                    await fut
                    return None
        except WebSocketClosedError:
            bokeh_ws.log.warning("Failed sending message as connection was closed")
            return None
        return await send_message(self, message)  # a compressed connection: Bokeh's frames

    def dispatch_one_write(conn: Any, events: Any = None, msg: Any = None) -> Any:
        socket = conn._socket
        ws: Any = getattr(socket, "ws_connection", False)
        if not ws or ws.is_closing():
            return []
        if msg is None:
            if not events:
                return []
            msg = conn.protocol.create("PATCH-DOC", events)
        fut = write_parts(socket, message_parts(msg))
        if fut is None:
            return dispatch(conn, msg=msg)
        return [fut]

    bokeh_ws.WSHandler.send_message = send_one_write
    pn_document.dispatch_tornado = dispatch_one_write
    _INSTALLED.append(True)
