"""The protocol client's Bokeh framing (benchmarks/wsclient.py), checked against Bokeh's own code.

No server and no clock: messages made by Bokeh's protocol classes are split into frames the way
the server sends them, fed to the client's Assembler, and the client's own messages are read
back with Bokeh's Receiver.
"""

from __future__ import annotations

import asyncio
import base64
import json
import socket

import pytest
import wsclient
from bokeh.document import Document
from bokeh.models import ColumnDataSource, Div
from bokeh.protocol import Protocol
from bokeh.protocol.receiver import Receiver


def server_frames(msg: object) -> list[str | bytes]:
    """The frames Bokeh's ``Message.send`` writes: header, metadata, content, buffers."""
    frames: list[str | bytes] = [msg.header_json, msg.metadata_json, msg.content_json]
    for buf in msg.buffers:
        frames += [json.dumps(buf.ref), buf.to_bytes()]
    return frames


def test_assembles_a_pull_doc_reply_with_binary_buffers() -> None:
    doc = Document()
    doc.add_root(ColumnDataSource(data={"x": __import__("numpy").arange(5.0)}))
    msg = Protocol().create("PULL-DOC-REPLY", "REQ1", doc)
    assert msg.header.get("num_buffers", 0) >= 1  # numpy columns travel as binary buffers
    asm = wsclient.Assembler()
    frames = server_frames(msg)
    out = [asm.feed(f) for f in frames]
    assert out[:-1] == [None] * (len(frames) - 1)  # complete only at the last frame
    got = out[-1]
    assert got is not None and got.msgtype == "PULL-DOC-REPLY" and got.reqid == "REQ1"
    assert len(got.buffers) == msg.header["num_buffers"]
    assert got.buffers[0][1] == msg.buffers[0].to_bytes()
    assert got.content["doc"]["roots"][0]["id"] == doc.roots[0].id
    assert got.size == sum(len(f) for f in frames)


def test_back_to_back_messages_without_buffers() -> None:
    proto = Protocol()
    asm = wsclient.Assembler()
    a, b = proto.create("ACK"), proto.create("OK", "X7")
    out = [asm.feed(f) for f in server_frames(a) + server_frames(b)]
    done = [m for m in out if m is not None]
    assert [m.msgtype for m in done] == ["ACK", "OK"] and done[1].reqid == "X7"
    assert out.index(done[0]) == 2 and out.index(done[1]) == 5


@pytest.mark.parametrize("frames", [
    [b"binary first"],
    ['{"msgid": "1"}', "{}", "{}"],  # no msgtype
    ['{"msgid": "1", "msgtype": "PATCH-DOC", "num_buffers": 1}', "{}", "{}", b"payload"],
    ['{"msgid": "1", "msgtype": "PATCH-DOC", "num_buffers": 1}', "{}", "{}", '{"id": "b"}',
     "text where bytes belong"],
])
def test_malformed_frames_raise(frames: list[str | bytes]) -> None:
    asm = wsclient.Assembler()
    with pytest.raises(wsclient.ProtocolError):
        for f in frames:
            asm.feed(f)


def test_client_messages_are_read_by_bokehs_receiver() -> None:
    """A slider release (value, then value_throttled) as Bokeh's server reads it."""
    doc = Document()
    div = Div(text="x")
    doc.add_root(div)
    msgid, frames = wsclient.encode("PATCH-DOC", {"events": [
        wsclient.model_changed(div.id, "text", "new text")]})
    assert len(msgid) == 32 and msgid == msgid.upper()

    async def read() -> object:
        rec = Receiver(Protocol())
        msg = None
        for f in frames:
            msg = await rec.consume(f)
        return msg

    msg = asyncio.run(read())
    assert msg is not None and msg.msgtype == "PATCH-DOC"
    assert msg.header["msgid"] == msgid
    msg.apply_to_document(doc)
    assert div.text == "new text"


def test_document_index_finds_the_sliders_and_the_card() -> None:
    card = Div(text='<span class="dp-sigma">1</span> <span class="dp-eps">2.5</span> '
                    '<span class="dp-required-delta">0.1269367375</span>',
               css_classes=["dp-card-pane"])
    sigma = Div(css_classes=["dp-slider-sigma", "other"])
    doc = Document()
    doc.add_root(card)
    doc.add_root(sigma)
    reply = Protocol().create("PULL-DOC-REPLY", "R", doc)  # what the tab receives
    ix = wsclient.DocIndex.from_doc(json.loads(reply.content_json)["doc"])
    assert ix.card_id == card.id and ix.by_class["dp-slider-sigma"] == sigma.id
    assert wsclient.card_values(ix.card_text) == {
        "sigma": "1", "eps": "2.5", "required-delta": "0.1269367375"}


