"""The live class in the server: the wing ``app/room`` joined to ``/lab``.

- ``/teach``, ``/join`` and the room API are plain Tornado pages (app/room/pages.py).
- A ``/lab`` page request carrying a valid ``dplab_teacher`` cookie marks its session as the
  teacher's: the cookie is checked on the HTTP request itself (:func:`install_teacher_check`)
  and never copied into the Bokeh session token that the page embeds
  (:data:`EXCLUDE_COOKIES`, :data:`EXCLUDE_HEADERS`).
- ``/lab?room=CODE`` gets a :class:`app.room.link.RoomLink` (:func:`lab_link`).
- The card streamed before that page is built shows the room's state, read from the store
  (:func:`first_paint_args`); the page is then built with the same state (no default card in
  between).
- The teacher token: ``DPLAB_TEACHER_TOKEN``, or one made at start and printed once
  (:func:`announce_token`).
"""

from __future__ import annotations

import asyncio
import contextvars
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import tornado.web

from app.room import tokens

if TYPE_CHECKING:
    from app.room.state import RoomState

EXCLUDE_COOKIES = [tokens.COOKIE, "dplab_student", "dplab_client"]
EXCLUDE_HEADERS = ["Cookie"]
_TEACHER: contextvars.ContextVar[bool] = contextvars.ContextVar("dplab_teacher", default=False)
# the student id of this /lab?room=CODE request (app/room/roster.py), None: cannot answer
_STUDENT: contextvars.ContextVar[str | None] = contextvars.ContextVar("dplab_student",
                                                                     default=None)
# (code, state message) the first card of this request was made from (None: not read)
_ROOM_STATE: contextvars.ContextVar[tuple[str, RoomState] | None] = \
    contextvars.ContextVar("dplab_room_state", default=None)
# Address names a following lab keeps from its own address (the rest is the room's state).
_OWN = ("lang", "size", "theme", "room")
STATE_READ_S = 1.0  # a store slower than this: the first card is the lab's own


def install_teacher_check() -> None:
    """Wrap Bokeh's page handler: while a page is built for a request with a valid teacher
    cookie, :func:`request_is_teacher` is true (a context variable of that request's task)."""
    from bokeh.server import urls

    for i, (pattern, handler, *rest) in enumerate(urls.per_app_patterns):
        if pattern != r"/?" or getattr(handler, "_dplab_teacher", False):
            continue

        class TeacherAware(handler):  # type: ignore[misc, valid-type]
            _dplab_teacher = True

            async def get(self, *args: Any, **kwargs: Any) -> None:
                teacher = tokens.check_cookie(self.get_cookie(tokens.COOKIE))
                student: str | None = None
                room = self.get_query_argument("room", None)
                if room is not None and not teacher:
                    admitted = await admit_student(self, room)
                    if admitted is False:
                        return  # 429 sent
                    student = admitted if isinstance(admitted, str) and admitted else None
                reset = _TEACHER.set(teacher)
                reset_student = _STUDENT.set(student)
                try:
                    await super().get(*args, **kwargs)
                finally:
                    _TEACHER.reset(reset)
                    _STUDENT.reset(reset_student)

        TeacherAware._dplab_base = getattr(handler, "_dplab_base", handler)
        urls.per_app_patterns[i] = (pattern, TeacherAware, *rest)


def request_is_teacher() -> bool:
    return _TEACHER.get()


