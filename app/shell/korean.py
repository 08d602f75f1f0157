"""Korean particles after computed values, chosen by how the value is read aloud.

A Korean particle depends on the final sound of the word before it: 을/를, 이/가, 은/는, 과/와,
으로/로 (ㄹ takes 로), 이라/라. A catalogue text names the particle in the value's format
field, ``{code:를}`` or ``{code:을}`` (either form of the pair), and :func:`app.shell.i18n.t`
puts the right one after the value: ``H8XEX4`` ends in 4 (사) → "H8XEX4를"; ``7`` (칠) →
"7을". Characters before the particle in the spec go between the value and the particle, for
a value inside quotes: ``‘{answer:’를}`` → "‘통과’를".

The last character that is read decides: Hangul by its final consonant; digits as Sino-Korean
numerals (0 영, 1 일, 2 이, 3 삼, 4 사, 5 오, 6 육, 7 칠, 8 팔, 9 구; 10, 100, … end in 십, 백,
천, 만: a consonant); Latin letters by their Korean names (L 엘, M 엠, N 엔, R 알 end in a
consonant, the other letters in a vowel); Greek letters by theirs (ε 엡실론); closing brackets,
quotes and full stops are skipped.
"""

from __future__ import annotations

import string
from functools import lru_cache
from typing import Any

NONE, RIEUL, OTHER = "none", "rieul", "other"  # no final consonant / ㄹ / another one

# (after a consonant, after a vowel; after ㄹ when it differs from the consonant form)
PAIRS: dict[str, tuple[str, str, str]] = {}
for _consonant, _vowel, _rieul in (("을", "를", "을"), ("이", "가", "이"), ("은", "는", "은"),
                                   ("과", "와", "과"), ("으로", "로", "로"),
                                   ("이라", "라", "이라")):
    for _form in (_consonant, _vowel):
        PAIRS[_form] = (_consonant, _vowel, _rieul)

_DIGITS = {"0": OTHER, "1": RIEUL, "2": NONE, "3": OTHER, "4": NONE, "5": NONE, "6": OTHER,
           "7": RIEUL, "8": RIEUL, "9": NONE}
# Korean names of the Latin letters: 에이 비 씨 디 이 에프 지 에이치 아이 제이 케이 엘 엠 엔 오
# 피 큐 알 에스 티 유 브이 더블유 엑스 와이 제트
_LATIN = {c: NONE for c in string.ascii_uppercase} | {"L": RIEUL, "M": OTHER, "N": OTHER,
                                                      "R": RIEUL}
# 알파 베타 감마 델타 엡실론 제타 에타 세타 이오타 카파 람다 뮤 뉴 크시 오미크론 파이 로 시그마 타우
# 입실론 파이 카이 프사이 오메가
_GREEK = {c: NONE for c in "αβγδζηθικλμνξπρστφχψωΑΒΓΔΖΗΘΙΚΛΜΝΞΠΡΣΤΦΧΨΩ"} | {
    "ε": OTHER, "Ε": OTHER, "ϵ": OTHER, "υ": OTHER, "Υ": OTHER, "ο": OTHER, "Ο": OTHER}
_SYMBOLS = {"%": NONE, "∞": NONE, "‰": NONE, "°": NONE}  # 퍼센트, 무한대, 퍼밀, 도
_SKIP = set(" \t\n)]}>”’\"'.,;:!?…·」』》〉）")


def final_sound(text: str) -> str:
    """How ``text`` ends when read aloud in Korean: :data:`NONE`, :data:`RIEUL` or
    :data:`OTHER` (unknown characters: :data:`NONE`, as most names of symbols end in a vowel)."""
    s = str(text).rstrip()
    i = len(s) - 1
    while i >= 0 and s[i] in _SKIP:
        i -= 1
    if i < 0:
        return NONE
    c = s[i]
    code = ord(c)
    if 0xAC00 <= code <= 0xD7A3:
        jong = (code - 0xAC00) % 28
        return NONE if jong == 0 else RIEUL if jong == 8 else OTHER
    if c in _DIGITS:
        return _DIGITS[c]
    if c.upper() in _LATIN and c.isascii():
        return _LATIN[c.upper()]
    return _GREEK.get(c) or _SYMBOLS.get(c) or NONE


def particle(text: str, form: str) -> str:
    """The particle of the pair ``form`` names (e.g. "를" or "을") that follows ``text``."""
    consonant, vowel, rieul = PAIRS[form]
    sound = final_sound(text)
    return vowel if sound == NONE else rieul if sound == RIEUL else consonant


def with_particle(text: str, form: str) -> str:
    return f"{text}{particle(text, form)}"


def _split_spec(spec: str) -> tuple[str, str] | None:
    """(text between value and particle, particle form) of a format spec like "를" or "’를";
    None for an ordinary format spec."""
    for n in (2, 1):
        if len(spec) >= n and spec[-n:] in PAIRS and not any(
                "\uac00" <= ch <= "\ud7a3" for ch in spec[:-n]):
            return spec[:-n], spec[-n:]
    return None


class ParticleFormatter(string.Formatter):
    """``str.format`` that also reads a particle spec (``{code:를}``)."""

    def format_field(self, value: Any, format_spec: str) -> str:
        split = _split_spec(format_spec) if format_spec else None
        if split is None:
            return str(super().format_field(value, format_spec))
        between, form = split
        text = str(value)
        return f"{text}{between}{particle(text, form)}"


FORMATTER = ParticleFormatter()


@lru_cache(maxsize=4096)
def has_particle_field(text: str) -> bool:
    """Whether a catalogue text has a particle spec (only those need :data:`FORMATTER`)."""
    for _, field, spec, _ in string.Formatter().parse(text):
        if field is not None and spec and _split_spec(spec) is not None:
            return True
    return False
