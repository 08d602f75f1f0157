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
"""

from __future__ import annotations

import hashlib
from typing import Any

import panel as pn
from param.parameterized import no_instance_params

# (class, compiled, server) -> the module text Panel made for it; text -> its bundle name
_ESM: dict[tuple[type, Any, bool], str] = {}
_KEYS: dict[str, str] = {}


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
            name = _KEYS.get(esm)
            if name is None:
                digest = hashlib.sha256(esm.encode()).hexdigest()[:16]
                name = _KEYS[esm] = f"dplab-{type(self).__name__}-{digest}"
            props["bundle"] = name
        return props
