"""param's update() reading only the parameters it sets, and Panel's debug log made only when
written (app.serve.panel_patches)."""

from __future__ import annotations

import logging
from typing import Any

import param
import pytest
from param.parameterized import Parameters

from app.serve import panel_patches


def scenario(update: Any) -> list[Any]:
    """What update() does, seen from outside: values, watcher calls, what it returns, its
    context manager's restore, an unknown name."""
    class Thing(param.Parameterized):
        a = param.Number(default=1.0)
        b = param.Number(default=2.0)
        c = param.String(default="x")
        ev = param.Event()

    thing = Thing()
    seen: list[Any] = []
    thing.param.watch(lambda *es: seen.append(sorted((e.name, e.old, e.new) for e in es)),
                      ["a", "b", "c"])
    thing.param.watch(lambda e: seen.append(("event", e.new)), "ev")
    out: list[Any] = [update(thing.param, a=5.0, b=6.0), (thing.a, thing.b, thing.c)]
    out.append(update(thing.param, {"c": "y"}, ev=True))
    with thing.param.update(a=9.0):
        out.append(thing.a)
    out.append((thing.a, thing.b, thing.c))
    with pytest.raises(ValueError, match="'zz' is not a parameter"):
        update(thing.param, zz=1)
    out.append(seen)
    return out


def test_update_does_what_params_own_does() -> None:
    panel_patches.lean_param_update()
    panel_patches.lean_param_update()  # idempotent
    lean = Parameters._update
    assert getattr(lean, "_dplab", False)
    original = lean._dplab_original  # type: ignore[attr-defined]
    ours = scenario(lean)
    assert ours == scenario(original)
    # (and the scenario says something: the old values came back, the watchers ran)
    assert ours[0] == {"a": 1.0, "b": 2.0} and ours[1] == (5.0, 6.0, "x")
    assert ours[3] == 9.0 and ours[4] == (5.0, 6.0, "y")
    assert [("a", 1.0, 5.0), ("b", 2.0, 6.0)] in ours[5] and ("event", True) in ours[5]


def test_update_reads_only_what_it_sets() -> None:
    panel_patches.lean_param_update()
    reads: list[str] = []

    class Many(param.Parameterized):
        a = param.Number(default=0.0)
        b = param.Number(default=0.0)
        c = param.Number(default=0.0)

    many = Many()
    get = Parameters.get_value_generator

    def counting(self_: Any, name: str, *args: Any) -> Any:
        reads.append(name)
        return get(self_, name, *args)

    Parameters.get_value_generator = counting  # type: ignore[method-assign,assignment]
    try:
        many.param.update(b=1.0)
    finally:
        Parameters.get_value_generator = get  # type: ignore[method-assign]
    assert reads == ["b"] and many.b == 1.0


class Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def test_panel_debug_log_is_written_only_when_enabled() -> None:
    import panel as pn

    panel_patches.quiet_panel_debug_log()
    panel_patches.quiet_panel_debug_log()
    from panel.viewable import Viewable

    assert getattr(Viewable._log, "_dplab", False)
    widget = pn.widgets.FloatSlider()
    logger = widget._logger
    handler, level = Collect(), logger.level
    logger.addHandler(handler)
    formatted: list[int] = []

    class Loud:  # formatting it is what the patch saves
        def __repr__(self) -> str:
            formatted.append(1)
            return "loud"

    try:
        logger.setLevel(logging.WARNING)
        widget._log("received events %s", Loud())
        # As Panel sets it up: the logger at DEBUG, its handlers at WARNING (nothing written).
        handler.setLevel(logging.WARNING)
        logger.setLevel(logging.DEBUG)
        saved = [(h, h.level) for h in logging.getLogger("panel").handlers]
        for h, _ in saved:
            h.setLevel(logging.WARNING)
        calls: list[str] = []
        widget._logger.debug = lambda *a, **k: calls.append("debug")  # type: ignore[method-assign]
        try:
            widget._log("received events %s", Loud())
        finally:
            del widget._logger.debug
            for h, lv in saved:
                h.setLevel(lv)
        assert calls == []  # not even handed to logging
        handler.setLevel(logging.NOTSET)
        logger.setLevel(logging.DEBUG)
        widget._log("received events %s", {"value": 2})
        widget._log("odd %s", "thing", level="warning")
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    assert [m.split(" ", 2)[2] for m in handler.messages] == [
        "received events {'value': 2}", "odd thing"]
    assert formatted == []
