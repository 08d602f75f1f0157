"""Panel JavaScript components whose module is plain JavaScript, sent as already compiled.

Panel runs each ``JSComponent``'s module through sucrase's TypeScript transform in the
browser before importing it, unless the module comes as a *bundle*, which it imports as is.
Our modules (``assets/dplab-*.js``) are plain ES modules with no types and no imports, so the
transform gives back the same program; in a CPU profile of /lab's first load in Chromium it
was ~29 ms of the main thread, before any of the page's views could be built. A
:class:`PlainJS` component names its module with a content hash in Panel's ``bundle``
property, which is what tells Panel's JavaScript that the source needs no transform (and
keys the module cache by content rather than by class name and length).
"""

from __future__ import annotations

import hashlib
from typing import Any

import panel as pn


class PlainJS(pn.custom.JSComponent):
    """A ``JSComponent`` whose ``_esm`` is plain JavaScript (no TypeScript, no JSX)."""

    __abstract = True

    def _get_properties(self, doc: Any) -> dict[str, Any]:
        props = super()._get_properties(doc)
        # A real bundle (a file Panel serves) stays as it is; so does Panel's dev mode
        # (--autoreload), which must compile and re-import a module whenever it is edited.
        if props.get("bundle") is None and not props.get("dev"):
            digest = hashlib.sha256(props["esm"].encode()).hexdigest()[:16]
            props["bundle"] = f"dplab-{type(self).__name__}-{digest}"
        return props
