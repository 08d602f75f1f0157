"""CSV exports never hand a spreadsheet a formula (app/shell/csvsafe.py), and keep numbers,
negative ones included, as numbers."""

from __future__ import annotations

import csv
import io

import pytest

from app.shell.csvsafe import cell, rows_text


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1+cmd|' /C calc'!A0", "@SUM(A1)", "\t=1",
                                  "\r=1", "=HYPERLINK(\"http://x\")"])
def test_formula_text_gets_an_apostrophe(text: str) -> None:
    assert cell(text) == "'" + text


@pytest.mark.parametrize("text", ["yes", "아니요", "a=b", "1-2", " =x", ""])
def test_plain_text_is_unchanged(text: str) -> None:
    assert cell(text) == text


@pytest.mark.parametrize("number", [-0.05, -3, 0, 2.5, 10**6])
def test_numbers_stay_numbers(number: float) -> None:
    assert cell(number) == number
    assert rows_text([[number]]).strip() == repr(number)


def test_rows_text_reads_back() -> None:
    text = rows_text([["q", "est"], ["=2+3", -0.25], [None, float("nan")], [True, 1]])
    rows = list(csv.reader(io.StringIO(text)))
    assert rows == [["q", "est"], ["'=2+3", "-0.25"], ["", ""], ["True", "1"]]
