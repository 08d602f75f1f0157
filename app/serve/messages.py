"""Bokeh protocol messages at a cost that does not grow with the page's model count.

Bokeh makes each ``PATCH-DOC`` (every card or figure update sent to a browser) with a
``Serializer`` that first builds a set of all the document's synced models and then a
``Ref`` for each of them, although a message refers to a handful; with ~200 models per /lab
page that was ~13 % of the server's CPU per slider move (py-spy under
``benchmarks/classroom_load.py moves``; benchmarks/README.md). :func:`install` makes the
document's synced models a membership view, consulted only for the objects a message really
encodes. Same messages, same references: a model that the browser already has is sent as its
reference, any other one in full, exactly as before.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

_INSTALLED: list[bool] = []
_MODEL: Any = ()  # bokeh.model.Model once installed (isinstance(x, ()) is False)


class SyncedModels:
    """The models of a document that its browser already has (what Bokeh's
    ``DocumentModelManager.synced_references`` lists), looked up one at a time."""

    __slots__ = ("_manager",)

    def __init__(self, manager: Any) -> None:
        self._manager = manager

    def __contains__(self, obj: object) -> bool:
        m = self._manager
        return (isinstance(obj, _MODEL) and m._models.get(obj.id) is obj
                and obj not in m._new_models)

    def snapshot(self) -> set[Any]:
        m = self._manager
        return {model for model in m._models.values() if model not in m._new_models}

    def __iter__(self) -> Iterator[Any]:
        return iter(self.snapshot())

    def __len__(self) -> int:
        return len(self.snapshot())


def install() -> None:
    """Patch Bokeh's ``synced_references`` and ``Serializer`` (idempotent)."""
    global _MODEL
    if _INSTALLED:
        return
    from bokeh.core.serialization import Ref, Serializer
    from bokeh.document.models import DocumentModelManager
    from bokeh.model import Model

    _MODEL = Model
    DocumentModelManager.synced_references = property(
        lambda self: SyncedModels(self))
    init = Serializer.__init__

    def serializer_init(self: Any, *, references: Any = frozenset(), deferred: bool = True,
                        check_circular: bool = False) -> None:
        synced = references if isinstance(references, SyncedModels) else None
        init(self, references=() if synced is not None else references, deferred=deferred,
             check_circular=check_circular)
        self._dplab_synced = synced

    def get_ref(self: Any, obj: Any) -> Ref | None:
        ref: Ref | None = self._references.get(id(obj))
        if ref is None and self._dplab_synced is not None and obj in self._dplab_synced:
            ref = self._references[id(obj)] = obj.ref
        return ref

    def has_ref(self: Any, obj: Any) -> bool:
        return get_ref(self, obj) is not None

    def add_ref(self: Any, obj: Any, ref: Ref) -> None:
        assert not has_ref(self, obj)
        self._references[id(obj)] = ref

    Serializer.__init__ = serializer_init
    Serializer.get_ref = get_ref
    Serializer.has_ref = has_ref
    Serializer.add_ref = add_ref
    _INSTALLED.append(True)
