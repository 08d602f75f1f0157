"""One plain HTTP request to a local server, as an uptime monitor or a test makes it."""

from __future__ import annotations

import http.client
import logging


def request(port: int, method: str, path: str) -> tuple[int, dict[str, str], bytes]:
    """Status, headers (title case) and body of ``method path`` on 127.0.0.1:``port``."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request(method, path, headers={"Accept-Encoding": "gzip"})
        r = conn.getresponse()
        return r.status, {k.title(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


class Records(logging.Handler):
    """Keeps every record it is handed (a test reads what a logger wrote)."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
