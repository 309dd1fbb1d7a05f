"""The timeline: one row per reading, drops between a rank's readings, spread across ranks."""

from __future__ import annotations

import pytest

from logscope.core.events import RankId
from logscope.core.model import Launch, PhaseReading
from logscope.pipeline.ledger.timeline import _round, cross_rank_stats, timeline_numbers, timeline_rows, with_deltas


def _launch() -> Launch:
    def reading(phase: str, **values: float) -> PhaseReading:
        return PhaseReading(phase, "target", "x.log", 1, None, values, phase)

    launch = Launch(id=1)
    tp0 = launch.rank(RankId("TP0", (("tp", 0),)), "x.log")
    tp0.phases = [
        reading("load_weight_begin", avail_gib=78.0),
        reading("load_weight_end", avail_gib=40.0, usage_gib=38.0),
        reading("capture_progress", avail_gib=39.0, bs=8),
        reading("memory_pool_end", avail_gib=8.5),
    ]
    launch.rank(RankId("TP1", (("tp", 1),)), "x.log").phases = [reading("load_weight_begin", avail_gib=60.0)]
    return launch


LAUNCHES = [_launch()]


def test_drops_between_a_ranks_phase_readings():
    drops = [(d.row.rank, d.row.phase, d.drop_gib, d.prev_phase) for d in with_deltas(timeline_rows(LAUNCHES))]
    assert drops == [
        ("TP0", "load_weight_begin", None, None),
        ("TP0", "load_weight_end", 38.0, "load_weight_begin"),
        ("TP0", "memory_pool_end", 31.5, "load_weight_end"),
        ("TP1", "load_weight_begin", None, None),
    ]


def test_spread_across_ranks():
    (stats,) = [s for s in cross_rank_stats(timeline_rows(LAUNCHES)) if s["phase"] == "load_weight_begin"]
    assert [stats[k] for k in ("min_gib", "max_gib", "spread_gib", "spread_pct", "ranks")] == [60.0, 78.0, 18.0, 23.1, 2]


# half to even on the scaled value
@pytest.mark.parametrize(
    ("value", "digits", "rounded"),
    [
        (0.125, 2, 0.12),
        (0.375, 2, 0.38),
        (2.675, 2, 2.68),
        (1.005, 2, 1.0),
        (-0.125, 2, -0.12),
        (137.52 - 137.29, 2, 0.23),
        (2.5, 0, 2.0),
        (-0.5, 0, -0.0),
    ],
)
def test_rounding_is_half_to_even_on_the_scaled_value(value, digits, rounded):
    assert _round(value, digits) == rounded and str(_round(value, digits)) == str(rounded)


def test_the_report_carries_the_timeline_numbers():
    from tests.helpers import analyze_paths

    launch = analyze_paths("fixtures/real/h-001-sglang-11716.log")["launches"][0]
    tp0 = launch["ranks"][0]["phases"]
    assert [(p["phase"], p.get("drop_gib"), p.get("drop_since")) for p in tp0][-1] == (
        "capture_begin",
        125.52,
        "load_weight_begin",
    )
    begin = next(s for s in launch["phase_stats"] if s["phase"] == "load_weight_begin")
    assert (begin["min_gib"], begin["max_gib"], begin["ranks"]) == (137.29, 137.52, 8)


def test_timeline_numbers_key_the_drops_by_reading():
    numbers = timeline_numbers(LAUNCHES)
    assert numbers.drops[(1, "TP0", 1)] == (38.0, "load_weight_begin")
    assert numbers.drops[(1, "TP0", 3)] == (31.5, "load_weight_end")  # the tqdm reading at index 2 is skipped
    (stat,) = [s for s in numbers.stats[1] if s["phase"] == "load_weight_begin"]
    assert (stat["min_gib"], stat["max_gib"], stat["ranks"]) == (60.0, 78.0, 2)