async def admit_student(handler: Any, room: str) -> str | bool:
    """A student's ``/lab?room=CODE`` request: their student id in the room ("" when the room
    does not exist, is locked to newcomers, or the store does not answer; a new credential is
    set on the answer when needed), or False once a 429 was sent (a code guesser: the same code
    guard as ``/join``, app/room/guard.py)."""
    from app.room import codes, guard, roster
    from app.room.hub import get_hub
    from app.room.store import StoreDown
    from app.shell.i18n import pick_language, t
    from app.shell.urls import href

    code = codes.normalise(room)
    if code is None:
        return ""  # not a code: nothing is looked up, the lab says there is no such room
    https = handler.request.protocol == "https"
    client, address = guard.requester(handler, https)
    wait = guard.GUARD.blocked(client, address)
    if wait > 0:
        lang = pick_language(handler.get_query_argument("lang", None),
                             handler.request.headers.get("Accept-Language"))
        handler.set_status(429)
        handler.set_header("Retry-After", str(int(wait) + 1))
        handler.set_header("Content-Type", "text/plain; charset=utf-8")
        handler.finish(t("room.join.too_many", lang, seconds=int(wait) + 1))
        return False
    store = get_hub().store
    try:
        if not await asyncio.wait_for(store.exists(code), STATE_READ_S):
            guard.GUARD.miss(client, address)
            return ""
        cookie = handler.get_cookie(roster.COOKIE)
        sid = roster.student_of(cookie, code)
        if sid is None:
            if await roster.is_locked(store, code):
                return ""
            sid, cred = roster.make_credential(code)
            handler.set_cookie(roster.COOKIE, roster.with_credential(cookie, code, cred),
                               path=href("/") or "/", httponly=True, samesite="Lax",
                               secure=https, expires_days=roster.LIFETIME_S / 86400)
        await roster.register(store, code, sid)
        return sid
    except (StoreDown, TimeoutError):
        return ""


def lab_link(args: dict[str, str]) -> Any:
    """The room link of a ``/lab`` session (None without ``room`` in its address)."""
    if "room" not in args:
        return None
    from app.room import codes
    from app.room.link import link_for_session

    read = _ROOM_STATE.get()
    known = read[1] if read is not None and read[0] == codes.normalise(args["room"]) else None
    return link_for_session(args["room"], teacher=request_is_teacher(), known=known,
                            student=_STUDENT.get())


async def first_paint_args(args: Mapping[str, str]) -> dict[str, str]:
    """The address the first card of ``/lab?room=CODE`` is made from: the page options of the
    request's own address and the room's lab state (read from the store; kept for the page
    build). A tour step in the room's state adds ``tour`` (its card is not sent early). The
    address as given when there is no such room, or the store does not answer in time."""
    from app.room import codes
    from app.room.hub import get_hub
    from app.room.store import StoreDown

    code = codes.normalise(args.get("room"))
    if not code or args.get("follow") == "own":  # reloaded exploring on their own: their card
        return dict(args)
    try:
        msg = await asyncio.wait_for(get_hub().room_state(code), STATE_READ_S)
    except (StoreDown, TimeoutError):
        return dict(args)
    if msg is None:
        return dict(args)
    _ROOM_STATE.set((code, msg))
    snap = msg.snap
    out = {k: v for k, v in args.items() if k in _OWN}
    lab = snap.get("lab") or {}
    out.update({str(k): str(v) for k, v in lab.items() if str(k) not in _OWN})
    if int(snap.get("tour") or 0):
        out["tour"] = str(int(snap["tour"]))
    return out


def plain_routes(https: bool = False) -> list[tuple[str, type[tornado.web.RequestHandler], Any]]:
    from app.room.pages import routes

    return routes(https)


def announce_token(address: str, port: int, prefix: str = "") -> None:
    """``dplab serve`` without ``DPLAB_TEACHER_TOKEN``: print the teacher page and the token made
    for this run, once (the token is never part of an address)."""
    token, generated = tokens.teacher_token()
    weak = tokens.weak_token_warning()
    if weak:
        print(weak, file=sys.stderr, flush=True)
    if not generated:
        return
    host = address if address not in ("0.0.0.0", "::", "") else "localhost"
    print(f"dplab: teacher page: http://{host}:{port}{prefix}/teach\n"
          f"dplab: teacher token for this run: {token}\n"
          f"dplab: (set {tokens.ENV_TOKEN} to choose it; type it into the page, never into "
          "an address)", file=sys.stderr, flush=True)
