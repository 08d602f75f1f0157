"""Adding a subtree to a live page without Bokeh walking the whole page.

When a layout's children change, Panel freezes the document and Bokeh's
``DocumentModelManager.recompute`` then walks every model reachable from every root to find
what joined and what left (~400 models on /lab, with each model's properties read). When a
:class:`app.shell.widgets.RevealSlot` puts its figure in place, what joins is the figure's
subtree and what leaves is the slot's placeholder box, so the walk can start at the slot:
in a class load's profile (``benchmarks/classroom_load.py open --students 200``, every student
scrolling down) the full walks of the two reveals were ~7 % of the server's CPU.

:func:`grow_from` does that walk for the span of one change. It only adds: a model that left
the graph (the placeholder) stays in the document's map, detached by the next full recompute
Bokeh makes for any other reason, as a model nobody refers to any more. Keeping a superset
is safe (an id that the browser still sends resolves); missing a model that joined is not,
so the walk covers everything under the layout's own Bokeh models.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def _add_only(doc: Any, roots: list[Any]) -> None:
    mgr = doc.models
    known = mgr._models
    for root in roots:
        if root.id not in known:  # the layout left the page meanwhile: Bokeh's own walk
            type(mgr).recompute(mgr)
            return
    for root in roots:
        for model in root.references():
            if model.id in known:
                continue
            known[model.id] = model
            if model.name is not None:
                mgr._models_by_name.add_value(model.name, model)
            model._attach_document(doc)
            mgr._new_models.add(model)


@contextmanager
def grow_from(layout: Any) -> Iterator[None]:
    """While the block runs, a recompute of each document showing ``layout`` (a Panel
    layout) walks from that layout's Bokeh models only, adding what joined under them.

    For a change that adds models under ``layout`` and removes only models nothing else
    refers to (a placeholder); anything else the block does to the graph elsewhere would be
    missed, so keep the block to that one change.
    """
    per_doc: dict[int, tuple[Any, list[Any]]] = {}
    for model, _parent in list(getattr(layout, "_models", {}).values()):
        doc = model.document
        if doc is not None:
            per_doc.setdefault(id(doc), (doc, []))[1].append(model)
    patched = []
    for doc, roots in per_doc.values():
        mgr = doc.models
        if "recompute" in vars(mgr):  # nested: the outer block's walk already covers it
            continue
        mgr.recompute = lambda doc=doc, roots=roots: _add_only(doc, roots)
        patched.append(mgr)
    try:
        yield
    finally:
        for mgr in patched:
            del mgr.recompute
