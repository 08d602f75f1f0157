"""State of the /cdf page without a browser: releases, free degree changes, ledger, texts."""

from __future__ import annotations

import numpy as np
import pytest

from app.cdf_page import CDFState, metrics_html, privacy_html, table_html
from app.i18n import LANGUAGES


def test_every_parameter_has_doc_and_bounds_or_objects() -> None:
    s = CDFState()
    for name, p in s.param.objects().items():
        if name == "name":
            continue
        assert p.doc, name
        assert (
            getattr(p, "bounds", None) is not None
            or getattr(p, "objects", None)
            or isinstance(p.default, bool)
        ), name


def test_degree_change_is_free_and_new_release_is_counted() -> None:
    s = CDFState(method="pp", auto_degree=False, degree=3, n=2000)
    first = s.current()
    assert s.ledger().releases == 1 and s.ledger().eps == pytest.approx(1.0)
    for k in (0, 10, 40, 64):
        s.degree = k
        assert s.current().degree == k
        assert s.current().release is first.release  # same noisy coefficients
    assert s.ledger().releases == 1
    s.eps = 0.5  # a new release on the same data: composition
    assert s.ledger().releases == 2
    assert s.ledger().eps == pytest.approx(1.5) and s.ledger().delta == pytest.approx(2e-6)
    s.eps = 1.0  # the same inputs and seeds reproduce the first output: nothing new revealed
    assert s.ledger().releases == 2
    s.noise_seed = 7  # fresh noise: a new release
    assert s.ledger().releases == 3


def test_reference_and_metrics_follow_dataset() -> None:
    s = CDFState(dataset="penguins_mass", method="hq")
    x, bounds, unit = s.data()
    assert bounds == (2000.0, 7000.0) and unit == "g" and x.size == 342
    _, f_priv, f_ref = s.curves()
    assert np.all(np.diff(f_priv) >= 0) and f_priv.min() >= 0 and f_priv.max() <= 1
    assert np.all(np.diff(f_ref) >= 0)
    m = s.metrics()
    assert 0 <= m.ks <= 1 and m.w1 >= 0
    assert s.ledger().delta == 0.0  # hq with Laplace noise is pure


@pytest.mark.parametrize("lang", LANGUAGES)
def test_text_views_show_numbers_with_units(lang: str) -> None:
    s = CDFState(dataset="anes96_age", n=1000)
    m = metrics_html(s, lang)
    assert "dp-cdf-ks" in m and "years" in m
    p = privacy_html(s, lang)
    assert "dp-cdf-total-eps" in p and "dp-cdf-eps" in p
    tab = table_html(s, lang)
    assert tab.count("<tr>") == 6  # header + five rows
    ref_word = {"en": "NOT private", "ko": "보호되지 않음"}[lang]
    assert ref_word in tab
