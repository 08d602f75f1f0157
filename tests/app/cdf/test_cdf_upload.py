"""CSV uploads for /cdf: parsing, every error case, bounds, session isolation (no browser)."""

from __future__ import annotations

import numpy as np
import pytest

from app.cdf import upload as up
from app.cdf.state import CDFState


def test_good_file_with_header_and_two_numeric_columns() -> None:
    data = b"name,height_cm,weight\nA,170.5,60\nB,165,55.5\nC,180,72\n"
    t = up.parse("class.csv", data)
    assert t.header and t.rows == 3 and t.names == ["height_cm", "weight"]
    assert t.column("height_cm").values.tolist() == [170.5, 165.0, 180.0]
    assert all(c.usable for c in t.columns)
    assert t.first_usable() == "height_cm"
    assert len(t.digest) == 16 and t.size == len(data)


def test_semicolon_tab_no_header_bom_and_cp949() -> None:
    t = up.parse("a.csv", b"1;2\n3;4\n5;6\n")
    assert not t.header and t.names == ["#1", "#2"] and t.column("#2").values.tolist() == [2, 4, 6]
    assert up.parse("b.tsv", b"x\ty\n1\t2\n3\t4\n").names == ["x", "y"]
    assert up.parse("c.csv", "\ufeffage\n20\n30\n".encode()).names == ["age"]
    korean = "나이,키\n20,170\n31,160\n".encode("cp949")
    t = up.parse("d.csv", korean)
    assert t.names == ["나이", "키"] and t.column("나이").values.tolist() == [20, 31]


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ("age\n20\n30\n".encode("utf-16"), "cdf.up.err.encoding"),  # NUL bytes
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "cdf.up.err.encoding"),
        (b"caf\xe9,\xff\xfe\n1,2\n", "cdf.up.err.encoding"),  # Latin-1: neither UTF-8 nor CP949
        (b"", "cdf.up.err.empty"),
        (b"  \n\n ", "cdf.up.err.empty"),
        (b"name,city\nA,Seoul\nB,Busan\n", "cdf.up.err.no_numeric"),
        (b'x\n"1\n2\n', "cdf.up.err.csv"),
    ],
)
def test_whole_file_errors(data: bytes, key: str) -> None:
    with pytest.raises(up.UploadError) as err:
        up.parse("f.csv", data)
    assert err.value.key == key


