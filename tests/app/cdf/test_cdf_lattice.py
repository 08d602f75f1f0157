"""/cdf public value spacing (granularity): real data and uploads, bad values, teacher view."""

from __future__ import annotations

import re

import numpy as np
import pytest

from app.cdf import views
from app.cdf.state import CDFState
from dpcore.cdf import estimate
from dpcore.cdf.datasets import load_real


def _real_est(name: str, method: str, h: float):
    real = load_real(name)
    opts = {"degree": "auto"} if method == "pp" else {}
    return estimate(np.asarray(real.values), bounds=real.bounds, eps=1.0, delta=1e-6,
                    method=method, rng=np.random.default_rng([1, 12]), granularity=h, **opts)


@pytest.mark.parametrize("method", ["auto", "pp", "hq"])
def test_whole_years_make_dpcores_step_release_and_a_new_ledger_entry(method: str) -> None:
    s = CDFState(dataset="anes96_age", method=method)
    s.current()
    assert s.granularity() is None and s.ledger().releases == 1
    assert s.set_input("lattice", "1") is None
    assert s.granularity() == 1.0
    est = s.current()
    ref = _real_est("anes96_age", method, 1.0)
    np.testing.assert_array_equal(est.grid_f, ref.grid_f)
    assert est(30.0) == est(30.99)  # a staircase on whole years
    assert s.ledger().releases == 2  # a release with the spacing is a new release
    assert s.url_query()["gran"] == "1"


def test_pp_on_the_lattice_keeps_its_free_slider() -> None:
    s = CDFState(dataset="diabetes_age", method="pp", lattice=True)
    s.current()
    before = s.ledger().releases
    assert s.degree_info().available
    s.set_input("degree", 3)
    assert s.current().degree == 3 and s.ledger().releases == before == 1
    assert s.current()(40.0) == s.current()(40.5)


@pytest.mark.parametrize(("raw", "key"), [
    ("0", "cdf.gran.err.positive"), ("-1", "cdf.gran.err.positive"),
    ("5", "cdf.gran.err.divide"), ("abc", "cdf.gran.err.number"),
    ("1e-9", "cdf.gran.err.too_fine"), ("", "cdf.err.empty"),
])
@pytest.mark.parametrize("lang", ["ko", "en"])
def test_bad_spacing_is_a_message_and_the_state_stays(raw: str, key: str, lang: str) -> None:
    s = CDFState(dataset="anes96_age", lattice=True)
    problem = s.set_input("lattice_h", raw)
    assert problem is not None and problem[0] == key
    assert s.lattice_h == 1.0 and s.granularity() == 1.0
    text = views.msg(problem, lang)
    assert text and "{" not in text
    if key == "cdf.gran.err.divide":
        assert "16.4" in text and "18" in text and "100" in text  # (100 - 18) / 5


def test_spacing_that_stops_fitting_is_not_used_and_says_why() -> None:
    s = CDFState(dataset="penguins_mass", lattice=True)
    assert s.set_input("lattice_h", "25") is None and s.granularity() == 25.0
    s.set_input("dataset", "anes96_age")  # 82 / 25 is not whole
    assert s.granularity() is None
    assert s.lattice_problem() is not None
    note = views.lattice_note_html(s, "en")
    assert "dp-cdf-lattice-problem" in note and "not in use" in note
    assert s.current().info.get("granularity") is None


def test_synthetic_data_ignore_the_spacing() -> None:
    s = CDFState(lattice=True)
    assert s.granularity() is None and "granularity" not in s.current().info
    assert "continuous" in views.lattice_note_html(s, "en")


def test_upload_off_the_lattice_is_rounded_and_counted_in_the_teacher_view_only() -> None:
    vals = [f"{v:g}" for v in [*range(0, 20), 3.5, 7.25, 12.5] * 5]
    s = CDFState()
    assert s.load_upload("x.csv", ("a\n" + "\n".join(vals) + "\n").encode()) is None
    s.set_input("upload_lo", "0")
    s.set_input("upload_hi", "20")
    assert s.set_input("lattice", "1") is None and s.granularity() == 1.0
    est = s.current()
    assert est.release.extra["n_off_lattice"] == 15  # 3.5, 7.25 and 12.5, five times each
    public = views.privacy_html(s, "en")
    assert "dp-cdf-off-lattice" not in public and "15" not in re.sub(r"<[^>]+>", "", public)
    s.teacher = True
    teacher = views.privacy_html(s, "en")
    m = re.search(r'dp-cdf-off-lattice">([^<]*)', teacher)
    assert m is not None and ": 15 " in m.group(1)
    assert "NOT private" in teacher
    ko = views.privacy_html(s, "ko")
    assert "보호되지 않음" in ko and "dp-cdf-off-lattice" in ko
    assert "teacher view" in views.lattice_note_html(s, "en")


def test_url_gran_round_trip_and_bad_gran_notice() -> None:
    s = CDFState()
    assert s.apply_url({"data": "diabetes_age", "gran": "1", "method": "auto"}) == []
    assert s.granularity() == 1.0 and s.url_query()["gran"] == "1"
    other = CDFState()
    other.apply_url(s.url_query())
    np.testing.assert_array_equal(other.current().grid_f, s.current().grid_f)
    bad = CDFState()
    assert bad.apply_url({"data": "diabetes_age", "gran": "7"}) == [
        ("cdf.url.bad", {"name": "gran", "value": "7"})]
    assert bad.granularity() is None and not bad.lattice
