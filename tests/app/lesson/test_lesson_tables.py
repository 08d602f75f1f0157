"""A lesson table wider than a phone scrolls in its own focusable box, never the whole page
(the CDF lesson's tables reach 600-770 px at 390 px), and each box has a name of its own."""

from __future__ import annotations

import re

import pytest

import lessons
from app.lesson import page as lesson_page


@pytest.mark.parametrize("lang", lessons.LANGS)
@pytest.mark.parametrize("topic", lessons.LESSONS)
def test_every_table_scrolls_in_a_named_region(topic: str, lang: str) -> None:
    status, html = lesson_page.render({"topic": topic, "lang": lang}, None)
    assert status == 200
    tables = html.count("<table>")
    wraps = re.findall(r'<div class="dp-table-wrap" role="region" tabindex="0" '
                       r'aria-label="([^"]+)"><table>', html)
    assert tables >= 1 and len(wraps) == tables
    assert len(set(wraps)) == len(wraps)  # landmarks need unique names (axe)
    assert html.count("</table></div>") == tables
