"""ButtonColumn: one component for a column of buttons; a click names its item's key."""

from __future__ import annotations

from app.lab.page import LabPage
from app.lab.state import PRESETS, LabState
from app.shell.widgets import ButtonColumn


def test_a_click_calls_back_with_its_key_and_only_a_known_one() -> None:
    keys: list[str] = []
    col = ButtonColumn(on_click=keys.append, items=[{"key": "a", "label": "A", "cls": "x-a"},
                                                    {"key": "b", "label": "B", "cls": "x-b"}])
    col._handle_msg({"key": "b"})
    col._handle_msg({"key": "zzz"})  # not a button of this column: ignored
    col._handle_msg("b")  # not a message of the component's shape
    assert keys == ["b"]


def test_the_lab_presets_are_one_component_that_loads_a_preset() -> None:
    lab = LabPage(LabState(), "en")
    side = lab.sidebar()[0]
    assert sum(isinstance(o, ButtonColumn) for o in side.objects) == 1
    assert [i["cls"] for i in lab.presets.items] == [f"dp-preset-{p.key}" for p in PRESETS]
    target = PRESETS[3]
    lab.presets._handle_msg({"key": target.key})
    assert lab.state.sigma == target.sigma and lab.state.query == target.query
    assert f'dp-sigma">{target.sigma:g}<' in lab.card.object
