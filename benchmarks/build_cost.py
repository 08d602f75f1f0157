"""The server CPU of one page build (issue 38, stage 3), in-process, against a bare Panel page.

A page build as a session's first request makes it, in this process: the page function runs
under Panel's Bokeh application in a new ``Document`` whose stand-in session carries the page's
address (as app/serve/prebuild.py builds a page), then the page's HTML is rendered (Panel's
``server_html_page_for_session``) and the document serialized once (``doc.to_json()``, the
browser's PULL-DOC-REPLY). The process is tuned as ``app.serve.server.serve`` tunes it (Bokeh's
validation and error diagnostics off, the speed patches of app/serve/upstream_patches.py, the
design), so a build costs what it costs in a served page, minus the websocket round trips.

Pages: ``/lab`` (app.lab.page, the plain address from an English browser), the baseline
``bare``: one FloatSlider and one Markdown pane that its release rewrites (benchmarks/
page_weight.py's bare page), and ``template``: our page template (app.shell.template.page,
header, switches and page setup) around one HTML pane in the main area and one in the sidebar,
what any /lab page costs before its own content; all built the same way in the same run.
Builds alternate between the pages in rounds of ``--keep`` (``--warm`` of each first, not
counted); a round's documents are kept until it ends, so the objects a page keeps are counted:

- CPU: ``time.process_time()`` per build, split into build / HTML / pull; median.
- objects: gc-tracked objects alive after a full collection, per page kept (``--keep`` pages
  built one after another, then counted); and the young generation's count added by one build
  with collections held off (``gc.get_count()[0]``: containers made minus those freed by
  reference counting, i.e. what is kept plus the cyclic garbage: what drives the collections).
- models: ``len(doc.models)`` after the build.

    .venv/bin/python benchmarks/build_cost.py
    .venv/bin/python benchmarks/build_cost.py --builds 40 --profile lab   # cProfile, top 40

A script, not a test: it asserts nothing about time.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("BOKEH_RESOURCES", "server")


def bare() -> Any:
    import panel as pn

    s = pn.widgets.FloatSlider(label="x", start=0, end=10, step=0.05, value=1,
                               css_classes=["bare-slider"])
    out = pn.pane.Markdown("x = 1", css_classes=["bare-out"])
    s.param.watch(lambda e: setattr(out, "object", f"x = {e.new:g}"), "value_throttled")
    return pn.Column(s, out)


def template_only() -> Any:
    import panel as pn

    from app.shell import template
    from app.shell.options import request_language

    lang = request_language()
    return template.page(lang=lang, title="dplab", path="/lab", main=[pn.pane.HTML("main")],
                         sidebar=[pn.pane.HTML("sidebar")], option_notice_shown=False)


def tune() -> None:
    """What app.serve.server.serve sets before serving (without its server-only parts)."""
    import panel as pn
    from bokeh.settings import settings

    from app.serve import server, upstream_patches
    from app.shell.template import DESIGN

    pn.extension(design="fast", notifications=False)
    pn.config.design = DESIGN
    pn.config.autoreload = False
    settings.perform_document_validation.set_value(False)
    settings.perform_error_diagnostics.set_value(False)
    for name in server.PROCESS_PATCHES:
        upstream_patches.install(name)
    server._register_early()
    import app.lab.page  # noqa: F401


class Builder:
    """Builds the page at ``path`` (one of ``pages``) as a session's first request does."""

    def __init__(self, pages: dict[str, Callable[[], Any]]) -> None:
        from bokeh.server.contexts import ApplicationContext, BokehServerContext
        from panel.io.application import build_applications
        from tornado.ioloop import IOLoop

        self.apps = build_applications(pages, title="dplab")
        self.contexts = {path: ApplicationContext(app, io_loop=IOLoop.current(), url=path)
                         for path, app in self.apps.items()}
        self.servers = {path: BokehServerContext(ctx) for path, ctx in self.contexts.items()}

    def build(self, path: str, query: dict[str, str], lang: str) -> tuple[Any, list[float]]:
        """(the document, [build, html, pull] CPU seconds)."""
        from urllib.parse import urlencode

        from bokeh.document import Document
        from bokeh.server.contexts import BokehSessionContext, _RequestProxy
        from panel.io.resources import Resources
        from panel.io.server import server_html_page_for_session
        from panel.io.state import set_curdoc
        from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine

        headers = {"Accept-Language": lang, "Host": "127.0.0.1"}
        uri = f"{path}?{urlencode(query)}" if query else path
        request = HTTPServerRequest(start_line=RequestStartLine("GET", uri, "HTTP/1.1"),
                                    headers=HTTPHeaders(headers))
        t0 = time.process_time()
        doc = Document()
        ctx = BokehSessionContext(f"s{id(doc)}", self.servers[path], doc)
        ctx._request = _RequestProxy(request, arguments={k: [v.encode()] for k, v in
                                                         query.items()},
                                     cookies={}, headers=headers)
        doc._session_context = weakref.ref(ctx)
        doc.__dict__["_bench_ctx"] = ctx
        doc.__dict__["_bench_app"] = self.apps[path]
        self.apps[path].initialize_document(doc)
        t1 = time.process_time()

        class Session:  # what the HTML render reads of a ServerSession
            document = doc
            token = "t"
            id = ctx.id

        with set_curdoc(doc):
            server_html_page_for_session(Session(), Resources(mode="server"),  # type: ignore[arg-type]
                                         title=doc.title, token="t", template=doc.template,
                                         template_variables=doc.template_variables)
        t2 = time.process_time()
        doc.to_json()
        t3 = time.process_time()
        return doc, [t1 - t0, t2 - t1, t3 - t2]


