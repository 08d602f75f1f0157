"""dpcore's n·δ level (issue 39 §10): decided exactly from the claim's text, never a verdict."""

from __future__ import annotations

import pytest

from dpcore import certify


@pytest.mark.parametrize(("n", "delta", "level"), [
    (4, "0.13", "large"),         # the tour's first step: n δ = 0.52
    (4, "0.0025", "large"),       # n δ = 0.01 exactly: from 0.01 on
    (4, "0.0024999", "small"),
    (4, "0.25", "no_one"),        # δ = 1/n exactly
    (4, "0.2499999999", "large"),
    (3, "0.3333333334", "no_one"),
    (10**30, "1e-400", "small"),  # far below the double range, still exact
    (4, "0", "small"),
    (4, "1e-6", "small"),
])
def test_level_is_exact(n: int, delta: str, level: str) -> None:
    c = certify.certify("mean", n, 1.0, 1.0, 1.0, delta)
    assert c.n_delta_level == level
    assert certify.n_delta_level(n, certify.Claim.parse(delta)) == level
    assert c.as_dict()["n_delta_level"] == level


def test_level_never_changes_the_verdict() -> None:
    a = certify.certify("sum", 4, 1.0, 1.0, 1.0, "0.13")
    b = certify.certify("sum", 400, 1.0, 1.0, 1.0, "0.13")  # same Δ = 1, n δ = 52
    assert a.passes and b.passes and a.required_delta == b.required_delta
    assert (a.n_delta_level, b.n_delta_level) == ("large", "no_one")
    assert certify.N_DELTA_LEVELS == ("small", "large", "no_one")
    assert str(certify.N_DELTA_SOFT) == "0.01"
