"""A Bokeh message in one stream write (app.serve.wsframes): the same frames Tornado makes,
received by a real websocket client as the same messages, one write per message."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

import numpy as np
import pytest
from bokeh.document import Document
from bokeh.models import ColumnDataSource
from bokeh.protocol import Protocol
from tornado.httpserver import HTTPServer
from tornado.testing import bind_unused_port
from tornado.web import Application
from tornado.websocket import (
    WebSocketClosedError,
    WebSocketHandler,
    WebSocketProtocol13,
    websocket_connect,
)

from app.serve import wsframes


class Sink:
    def __init__(self) -> None:
        self.chunks: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.chunks.append(bytes(data))


def tornado_frame(data: bytes, opcode: int) -> bytes:
    proto: Any = object.__new__(WebSocketProtocol13)
    proto.mask_outgoing, proto._wire_bytes_out, proto.stream = False, 0, Sink()
    proto._write_frame(True, opcode, data)
    return b"".join(proto.stream.chunks)


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65535, 65536, 200_000])
@pytest.mark.parametrize("opcode", [wsframes.TEXT, wsframes.BINARY])
def test_a_frame_is_byte_for_byte_tornados(size: int, opcode: int) -> None:
    # The three length encodings of RFC 6455 switch at 126 and 65536 bytes.
    data = bytes(i % 251 for i in range(size))
    assert wsframes.frame(data, opcode) == tornado_frame(data, opcode)


def patch_message() -> Any:
    src = ColumnDataSource(dict(x=np.linspace(0, 1, 300), y=np.arange(300.0)))
    doc = Document()
    doc.add_root(src)
    events: list[Any] = []
    doc.on_change(lambda e: events.append(e))
    src.data = dict(x=np.linspace(1, 2, 300), y=np.arange(300.0) ** 2)
    return Protocol().create("PATCH-DOC", events)


class Sender(WebSocketHandler):
    sent: ClassVar[dict[str, Any]] = {}
    compress = False

    def get_compression_options(self) -> dict[str, Any] | None:
        return {} if self.compress else None

    async def on_message(self, message: str | bytes) -> None:
        writes = []
        stream = self.ws_connection.stream  # type: ignore[union-attr]
        write = stream.write
        stream.write = lambda data: writes.append(len(data)) or write(data)  # type: ignore
        msg = patch_message()
        fut = wsframes.write_parts(self, wsframes.message_parts(msg))
        Sender.sent.update(msg=msg, writes=writes, fallback=fut is None)
        if fut is not None:
            await fut


async def exchange(compress: bool) -> tuple[dict[str, Any], list[str | bytes]]:
    Sender.compress, Sender.sent = compress, {}
    sock, port = bind_unused_port()
    server = HTTPServer(Application([(r"/ws", Sender)]))
    server.add_sockets([sock])
    conn = await websocket_connect(f"ws://127.0.0.1:{port}/ws",
                                   compression_options={} if compress else None)
    conn.write_message("go")
    got: list[str | bytes] = []
    if not compress:
        n = 3 + 2 * len(patch_message().buffers)
        for _ in range(n):
            frame = await asyncio.wait_for(conn.read_message(), 10)
            assert frame is not None
            got.append(frame)
    else:
        for _ in range(200):
            if Sender.sent:
                break
            await asyncio.sleep(0.01)
    conn.close()
    server.stop()
    return Sender.sent, got


def test_a_message_arrives_as_bokehs_frames_from_one_write() -> None:
    sent, got = asyncio.run(exchange(compress=False))
    msg = sent["msg"]
    assert len(msg.buffers) == 2 and not sent["fallback"]
    assert len(sent["writes"]) == 1  # Tornado's path: 3 + 2·2 = 7 writes
    expected = [data if op == wsframes.BINARY else data.decode()
                for data, op in wsframes.message_parts(msg)]
    assert got == expected
    assert isinstance(got[-1], bytes) and np.array_equal(
        np.frombuffer(got[-1], dtype=float), np.arange(300.0) ** 2)


def test_a_compressed_connection_keeps_tornados_path() -> None:
    # permessage-deflate compresses each frame with the connection's state: not ours to build.
    sent, _ = asyncio.run(exchange(compress=True))
    assert sent["fallback"] and sent["writes"] == []


def test_a_closed_connection_raises_as_tornado_does() -> None:
    handler: Any = object.__new__(Sender)
    handler.ws_connection = None
    with pytest.raises(WebSocketClosedError):
        wsframes.write_parts(handler, [(b"x", wsframes.TEXT)])


def test_install_replaces_both_senders() -> None:
    from bokeh.server.views.ws import WSHandler
    from panel.io import document as pn_document

    wsframes.install()
    wsframes.install()  # idempotent
    assert WSHandler.send_message.__name__ == "send_one_write"
    assert pn_document.dispatch_tornado.__name__ == "dispatch_one_write"
