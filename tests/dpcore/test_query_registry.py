"""The queries are registered once (dpcore.queries.REGISTRY): every entry's rule agrees with its
own value function, so a new query is one entry (its texts: tests/app/lab/test_lab_query_texts.py).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dpcore import queries
from dpcore.errors import DPError

NAMES = list(queries.REGISTRY)


def test_the_public_names_are_read_from_the_registry() -> None:
    assert queries.QUERIES == tuple(queries.REGISTRY) == ("sum", "mean", "count", "const")
    for name, q in queries.REGISTRY.items():
        assert q.name == name
        assert queries.lookup(name) is q
        assert queries.check_query(name) == name
        assert queries.unit_key(name) == q.unit != ""


def test_an_unregistered_query_is_refused_naming_every_registered_one() -> None:
    with pytest.raises(DPError) as exc:
        queries.lookup("median")
    assert exc.value.fields["choices"] == ", ".join(queries.REGISTRY)
    with pytest.raises(TypeError):  # the registry itself is read-only
        queries.REGISTRY["median"] = queries.REGISTRY["sum"]  # type: ignore[index]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(("n", "B"), [(1, 1.0), (4, 1.0), (7, 2.5), (50, 0.3)])
def test_the_rule_is_attained_by_the_worst_pair(name: str, n: int, B: float) -> None:
    d, d2 = queries.worst_pair(name, n, B)
    diff = abs(queries.value(name, d, B) - queries.value(name, d2, B))
    assert diff == pytest.approx(queries.sensitivity(name, n, B), rel=1e-12, abs=0.0)


@pytest.mark.parametrize("name", NAMES)
def test_no_neighbour_moves_the_value_more_than_the_rule(name: str) -> None:
    rng = np.random.default_rng(38)
    for _ in range(200):
        n = int(rng.integers(1, 12))
        B = float(rng.uniform(0.1, 5.0))
        data = [float(x) for x in rng.uniform(0.0, B, n)]
        i, v = int(rng.integers(0, n)), float(rng.uniform(0.0, B))
        local = queries.local_difference(name, data, i, v, B)
        assert local <= queries.sensitivity(name, n, B) * (1 + 1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_the_formula_the_lab_shows_is_the_rule(name: str) -> None:
    # B and n whole, so the filled formula ("3 / 4") is a fraction Python reads
    formula = queries.REGISTRY[name].formula
    for n, B in ((4, 3), (1, 1), (9, 12)):
        shown = formula.format(B=B, n=n).replace(" ", "")
        assert Fraction(shown) == queries.sensitivity_exact(name, n, float(B)), (formula, n, B)
