"""Numbers typed with a Korean or Japanese input method (issue 39, "Smaller"): full-width digits,
minus, period and exponent are read in their NFKC form by the shared parser of /lab and /cdf,
and a /cdf field then shows the text as read."""

from __future__ import annotations

import pytest

from app.shell.numbers import ascii_number_text, clean_number_text, parse_number


@pytest.mark.parametrize(("typed", "text", "value"), [
    ("１．５", "1.5", 1.5), ("－２", "-2", -2.0), ("１ｅ－６", "1e-6", 1e-6),
    ("　３　", "3", 3.0), ("０．１３", "0.13", 0.13), ("＋４", "+4", 4.0),
    ("1 000", "1000", 1000.0), ("−1.5", "-1.5", -1.5), ("2.5", "2.5", 2.5),
])
def test_full_width_is_read_in_its_ascii_form(typed: str, text: str, value: float) -> None:
    assert ascii_number_text(typed) == text
    assert clean_number_text(typed) == text
    assert parse_number(typed) == value


def test_only_the_full_width_forms_are_folded() -> None:
    # NFKC of everything would read the superscript "10²" as 102: it stays a typing error
    assert ascii_number_text("10²") == "10²"
    with pytest.raises(ValueError):
        parse_number("10²")
    with pytest.raises(ValueError):
        parse_number("ｎａｎ")  # "nan" in full width is still not a finite number
    assert clean_number_text("１，５") == "1.5"  # /lab's lone comma, full width too


def test_lab_state_takes_full_width_text() -> None:
    from app.lab.state import LabState

    s = LabState()
    assert s.set_text("sigma", "１．５") is None and s.sigma == 1.5
    assert s.set_text("delta", "１ｅ－６") is None
    assert s.delta == 1e-6 and s.delta_text == "1e-6"  # the field shows the text as read


@pytest.mark.parametrize(("name", "typed", "shown", "value"), [
    ("eps", "１．５", "1.5", 1.5), ("delta", "１ｅ－５", "1e-05", 1e-5),
    ("n", "２０００", "2000", 2000), ("noise_seed", "７", "7", 7),
    ("eps", "１", "1", 1.0), ("delta", "１ｅ－６", "1e-6", 1e-6),  # unchanged values
])
def test_cdf_fields_accept_full_width_and_show_it_as_read(name: str, typed: str, shown: str,
                                                         value: float) -> None:
    from app.cdf.page import CDFPage
    from app.cdf.state import CDFState

    page = CDFPage(CDFState(), "en")
    field = {"eps": page.w_eps, "delta": page.w_delta, "n": page.w_n,
             "noise_seed": page.w_seed}[name]
    field.value = typed
    assert getattr(page.state, name) == value and name not in page._errors
    assert field.value == shown
    field.value = "１．５ｘ"  # still not a number: refused, the field keeps what was typed
    assert name in page._errors and field.value == "１．５ｘ"
