"""The pure parts of benchmarks/real_followers.py: its options, the figures and the ratio
against the one-real-follower baseline, the breakdown of a real page's time, the server-log
check for the pages built ahead. No server, no browser, no clock."""

from __future__ import annotations

import math

import pytest
import real_followers as rf


def test_defaults_fit_a_short_run_and_counts_are_options() -> None:
    a = rf.parse_args([])
    assert (a.followers, a.pages, a.server_cmd, a.place, a.nodelay, a.settle) == (
        100, 4, "scripts/serve-prod", "other", True, 0.0)
    a = rf.parse_args(["--followers", "300", "--pages", "6", "--moves", "30", "--no-nodelay",
                       "--place", "teacher", "--prebuilt", "0", "--settle", "0"])
    assert (a.followers, a.pages, a.moves, a.nodelay, a.place, a.prebuilt, a.settle) == (
        300, 6, 30, False, "teacher", 0, 0.0)


@pytest.mark.parametrize("argv", [["--pages", "0"], ["--followers", "0"],
                                  ["--url", "http://127.0.0.1:1"], ["--place", "nowhere"]])
def test_bad_options_are_refused(argv: list[str]) -> None:
    with pytest.raises(SystemExit):
        rf.parse_args(argv)


def test_stats_in_milliseconds_with_the_lost_counted() -> None:
    s = rf.stats([0.1, 0.2, 0.3, 0.4, 0.5], lost=2)
    assert s["n"] == 5 and s["lost"] == 2
    assert s["p50_ms"] == pytest.approx(300.0)
    assert s["p95_ms"] == pytest.approx(480.0)  # linear between order statistics
    assert s["max_ms"] == pytest.approx(500.0)
    empty = rf.stats([], lost=3)
    assert empty["n"] == 0 and math.isnan(empty["p95_ms"]) and math.isnan(empty["max_ms"])


def test_ratio_is_nan_without_a_usable_baseline() -> None:
    assert rf.ratio(300.0, 150.0) == pytest.approx(2.0)
    assert math.isnan(rf.ratio(300.0, 0.0))
    assert math.isnan(rf.ratio(math.nan, 100.0))
    assert math.isnan(rf.ratio(100.0, math.nan))


def phase(name: str, real: list[float], proto: dict[str, list[float]],
          lost: int = 0) -> rf.Phase:
    ph = rf.Phase(name, real=list(real), real_lost=lost,
                  proto=[x for xs in proto.values() for x in xs],
                  proto_by_worker={w: list(xs) for w, xs in proto.items()})
    ph.deliveries = [rf.Delivery(frame=x - 0.004, dom=x, paint=x + 0.001, proto=x / 2,
                                 long_ms=60.0 if i == 0 else 0.0, worker="w2")
                     for i, x in enumerate(real)]
    return ph


def test_summary_holds_the_ratio_against_one_real_follower_and_the_target() -> None:
    base = phase("baseline", [0.1] * 10, {"w2": [0.05] * 10})
    cls = phase("class", [0.15] * 19 + [0.19], {"w1": [0.3] * 10, "w2": [0.1] * 10}, lost=1)
    r = rf.summary(base, cls, teacher_worker="w1")
    assert r["one_real"]["p95_ms"] == pytest.approx(100.0)
    assert r["ratio_real_p95"] == pytest.approx(r["real"]["p95_ms"] / 100.0)
    assert r["target_met"] is True  # ~1.7x <= 2x
    assert r["real"]["lost"] == 1
    assert r["proto_teacher_worker"]["p50_ms"] == pytest.approx(300.0)
    assert r["proto_other_workers"]["p50_ms"] == pytest.approx(100.0)
    slow = rf.summary(base, phase("class", [0.25] * 20, {"w1": [0.3]}), teacher_worker="w1")
    assert slow["ratio_real_p95"] == pytest.approx(2.5) and slow["target_met"] is False
    text = rf.report({**slow, "pages": 4, "followers": 100, "real_workers": ["w2"]})
    assert "2.50x" in text and "NOT met" in text
    assert "| class: real pages" in text and "teacher's worker w1" in text
    assert "WARNING" not in text


