"""The plain HTML pages (/ and /lesson): language, kept options, notices, URL prefix."""

from __future__ import annotations

import re

import pytest

from app.lesson import index as index_page
from app.lesson import page as lesson_page


@pytest.mark.parametrize("render", [index_page.render, lesson_page.render])
def test_language_and_options_are_kept_in_links(render: object) -> None:
    status, page = render({"lang": "en", "size": "large", "theme": "dark"}, None)  # type: ignore[operator]
    assert status == 200
    assert '<html lang="en" class="dp-plain dp-large dp-dark">' in page
    assert '<meta name="viewport"' in page
    # The page links (header navigation and the page body); the size switch itself changes size.
    parts = re.findall(r"<nav .*?</nav>|<main .*?</main>", page, flags=re.S)
    nav = re.findall(r'href="(/(?:lab|cdf|lesson)[^"]*)"', "".join(parts))
    assert nav and all("lang=en" in h and "size=large" in h and "theme=dark" in h
                       for h in nav), nav


@pytest.mark.parametrize("render", [index_page.render, lesson_page.render])
def test_bad_options_fall_back_with_a_notice(render: object) -> None:
    status, page = render({"lang": "xx", "theme": "Dark", "size": "huge"},  # type: ignore[operator]
                          "en-US,en;q=0.9")
    assert status == 200
    assert '<html lang="en" class="dp-plain">' in page  # Accept-Language after a bad ?lang
    assert 'class="dp-notice" role="alert"' in page
    for bad in ("xx", "Dark", "huge"):
        assert f"“{bad}”" in page
    assert "Traceback" not in page


def test_korean_is_the_default() -> None:
    _, page = index_page.render({}, None)
    assert '<html lang="ko"' in page


def test_every_site_link_carries_the_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPLAB_PREFIX", "/course")
    for render, args in ((index_page.render, {"lang": "ko"}),
                         (lesson_page.render, {"lang": "en", "topic": "cdf"})):
        _, page = render(args, None)
        paths = re.findall(r'\s(?:href|src)="(/[^"]*)"', page)
        assert paths
        assert all(p.startswith("/course/") for p in paths), [p for p in paths
                                                               if not p.startswith("/course/")]
