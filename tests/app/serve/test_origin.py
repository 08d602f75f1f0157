"""app.serve.origin without a browser: which page requests predict a refused websocket, the
alerts in both languages, where they go in a page, and the check the page's script asks. In a
browser, through a Host-replacing proxy: tests/ui/test_origin_alert_ui.py."""

from __future__ import annotations

import json
from typing import Any

import pytest
import tornado.web
from tornado.testing import AsyncHTTPTestCase

from app.serve import origin, stream
from app.shell.i18n import t

ALLOWLIST = {"course.example.org:80", "127.0.0.1:5006", "localhost:5006"}


class _App:
    websocket_origins = ALLOWLIST


def _refused(headers: dict[str, str], browser: str | None = None) -> str | None:
    return origin.refused_host(_App(), headers, browser)


def test_allowed_uses_bokehs_matching() -> None:
    assert origin.allowed(_App(), "course.example.org")  # no port: :80
    assert origin.allowed(_App(), "Course.Example.org:80")
    assert not origin.allowed(_App(), "course.example.org:8080")
    assert not origin.allowed(_App(), "other.example.org")


@pytest.mark.parametrize(("headers", "old", "new"), [
    # Reached directly: the websocket's Origin is its Host.
    ({"Host": "127.0.0.1:5006"}, None, None),
    ({"Host": "other.example.org:5006"}, "other.example.org:5006", None),
    # A proxy replaced Host and said the browser's address.
    ({"Host": "127.0.0.1:5006", "X-Forwarded-Host": "other.example.org"},
     "other.example.org", "other.example.org"),
    ({"Host": "127.0.0.1:5006", "X-Forwarded-Host": "course.example.org, x"}, None, None),
    # An https page (fetch metadata): its websocket says same-origin.
    ({"Host": "127.0.0.1:5006", "X-Forwarded-Host": "other.example.org",
      "Sec-Fetch-Site": "none"}, "other.example.org", None),
    ({}, None, None),
])
def test_refused_host_is_tornados_and_bokehs_decision(
        monkeypatch: pytest.MonkeyPatch, headers: dict[str, str], old: str | None,
        new: str | None) -> None:
    monkeypatch.setattr(origin, "SAME_ORIGIN_FIRST", False)  # Tornado < 6.6
    assert _refused(headers) == old
    monkeypatch.setattr(origin, "SAME_ORIGIN_FIRST", True)
    assert _refused(headers) == new


def test_the_installed_tornado_is_known() -> None:
    import tornado

    assert origin.SAME_ORIGIN_FIRST == (tornado.version_info >= (6, 6))


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_notice_names_the_setting_in_the_pages_language(lang: str) -> None:
    shown = origin.notice(lang, "other.example.org:8080", refused=True)
    assert t("server.origin.refused", lang) in shown and t("server.origin.lost", lang) in shown
    # only the alert that shows is an alert; the hidden one gets its role when the script
    # shows it
    assert shown.count('role="alert"') == 1 and shown.count(f'lang="{lang}"') == 2
    assert shown.count("DPLAB_ALLOW_WEBSOCKET_ORIGIN=other.example.org:8080") == 2
    refused, lost = shown.split('class="dp-origin-alert dp-origin-')[1:]
    assert refused.startswith('refused"') and " hidden>" not in refused.split(">")[0] + ">"
    assert lost.startswith('lost"') and lost.split(">")[0].endswith(" hidden")
    quiet = origin.notice(lang, "127.0.0.1:5006", refused=False)
    assert quiet.count(" hidden>") == 2
    assert "<script>" in quiet and "<style>" in quiet


def test_notice_escapes_the_host() -> None:
    assert "<b>" not in origin.notice("en", "<b>x", refused=True)


def test_notice_goes_right_after_body() -> None:
    page = "<html><head></head><body class='x'><div>page</div></body></html>"
    assert stream.insert_after_body(page, "N") == (
        "<html><head></head><body class='x'>N<div>page</div></body></html>")
    assert stream.insert_after_body("no body", "N") == "no body"


class CheckTest(AsyncHTTPTestCase):
    def get_app(self) -> tornado.web.Application:
        app = tornado.web.Application([(r"/dplab-origin", origin.CheckHandler)])
        app.websocket_origins = ALLOWLIST  # type: ignore[attr-defined]
        return app

    def ask(self, host: str, **headers: str) -> Any:
        r = self.fetch(f"/dplab-origin?host={host}", headers=headers)
        assert r.code == 200 and r.headers["Cache-Control"] == "no-store"
        return json.loads(r.body)

    def test_the_page_learns_whether_its_address_is_the_reason(self) -> None:
        # Through a proxy that shows the server 127.0.0.1:5006 (this test's Host differs, so
        # any host the page names is "cross-origin", as behind that proxy).
        assert self.ask("other.example.org:8080") == {"refused": True}
        assert self.ask("course.example.org") == {"refused": False}
        assert self.ask("") == {"refused": False}
        if origin.SAME_ORIGIN_FIRST:  # an https page's websocket is same-origin
            assert self.ask("other.example.org:8080", **{"Sec-Fetch-Site": "same-origin"}) \
                == {"refused": False}
