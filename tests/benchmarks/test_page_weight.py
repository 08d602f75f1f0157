"""The pure parts of benchmarks/page_weight.py: its options, the slider values it releases, the
byte count of a frame, the sessions a reading adds and the table with its ratios to the bare
page. No server, no clock."""

from __future__ import annotations

import itertools
import math

import page_weight as pw
import pytest


def test_defaults_and_bad_options() -> None:
    a = pw.parse_args([])
    assert (a.pages, a.warm, a.moves, a.followers, a.room_moves, a.pool) == (4, 2, 20, 10, 10, 0)
    for argv in (["--pages", "0"], ["--moves", "0"], ["--followers", "0"], ["--pool", "-1"]):
        with pytest.raises(SystemExit):
            pw.parse_args(argv)


@pytest.mark.parametrize("page", list(pw.PAGES))
def test_every_release_changes_the_slider(page: str) -> None:
    values = pw.move_values(page, 40)
    assert len(values) == 40
    assert all(a != b for a, b in itertools.pairwise(values))
    # the warm-up releases the second value: the first measured move changes the page too
    assert pw.move_values(page, 2)[1] != values[0]
    if page == "cdf":  # the ε slider's range and step (app/cdf/controls.py)
        assert all(0.05 <= v <= 10.0 and math.isclose(v / 0.05, round(v / 0.05))
                   for v in values)


def test_frames_are_counted_in_utf8_bytes() -> None:
    assert pw.utf8_len("σ=1") == 4  # σ is two bytes
    assert pw.utf8_len(b"\x00\x01") == 2


def test_added_sessions_are_the_new_counts_only() -> None:
    assert pw._added([131, 131], [131, 131, 131, 384]) == [131, 384]
    assert pw._added([], [15, 15]) == [15, 15]
    assert pw._added([15], [15]) == []


def test_table_gives_each_page_its_ratio_to_the_bare_page() -> None:
    bare = pw.PageFigures(models_pulled=[16], objects=1000.0, html_bytes=[100], doc_bytes=[900],
                          build_cpu=[0.1], move_bytes=[200], move_msgs=[1], move_cpu=0.005)
    lab = pw.PageFigures(models_pulled=[160], objects=12000.0, html_bytes=[1000],
                         doc_bytes=[9000], build_cpu=[0.5], move_bytes=[20000], move_msgs=[2],
                         move_cpu=0.015)
    rows = pw.table({"bare": bare, "lab": lab})
    assert rows[0] == "| figure | bare | lab | lab/bare |"
    by_label = {r.split(" | ")[0].lstrip("| "): r for r in rows[2:]}
    assert by_label["Bokeh models per page (pulled)"].endswith("| 16 | 160 | 10.0× |")
    assert "| 1,000 | 12,000 | 12.0× |" in by_label["Python objects per page (gc-tracked)"]
    assert "| 1,000 | 10,000 | 10.0× |" in by_label["HTML + pulled document, bytes"]
    assert "| 5.00 | 15.00 | 3.0× |" in by_label["server CPU per move, ms"]
    # a figure not measured (no GET-only builds here) is a dash, never a number
    assert by_label["… of which the GET (page built, HTML sent), ms"].endswith("| – | – | – |")


def test_ratio_needs_a_usable_baseline() -> None:
    assert pw.ratio(3.0, 1.5) == "2.0×"
    assert pw.ratio(3.0, 0.0) == "–"
    assert pw.ratio(math.nan, 1.0) == "–"
