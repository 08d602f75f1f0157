"""A query registered in dpcore.queries.REGISTRY is all the lab and the command line need,
besides its texts: each registered query has them in every language, and the sidebar, the card
and ``dplab certify`` take it from the registry."""

from __future__ import annotations

import json

import pytest

from app import cli
from app.lab.card import _sens_formula, card_html
from app.lab.controls import controls_html
from app.lab.state import LabState
from app.shell.i18n import LANGUAGES, catalogue
from dpcore import queries

NAMES = list(queries.REGISTRY)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", NAMES)
def test_every_query_has_its_texts_in_every_language(name: str, lang: str) -> None:
    q = queries.REGISTRY[name]
    cat = catalogue(lang)
    for key in (f"common.query.{name}", f"lab.card.sens_why.{name}", f"common.unit.{q.unit}",
                f"cli.unit.{q.unit}"):
        assert cat.get(key, "").strip(), (key, lang)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", NAMES)
def test_the_lab_offers_and_certifies_every_query(name: str, lang: str) -> None:
    s = LabState()
    assert s.set_query(name) is None and s.query == name
    assert f'<option value="{name}"' in controls_html(LabState(), lang)
    formula = _sens_formula(name, 4, 3.0, lang)
    assert formula.startswith("Δ = ") and formula.endswith(
        catalogue(lang)[f"lab.card.sens_why.{name}"])
    card = card_html(s, s.certification(), lang)
    assert catalogue(lang)[f"common.query.{name}"].split(" (")[0] in card


@pytest.mark.parametrize("name", NAMES)
def test_the_command_line_takes_every_query(name: str, capsys: pytest.CaptureFixture[str]
                                            ) -> None:
    with pytest.raises(SystemExit):
        cli.main(["certify", "--help"])
    assert name in capsys.readouterr().out
    assert cli.main(["certify", "--query", name, "--n", "4", "--B", "1", "--sigma", "1",
                     "--eps", "1", "--delta", "1e-6", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["query"] == name and out["unit"] == queries.REGISTRY[name].unit
