"""The live class in the server: the wing ``app/room`` joined to ``/lab``.

- ``/teach``, ``/join`` and the room API are plain Tornado pages (app/room/pages.py).
- A ``/lab`` page request carrying a valid ``dplab_teacher`` cookie marks its session as the
  teacher's: the cookie is checked on the HTTP request itself (:func:`install_teacher_check`)
  and never copied into the Bokeh session token that the page embeds
  (:data:`EXCLUDE_COOKIES`, :data:`EXCLUDE_HEADERS`).
- ``/lab?room=CODE`` gets a :class:`app.room.link.RoomLink` (:func:`lab_link`).
- The teacher token: ``DPLAB_TEACHER_TOKEN``, or one made at start and printed once
  (:func:`announce_token`).
"""

from __future__ import annotations

import contextvars
import sys
from typing import Any

import tornado.web

from app.room import tokens

EXCLUDE_COOKIES = [tokens.COOKIE]
EXCLUDE_HEADERS = ["Cookie"]
_TEACHER: contextvars.ContextVar[bool] = contextvars.ContextVar("dplab_teacher", default=False)


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
                reset = _TEACHER.set(tokens.check_cookie(self.get_cookie(tokens.COOKIE)))
                try:
                    await super().get(*args, **kwargs)
                finally:
                    _TEACHER.reset(reset)

        TeacherAware._dplab_base = getattr(handler, "_dplab_base", handler)
        urls.per_app_patterns[i] = (pattern, TeacherAware, *rest)


def request_is_teacher() -> bool:
    return _TEACHER.get()


def lab_link(args: dict[str, str]) -> Any:
    """The room link of a ``/lab`` session (None without ``room`` in its address)."""
    if "room" not in args:
        return None
    from app.room.link import link_for_session

    return link_for_session(args["room"], teacher=request_is_teacher())


def plain_routes(https: bool = False) -> list[tuple[str, type[tornado.web.RequestHandler], Any]]:
    from app.room.pages import routes

    return routes(https)


def announce_token(address: str, port: int, prefix: str = "") -> None:
    """``dplab serve`` without ``DPLAB_TEACHER_TOKEN``: print the teacher page and the token made
    for this run, once (the token is never part of an address)."""
    token, generated = tokens.teacher_token()
    if not generated:
        return
    host = address if address not in ("0.0.0.0", "::", "") else "localhost"
    print(f"dplab: teacher page: http://{host}:{port}{prefix}/teach\n"
          f"dplab: teacher token for this run: {token}\n"
          f"dplab: (set {tokens.ENV_TOKEN} to choose it; type it into the page, never into "
          "an address)", file=sys.stderr, flush=True)
