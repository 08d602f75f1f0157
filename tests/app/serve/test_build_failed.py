"""A page whose build raises shows a short page in the reader's language, never a traceback."""

from __future__ import annotations

from http_probe import Records

from app.serve import hardening
from app.shell.i18n import t


def test_failing_page_build_gives_the_error_page_and_logs_the_traceback() -> None:
    def broken() -> None:
        raise KeyError("lab.card.more")  # what a missing catalogue key once did

    pages = hardening.log_page_runs({"/lab": broken}, "w-test")
    seen = Records()
    hardening.LOG.addHandler(seen)  # the server's own logger (it does not propagate)
    try:
        pane = pages["/lab"]()
    finally:
        hardening.LOG.removeHandler(seen)
    text = pane.object
    assert t("server.failed.title", "ko") in text  # Korean by default (no request)
    assert "Traceback" not in text and "lab.card.more" not in text and ".py" not in text
    assert 'href="/lab?lang=ko"' in text
    logged = "\n".join(r.getMessage() for r in seen.records)
    assert "page build failed" in logged and "path=/lab" in logged
    assert any(r.exc_info for r in seen.records)  # the traceback goes to the server log


def test_a_working_page_is_returned_unchanged() -> None:
    sentinel = object()
    pages = hardening.log_page_runs({"/x": lambda: sentinel}, "w-test")
    assert pages["/x"]() is sentinel
