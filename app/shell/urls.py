"""Links to our own pages and files behind a URL prefix (``DPLAB_PREFIX``, e.g. ``/course``).

Behind a reverse proxy that serves dplab under ``https://host/course/``, Bokeh and Panel already
prefix their own routes and use relative URLs; links that our pages write themselves must go
through :func:`href` (``href("/lab")`` -> ``/course/lab``). scripts/serve-prod passes the
variable to every worker; ``dplab serve --prefix`` sets it for its process.
"""

from __future__ import annotations

import os


def prefix() -> str:
    """``""`` or ``/name`` (no trailing slash), from ``DPLAB_PREFIX``."""
    p = os.environ.get("DPLAB_PREFIX", "").strip().strip("/")
    return f"/{p}" if p else ""


def href(path: str) -> str:
    """An absolute path on this site, with the prefix: ``href("/assets/dplab.css")``."""
    if not path.startswith("/"):
        raise ValueError(f"href() takes a path from the site root, got {path!r}")
    return prefix() + path
