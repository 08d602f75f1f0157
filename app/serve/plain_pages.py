"""Pages served as plain HTML by Tornado (no Bokeh session): ``/`` and ``/lesson``.

Reading a lesson needs no server round trip, so these pages cost the server one template
render per request (cached per language and options) instead of a Bokeh session; a lecture
hall opening the lesson at once is cheap. Quiz answers and "learned" marks live only in the
student's browser (localStorage, keys ``dplab.*``): nothing about a student reaches the server.
"""

from __future__ import annotations

from html import escape
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

    head = get  # uptime monitors: the same status and headers; tornado sends no body


class NotFound(tornado.web.RequestHandler):
    """Any address nothing else answers: a page in the reader's language and the site's look,
    with the links back (status 404)."""

    def prepare(self) -> None:
        from app.shell import html as plain
        from app.shell.i18n import t

        args = {k: self.get_query_argument(k) for k in self.request.query_arguments}
        lang, kept, notices = plain.options(args, self.request.headers.get("Accept-Language"))
        title = t("common.notfound.title", lang)
        home = "/" + plain.kept_query(lang, kept)
        body = (f"<h1>{escape(title)}</h1>"
                f"<p>{escape(t('common.notfound.body', lang, path=self.request.path[:200]))}</p>"
                f'<p><a class="dp-btn" href="{escape(home)}">'
                f"{escape(t('common.notfound.back', lang))}</a></p>")
        page = plain.document(lang=lang, kept=kept, notices=notices, path="", title=title,
                              body=body)
        self.set_status(404)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-cache")
        self.finish(page)


def install_not_found(tornado_app: tornado.web.Application) -> None:
    """Answer every address no other route takes with :class:`NotFound` (added last, after
    Bokeh's own routes and the static files)."""
    tornado_app.wildcard_router.add_rules([(r"/.*", NotFound)])


def routes() -> list[tuple[str, type[tornado.web.RequestHandler]]]:
    from app.lesson.index import render as render_index
    from app.lesson.page import render as render_lesson

    index = type("IndexHandler", (_Page,), {"render_page": staticmethod(render_index)})
    lesson = type("LessonHandler", (_Page,), {"render_page": staticmethod(render_lesson)})
    return [(r"/", index), (r"/lesson/?", lesson)]