def test_a_baseline_held_up_on_the_workers_is_flagged() -> None:
    base = phase("baseline", [0.9] * 10, {"w2": [0.9] * 10})
    base.sent = [float(i) for i in range(10)]
    base.teacher_ok = [0.6] * 3 + [0.01] * 7  # three releases answered late
    cls = phase("class", [0.3] * 10, {"w2": [0.3] * 10})
    cls.sent, cls.teacher_ok = [float(i) for i in range(10)], [0.01] * 10
    r = rf.summary(base, cls, "w1")
    assert (r["stalled_baseline"], r["stalled_class"], r["moves_baseline"]) == (3, 0, 10)
    assert r["target_met"] is True  # ... which is why the report warns
    assert "WARNING: the baseline was held up" in rf.report(r)


def test_breakdown_medians_of_the_stages() -> None:
    b = rf.breakdown(phase("class", [0.1, 0.2, 0.3], {}).deliveries)
    assert b["n"] == 3
    assert b["dom_ms"] == pytest.approx(200.0)
    assert b["frame_to_dom_ms"] == pytest.approx(4.0)
    assert b["dom_to_paint_ms"] == pytest.approx(1.0)
    assert b["proto_ms"] == pytest.approx(100.0)
    assert b["with_long_task_pct"] == pytest.approx(100 / 3)
    assert b["long_task_ms_median"] == pytest.approx(60.0)
    none = rf.breakdown([])
    assert none["n"] == 0 and math.isnan(none["dom_ms"]) and math.isnan(none["with_long_task_pct"])


def test_pools_full_needs_every_worker_of_serve_prod() -> None:
    two = "serve-prod: worker w1 pid 1 on x\nserve-prod: worker w2 pid 2 on y\n"
    assert not rf.pools_full(two)
    assert not rf.pools_full(two + "INFO lab pages built ahead: ko 100\n")
    assert rf.pools_full(two + "lab pages built ahead: ko 100\n" * 2)
    assert rf.pools_full("lab pages built ahead: ko 24\n")  # one process
    assert not rf.pools_full("")


def test_renderer_busy_counts_the_main_threads_tasks_per_move() -> None:
    def task(pid: int, tid: int, start_s: float, dur_ms: float,
             name: str = rf.TRACE_TASK) -> dict[str, object]:
        return {"ph": "X", "pid": pid, "tid": tid, "name": name, "cat": "toplevel",
                "ts": start_s * 1e6, "dur": dur_ms * 1e3}

    meta = [{"ph": "M", "name": "thread_name", "pid": p, "tid": 1,
             "args": {"name": "CrRendererMain"}} for p in (10, 20)]
    meta.append({"ph": "M", "name": "thread_name", "pid": 10, "tid": 2,
                 "args": {"name": "Compositor"}})
    events = [*meta,
              task(10, 1, 100.01, 5), task(10, 1, 100.5, 300),  # move 1: 5 ms before the card
              task(10, 1, 100.5, 200, "Receive mojo message"),  # inside a task: not counted
              task(10, 2, 100.5, 900),  # another thread: not counted
              task(20, 1, 101.9, 100),  # the end of move 1's window
              task(10, 1, 102.2, 100)]  # move 2
    r = rf.renderer_busy({"traceEvents": events}, [100.0, 102.0], 2.0, card_s=[0.05])
    assert r["renderers"] == 2
    # per (renderer, move): 305, 100 (page 10); 100, 0 (page 20)
    assert r["busy_ms_per_move"] == pytest.approx(100.0)
    assert r["busy_ms_before_card"] == pytest.approx(0.0)  # median of 5, 0, 0, 0
    assert rf.renderer_busy([], [1.0], 2.0)["renderers"] == 0
