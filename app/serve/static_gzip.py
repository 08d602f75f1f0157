"""gzip for dplab's server (``make serve``, ``dplab serve`` and each serve-prod worker).

Tornado's ``compress_response`` compresses every response anew. A cold /lab load fetches
~3.5 MB of Bokeh, Panel and Fast scripts and styles, so when a class opened the page at once,
compressing those same files again for every student took ~27 % of the server's CPU (py-spy,
``benchmarks/classroom_load.py open``). Here a static file (a GET under ``/static/``
or ``/assets/``, or a component's module under ``/modules/``, answered 200 with an ETag) is
compressed once per process and version and then served from memory; everything else is
compressed as Tornado does it. Behind
``scripts/serve-prod`` HAProxy caches these compressed copies (its own compression, libslz at
one fixed level, sent 1.53 MB for a cold /lab instead of 0.96 MB: benchmarks/first_load.py) and
compresses only
what comes uncompressed.
"""

from __future__ import annotations

import gzip
from collections import OrderedDict
from typing import ClassVar

from tornado import httputil
from tornado.web import GZipContentEncoding

STATIC_PREFIXES = ("/static/", "/assets/", "/modules/")  # modules: app/shell/plainjs.py
MAX_ENTRIES = 256  # distinct file versions kept (ours and the bundles: ~40)


class CachedGzip(GZipContentEncoding):
    """Tornado's gzip transform with a per-process cache for static files."""

    _cache: ClassVar[OrderedDict[tuple[str, str], bytes]] = OrderedDict()

    def __init__(self, request: httputil.HTTPServerRequest) -> None:
        super().__init__(request)
        self._static = request.method == "GET" and any(
            p in request.path for p in STATIC_PREFIXES)
        self._path = request.path
        self._key: tuple[str, str] | None = None
        self._parts: list[bytes] = []

    def transform_first_chunk(self, status_code: int, headers: httputil.HTTPHeaders,
                              chunk: bytes, finishing: bool
                              ) -> tuple[int, httputil.HTTPHeaders, bytes]:
        etag = headers.get("Etag")
        ctype = str(headers.get("Content-Type", "")).split(";")[0]
        if not (self._gzipping and self._static and status_code == 200 and etag
                and self._compressible_type(ctype) and "Content-Encoding" not in headers):
            return super().transform_first_chunk(status_code, headers, chunk, finishing)
        headers["Vary"] = (headers["Vary"] + ", Accept-Encoding") if "Vary" in headers \
            else "Accept-Encoding"
        headers["Content-Encoding"] = "gzip"
        self._key = (self._path, str(etag))
        body = self.transform_chunk(chunk, finishing)
        if finishing:
            headers["Content-Length"] = str(len(body))
        elif "Content-Length" in headers:
            del headers["Content-Length"]
        return status_code, headers, body

    def transform_chunk(self, chunk: bytes, finishing: bool) -> bytes:
        if self._key is None:
            return super().transform_chunk(chunk, finishing)
        # The file is read as usual (cheap); its compressed form goes out once it is complete.
        self._parts.append(chunk)
        if not finishing:
            return b""
        cache = type(self)._cache
        body = cache.get(self._key)
        if body is None:
            body = gzip.compress(b"".join(self._parts), compresslevel=self.GZIP_LEVEL)
            cache[self._key] = body
            while len(cache) > MAX_ENTRIES:
                cache.popitem(last=False)
        else:
            cache.move_to_end(self._key)
        self._parts = []
        return body


def install(transforms: list[type]) -> list[type]:
    """``transforms`` with Tornado's gzip transform replaced by :class:`CachedGzip`."""
    return [CachedGzip if t is GZipContentEncoding else t for t in transforms]
