"""Panel's edit_readonly, touching only the locked parameters (app.serve.panel_patches)."""

from __future__ import annotations

import sys
from typing import Any

import panel as pn
import param
import pytest

from app.serve import panel_patches


def test_it_replaces_panels_function_everywhere() -> None:
    panel_patches.lean_edit_readonly()
    panel_patches.lean_edit_readonly()  # idempotent
    from panel.util import edit_readonly

    assert getattr(edit_readonly, "_dplab_lean", False)
    for name, module in list(sys.modules.items()):
        if name.startswith("panel") and hasattr(module, "edit_readonly"):
            assert getattr(module.edit_readonly, "_dplab_lean", False), name


def flags(thing: param.Parameterized) -> dict[str, tuple[bool, bool]]:
    # class-level parameters and any per-instance copies param made meanwhile
    out = {f"class.{k}": (v.readonly, v.constant) for k, v in type(thing).param.objects().items()}
    out.update({f"inst.{k}": (v.readonly, v.constant)
                for k, v in thing._param__private.params.items()})
    return out


def scenario(edit: Any) -> tuple[dict[str, tuple[bool, bool]], tuple[float, ...]]:
    class Thing(param.Parameterized):
        free = param.Number(default=1.0)
        fixed = param.Number(default=2.0, constant=True)
        shown = param.Number(default=3.0, readonly=True)

    thing = Thing()
    with pytest.raises(TypeError):
        thing.fixed = 5.0
    with edit(thing):
        thing.fixed, thing.shown, thing.free = 5.0, 6.0, 7.0
    with pytest.raises(RuntimeError), edit(thing):  # restored after an error too
        raise RuntimeError("x")
    other = Thing()
    with pytest.raises(TypeError):
        other.shown = 1.0  # (a new object: still read-only)
    return flags(thing), (thing.fixed, thing.shown, thing.free)


def test_the_same_as_panels_own_function() -> None:
    panel_patches.lean_edit_readonly()
    from panel.util import edit_readonly

    lean, panels = scenario(edit_readonly), scenario(edit_readonly._dplab_original)
    assert lean == panels
    assert lean[1] == (5.0, 6.0, 7.0)
    assert lean[0]["class.fixed"] == (False, True) and lean[0]["class.shown"] == (True, True)


def test_a_widget_event_still_updates_a_read_only_value() -> None:
    # What Panel uses it for: a browser event sets a widget's value_throttled (constant).
    panel_patches.lean_edit_readonly()
    slider = pn.widgets.FloatSlider(start=0, end=10, value=1)
    assert slider.param["value_throttled"].constant
    slider._process_events({"value": 4.0, "value_throttled": 4.0})
    assert slider.value == 4.0 and slider.value_throttled == 4.0
    assert slider.param["value_throttled"].constant
