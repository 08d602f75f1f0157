"""The class's card channel: one frame per worker and room state, the same bytes to every
following student of that worker.

Why: a following lab got each teacher move's card as a Bokeh patch of its own document. Each
patch is made, serialised and written per session (~1.5 ms of a worker's CPU per follower,
benchmarks/real_followers.py, 2026-12-04), so the last of 150 followers on a worker saw the
change ~250 ms after the first: 8.4x the time one follower waits (issue 37 asks <= 2x). The
card of a room state is already one string per process, language and layout
(app/lab/follow.py ``card_of``); here it is also one websocket frame, written as is to each
follower's own plain websocket (Tornado's public ``WebSocketHandler``), a few microseconds each.

- ``/room-card?link=ID`` (:class:`CardChannel`): opened by assets/dplab-room-card.js on a
  student's ``/lab?room=CODE``. ``ID`` is the page's :class:`app.room.link.RoomLink` id, given
  to that page only (it is in no address and no other page); an id this process does not hold
  is closed at once (code 4404) and tells nothing about rooms, so the channel is no door for
  guessing codes. Origins: the ones Bokeh allows for the page's own websocket.
- Two frames per state: ``{"seq": n, "card": html}`` to every follower first, then
  ``{"seq": n, "views": {...}}``: everything a following page shows for a state
  it may show in full (no tour step, nothing concealed): the card's and the text panes' HTML
  by CSS class, each figure's message, the controls' values
  (:meth:`app.shell.follow.Followable.channel_views`, made once per process, language and
  layout by a lab page of no session). The page lays them over its own views while its banner
  says it follows (assets/dplab-room-card.js). The session itself takes the state only when
  it needs it: the student detaches, a tour step comes, the channel closes
  (app/room/link.py); each such application bumps the banner's ``data-synced`` and the page
  drops what it laid over, so it shows its session's own views again.
- Nothing is sent to the server over the channel; a message from the browser closes it.
"""

from __future__ import annotations

import json
import logging
import struct
import weakref
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import tornado.web

from app.shell.plainws import PageSocket
from app.shell.urls import href

if TYPE_CHECKING:
    from app.room.link import RoomLink

log = logging.getLogger("dplab.room")
PATH = "/room-card"
SCRIPT = "dplab-room-card.js"
NOT_HERE = 4404  # close code: no lab with that id in this process
_FRAMES_KEPT = 64

# RoomLink.id -> the link, for the students' labs of this process (weak: a closed session's
# link goes with its page).
_LINKS: weakref.WeakValueDictionary[str, RoomLink] = weakref.WeakValueDictionary()
# (seq, card html) -> the frame's bytes: one encoding per worker, state, language and layout.
_FRAMES: OrderedDict[tuple[int, str], bytes] = OrderedDict()


def register(link: RoomLink) -> None:
    _LINKS[link.id] = link


def unregister(link: RoomLink) -> None:
    if _LINKS.get(link.id) is link:
        del _LINKS[link.id]


def url(link_id: str) -> str:
    """The channel's address for a page (its path; the script makes it a ws:// address)."""
    return href(PATH) + "?link=" + link_id


def frame(seq: int, views: str) -> bytes:
    """The frame for ``views`` (a JSON text) at room sequence ``seq`` (made once: the views of
    one state are one string shared by every follower of the process, and so is this)."""
    key = (seq, views)
    got = _FRAMES.get(key)
    if got is None:
        got = b'{"seq":' + str(int(seq)).encode() + b',"views":' + views.encode() + b"}"
        _FRAMES[key] = got
        while len(_FRAMES) > _FRAMES_KEPT:
            _FRAMES.popitem(last=False)
    return got


def card_frame(seq: int, card: str) -> bytes:
    """The small frame that goes first: ``{"seq": n, "card": html}`` (the card of the state;
    the views' frame follows once every follower of the process has its card)."""
    key = (-1 - seq, card)  # (apart from the views' frames of the same cache)
    got = _FRAMES.get(key)
    if got is None:
        got = json.dumps({"seq": seq, "card": card}, ensure_ascii=False,
                         separators=(",", ":")).encode()
        _FRAMES[key] = got
        while len(_FRAMES) > _FRAMES_KEPT:
            _FRAMES.popitem(last=False)
    return got


class CardChannel(PageSocket):
    """One student's lab: receives its room's cards (see the module docstring)."""

    link: RoomLink | None = None

    def open(self, *args: Any, **kwargs: Any) -> None:
        link = _LINKS.get(self.get_query_argument("link", ""))
        if link is None:
            self.close(NOT_HERE)
            return
        self.link = link
        link.channel = self
        super().open()

    def on_message(self, message: str | bytes) -> None:
        self.close()  # nothing is expected from the browser

    def on_close(self) -> None:
        link, self.link = self.link, None
        if link is not None and link.channel is self:
            link._in_doc(link.channel_closed)

    def push(self, data: bytes) -> bool:
        """Send one frame; False when the socket is gone (the page then gets the card through
        Bokeh).

        The frame's bytes are made once per payload (:func:`wire`) and handed to the socket
        directly when nothing of this connection waits to be written; whatever the socket
        does not take at once goes through the connection's stream, in order (Tornado's
        ``ws_connection.stream``, public attributes of its protocol object; the test of this
        in tests/app/room/test_card_channel.py fails if they change). Tornado's
        ``write_message`` frames the payload anew for each follower and makes a Task and two
        Futures per write: a worker's pass over 155 followers took 16.6 ms of CPU with it and
        12 ms without (benchmarks/README.md, "a room state's card")."""
        conn = self.ws_connection
        if conn is None or conn.is_closing():
            return False
        stream = conn.stream
        if stream is None or stream.closed():
            return False
        frame = wire(data)
        if not stream.writing():
            try:
                sent = stream.socket.send(frame)
            except (BlockingIOError, InterruptedError):
                sent = 0
            except OSError:
                return False  # (the stream notices and closes the connection)
            if sent == len(frame):
                return True
            frame = frame[sent:]
        stream.write(frame).add_done_callback(_retrieve)
        return True


def _retrieve(fut: Any) -> None:
    """A write's outcome is read (a connection closed meanwhile is the stream's business)."""
    if not fut.cancelled():
        fut.exception()


# id(payload) -> (payload, its frame): a payload of _FRAMES is one object per state.
_WIRE: OrderedDict[int, tuple[bytes, bytes]] = OrderedDict()


def wire(payload: bytes) -> bytes:
    """``payload`` (UTF-8 JSON) as one final, unmasked text frame (RFC 6455, section 5.2: what
    Tornado writes for ``write_message(payload)`` without compression), made once per payload
    object."""
    got = _WIRE.get(id(payload))
    if got is not None and got[0] is payload:
        return got[1]
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x81, n)
    elif n <= 0xFFFF:
        head = struct.pack("!BBH", 0x81, 126, n)
    else:
        head = struct.pack("!BBQ", 0x81, 127, n)
    frame = head + payload
    _WIRE[id(payload)] = (payload, frame)
    while len(_WIRE) > _FRAMES_KEPT:
        _WIRE.popitem(last=False)
    return frame


def routes() -> list[tuple[str, type[tornado.web.RequestHandler], Any]]:
    return [(PATH, CardChannel, {})]
