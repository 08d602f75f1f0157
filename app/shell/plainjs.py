"""Panel JavaScript components whose module is plain JavaScript, sent as already compiled.

Panel runs each ``JSComponent``'s module through sucrase's TypeScript transform in the
browser before importing it, unless the module comes as a *bundle*, which it imports as is.
Our modules (``assets/dplab-*.js``) are plain ES modules with no types and no imports, so the
transform gives back the same program; in a CPU profile of /lab's first load in Chromium it
was ~29 ms of the main thread, before any of the page's views could be built. A
:class:`PlainJS` component names its module with a content hash in Panel's ``bundle``
property, which is what tells Panel's JavaScript that the source needs no transform (and
keys the module cache by content rather than by class name and length).

The module text is also made once per class: Panel makes it anew for every model it builds
(``ReactiveESM._render_esm``: the file read and ``textwrap.dedent`` over ~20 kB, 1.1-2.6 ms a
component, about 10 ms of a /lab build's 68 ms with its seven components;
benchmarks/build_cost.py). Our modules do not change while serving; Panel's dev mode
(``--autoreload`` or a component's ``_debug``), which re-reads an edited module, is left to
Panel. tests/app/shell/test_plainjs.py checks that the text kept is the text Panel makes.

And a component shares its class's parameter objects instead of copying them (param's
``no_instance_params``): Panel reads every parameter of a component through ``self.param[k]``
when it makes the component's model (``ReactiveESM._get_properties``), which in param makes a
per-instance copy of each of them (~25 per component): ~5 ms of a /lab build's 52
(benchmarks/build_cost.py, 2026-12-06 evening) and ~200 objects kept per page. Only the
parameter objects (bounds, docs, flags) are shared, never the values; none of ours changes
a parameter object at run time.

And a served page names its modules by address instead of carrying their text
(:func:`serve_by_address`, called by the server): a model's ``esm`` is then
``/modules/<Class>-<hash>.js`` with Panel's ``bundle = "url"``, which Panel's JavaScript
imports by that address and keeps one module per address for the page. Before, every model
carried its module in the document a session pulls (Bokeh's websocket messages are not
compressed): ~110 kB of /lab's 261 kB (the four figures' modules each with the 15 kB of shared
helpers), and the same 12 kB once per controls component on /cdf. The address names the
content (a hash of the text), so every worker of a balancer answers it the same and a
browser may keep it for a year (:class:`ModuleHandler`).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import panel as pn
import tornado.web
from param.parameterized import no_instance_params

from app.shell.urls import href

# (class, compiled, server) -> the module text Panel made for it; text -> its bundle name
_ESM: dict[tuple[type, Any, bool], str] = {}
_KEYS: dict[str, str] = {}
# Served pages only (serve_by_address): bundle name -> module text, what /modules/ answers
_BY_NAME: dict[str, str] = {}
_SERVED = False
MODULES_PATH = "/modules/"


class PlainJS(pn.custom.JSComponent):
    """A ``JSComponent`` whose ``_esm`` is plain JavaScript (no TypeScript, no JSX)."""

    __abstract = True

    def __init__(self, **params: Any) -> None:
        # Once per class in effect (param sets up a class's bookkeeping after any class hook
        # of ours would run, so it is done at the first instance); see the module docstring.
        no_instance_params(type(self))
        super().__init__(**params)

    @classmethod
    def _render_esm(cls, compiled: Any = True, server: bool = False) -> str:
        if pn.config.autoreload or getattr(cls, "_debug", False):
            return super()._render_esm(compiled, server=server)
        key = (cls, compiled, server)
        got = _ESM.get(key)
        if got is None:
            got = _ESM[key] = super()._render_esm(compiled, server=server)
        return got

    def _get_properties(self, doc: Any) -> dict[str, Any]:
        props = super()._get_properties(doc)
        # A real bundle (a file Panel serves) stays as it is; so does Panel's dev mode
        # (--autoreload), which must compile and re-import a module whenever it is edited.
        if props.get("bundle") is None and not props.get("dev"):
            esm = props["esm"]
            name = bundle_name(type(self), esm)
            props["bundle"] = name
            if _SERVED:
                _BY_NAME.setdefault(name, esm)
                props["bundle"] = "url"  # Panel's JavaScript imports props["esm"] as an address
                props["esm"] = href(f"{MODULES_PATH}{name}.js")
        return props


def bundle_name(cls: type, esm: str) -> str:
    """``dplab-<the class that defines the module>-<hash of its text>``, made once per text."""
    name = _KEYS.get(esm)
    if name is None:
        digest = hashlib.sha256(esm.encode()).hexdigest()[:16]
        name = _KEYS[esm] = f"dplab-{module_owner(cls).__name__}-{digest}"
    return name


def module_owner(cls: type) -> type:
    """The class whose ``_esm`` ``cls`` uses (a subclass may share its base's module): the
    module's name, the same whichever of them a process makes first."""
    return next(c for c in cls.__mro__ if "_esm" in vars(c))


def components() -> list[type[PlainJS]]:
    """Every concrete :class:`PlainJS` class imported so far."""
    seen: list[type[PlainJS]] = []
    todo = list(PlainJS.__subclasses__())
    while todo:
        cls = todo.pop()
        if not cls.abstract:  # (a base such as app.shell.svgplot.SvgPlot has no module)
            seen.append(cls)
        todo.extend(cls.__subclasses__())
    return seen


def module_text(name: str) -> str | None:
    """The module text of bundle ``name`` (``dplab-<Class>-<hash>``), or None. A worker that
    has not made a model of that class yet finds it among the classes it imported."""
    got = _BY_NAME.get(name)
    if got is None:
        for cls in components():
            if name.startswith(f"dplab-{module_owner(cls).__name__}-"):
                esm = cls._render_esm(True, server=False)
                _BY_NAME.setdefault(bundle_name(cls, esm), esm)
        got = _BY_NAME.get(name)
    return got


class ModuleHandler(tornado.web.RequestHandler):
    """``GET /modules/<name>.js``: a component's module (see the module docstring). The name
    holds a hash of the text, so the answer never changes: cached for a year, immutable."""

    def get(self, name: str) -> None:
        text = module_text(name) if re.fullmatch(r"dplab-\w+-[0-9a-f]{16}", name) else None
        if text is None:
            raise tornado.web.HTTPError(404)
        self.set_header("Content-Type", "text/javascript; charset=utf-8")
        self.set_header("Cache-Control", "public, max-age=31536000, immutable")
        self.finish(text)

    head = get  # the same status and headers; tornado sends no body


def serve_by_address() -> list[tuple[str, type[tornado.web.RequestHandler]]]:
    """From now on, models name their module by address; the route that answers it (for the
    server's ``extra_patterns``, which Bokeh puts behind the URL prefix)."""
    global _SERVED
    _SERVED = True
    return [(MODULES_PATH + r"([\w-]+)\.js", ModuleHandler)]
