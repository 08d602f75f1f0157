"""The CDF methods are registered once (dpcore.cdf.REGISTRY): every entry's fields are true of
its estimator, so a new method is its estimator and one entry (its look on /cdf:
tests/app/cdf/test_cdf_methods.py)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from dpcore import cdf
from dpcore.cdf import experiments
from dpcore.cdf.registry import Method

NAMES = list(cdf.REGISTRY)
X = np.random.default_rng([38, 1]).beta(2.0, 5.0, 2000)
X_LATTICE = np.round(np.random.default_rng([38, 2]).uniform(0.0, 20.0, 2000))


def _run(m: Method, x: np.ndarray = X, **kw: object) -> cdf.CDFEstimate:
    bounds = (0.0, 20.0) if x is X_LATTICE else (0.0, 1.0)
    return cdf.estimate(x, bounds=bounds, eps=1.0, delta=1e-6, method=m.name,
                        rng=np.random.default_rng([38, 3]), **kw)


def test_the_public_names_are_read_from_the_registry() -> None:
    assert cdf.ALL_METHODS == tuple(cdf.REGISTRY)
    assert cdf.METHODS == tuple(m.name for m in cdf.REGISTRY.values() if m.listed)
    assert cdf.METHODS == ("auto", "pp", "mp", "hq", "aq")  # the page's order
    assert cdf.ALL_METHODS[:len(cdf.METHODS)] == cdf.METHODS
    for name, m in cdf.REGISTRY.items():
        assert m.name == name and cdf.get_method(name) is m


def test_an_unregistered_method_is_refused_naming_every_one() -> None:
    with pytest.raises(ValueError, match="method must be one of") as exc:
        cdf.estimate(X, bounds=(0, 1), eps=1, delta=1e-6, method="kde")
    assert all(repr(name) in str(exc.value) for name in cdf.REGISTRY)
    with pytest.raises(TypeError):  # the registry itself is read-only
        cdf.REGISTRY["kde"] = cdf.REGISTRY["pp"]  # type: ignore[index]


@pytest.mark.parametrize("name", NAMES)
def test_the_options_are_the_estimators_keywords(name: str) -> None:
    m = cdf.REGISTRY[name]
    params = inspect.signature(m.estimate).parameters
    for required in ("bounds", "eps", "delta", "rng"):
        assert params[required].kind is inspect.Parameter.KEYWORD_ONLY, required
    assert set(m.defaults) == set(m.options)
    for option, default in m.defaults.items():
        assert params[option].kind is inspect.Parameter.KEYWORD_ONLY
        assert default is not inspect.Parameter.empty, option
    # the defaults given explicitly are the defaults: the same release
    a, b = _run(m), _run(m, **m.defaults)
    np.testing.assert_array_equal(a.grid_f, b.grid_f)
    bad = "no_such_option"
    with pytest.raises(ValueError, match="allowed options"):
        _run(m, **{bad: 1})


@pytest.mark.parametrize("name", NAMES)
def test_each_release_is_what_the_entry_says(name: str) -> None:
    m = cdf.REGISTRY[name]
    est = _run(m)
    assert est.method == name
    assert est.eps == 1.0
    if m.guarantee == "pure":
        assert est.delta == 0.0
    elif m.guarantee == "approx":
        assert 0.0 < est.delta <= 1e-6
    else:
        assert m.guarantee == "chosen" and 0.0 <= est.delta <= 1e-6
    plan = est.info.get("plan")
    if m.automatic:
        assert m.releases is None and plan is not None and callable(getattr(cdf, m.rule))
    else:
        assert m.releases is not None and plan is None
    if not m.degree:
        assert est.degree is None


@pytest.mark.parametrize("name", NAMES)
def test_every_method_takes_a_public_lattice(name: str) -> None:
    m = cdf.REGISTRY[name]
    est = _run(m, X_LATTICE, granularity=1.0)
    assert est.method == name and est.info["granularity"] == 1.0
    # a step CDF on 0, 1, ..., 20: flat between lattice points
    mid = np.arange(20) + 0.5
    np.testing.assert_array_equal(est(mid), est(np.arange(20.0)))
    if not m.degree:
        assert est.degree is None


def test_the_experiments_run_registered_methods_with_their_options() -> None:
    for label, (name, opts) in experiments.METHODS.items():
        assert name in cdf.REGISTRY, label
        assert set(opts) <= set(cdf.REGISTRY[name].options), label
