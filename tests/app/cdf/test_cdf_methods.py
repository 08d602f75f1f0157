"""Every CDF method the page lists (dpcore.cdf's ``listed`` entries) has one look on /cdf
(app/cdf/methods.py: colour, dash, texts) and nothing else to add: the choices, the "all
methods" rows and the plots follow the registries."""

from __future__ import annotations

import re

import pytest

from app.cdf import inputs, methods
from app.cdf.state import CDFState
from app.shell import theme
from app.shell.i18n import LANGUAGES, catalogue
from dpcore import cdf
from tests.app.shell.test_theme_contrast import contrast

# Bokeh's dash names, which the figures draw (app/shell/svgplot.py)
DASH_NAMES = {"solid", "dashed", "dotted", "dotdash", "dashdot"}


def test_every_listed_method_has_one_look_and_no_look_is_left_over() -> None:
    assert set(methods.REGISTRY) == set(cdf.METHODS)
    assert inputs.METHODS == cdf.METHODS
    assert inputs.METHOD_CHOICES == (*cdf.METHODS, "all")
    for name, look in methods.REGISTRY.items():
        assert look.name == name
        assert methods.STYLE[name] == (look.colour, look.dash)


def test_each_method_is_told_apart_by_more_than_colour() -> None:
    looks = list(methods.REGISTRY.values())
    assert len({m.dash for m in looks}) == len(looks)
    assert len({m.colour.lower() for m in looks}) == len(looks)
    for m in looks:
        assert m.dash in DASH_NAMES, m
        assert re.fullmatch(r"#[0-9a-fA-F]{6}", m.colour), m
        for pal in theme.PALETTES.values():  # a line: at least 3:1 on either background
            assert contrast(m.colour, pal.background) >= 3.0, (m.name, pal.name)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_method_and_what_it_releases_has_its_texts(lang: str) -> None:
    cat = catalogue(lang)
    for look in methods.REGISTRY.values():
        assert cat.get(look.label_key, "").strip(), (look.label_key, lang)
        assert cat.get(look.short_key, "").strip(), (look.short_key, lang)
    # what a release is made of (app/cdf/views.py shape_text), for every registered method
    kinds = {m.releases for m in cdf.REGISTRY.values() if m.releases is not None}
    for kind in kinds:
        assert cat.get(f"cdf.shape.{kind}", "").strip(), (kind, lang)


def test_release_options_are_the_pages_and_a_copy() -> None:
    assert methods.release_options("pp") == {"degree": "auto"}
    assert methods.release_options("hq") == {}
    assert methods.release_options("tree") == {}  # not on the page
    methods.release_options("pp")["degree"] = 3
    assert methods.REGISTRY["pp"].options == {"degree": "auto"}
    for look in methods.REGISTRY.values():  # each a keyword of its estimator
        assert set(look.options) <= set(cdf.REGISTRY[look.name].options), look.name


def test_the_page_compares_every_registered_method() -> None:
    s = CDFState(n=2000, method="all")
    assert [r.method for r in s.compare()] == list(cdf.METHODS)
    for m in cdf.METHODS:
        s.method = m
        info = s.degree_info()
        assert info.available == (cdf.REGISTRY[m].degree and s.release(m).degree is not None)
