"""Who is in a room: one student credential per device, the room lock and the class size.

A student is a browser profile, by the server's word, not a tab:

- ``/join?room=CODE`` (and a student's ``/lab?room=CODE``) issues the device a room-scoped
  credential ``<sid>.<expiry>.<mac>`` in the HttpOnly cookie ``dplab_student`` (which holds
  the credentials of the last :data:`ROOMS_KEPT` rooms as ``CODE:credential|...``, so joining
  another class does not make a student new in the first): ``sid`` is 96 random bits, the MAC an
  HMAC-SHA256 over the room code, ``sid`` and the expiry under a key derived from the teacher
  token (so every worker with the same token checks it without asking anyone, as
  :mod:`app.room.tokens` does for the teacher's cookie). It is never a page's session id and
  never in an address.
- Every answer (``/join/answer``, ``/join/value``, a question answered in the lab) is stored
  under the credential's ``sid``: a second tab of the same browser sends the same cookie, so it
  is the same student and is refused with "already". A made-up id is not a credential (no MAC).
- The room's ``students`` hash (sid -> issue time) counts who joined. A credential whose MAC is
  valid is the server's own even when the hash lost it (a store restart writes a room back
  without it): it is written back on its next use.
- ``locked``: no new credentials after the instructor locks the room (a cleared cookie cannot
  make a new student); ``size``: the expected class size, answers beyond it are refused and
  counted (``refused``).
- ``seen``: sid -> last time its class page asked for the room's state (at most one write per
  student per :data:`SEEN_WRITE_S` from a process), for the "connected" count.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from typing import Any

from app.room import tokens
from app.room.store import RoomStore

COOKIE = "dplab_student"
ROOMS_KEPT = 4
LIFETIME_S = 12 * 3600
SIZE_MAX = 2000
SEEN_FRESH_S = 10.0  # a class page polls every 2 s: unseen for 10 s is gone
SEEN_WRITE_S = 4.0
_seen_written: dict[tuple[str, str], float] = {}


def credential_in(cookie: str | None, code: str) -> str | None:
    """Room ``code``'s credential inside the ``dplab_student`` cookie's value (unchecked)."""
    for part in (cookie or "")[:600].split("|"):
        room, _, cred = part.partition(":")
        if room == code and cred:
            return cred
    return None


def with_credential(cookie: str | None, code: str, cred: str) -> str:
    """The cookie's value with room ``code``'s credential first (the oldest rooms dropped)."""
    kept = [p for p in (cookie or "")[:600].split("|")
            if p and ":" in p and p.partition(":")[0] != code]
    return "|".join([f"{code}:{cred}", *kept][:ROOMS_KEPT])


def student_of(cookie: str | None, code: str, now: float | None = None) -> str | None:
    """The student id this cookie proves for room ``code`` (None: not a student of it)."""
    return check_credential(code, credential_in(cookie, code), now)


def _mac(code: str, sid: str, expiry: int, token: str | None = None) -> str:
    key = hashlib.sha256(b"dplab-student-credential\x00"
                         + (token if token is not None else tokens.teacher_token()[0])
                         .encode("utf-8")).digest()
    return hmac.new(key, f"{code}|{sid}|{expiry}".encode(), hashlib.sha256).hexdigest()[:32]


def make_credential(code: str, now: float | None = None,
                    token: str | None = None) -> tuple[str, str]:
    """(sid, cookie value) of a new student of room ``code``."""
    sid = secrets.token_hex(12)
    expiry = int((now if now is not None else time.time()) + LIFETIME_S)
    return sid, f"{sid}.{expiry}.{_mac(code, sid, expiry, token)}"


def check_credential(code: str, value: str | None, now: float | None = None,
                     token: str | None = None) -> str | None:
    """The student id of a credential this server issued for room ``code``, else None
    (another room's credential, a made-up or altered one, an expired one)."""
    if not value or len(value) > 100:
        return None
    parts = value.split(".")
    if len(parts) != 3:
        return None
    sid, expiry_text, mac = parts
    if len(sid) != 24 or not all(c in "0123456789abcdef" for c in sid):
        return None
    try:
        expiry = int(expiry_text)
    except ValueError:
        return None
    want = _mac(code, sid, expiry, token)
    if not hmac.compare_digest(mac.encode("ascii", "replace"), want.encode("ascii")):
        return None
    return sid if expiry > (now if now is not None else time.time()) else None


async def register(store: RoomStore, code: str, sid: str, now: float | None = None) -> None:
    """Note ``sid`` as a student of the room (again, after a store restart lost it)."""
    await store.hsetnx(code, "students", sid, str(int(now if now is not None else time.time())))


async def is_locked(store: RoomStore, code: str) -> bool:
    return (await store.get(code, "locked")) == "1"


async def set_locked(store: RoomStore, code: str, locked: bool) -> None:
    await store.set(code, "locked", "1" if locked else "0")


def parse_size(text: str | None) -> int | None:
    """The expected class size from a form field: a whole number 1–2000, or None for empty.
    Raises ValueError for anything else."""
    raw = (text or "").strip()
    if not raw:
        return None
    if not raw.isdigit() or not 1 <= int(raw) <= SIZE_MAX:
        raise ValueError(raw)
    return int(raw)


async def size(store: RoomStore, code: str) -> int | None:
    raw = await store.get(code, "size")
    return int(raw) if raw and raw.isdigit() and int(raw) > 0 else None


async def set_size(store: RoomStore, code: str, n: int | None) -> None:
    await store.set(code, "size", str(n) if n else "0")


async def add_answer(store: RoomStore, code: str, name: str, sid: str, value: str) -> str:
    """Store one student's answer in hash ``name``: "ok", "already", "full" (the class size is
    reached: refused and counted) or "gone" (the room ended)."""
    limit = await size(store, code)
    if limit is not None and len(await store.hgetall(code, name)) >= limit:
        await store.incr(code, "refused")
        return "full"
    r = await store.hsetnx(code, name, sid, value)
    if r is None:
        return "gone"
    if not r:
        return "already"
    if limit is not None and len(await store.hgetall(code, name)) > limit:
        # two answers raced past the size: the later one (by id order) is taken back
        await store.hdel(code, name, sid)
        await store.incr(code, "refused")
        return "full"
    return "ok"


async def seen(store: RoomStore, code: str, sid: str, now: float | None = None) -> None:
    """A student's class page asked for the room's state (written at most every 4 s)."""
    now = time.time() if now is None else now
    last = _seen_written.get((code, sid), 0.0)
    if now - last < SEEN_WRITE_S:
        return
    if len(_seen_written) > 20_000:
        _seen_written.clear()
    _seen_written[(code, sid)] = now
    await store.hset(code, "seen", sid, str(round(now, 1)))


async def summary(store: RoomStore, code: str, now: float | None = None) -> dict[str, Any]:
    """``joined``, ``locked``, ``size``, ``refused`` and ``class_pages`` (class pages seen in
    the last 10 s) of room ``code``."""
    now = time.time() if now is None else now
    fresh = 0
    for raw in (await store.hgetall(code, "seen")).values():
        try:
            fresh += now - float(raw) <= SEEN_FRESH_S
        except ValueError:
            continue
    refused = await store.get(code, "refused")
    return {"joined": len(await store.hgetall(code, "students")),
            "locked": await is_locked(store, code), "size": await size(store, code),
            "refused": int(refused) if refused and refused.isdigit() else 0,
            "class_pages": fresh}
