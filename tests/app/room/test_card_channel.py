"""The class's channel (app/room/channel.py): what a following student's lab shows is one frame
per process and room state, the very same bytes for every follower, sent at once; the session
takes the state only when it needs it (detach, a channel closed). Nothing is sent to a lab
exploring on its own, for a tour step, or for an older state; the websocket route closes for
an id this process does not hold (4404: no door for guessing room codes) and forgets a closed
socket."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import tornado.httpserver
import tornado.testing
import tornado.web
import tornado.websocket
from test_follow_lanes import ROOM_LAB, a_student, message, until

from app.lab.follow import card_of, views_of
from app.room import channel
from app.room import link as link_mod
from app.room.state import ClassQuestion, RoomState, state_message


class FakeSocket:
    """What RoomLink needs of a CardChannel: push(bytes) -> bool."""

    def __init__(self, alive: bool = True) -> None:
        self.frames: list[bytes] = []
        self.alive = alive

    def push(self, data: bytes) -> bool:
        if self.alive:
            self.frames.append(data)
        return self.alive

    def close(self) -> None:
        self.alive = False


def test_the_view_goes_by_the_channel_the_same_frame_for_every_follower() -> None:
    async def body() -> None:
        _hub1, lab1, link1 = await a_student()
        _hub2, lab2, link2 = await a_student()
        s1, s2 = FakeSocket(), FakeSocket()
        link1.channel, link2.channel = s1, s2  # type: ignore[assignment]
        before = lab1.card.object
        link1.deliver(message(7, ROOM_LAB))
        link2.deliver(message(7, ROOM_LAB))
        # the card first, to every follower; the rest on the next turn of the loop
        assert len(s1.frames) == 1 and s1.frames[0] is s2.frames[0]  # one encoding
        assert json.loads(s1.frames[0]) == {"seq": 7, "card": card_of(ROOM_LAB, "en", False)}
        await until(lambda: len(s1.frames) == 2 and len(s2.frames) == 2)
        assert s1.frames[1] is s2.frames[1]
        got = json.loads(s1.frames[1])
        assert got["seq"] == 7
        views = got["views"]
        assert views == json.loads(views_of(ROOM_LAB, "en", False))
        assert views["panes"]["dp-card-pane"] == card_of(ROOM_LAB, "en", False)
        assert set(views["plots"]) == {"density", "curve", "simulation", "attacker"}
        assert json.loads(views["controls"])["fields"]["sigma"] == "2.5"
        # the session does not take the state: the page shows it from the channel
        await asyncio.sleep(0.05)
        assert lab1.card.object == before and lab1.state.sigma == 1.0
        assert link1._full is not None and link1 not in link_mod.SLOW_LANE.queue
        link1.deliver(message(7, ROOM_LAB))  # the same state again: nothing new to send
        link1.deliver(message(6, {**ROOM_LAB, "sigma": "3"}))  # older: never
        await asyncio.sleep(0.05)
        assert len(s1.frames) == 2
        # the student detaches: the session takes the class's state first, the banner says so
        synced = link1._synced
        link1._on_toggle(type("E", (), {"new": False})())
        assert lab1.state.sigma == 2.5 and link1._synced == synced + 1
        assert 'data-mode="own"' in link1.banner.object
        assert f'data-synced="{synced + 1}"' in link1.banner.object
        # the channel closes: the other page's session takes the state through Bokeh
        link2.channel_closed()
        await until(lambda: lab2.state.sigma == 2.5)
        assert lab2.card.object == card_of(ROOM_LAB, "en", False)

    asyncio.run(body())


class FakeDoc:
    """A served document as RoomLink.deliver sees it: its next-tick callbacks are noted."""

    session_context = object()

    def __init__(self) -> None:
        self.callbacks: list[Any] = []

    def add_next_tick_callback(self, cb: Any) -> None:
        self.callbacks.append(cb)


def test_a_move_the_channel_showed_needs_no_document_callback() -> None:
    """A follower whose card went by the channel takes a move (same question, still live)
    without its document: no Bokeh callback per follower. A change its banner shows (a
    question opens) still goes through the document."""
    async def body() -> None:
        _hub, lab, link = await a_student()
        sock, doc = FakeSocket(), FakeDoc()
        link.channel, link.doc = sock, doc  # type: ignore[assignment]
        banner = link.banner.object
        link.deliver(message(7, ROOM_LAB))
        assert len(sock.frames) == 1  # the card went
        assert doc.callbacks == []  # ... and the session took the move without its document
        assert link.state.seq == 7 and link._latest is not None and link._latest.seq == 7
        assert link._full is not None and link._full["lab"] == ROOM_LAB
        assert lab.state.sigma == 1.0 and link.banner.object == banner
        q = ClassQuestion("q1", "quiz", "intro:q1", 3)

        def with_q(seq: int, lab: dict[str, str]) -> RoomState:
            got = RoomState.from_json(state_message(
                seq, "t", {"lab": lab, "tour": 0, "revealed": True}, q))
            assert got is not None
            return got

        asked = with_q(8, ROOM_LAB)
        link.deliver(asked)
        assert len(sock.frames) == 2  # its card too, and the banner through the document:
        assert len(doc.callbacks) == 1 and link.state.question is None and link.state.seq == 7
        link._take(asked)  # (what the callback runs, here without Bokeh's curdoc)
        assert link.state.question == q and link.banner.object != banner
        link.deliver(with_q(9, {**ROOM_LAB, "sigma": "3"}))
        assert len(doc.callbacks) == 1  # (the same question still open: nothing else changed)
        assert link.state.seq == 9 and link._full is not None and link._full["question"] == "q1"
        link.deliver(message(10, ROOM_LAB))  # the question closes: through the document
        assert len(doc.callbacks) == 2
        link._take(message(10, ROOM_LAB))
        # an answer to clear (it belongs to no open question): through the document
        link.state.param.update(answered=1, answered_id="old")
        link.deliver(message(11, ROOM_LAB))
        assert len(doc.callbacks) == 3

    asyncio.run(body())


def test_nothing_by_the_channel_for_a_lab_on_its_own_or_a_tour_step() -> None:
    async def body() -> None:
        _hub, lab, link = await a_student()
        sock = FakeSocket()
        link.channel = sock  # type: ignore[assignment]
        link.state.detach()
        link.deliver(message(3, ROOM_LAB))
        await asyncio.sleep(0.05)
        assert sock.frames == [] and lab.state.sigma == 1.0
        link.state.reattach()
        link.deliver(message(4, ROOM_LAB, tour=2, revealed=False))  # the class predicts first
        await until(lambda: lab.tour is not None and lab.tour.step == 2)
        assert sock.frames == []
        dead = FakeSocket(alive=False)  # a socket closed meanwhile: the card through Bokeh
        link.channel = dead  # type: ignore[assignment]
        link.deliver(message(5, {**ROOM_LAB, "sigma": "4"}))
        await until(lambda: lab.state.sigma == 4.0)

    asyncio.run(body())


def test_the_route_closes_for_an_unknown_lab_and_forgets_a_closed_socket() -> None:
    async def body() -> None:
        _hub, lab, link = await a_student()
        assert channel.url(link.id).endswith(f"/room-card?link={link.id}")
        app = tornado.web.Application(channel.routes())
        sock, port = tornado.testing.bind_unused_port()
        server = tornado.httpserver.HTTPServer(app)
        server.add_sockets([sock])
        base = f"ws://127.0.0.1:{port}{channel.PATH}"
        try:
            ws: Any = await tornado.websocket.websocket_connect(base + "?link=0123456789abcdef")
            assert await ws.read_message() is None and ws.close_code == channel.NOT_HERE
            ws = await tornado.websocket.websocket_connect(f"{base}?link={link.id}")
            await until(lambda: link.channel is not None)
            link.deliver(message(9, ROOM_LAB))
            got = json.loads(await asyncio.wait_for(ws.read_message(), 5))
            assert got == {"seq": 9, "card": card_of(ROOM_LAB, "en", False)}
            got = json.loads(await asyncio.wait_for(ws.read_message(), 5))
            assert got["seq"] == 9
            assert got["views"]["panes"]["dp-card-pane"] == card_of(ROOM_LAB, "en", False)
            ws.close()
            await until(lambda: link.channel is None)
            await until(lambda: lab.state.sigma == 2.5)  # (closed: the session takes it)
            link._left()  # the session ends: its id opens nothing any more
            ws = await tornado.websocket.websocket_connect(f"{base}?link={link.id}")
            assert await ws.read_message() is None and ws.close_code == channel.NOT_HERE
        finally:
            server.stop()

    asyncio.run(body())


def test_a_frame_written_to_the_socket_is_the_frame_tornado_writes() -> None:
    """push() hands its frame (app/room/channel.py ``wire``: made once per payload) to the
    socket itself: every length form of RFC 6455 arrives whole through Tornado's client, in
    order, also when the client stops reading for a while and the rest waits in the stream."""
    async def body() -> None:
        _hub, _lab, link = await a_student()
        app = tornado.web.Application(channel.routes())
        sock, port = tornado.testing.bind_unused_port()
        server = tornado.httpserver.HTTPServer(app)
        server.add_sockets([sock])
        try:
            ws: Any = await tornado.websocket.websocket_connect(
                f"ws://127.0.0.1:{port}{channel.PATH}?link={link.id}")
            await until(lambda: link.channel is not None)
            cc = link.channel
            assert cc is not None
            # 7-bit, 16-bit and 64-bit lengths, at each boundary
            sizes = [0, 1, 125, 126, 127, 65535, 65536, 300_000]
            payloads = [b"x" * n for n in sizes]
            for p in payloads:
                assert channel.wire(p) is channel.wire(p)  # (once per payload object)
                assert cc.push(p)
            for p in payloads:
                got = await asyncio.wait_for(ws.read_message(), 5)
                assert got == p.decode()
            # a client that does not read: the socket's buffers fill, the rest waits in the
            # stream (IOStream.writing()) and still arrives in order
            big = [bytes([65 + k]) * 2_000_000 for k in range(6)]
            for p in big:
                assert cc.push(p)
            assert cc.ws_connection.stream.writing()  # (the fallback path was taken)
            for p in big:
                got = await asyncio.wait_for(ws.read_message(), 10)
                assert got == p.decode()
            ws.close()
            await until(lambda: link.channel is None)
            assert not cc.push(b"late")  # a closed channel says so
        finally:
            server.stop()

    asyncio.run(body())
