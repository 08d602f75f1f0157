"""Room codes: 6 characters from an alphabet without the look-alikes 0/O/1/I/L.

A code is typed by students from a projector, so it is read case-insensitively and look-alike
characters a student may type (o, i, l, 0, 1) are refused with a clear message rather than
guessed.
"""

from __future__ import annotations

import secrets

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0 O 1 I L
LENGTH = 6


def new_code() -> str:
    """A fresh random code (31^6 ≈ 8.9e8 codes; the store refuses a code already in use)."""
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def normalise(text: str | None) -> str | None:
    """The code as typed (spaces, dashes, lower case allowed), or None when it cannot be one."""
    if text is None:
        return None
    code = "".join(ch for ch in str(text)[:40] if ch not in " -\t").upper()
    if len(code) != LENGTH or any(ch not in ALPHABET for ch in code):
        return None
    return code
