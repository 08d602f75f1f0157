"""dpcore.queries (moved from tests/test_queries_certify_cli.py)."""

from __future__ import annotations

import pytest

from dpcore import queries


# ---- queries ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("q", "want"), [("sum", 2.0), ("mean", 0.5), ("count", 1.0), ("const", 0.0)]
)
def test_global_sensitivity(q, want):
    assert queries.sensitivity(q, 4, 2.0) == want


@pytest.mark.parametrize("q", queries.QUERIES)
def test_worst_pair_attains_the_global_sensitivity(q):
    d, d2 = queries.worst_pair(q, 5, 3.0)
    assert len(d) == len(d2) == 5
    assert sum(a != b for a, b in zip(d, d2, strict=True)) == 1
    diff = abs(queries.value(q, d, 3.0) - queries.value(q, d2, 3.0))
    assert diff == pytest.approx(queries.sensitivity(q, 5, 3.0))


def test_local_difference_never_exceeds_global():
    data = [0.2, 0.9, 0.4, 0.6]
    for q in queries.QUERIES:
        for i in range(4):
            for v in (0.0, 0.3, 0.5, 1.0):
                local = queries.local_difference(q, data, i, v, 1.0)
                assert 0.0 <= local <= queries.sensitivity(q, 4, 1.0) + 1e-15
    assert queries.local_difference("sum", data, 1, 0.0, 1.0) == pytest.approx(0.9)
    assert queries.local_difference("count", data, 1, 0.0, 1.0) == 1.0
    assert queries.local_difference("count", data, 0, 0.4, 1.0) == 0.0


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: queries.sensitivity("median", 4, 1.0), "query"),
        (lambda: queries.sensitivity("sum", 0, 1.0), "n"),
        (lambda: queries.sensitivity("sum", 2.5, 1.0), "n"),
        (lambda: queries.sensitivity("sum", 4, 0.0), "B"),
        (lambda: queries.sensitivity("sum", 4, -1.0), "B"),
        (lambda: queries.neighbour([0.1, 0.2], 0, 1.5, 1.0), "replacement value"),
        (lambda: queries.neighbour([0.1, 0.2], 2, 0.5, 1.0), "record index"),
        (lambda: queries.value("sum", [0.1, 2.0], 1.0), "data"),
        (lambda: queries.value("sum", [], 1.0), "data"),
    ],
)
def test_query_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()
