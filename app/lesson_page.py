"""/lesson (Gaussian) and /lesson?topic=cdf: plain HTML rendered from lessons/*.toml."""

from __future__ import annotations

from collections.abc import Mapping

from app.html_shell import document, options


def render(args: Mapping[str, str], accept_language: str | None) -> tuple[int, str]:
    lang, kept, notices = options(args, accept_language)
    return 200, document(lang=lang, kept=kept, notices=notices, path="/lesson", title="lesson",
                         body="<p>…</p>")
