"""Korean particles after computed values (app/shell/korean.py): the final-sound table of digits,
Latin letters, Greek letters and Hangul, the particle format spec of the catalogues, and that no
Korean catalogue still writes both forms ("을(를)")."""

from __future__ import annotations

import re
import string

import pytest

from app.shell import i18n, korean
from app.shell.korean import NONE, OTHER, RIEUL, final_sound, particle

# Sino-Korean readings: 영 일 이 삼 사 오 육 칠 팔 구
DIGITS = {"0": OTHER, "1": RIEUL, "2": NONE, "3": OTHER, "4": NONE, "5": NONE, "6": OTHER,
          "7": RIEUL, "8": RIEUL, "9": NONE}
# 에이 비 씨 디 이 에프 지 에이치 아이 제이 케이 엘 엠 엔 오 피 큐 알 에스 티 유 브이 더블유
# 엑스 와이 제트
LATIN = {c: NONE for c in string.ascii_uppercase} | {"L": RIEUL, "M": OTHER, "N": OTHER,
                                                     "R": RIEUL}


@pytest.mark.parametrize(("digit", "sound"), sorted(DIGITS.items()))
def test_digits_are_read_in_korean(digit: str, sound: str) -> None:
    assert final_sound(digit) == sound
    assert final_sound("12" + digit) == sound  # the last digit decides


@pytest.mark.parametrize(("letter", "sound"), sorted(LATIN.items()))
def test_latin_letters_by_their_korean_names(letter: str, sound: str) -> None:
    assert final_sound(letter) == sound
    assert final_sound(letter.lower()) == sound


@pytest.mark.parametrize(("word", "sound"), [
    ("사과", NONE), ("수업", OTHER), ("연필", RIEUL), ("가우스", NONE), ("값", OTHER),
    ("통과", NONE), ("실패", NONE), ("다항식 사영(가우스)", NONE), ("ε", OTHER), ("δ", NONE),
    ("σ, ε", OTHER), ("12.5 %", NONE), ("‘일’", RIEUL), ("10", OTHER), ("", NONE),
])
def test_words_and_symbols(word: str, sound: str) -> None:
    assert final_sound(word) == sound


@pytest.mark.parametrize(("value", "form", "want"), [
    ("H8XEX4", "을", "를"), ("H8XEX4", "를", "를"), ("ABCDE1", "를", "을"),
    ("QWERTX", "을", "를"), ("QWERTL", "를", "을"), ("QWERTM", "를", "을"),
    ("QWERTN", "를", "을"), ("QWERTR", "를", "을"), ("7", "이", "이"), ("2", "이", "가"),
    ("3", "은", "은"), ("9", "은", "는"), ("1", "으로", "로"), ("0", "으로", "으로"),
    ("5", "로", "로"), ("수업", "과", "과"), ("사과", "와", "와"), ("가우스", "으로", "로"),
])
def test_particle_of_the_pair(value: str, form: str, want: str) -> None:
    assert particle(value, form) == want


def test_catalogue_format_spec_picks_the_particle() -> None:
    assert i18n.t("room.banner.leading", "ko", code="H8XEX4").startswith("수업 H8XEX4를 ")
    assert i18n.t("room.banner.leading", "ko", code="ABCDE7").startswith("수업 ABCDE7을 ")
    assert i18n.t("room.banner.ended", "ko", code="QWERT2").startswith("수업 QWERT2가 ")
    assert i18n.t("room.banner.ended", "ko", code="QWERTM").startswith("수업 QWERTM이 ")
    assert "답 ‘통과’를 보냈습니다" in i18n.t("room.answered", "ko", answer="통과")
    assert "답 ‘수업’을 보냈습니다" in i18n.t("room.answered", "ko", answer="수업")
    # the lab's own catalogue is rephrased so that no particle follows a value (issue 39)
    assert i18n.t("lab.card.replaced", "ko", i=2, v="3.5").endswith("새 값: 3.5)")
    # English has no spec: the same fields, plain
    assert i18n.t("room.banner.leading", "en", code="H8XEX4").count("H8XEX4") == 1


def test_ordinary_format_specs_still_work() -> None:
    assert korean.FORMATTER.format("{x:.2f} {y:를}", x=1.234, y="4") == "1.23 4를"
    assert not korean.has_particle_field("{x:.2f} {y!r}")


FORBIDDEN = ("을(를)", "를(을)", "(으)로", "이(가)", "가(이)", "은(는)", "는(은)", "와(과)",
             "과(와)", "아니오")


def test_no_korean_catalogue_writes_both_forms() -> None:
    for path in sorted(i18n.CATALOGUE_DIR.glob("*.ko.json")):
        text = path.read_text(encoding="utf-8")
        for bad in FORBIDDEN:
            assert bad not in text, (path.name, bad)


def test_every_particle_after_a_value_is_a_format_spec() -> None:
    # "{x}를", "{x}’을", "{x})와": a particle written after a computed value cannot follow its
    # sound; copulas (이고, 이면, 이어야, 이지만) and nouns in apposition ("하한({lo})이") are fine
    bad = re.compile(r"\{[a-z0-9_]+\}([’”)]?)(을|를|가|는|와|로)(?![가-힣])")
    for path in sorted(i18n.CATALOGUE_DIR.glob("*.ko.json")):
        for line in path.read_text(encoding="utf-8").splitlines():
            for m in bad.finditer(line):
                opened = line.rfind("(", 0, m.start())
                apposition = m.group(1) == ")" and opened > 0 and "가" <= line[opened - 1] <= "힣"
                assert apposition, (path.name, line)
