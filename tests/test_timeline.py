"""The polars timeline: one row per reading, drops between a rank's readings, spread across ranks."""

from __future__ import annotations

import polars as pl
from polars.testing import assert_frame_equal

from logscope.events import RankId
from logscope.model import Launch, PhaseReading
from logscope.timeline import cross_rank_stats, timeline_frame, timeline_numbers, with_deltas


def _launch() -> Launch:
    def reading(phase: str, **values: float) -> PhaseReading:
        return PhaseReading(phase, "target", "x.log", 1, None, values, phase)

    launch = Launch(id=1)
    tp0 = launch.rank(RankId("TP0", (("tp", 0),)), "x.log")
    tp0.phases = [reading("load_weight_begin", avail_gib=78.0),
                  reading("load_weight_end", avail_gib=40.0, usage_gib=38.0),
                  reading("capture_progress", avail_gib=39.0, bs=8),
                  reading("memory_pool_end", avail_gib=8.5)]
    launch.rank(RankId("TP1", (("tp", 1),)), "x.log").phases = [reading("load_weight_begin", avail_gib=60.0)]
    return launch


LAUNCHES = [_launch()]


def test_drops_between_a_ranks_phase_readings():
    drops = with_deltas(timeline_frame(LAUNCHES)).select("rank", "phase", "drop_gib", "prev_phase")
    expected = pl.DataFrame({
        "rank": ["TP0", "TP0", "TP0", "TP1"],
        "phase": ["load_weight_begin", "load_weight_end", "memory_pool_end", "load_weight_begin"],
        "drop_gib": [None, 38.0, 31.5, None],
        "prev_phase": [None, "load_weight_begin", "load_weight_end", None],
    })
    assert_frame_equal(drops, expected)


def test_spread_across_ranks():
    stats = cross_rank_stats(timeline_frame(LAUNCHES)).filter(pl.col("phase") == "load_weight_begin")
    assert stats.select("min_gib", "max_gib", "spread_gib", "spread_pct", "ranks").row(0) == (60.0, 78.0, 18.0, 23.1, 2)


def test_the_report_carries_the_timeline_numbers():
    from tests.helpers import analyze_paths

    launch = analyze_paths("fixtures/real/h-001-sglang-11716.log")["launches"][0]
    tp0 = launch["ranks"][0]["phases"]
    assert [(p["phase"], p.get("drop_gib"), p.get("drop_since")) for p in tp0][-1] == (
        "capture_begin", 125.52, "load_weight_begin")
    begin = next(s for s in launch["phase_stats"] if s["phase"] == "load_weight_begin")
    assert (begin["min_gib"], begin["max_gib"], begin["ranks"]) == (137.29, 137.52, 8)


def test_timeline_numbers_key_the_drops_by_reading():
    numbers = timeline_numbers(LAUNCHES)
    assert numbers.drops[(1, "TP0", 1)] == (38.0, "load_weight_begin")
    assert numbers.drops[(1, "TP0", 3)] == (31.5, "load_weight_end")  # the tqdm reading at index 2 is skipped
    (stat,) = [s for s in numbers.stats[1] if s["phase"] == "load_weight_begin"]
    assert (stat["min_gib"], stat["max_gib"], stat["ranks"]) == (60.0, 78.0, 2)
