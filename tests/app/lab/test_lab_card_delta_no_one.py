"""The card's δ ≥ 1/n warning (issue 18): a claim this large may pass and protect no one."""

from __future__ import annotations

import re

import pytest

from app.lab import export
from app.lab.card import card_html, delta_no_one
from app.lab.state import LabState
from app.shell.i18n import t
from dpcore import certify


def _state(**kw: object) -> LabState:
    s = LabState()
    s.apply_url({k: str(v) for k, v in kw.items()})
    return s


def _cert(s: LabState) -> certify.Certification:
    return s.certification()


@pytest.mark.parametrize(("n", "delta", "shown"), [
    (4, "0.13", False),      # 0.13 < 1/4
    (4, "0.25", True),       # exactly 1/n: decided from the text, not a rounded double
    (4, "0.5", True),
    (1000, "0.001", True),
    (1000, "0.000999", False),
    (4, "1e-6", False),
    (3, "0.3333333333", False),  # just below 1/3
    (3, "0.3333333334", True),
])
def test_threshold_is_exact(n: int, delta: str, shown: bool) -> None:
    c = certify.certify("mean", n, 1.0, 1.0, 1.0, delta)
    assert (delta_no_one(c) is not None) is shown


def test_fields() -> None:
    c = certify.certify("sum", 4, 1.0, 1.0, 1.0, "0.5")
    assert delta_no_one(c) == {"inv_n": "0.25", "expected": "2"}


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_card_shows_it_beside_a_passing_verdict(lang: str) -> None:
    s = _state(q="sum", n=4, B=1, sigma=1, eps=1, delta="0.5")
    c = _cert(s)
    assert c.passes  # the point: it passes and still protects no one
    page = card_html(s, c, lang)
    box = re.search(r'<p class="dp-verdict-box pass".*?</p>', page, re.S)
    assert box and 'class="dp-delta-no-one"' in box.group(0)
    full = t("lab.card.delta_no_one", lang, inv_n="0.25", expected="2")
    assert full.split(":")[0] in box.group(0)
    assert "0.25" in box.group(0) and "2" in box.group(0)
    # projector view: the short text beside the verdict, the full one as its title
    folded = card_html(s, c, lang, folded=True)
    short = t("lab.card.delta_no_one_short", lang)
    assert "dp-delta-no-one" in folded
    assert short.split(":")[1].strip() in folded


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_absent_for_a_small_delta(lang: str) -> None:
    s = _state(q="sum", n=4, B=1, sigma=1, eps=1, delta="0.13")
    page = card_html(s, _cert(s), lang)
    assert "dp-delta-no-one" not in page
    assert "dp-delta-no-one" not in card_html(s, _cert(s), lang, folded=True)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_markdown_export(lang: str) -> None:
    s = _state(q="mean", n=4, B=1, sigma=1, eps=1, delta="0.5")
    md = export.certification_markdown(s, _cert(s), lang)
    assert t("lab.card.delta_no_one", lang, inv_n="0.25", expected="2") in md
    s2 = _state(q="mean", n=4, B=1, sigma=1, eps=1, delta="1e-6")
    md2 = export.certification_markdown(s2, _cert(s2), lang)
    assert "1/n" not in md2