def test_card_values_read_panels_escaped_html() -> None:
    escaped = ("&lt;span class=&quot;dp-sigma&quot;&gt;0.3162&lt;/span&gt;"
               "&lt;span class=&quot;dp-eps&quot;&gt;1.05&lt;/span&gt;"
               "&lt;span class=&quot;dp-required-delta&quot;&gt;0&lt;/span&gt;")
    assert wsclient.card_values(escaped) == {"sigma": "0.3162", "eps": "1.05",
                                             "required-delta": "0"}
    assert wsclient.card_values("<p>not the card</p>") is None


def test_expected_card_values_follow_the_lab_sliders() -> None:
    assert wsclient.sigma_shown(-0.5) == 0.3162  # 10**-0.5 to 4 significant digits
    assert wsclient.eps_shown(1.05) == 1.05
    assert wsclient.same_number("0.3162", wsclient.sigma_shown(-0.5))
    assert not wsclient.same_number("0.3163", 0.3162)


def test_page_helpers() -> None:
    page = ('<script src="static/js/bokeh.min.js?v=1"></script>'
            '<link rel="stylesheet" href="/assets/dplab.css">'
            '<link rel="icon" href="/assets/favicon.svg">'
            '<script src="https://cdn.example.org/x.js"></script>'
            '<script type="application/json">{"token":"eyJabc.def-ghi_1","roots":{}}</script>')
    url = "http://127.0.0.1:5006/lab?lang=en"
    assert wsclient.find_token(page) == "eyJabc.def-ghi_1"
    assert wsclient.asset_urls(page, url) == [
        "http://127.0.0.1:5006/static/js/bokeh.min.js?v=1", "http://127.0.0.1:5006/assets/dplab.css"]
    assert wsclient.ws_url(url) == "ws://127.0.0.1:5006/lab/ws?lang=en"
    with pytest.raises(wsclient.ProtocolError):
        wsclient.find_token("<html></html>")


def _server_ws_frame(payload: bytes, opcode: int) -> bytes:
    """One unmasked server frame (RFC 6455), as a server writes it."""
    n = len(payload)
    head = bytes([0x80 | opcode])
    head += bytes([n]) if n < 126 else bytes([126]) + n.to_bytes(2, "big")
    return head + payload


def test_raw_socket_frames_and_messages() -> None:
    """The slow client's plain-socket websocket: masked frames out, whole messages in."""
    frame = wsclient.raw_ws_frame(b"x" * 200)
    assert frame[0] == 0x81 and frame[1] == 0x80 | 126 and frame[2:4] == (200).to_bytes(2, "big")
    mask = frame[4:8]
    assert bytes(b ^ mask[i % 4] for i, b in enumerate(frame[8:])) == b"x" * 200
    doc = Document()
    doc.add_root(ColumnDataSource(data={"x": __import__("numpy").arange(3.0)}))
    msg = Protocol().create("PULL-DOC-REPLY", "R", doc)
    a, b = socket.socketpair()
    with a, b:
        a.sendall(_server_ws_frame(b"", 9))  # a ping first: skipped
        for f in server_frames(msg):
            a.sendall(_server_ws_frame(f.encode() if isinstance(f, str) else f,
                                       1 if isinstance(f, str) else 2))
        msgtype, content = wsclient.raw_read_message(b)
    assert msgtype == "PULL-DOC-REPLY"
    assert wsclient.models_by_class(content["doc"]) == {}


def test_session_id_from_a_token() -> None:
    payload = base64.urlsafe_b64encode(json.dumps({"session_id": "abc-1"}).encode()).rstrip(b"=")
    assert wsclient.session_id(payload.decode() + ".sig") == "abc-1"
    page = wsclient.Page(200, {}, '{"token":"' + payload.decode() + '.sig"}',
                         {"dplab_w": "w2", "dplab_b": "b1"})
    assert page.session_id == "abc-1" and page.cookie == "b1"  # the front-most affinity
