"""The teacher token, the ``dplab_teacher`` cookie, CSRF tokens and rate limits.

- The token comes from ``DPLAB_TEACHER_TOKEN``; without it :func:`teacher_token` makes a random
  one at start (``dplab serve`` prints the teacher address and the token once; serve-prod makes
  one for all its workers and logs it once). It is compared in constant time and never put in
  an address.
- The cookie is ``<nonce>.<expiry>.<mac>``: an HMAC-SHA256 under a key derived from the token,
  so every worker (and host) with the same token checks it without asking anyone; it carries
  nothing about the person. HttpOnly, SameSite=Strict, Secure behind https.
- CSRF: every POST of a teacher form carries a token derived from the cookie's nonce (and the
  browser sends the Strict cookie only from our own pages); the Origin header, when present,
  must be ours.
- Wrong tokens and unknown room codes are rate-limited per client address (kept in memory for
  a minute, as a hash, never logged). The address is the peer's; only a worker that
  scripts/serve-prod started behind its own HAProxy on loopback
  (``DPLAB_FORWARDED_FROM_LOOPBACK=1``) takes it from the last ``X-Forwarded-For`` entry, the
  one HAProxy's ``option forwardfor`` appends (:func:`client_address`).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
import secrets
import threading
import time
from collections import deque

COOKIE = "dplab_teacher"
COOKIE_LIFETIME_S = 12 * 3600
ENV_TOKEN = "DPLAB_TEACHER_TOKEN"
MIN_TOKEN_CHARS = 8
# A chosen token shorter than this (22 URL-safe characters: 132 bits, as secrets.token_urlsafe
# makes them) is said to be weak at start: the limits on wrong tokens slow guessing, they do
# not make a short token safe.
STRONG_TOKEN_CHARS = 22

_generated: dict[str, str] = {}
_lock = threading.Lock()


def teacher_token() -> tuple[str, bool]:
    """(token, generated): ``DPLAB_TEACHER_TOKEN``, or a random token made once per process."""
    env = os.environ.get(ENV_TOKEN, "").strip()
    if env:
        return env, False
    with _lock:
        if "token" not in _generated:
            _generated["token"] = secrets.token_urlsafe(18)
        return _generated["token"], True


def weak_token_warning() -> str | None:
    """A line for the server's start when ``DPLAB_TEACHER_TOKEN`` is set but short (fewer
    than :data:`STRONG_TOKEN_CHARS` characters), else None (a generated token is strong)."""
    token, generated = teacher_token()
    if generated or len(token) >= STRONG_TOKEN_CHARS:
        return None
    return (f"dplab: warning: {ENV_TOKEN} has {len(token)} characters; a token of at least "
            f"{STRONG_TOKEN_CHARS} random characters (about 128 bits) makes guessing hopeless: "
            "python3 -c 'import secrets; print(secrets.token_urlsafe(24))'")


def check_token(typed: str | None, token: str | None = None) -> bool:
    """True when ``typed`` is the teacher token (constant time, whatever the lengths)."""
    want = (token if token is not None else teacher_token()[0]).encode("utf-8")
    got = (typed or "").strip().encode("utf-8")
    # compare digests: equal length, so compare_digest's time does not depend on the input
    return hmac.compare_digest(hashlib.sha256(got).digest(), hashlib.sha256(want).digest()) \
        and len(got) > 0


def _key(token: str | None = None) -> bytes:
    t = token if token is not None else teacher_token()[0]
    return hashlib.sha256(b"dplab-teacher-cookie\x00" + t.encode("utf-8")).digest()


def _mac(message: str, token: str | None = None) -> str:
    return hmac.new(_key(token), message.encode("utf-8"), hashlib.sha256).hexdigest()


def make_cookie(now: float | None = None, token: str | None = None) -> str:
    """A new cookie value for a teacher who gave the right token."""
    nonce = secrets.token_urlsafe(16)
    expiry = int((now if now is not None else time.time()) + COOKIE_LIFETIME_S)
    return f"{nonce}.{expiry}.{_mac(f'teacher|{nonce}|{expiry}', token)}"


def check_cookie(value: str | None, now: float | None = None, token: str | None = None) -> bool:
    """True for a cookie made by :func:`make_cookie` with this token and not expired."""
    if not value or len(value) > 200:
        return False
    parts = value.split(".")
    if len(parts) != 3:
        return False
    nonce, expiry, mac = parts
    want = _mac(f"teacher|{nonce}|{expiry}", token)
    if not hmac.compare_digest(mac.encode("ascii", "replace"), want.encode("ascii")):
        return False
    try:
        return int(expiry) > (now if now is not None else time.time())
    except ValueError:
        return False


def csrf_token(cookie: str, token: str | None = None) -> str:
    """The form token that goes with this teacher cookie."""
    nonce = cookie.split(".", 1)[0]
    return _mac(f"csrf|{nonce}", token)[:32]


def check_csrf(cookie: str | None, sent: str | None, token: str | None = None) -> bool:
    if not cookie or not sent or not check_cookie(cookie, token=token):
        return False
    return hmac.compare_digest(csrf_token(cookie, token).encode(),
                               sent.encode("ascii", "replace")[:64])


ENV_FORWARDED = "DPLAB_FORWARDED_FROM_LOOPBACK"
LOOPBACK = ("127.0.0.1", "::1")


def client_address(peer: str | None, forwarded: list[str], trust: bool | None = None) -> str:
    """The client's address for the rate limits.

    ``peer``: the connection's address; ``forwarded``: the request's ``X-Forwarded-For`` header
    lines. Only when the peer is the balancer on loopback and this process was told it stands
    behind one (``trust``; default: ``DPLAB_FORWARDED_FROM_LOOPBACK=1``, set by serve-prod for
    its workers) is the last entry used, the one the balancer appended; earlier entries were
    written by the client. From anyone else the header is ignored.
    """
    ip = peer or ""
    if trust is None:
        trust = os.environ.get(ENV_FORWARDED, "").strip() == "1"
    if not trust or ip not in LOOPBACK or not forwarded:
        return ip
    last = forwarded[-1].split(",")[-1].strip()
    try:
        return str(ipaddress.ip_address(last))
    except ValueError:
        return ip


class RateLimit:
    """At most ``limit`` events per ``window_s`` per key (a sliding window, in memory).

    Keys are client addresses, stored as a keyed hash so that even this process's memory holds
    no address in the clear; entries older than the window are dropped.
    """

    def __init__(self, limit: int, window_s: float = 60.0) -> None:
        self.limit, self.window_s = limit, window_s
        self._events: dict[bytes, deque[float]] = {}
        self._salt = secrets.token_bytes(16)
        self._lock = threading.Lock()

    def _k(self, key: str) -> bytes:
        return hashlib.blake2s(key.encode("utf-8", "replace"), key=self._salt).digest()

    def blocked(self, key: str, now: float | None = None) -> float:
        """Seconds until ``key`` may try again (0: not blocked)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            q = self._events.get(self._k(key))
            if not q:
                return 0.0
            while q and q[0] <= now - self.window_s:
                q.popleft()
            if len(q) < self.limit:
                return 0.0
            return max(0.0, q[0] + self.window_s - now)

    def count(self, key: str, now: float | None = None) -> int:
        """Events of ``key`` within the window."""
        now = time.monotonic() if now is None else now
        with self._lock:
            q = self._events.get(self._k(key))
            return 0 if not q else sum(1 for t in q if t > now - self.window_s)

    def hit(self, key: str, now: float | None = None) -> None:
        """Count one (failed) attempt of ``key``."""
        now = time.monotonic() if now is None else now
        with self._lock:
            if len(self._events) > 10_000:  # never grows without bound
                cutoff = now - self.window_s
                self._events = {k: q for k, q in self._events.items() if q and q[-1] > cutoff}
            self._events.setdefault(self._k(key), deque()).append(now)