def destroy(builder: Builder, docs: list[Any]) -> None:
    """End the pages as Bokeh ends a session nobody uses (app/serve/prebuild.py's discard):
    the document, then the application's session-destroyed hooks."""
    from tornado.ioloop import IOLoop

    for doc in docs:
        ctx = doc.__dict__.pop("_bench_ctx")
        app = doc.__dict__.pop("_bench_app")
        doc.destroy(None)
        IOLoop.current().run_sync(lambda app=app, ctx=ctx: app.on_session_destroyed(ctx))
    docs.clear()
    gc.collect()


def live_objects() -> int:
    gc.collect()
    return len(gc.get_objects())


def made_objects(fn: Callable[[], Any]) -> tuple[Any, int]:
    """``fn()`` and the gc-tracked objects it made (collections held off meanwhile)."""
    gc.collect()
    gc.disable()
    try:
        c0 = gc.get_count()[0]
        out = fn()
        made = gc.get_count()[0] - c0
    finally:
        gc.enable()
    return out, made


PAGES: dict[str, tuple[str, dict[str, str]]] = {
    "lab": ("/lab", {}), "template": ("/template", {}), "bare": ("/bare", {})}
BASELINE = "bare"


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--builds", type=int, default=24, help="measured builds of each page")
    p.add_argument("--warm", type=int, default=4, help="builds of each page first")
    p.add_argument("--keep", type=int, default=6, help="pages kept at once to count objects")
    p.add_argument("--lang", default="en")
    p.add_argument("--query", default="", help="extra /lab query, e.g. size=large&theme=dark")
    p.add_argument("--profile", default="", help="cProfile this page's builds instead")
    p.add_argument("--top", type=int, default=45)
    p.add_argument("--profile-out", default="", help="with --profile: also write the stats here")
    a = p.parse_args()
    from urllib.parse import parse_qsl

    from app.lab.page import create_page

    tune()

    def lab() -> Any:
        return create_page()

    builder = Builder({"/lab": lab, "/template": template_only, "/bare": bare})
    pages = dict(PAGES)
    pages["lab"] = ("/lab", dict(parse_qsl(a.query)))

    def one(name: str) -> tuple[Any, list[float]]:
        path, query = pages[name]
        return builder.build(path, query, a.lang)

    keep: list[Any] = []
    for _ in range(a.warm):
        for name in pages:
            keep.append(one(name)[0])
    destroy(builder, keep)

    if a.profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        for _ in range(a.builds):
            prof.enable()
            doc, _ = one(a.profile)
            prof.disable()
            keep.append(doc)
            if len(keep) >= a.keep:
                destroy(builder, keep)
        if a.profile_out:
            prof.dump_stats(a.profile_out)
        st = pstats.Stats(prof)
        st.sort_stats("cumulative").print_stats(a.top)
        st.sort_stats("tottime").print_stats(a.top)
        return

    cpu: dict[str, list[list[float]]] = {n: [] for n in pages}
    made: dict[str, list[int]] = {n: [] for n in pages}
    models: dict[str, list[int]] = {n: [] for n in pages}
    kept: dict[str, list[float]] = {n: [] for n in pages}
    done = 0
    while done < a.builds:
        for name in pages:
            base = live_objects()
            for _ in range(min(a.keep, a.builds - done)):
                (doc, parts), n_made = made_objects(lambda name=name: one(name))
                cpu[name].append(parts)
                made[name].append(n_made)
                models[name].append(len(doc.models))
                keep.append(doc)
            kept[name].append((live_objects() - base) / len(keep))
            destroy(builder, keep)
        done += min(a.keep, a.builds - done)

    def med(xs: list[float]) -> float:
        return statistics.median(xs)

    def ms(part: int | None) -> Callable[[str], float]:
        return lambda n: 1e3 * med([sum(c) if part is None else c[part] for c in cpu[n]])

    rows: list[tuple[str, Callable[[str], float], str]] = [
        ("server CPU per build, ms (build + HTML + pull)", ms(None), "{:.1f}"),
        ("… page function + server_doc, ms", ms(0), "{:.1f}"),
        ("… HTML render, ms", ms(1), "{:.1f}"),
        ("… first pull (doc.to_json), ms", ms(2), "{:.1f}"),
        ("Python objects kept per page (gc-tracked)", lambda n: med(kept[n]), "{:,.0f}"),
        ("gc-tracked objects added per build (kept + cyclic garbage)",
         lambda n: med([float(x) for x in made[n]]), "{:,.0f}"),
        ("Bokeh models per page (len(doc.models))",
         lambda n: med([float(x) for x in models[n]]), "{:.0f}"),
    ]
    names = list(pages)
    others = [n for n in names if n != BASELINE]
    address = "/lab" + (f"?{a.query}" if a.query else "")
    print(f"build cost ({a.builds} builds of each page, medians; {address} lang={a.lang}; "
          f"baseline: the bare page, same process, same run)")
    print("| figure | " + " | ".join(names) + " | "
          + " | ".join(f"{n}/{BASELINE}" for n in others) + " |")
    print("|---|" + "---:|" * (len(names) + len(others)))
    for label, get, fmt in rows:
        vals = {n: get(n) for n in names}
        cells = [fmt.format(v) for v in vals.values()]
        ratios = [f"{vals[n] / vals[BASELINE]:.2f}×" if vals[BASELINE] else "–" for n in others]
        print(f"| {label} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
