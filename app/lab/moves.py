"""A lab's own moves by a plain websocket: a slider's release in, the views of the new state out.

Why: through Bokeh, a student's slider move cost ~6.7 ms of a worker's CPU on serve-prod
(benchmarks/classroom_load.py moves, 300 students, 2026-12-07), of which a bare Panel page's
move alone is ~6.2 ms (benchmarks/page_weight.py): the event's decoding, the document's
patches and their serialisation, per move and session. A class of 1,000 students moving every
~3 s needs ≤ 2 ms. The views of a lab state are already made once per process, language and
layout for a room's followers (app/lab/messages.py ``views_json``); a student's own move takes
them too:

- ``/lab-moves?page=ID`` (:class:`MoveChannel`): opened by assets/dplab-lab-controls.js with
  the id that only its page's document holds (``ControlPanel.moves``); an id this process does
  not hold is closed at once (code 4404).
- The browser sends ``{"n": commit, "c": "sigma" | "eps" | "delta", "v": position}`` for a
  slider's release. The page's state takes it quietly (:meth:`app.lab.page.LabPage
  .take_quietly`: no view of the session is made, nothing goes through Bokeh) and the channel
  answers ``{"n": commit, "addr": {...}, "views": {...}}``: the address, and the card, the
  figures' messages and the controls' values as a following page gets them. The page lays
  them over its views until its session next shows something; the session makes the views of
  what it took quietly before it shows anything else (``LabPage.catch_up``), and its values
  carry the last commit taken (``ack``), so an older answer never covers a newer one.
- When the session must answer (a live class, a tour step, a value the state refuses, a text
  still rejected at its field) the channel says ``{"n": commit, "session": true}`` and the
  browser sends the same commit through Bokeh, as before.
- Anything else from the browser closes the channel (1003).
"""

from __future__ import annotations

import json
import logging
import math
import secrets
import weakref
from typing import TYPE_CHECKING, Any

import tornado.web

from app.lab.controls import SLIDERS
from app.lab.messages import views_json
from app.shell.plainws import PageSocket
from app.shell.urls import href

if TYPE_CHECKING:
    from app.lab.page import LabPage

log = logging.getLogger("dplab.lab")
PATH = "/lab-moves"
NOT_HERE = 4404  # close code: no lab with that id in this process
BAD = 1003  # close code: a message that is not a slider's release

# page id -> the lab page (weak: a closed session's page goes).
_PAGES: weakref.WeakValueDictionary[str, LabPage] = weakref.WeakValueDictionary()


def register(page: LabPage) -> str:
    """A new id for ``page``'s channel (it is in that page's document only)."""
    pid = secrets.token_urlsafe(18)
    _PAGES[pid] = page
    return pid


def url(page_id: str) -> str:
    """The channel's address for a page (its path; the script makes it a ws:// address)."""
    return href(PATH) + "?page=" + page_id


def release(msg: Any) -> tuple[int, str, float] | None:
    """``(n, control, position)`` of a slider's release, or None for anything else."""
    if not isinstance(msg, dict) or set(msg) != {"n", "c", "v"}:
        return None
    n, c, v = msg["n"], msg["c"], msg["v"]
    if (not isinstance(n, int) or isinstance(n, bool) or n < 1 or c not in SLIDERS
            or not isinstance(v, int | float) or isinstance(v, bool) or not math.isfinite(v)):
        return None
    return n, c, float(v)


def answer(page: LabPage, n: int, control: str, x: float) -> bytes:
    """What the channel sends for commit ``n`` of ``page`` (see the module docstring)."""
    if not page.take_quietly(control, x, n):
        return b'{"n":' + str(n).encode() + b',"session":true}'
    s = page.state
    views = views_json(s, page.lang, bool(page._large))
    addr = json.dumps(s.url_query(), ensure_ascii=False, separators=(",", ":"))
    return (b'{"n":' + str(n).encode() + b',"addr":' + addr.encode() + b',"views":'
            + views.encode() + b"}")


class MoveChannel(PageSocket):
    """One lab page's moves (see the module docstring)."""

    page: weakref.ref[LabPage] | None = None

    def open(self, *args: Any, **kwargs: Any) -> None:
        page = _PAGES.get(self.get_query_argument("page", ""))
        if page is None:
            self.close(NOT_HERE)
            return
        self.page = weakref.ref(page)
        super().open()

    def on_message(self, message: str | bytes) -> None:
        self.seen()
        page = self.page() if self.page is not None else None
        if page is None:
            self.close(NOT_HERE)
            return
        try:
            got = release(json.loads(message))
        except ValueError:
            got = None
        if got is None:
            self.close(BAD)
            return
        try:
            data = answer(page, *got)
        except Exception:  # (the session answers: the browser sends the commit through Bokeh)
            log.warning("lab: a move by the channel failed", exc_info=True)
            data = b'{"n":' + str(got[0]).encode() + b',"session":true}'
        self.write_message(data)  # (UTF-8 bytes in a text frame: Tornado sends them as they are)


def routes() -> list[tuple[str, type[tornado.web.RequestHandler], Any]]:
    return [(PATH, MoveChannel, {})]