def test_size_limit() -> None:
    with pytest.raises(up.UploadError) as err:
        up.parse("big.csv", b"1\n" * (up.MAX_UPLOAD_BYTES // 2 + 1))
    assert err.value.key == "cdf.up.err.size"
    assert err.value.fmt["limit"] == "10.0"


@pytest.mark.parametrize(
    ("body", "kinds"),
    [
        (b"x\n1\nNaN\n3\n", {"nonfinite"}),
        (b"x\n1\ninf\n-Infinity\n", {"nonfinite"}),
        (b"x\n1\nabc\n3\n", {"text"}),
        (b"x,y\n1,2\n,3\n4,5\n", {"empty"}),
        (b"x\n1\n1e999\n3\n", {"huge"}),
    ],
)
def test_bad_cells_are_reported_with_line_numbers(body: bytes, kinds: set[str]) -> None:
    t = up.parse("f.csv", body)
    col = t.columns[0]
    assert not col.usable
    p = col.problem()
    assert p is not None and p.key == "cdf.up.err.cells"
    assert set(p.fmt["kinds"].split("/")) == kinds
    assert p.fmt["count"] >= 1 and ":" in p.fmt["examples"]


def test_line_number_counts_the_header() -> None:
    t = up.parse("f.csv", b"x\n1\n2\noops\n")
    assert t.columns[0].bad[0].line == 4 and t.columns[0].bad[0].text == "oops"


def test_one_row_is_not_enough() -> None:
    t = up.parse("f.csv", b"x\n42\n")
    p = t.columns[0].problem()
    assert p is not None and p.key == "cdf.up.err.rows" and p.fmt["count"] == 1


@pytest.mark.parametrize(
    ("lo", "hi", "key"),
    [
        (None, 1.0, "cdf.up.err.bounds_missing"),
        (2.0, 1.0, "cdf.up.err.bounds_order"),
        (1.0, 1.0, "cdf.up.err.bounds_order"),
        (float("nan"), 1.0, "cdf.up.err.bounds_finite"),
        (-1e308, 1e308, "cdf.up.err.bounds_huge"),
        (0.0, 1e16, "cdf.up.err.bounds_huge"),
        (1e6, 1e6 + 1e-6, "cdf.up.err.bounds_narrow"),
    ],
)
def test_bounds_checks(lo: float | None, hi: float | None, key: str) -> None:
    err = up.check_bounds(lo, hi)
    assert err is not None and err.key == key
    assert up.check_bounds(0.0, 1.0) is None


def test_state_uses_upload_only_with_bounds_and_a_good_column() -> None:
    s = CDFState()
    assert s.set_input("dataset", "upload") == ("cdf.up.err.not_here", {})
    assert s.load_upload("bad.csv", b"\x00\x01") == ("cdf.up.err.encoding", {})
    assert s.dataset == "bimodal"  # a failed upload changes nothing
    data = b"age,score\n" + b"".join(f"{20 + i % 50},{i % 7}\n".encode() for i in range(3000))
    assert s.load_upload("class.csv", data) is None
    assert s.dataset == "upload" and s.upload_column == "age"
    assert s.upload_problem() == ("cdf.up.err.bounds_missing", {})
    assert s.set_input("upload_lo", "0") is None and s.set_input("upload_hi", "100") is None
    assert s.upload_problem() is None
    est = s.current()
    assert est.release.n == 3000
    led = s.ledger()
    assert led.releases == 1 and led.source[0] == "upload"
    # another column of the same file is the same people: the same ledger
    assert s.set_input("upload_column", "score") is None
    s.current()
    assert s.ledger().releases == 2 and s.ledger().source == led.source
    # the unit is display only: no new release
    s.set_input("upload_unit", "points")
    s.current()
    assert s.ledger().releases == 2 and s.unit() == "points"
    assert s.data_range() == (0.0, 6.0)


def test_column_with_bad_cells_is_refused_and_page_state_stays_valid() -> None:
    s = CDFState()
    assert s.load_upload("f.csv", b"x,y\n1,2\nNaN,3\n4,5\n") is None
    assert s.upload_column == "y"  # the first usable column is picked
    s.set_input("upload_column", "x")
    key, fmt = s.upload_problem()  # type: ignore[misc]
    assert key == "cdf.up.err.cells" and fmt["column"] == "x"


def test_two_sessions_are_isolated_and_forgetting_drops_the_data() -> None:
    a, b = CDFState(), CDFState()
    assert a.load_upload("secret.csv", b"v\n1\n2\n3\n") is None
    assert a.upload is not None and b.upload is None
    assert b.set_input("dataset", "upload") == ("cdf.up.err.not_here", {})
    a.set_input("upload_lo", "0")
    a.set_input("upload_hi", "5")
    a.current()
    assert all(src[0] != "upload" for src in b.sources())
    a.forget_upload()
    assert a.upload is None and a.dataset == "bimodal"
    assert not any(k[0] == "upload" for k in a._data)  # nothing of the file is kept
    assert not any(k[0][0] == "upload" for k in a._est)
    # the ledger of that file stays (privacy already spent) but holds no data
    assert any(src[0] == "upload" for src in a.sources())
    assert np.asarray(a.data().x).size == 10_000


def test_discard_at_session_end_drops_everything_without_refreshing() -> None:
    s = CDFState()
    assert s.load_upload("f.csv", b"v\n1\n2\n3\n") is None
    s.set_input("upload_lo", "0")
    s.set_input("upload_hi", "5")
    s.current()
    events: list[str] = []
    s.param.watch(lambda *ev: events.extend(e.name for e in ev), list(s.param))
    s.discard()
    assert s.upload is None and not s._data and not s._est and events == []


def test_a_bad_bound_keeps_the_last_valid_pair_with_one_message() -> None:
    """Issue 17 §4: a rejected bound leaves the data, n and the plot as they were."""
    s = CDFState()
    data = b"age\n" + b"".join(f"{20 + i % 50}\n".encode() for i in range(3000))
    assert s.load_upload("class.csv", data) is None
    assert s.set_input("upload_lo", "0") is None and s.set_input("upload_hi", "100") is None
    n = s.current().release.n
    assert s.set_input("upload_lo", "abc") == ("cdf.up.err.bounds_number", {"value": "abc"})
    assert s.set_input("upload_lo", "200") == ("cdf.up.err.bounds_order",
                                               {"lo": "200", "hi": "100"})
    assert s.set_input("upload_hi", "1e999") == ("cdf.up.err.bounds_huge", {})
    assert s.set_input("upload_hi", "") == ("cdf.up.err.bounds_empty", {})
    assert (s.upload_lo, s.upload_hi) == (0.0, 100.0)
    assert s.upload_problem() is None and s.current().release.n == n == s.data_n()
    assert s.set_input("upload_hi", "190") is None and s.upload_hi == 190.0
