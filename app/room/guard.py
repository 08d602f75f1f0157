"""Limits that fit a lecture hall: hundreds of phones behind one campus address.

Room codes (6 characters of 31, ≈ 8.9·10⁸) are found by guessing only if guesses are cheap, so
every request that tells whether a code exists (``/join?room=``, ``/join/state``,
``/join/answer``, ``/join/value``, a student's ``/lab?room=``) asks :class:`CodeGuard` first.
Limits count the requester, never the class:

- A browser gets the HttpOnly cookie ``dplab_client`` (a random id with the server's MAC) on its
  first ``/join`` request. A browser with it may name :data:`CLIENT_MISSES` unknown codes a
  minute; after that every code, real or not, is answered 429 for that browser alone (so a
  blocked guesser learns nothing), until the minute is over.
- A request without that cookie (a script that drops cookies) counts against its address:
  :data:`ADDRESS_MISSES` unknown codes a minute. Past that, cookie-less requests get 429 with a
  fresh ``dplab_client`` cookie, so a student behind the same address gets in with one more
  tap; browsers holding the cookie are not affected. New cookies per address are capped
  (:data:`ADDRESS_MINTS` per 10 minutes), so minting cookies does not buy unlimited guesses.
- A code that exists costs nothing: 300 students who type it right are never counted.

The teacher's token (:mod:`app.room.tokens`, 144 random bits when made by dplab): a correct
token is never refused; a wrong one costs its sender a delay that doubles after the first
:data:`TOKEN_FREE` wrong tokens of its address in a minute, capped at :data:`TOKEN_DELAY_MAX_S`.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

from app.room import tokens
from app.shell.urls import href

CLIENT_COOKIE = "dplab_client"
CLIENT_MISSES = 10
ADDRESS_MISSES = 60
ADDRESS_MINTS = 1500
TOKEN_FREE = 5
TOKEN_DELAY_MAX_S = 2.0


def _mac(cid: str) -> str:
    key = hashlib.sha256(b"dplab-client\x00" + tokens.teacher_token()[0].encode()).digest()
    return hmac.new(key, cid.encode(), hashlib.sha256).hexdigest()[:24]


def new_client() -> tuple[str, str]:
    """(client id, cookie value)."""
    cid = secrets.token_hex(12)
    return cid, f"{cid}.{_mac(cid)}"


def client_of(cookie: str | None) -> str | None:
    """The client id of a ``dplab_client`` cookie this server made (else None)."""
    if not cookie or len(cookie) > 80 or "." not in cookie:
        return None
    cid, mac = cookie.split(".", 1)
    if not hmac.compare_digest(mac.encode("ascii", "replace"), _mac(cid).encode()):
        return None
    return cid


class CodeGuard:
    """The unknown-code limits of one process (see the module's text)."""

    def __init__(self) -> None:
        self.per_client = tokens.RateLimit(CLIENT_MISSES, 60.0)
        self.per_address = tokens.RateLimit(ADDRESS_MISSES, 60.0)
        self.mints = tokens.RateLimit(ADDRESS_MINTS, 600.0)

    def blocked(self, client: str | None, address: str) -> float:
        """Seconds until this requester may name a code again (0: now)."""
        if client is not None:
            return self.per_client.blocked("c:" + client)
        return self.per_address.blocked("a:" + address)

    def miss(self, client: str | None, address: str) -> None:
        """The requester named a code that does not exist."""
        if client is not None:
            self.per_client.hit("c:" + client)
        else:
            self.per_address.hit("a:" + address)

    def may_mint(self, address: str) -> bool:
        """A new ``dplab_client`` cookie for this address (counted when True)."""
        if self.mints.blocked("m:" + address) > 0:
            return False
        self.mints.hit("m:" + address)
        return True


class TokenBackoff:
    """Wrong teacher tokens per address: the delay their sender waits before the answer."""

    def __init__(self) -> None:
        self.wrong = tokens.RateLimit(10_000, 60.0)

    def delay(self, address: str) -> float:
        """Count one wrong token of ``address``; the seconds its answer waits."""
        self.wrong.hit(address)
        n = self.wrong.count(address)
        if n <= TOKEN_FREE:
            return 0.0
        return float(min(TOKEN_DELAY_MAX_S, 0.05 * 2 ** (n - TOKEN_FREE)))


GUARD = CodeGuard()
BACKOFF = TokenBackoff()


def requester(handler: Any, https: bool = False) -> tuple[str | None, str]:
    """(client id or None, client address) of a request; a request without a valid
    ``dplab_client`` cookie gets one in its answer (unless its address made too many)."""
    address = tokens.client_address(handler.request.remote_ip,
                                    handler.request.headers.get_list("X-Forwarded-For"))
    cid = client_of(handler.get_cookie(CLIENT_COOKIE))
    if cid is None and GUARD.may_mint(address):
        _, value = new_client()
        root = href("/") or "/"
        handler.set_cookie(CLIENT_COOKIE, value, path=root, httponly=True, samesite="Lax",
                           secure=https, expires_days=1)
    return cid, address
