"""Runs after the other browser tests (tests/conftest.py puts it last): the server log holds no
app traceback."""

from __future__ import annotations

import re

from ui.conftest import Server

# Tornado logs this when a page is closed while a websocket message is still being written
# (tests close pages right after their last check). It is a disconnect, not an app error.
_DISCONNECT = re.compile(r"WebSocketClosedError|StreamClosedError|connection was closed")


def app_errors(text: str) -> list[str]:
    """Log blocks (split at 'Task exception' / 'Traceback' / ERROR lines) that are real errors."""
    blocks = re.split(r"\n(?=Task exception|Traceback|ERROR|\S+ ERROR)", text)
    bad = []
    for b in blocks:
        if not ("Traceback" in b or "ERROR" in b):
            continue
        if _DISCONNECT.search(b) and "/app/" not in b and "/dpcore/" not in b:
            continue
        bad.append(b)
    return bad


def test_disconnect_filter_keeps_real_errors() -> None:
    real = "Traceback (most recent call last):\n  File \"/x/app/lab/page.py\"\nValueError: boom"
    noise = ("Task exception was never retrieved\nTraceback (most recent call last):\n"
             "  File \"tornado/websocket.py\"\ntornado.websocket.WebSocketClosedError")
    assert app_errors(noise) == []
    assert app_errors(noise + "\n" + real) != []


def test_server_log_has_no_traceback_or_error(server: Server) -> None:
    text = server.log_text()
    assert "Launching server" in text
    errors = app_errors(text)
    assert errors == [], "\n---\n".join(errors)[-3000:]
