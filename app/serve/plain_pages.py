"""Pages served as plain HTML by Tornado (no Bokeh session): ``/`` and ``/lesson``.

Reading a lesson needs no server round trip, so these pages cost the server one template
render per request (cached per language and options) instead of a Bokeh session; a lecture
hall opening the lesson at once is cheap. Quiz answers and "learned" marks live only in the
student's browser (localStorage, keys ``dplab.*``): nothing about a student reaches the server.
"""

from __future__ import annotations

from typing import Any

import tornado.web


class _Page(tornado.web.RequestHandler):
    render_page: Any = None

    def get(self) -> None:
        args = {k: self.get_query_argument(k) for k in self.request.query_arguments}
        accept = self.request.headers.get("Accept-Language")
        status, body = type(self).render_page(args, accept)
        self.set_status(status)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-cache")
        self.finish(body)


def routes() -> list[tuple[str, type[tornado.web.RequestHandler]]]:
    from app.lesson.index import render as render_index
    from app.lesson.page import render as render_lesson

    index = type("IndexHandler", (_Page,), {"render_page": staticmethod(render_index)})
    lesson = type("LessonHandler", (_Page,), {"render_page": staticmethod(render_lesson)})
    return [(r"/", index), (r"/lesson/?", lesson)]
