"""The card's soft note from n·δ ≥ 0.01 (issue 39 §10): the text demands δ ≪ 1/n, so a claim
such as δ = 0.13 at n = 4 (n·δ = 0.52) no longer passes silently; δ ≥ 1/n keeps its stronger
warning, and a small δ shows neither."""

from __future__ import annotations

import re

import pytest

from app.lab import export
from app.lab.card import card_html, delta_large
from app.lab.state import LabState
from app.shell.i18n import t


def _state(**kw: object) -> LabState:
    s = LabState()
    s.apply_url({k: str(v) for k, v in kw.items()})
    return s


def _box(page: str) -> str:
    m = re.search(r'<p class="dp-verdict-box[^"]*".*?</p>', page, re.S)
    assert m
    return m.group(0)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_tour_claim_gets_the_soft_note(lang: str) -> None:
    s = _state(q="sum", n=4, B=1, sigma=1, eps=1, delta="0.13")
    c = s.certification()
    assert c.passes and c.n_delta_level == "large"
    fields = delta_large(c)
    assert fields == {"inv_n": "0.25", "expected": "0.52", "soft": "0.01"}
    box = _box(card_html(s, c, lang))
    assert 'class="dp-delta-large"' in box and "dp-delta-no-one" not in box
    assert t("lab.card.delta_large", lang, **fields) in box.replace("&#x27;", "'")
    folded = _box(card_html(s, c, lang, folded=True))
    assert t("lab.card.delta_large_short", lang, soft="0.01") in folded
    md = export.certification_markdown(s, c, lang)
    assert t("lab.card.delta_large", lang, **fields) in md


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize(("n", "delta", "cls"), [
    (4, "0.5", "dp-delta-no-one"),   # δ ≥ 1/n: the strong warning, not both
    (4, "1e-6", None),               # n δ = 4e-6: nothing
    (4, "0.0025", "dp-delta-large"),  # n δ = 0.01 exactly
])
def test_one_note_at_most(lang: str, n: int, delta: str, cls: str | None) -> None:
    s = _state(q="sum", n=n, B=1, sigma=1, eps=1, delta=delta)
    box = _box(card_html(s, s.certification(), lang))
    found = [c for c in ("dp-delta-no-one", "dp-delta-large") if f'class="{c}"' in box]
    assert found == ([cls] if cls else [])
