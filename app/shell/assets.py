"""Where dplab's files are, and how a page names them.

Every style sheet and script of ours is a file in ``assets/`` (never a Python string), loaded
by name: :func:`text` for CSS or JavaScript that goes into a Bokeh model or a streamed
``<style>``, :func:`path` for a component's ``_esm``, :func:`asset_url` for a link the browser
fetches from ``/assets`` (with a content hash, so a long cache lifetime is safe).
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

#: The checkout (or the installed tree): ``app/``, ``assets/``, ``lessons/`` sit side by side.
ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "assets"
#: The message catalogues, one JSON file per page and language.
CATALOGUES = ROOT / "app" / "i18n"


def path(name: str) -> Path:
    """``assets/<name>`` (for a JSComponent's ``_esm``, which Panel reads itself)."""
    return ASSETS / name


@functools.cache  # the files do not change while serving
def text(name: str) -> str:
    """The contents of ``assets/<name>``, exactly as stored (UTF-8)."""
    return (ASSETS / name).read_text(encoding="utf-8")


@functools.cache  # one hash per file and process
def asset_url(name: str) -> str:
    """``/assets/<name>?v=<content hash>``: a versioned name, so a long cache lifetime is safe."""
    p = ASSETS / name
    try:
        digest = hashlib.sha256(p.read_bytes()).hexdigest()[:12]
    except OSError:
        return f"/assets/{name}"
    return f"/assets/{name}?v={digest}"
