"""app.serve.static_gzip: static files compressed once per process, identical bytes to the file."""

from __future__ import annotations

import gzip
from pathlib import Path

import tornado.web
from tornado.testing import AsyncHTTPTestCase

from app.serve import static_gzip

ASSETS = Path(__file__).resolve().parents[3] / "assets"


class Page(tornado.web.RequestHandler):
    def get(self) -> None:
        self.set_header("Content-Type", "text/html")
        self.write("<p>" + "dplab " * 500 + "</p>")


class CachedGzipTest(AsyncHTTPTestCase):
    def get_app(self) -> tornado.web.Application:
        app = tornado.web.Application(
            [(r"/assets/(.*)", tornado.web.StaticFileHandler, {"path": str(ASSETS)}),
             (r"/page", Page)], compress_response=True)
        app.transforms = static_gzip.install(app.transforms)
        return app

    def setUp(self) -> None:
        super().setUp()
        static_gzip.CachedGzip._cache.clear()

    def fetch_gz(self, path: str, **kw: object) -> tornado.httpclient.HTTPResponse:
        return self.fetch(path, headers={"Accept-Encoding": "gzip"}, decompress_response=False,
                          **kw)

    def test_static_file_compressed_once_and_identical(self) -> None:
        assert static_gzip.CachedGzip in self._app.transforms
        original = (ASSETS / "dplab.css").read_bytes()
        first = self.fetch_gz("/assets/dplab.css")
        assert first.code == 200 and first.headers["Content-Encoding"] == "gzip"
        assert "Accept-Encoding" in first.headers["Vary"]
        assert gzip.decompress(first.body) == original
        assert len(first.body) < len(original)
        key = next(iter(static_gzip.CachedGzip._cache))
        assert key[0] == "/assets/dplab.css"
        # Second request: the same bytes, from the cache (poison the entry to prove it).
        static_gzip.CachedGzip._cache[key] = gzip.compress(b"from the cache")
        second = self.fetch_gz("/assets/dplab.css")
        assert gzip.decompress(second.body) == b"from the cache"

    def test_without_accept_encoding_the_file_is_plain(self) -> None:
        plain = self.fetch("/assets/dplab.css", decompress_response=False)
        assert "Content-Encoding" not in plain.headers
        assert plain.body == (ASSETS / "dplab.css").read_bytes()
        assert not static_gzip.CachedGzip._cache

    def test_pages_are_compressed_per_response_not_cached(self) -> None:
        r = self.fetch_gz("/page")
        assert r.headers["Content-Encoding"] == "gzip"
        assert gzip.decompress(r.body).startswith(b"<p>dplab")
        assert not static_gzip.CachedGzip._cache

    def test_not_modified_and_head_have_no_compressed_body(self) -> None:
        etag = self.fetch_gz("/assets/dplab.css").headers["Etag"]
        r = self.fetch("/assets/dplab.css", headers={"Accept-Encoding": "gzip",
                                                     "If-None-Match": etag})
        assert r.code == 304 and r.body == b""
        head = self.fetch("/assets/dplab.css", method="HEAD",
                          headers={"Accept-Encoding": "gzip"})
        assert head.code == 200 and head.body == b""

    def test_cache_is_bounded(self) -> None:
        cache = static_gzip.CachedGzip._cache
        for i in range(static_gzip.MAX_ENTRIES + 5):
            cache[(f"/assets/x{i}", "e")] = b""
        self.fetch_gz("/assets/dplab.css")
        assert len(cache) == static_gzip.MAX_ENTRIES
        assert ("/assets/x0", "e") not in cache
