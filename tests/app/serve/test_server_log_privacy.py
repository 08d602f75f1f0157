"""What a default server writes to its log while a browser opens /lab and its websocket, a
websocket is refused for its Origin and an unknown address is asked for: the admin's lines
(start, configuration, page runs, the refusal with the setting to change, the 404), and
nothing that identifies the browser (session id, client address, forwarded address, user
agent, cookie, query string, the refused Origin). The browser tests' own log check:
tests/ui/test_server_log.py."""

from __future__ import annotations

import base64
import http.client
import socket
import time
import uuid

import pytest
from live_server import LiveServer
from wsclient import find_token, raw_read_message, raw_send_message, session_id

# A loopback address of its own, so a client address in the log cannot be the server's.
CLIENT = "127.0.0.2"
FORWARDED = "203.0.113.7"
AGENT = "DistinctAgent/7.3"
COOKIE = "dplab_w=w1; quiz=alice-kim-42"
REFUSED = "evil-origin.example.net:9999"


def _get(srv: LiveServer, path: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=60,
                                      source_address=(CLIENT, 0))
    try:
        conn.request("GET", path, headers={"X-Forwarded-For": FORWARDED, "User-Agent": AGENT,
                                           "Cookie": COOKIE, "Accept-Language": "en"})
        r = conn.getresponse()
        return r.status, r.read().decode("utf-8", "replace")
    finally:
        conn.close()


def _websocket(srv: LiveServer, path: str, token: str, origin: str) -> socket.socket | int:
    """The handshake from CLIENT: the open socket, or the refusal's HTTP status."""
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=30, source_address=(CLIENT, 0))
    key = base64.b64encode(uuid.uuid4().bytes).decode()
    lines = [f"GET {path} HTTP/1.1", f"Host: 127.0.0.1:{srv.port}", "Upgrade: websocket",
             "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13",
             f"Sec-WebSocket-Protocol: bokeh, {token}", f"Origin: {origin}",
             f"X-Forwarded-For: {FORWARDED}", f"User-Agent: {AGENT}", f"Cookie: {COOKIE}"]
    s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    reply = b""
    while b"\r\n\r\n" not in reply:
        chunk = s.recv(1)
        if not chunk:
            break
        reply += chunk
    status = int(reply.split(b" ", 2)[1]) if reply.startswith(b"HTTP/1.1 ") else 0
    if status == 101:
        return s
    s.close()
    return status


def test_the_log_names_no_student_and_no_browser(live_server: LiveServer) -> None:
    try:
        socket.create_connection(("127.0.0.1", live_server.port), timeout=5,
                                 source_address=(CLIENT, 0)).close()
    except OSError:
        pytest.skip(f"cannot connect from {CLIENT} on this machine")
    status, page = _get(live_server, "/lab?lang=en&n=4")
    assert status == 200
    token = find_token(page)
    sid = session_id(token)
    ws = _websocket(live_server, "/lab/ws?lang=en&n=4", token, f"http://127.0.0.1:{live_server.port}")
    assert isinstance(ws, socket.socket), ws
    try:
        assert raw_read_message(ws)[0] == "ACK"
        raw_send_message(ws, "PULL-DOC-REQ", {})
        assert raw_read_message(ws)[0] == "PULL-DOC-REPLY"
    finally:
        ws.close()
    # A second page whose websocket comes from an address the server does not allow.
    token2 = find_token(_get(live_server, "/lab?lang=en")[1])
    assert _websocket(live_server, "/lab/ws?lang=en", token2, f"http://{REFUSED}") == 403
    assert _get(live_server, "/no-such-page?student=alice-kim-42")[0] == 404
    _get(live_server, "/healthz")
    time.sleep(0.5)  # the server's lines of those requests are written by now
    log = live_server.text()

    # Nothing about the browser or who uses it.
    for secret in (sid, session_id(token2), CLIENT, FORWARDED, AGENT, "alice-kim-42",
                   "evil-origin", "student="):
        assert secret not in log, secret
    assert "session=" not in log
    # What an admin needs.
    assert f"dplab: serving on 127.0.0.1:{live_server.port}" in log
    assert "DPLAB_ALLOW_WEBSOCKET_ORIGIN" in log
    assert log.count("page-run worker=") >= 2 and "path=/lab" in log
    assert "websocket refused" in log
    assert "404 GET /no-such-page" in log
