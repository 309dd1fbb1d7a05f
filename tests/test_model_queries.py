"""The model's query vocabulary: a rank's reading of a phase and key, for the target or draft model, first or
last (what the ledger, the sizing and the plan ask instead of searching the readings by hand)."""

from __future__ import annotations

from logscope.core import kinds
from logscope.core.events import RankId
from logscope.core.model import DRAFT, TARGET, Launch, PhaseReading, RankTimeline


def _reading(phase: str, model: str, line: int, **values: float) -> PhaseReading:
    return PhaseReading(phase, model, "a.log", line, None, dict(values), f"line {line}")


def _timeline() -> RankTimeline:
    timeline = RankTimeline(rank=RankId("TP0", (("tp", 0),)), source="a.log")
    timeline.phases = [
        _reading(kinds.LOAD_WEIGHT_BEGIN, TARGET, 1, avail_gib=139.2),
        _reading(kinds.CAPTURE_BEGIN, TARGET, 2, avail_gib=40.0),
        _reading(kinds.CAPTURE_END, TARGET, 3, avail_gib=38.5, usage_gib=1.5),
        _reading(kinds.CAPTURE_BEGIN, DRAFT, 4, avail_gib=38.0),
        _reading(kinds.CAPTURE_END, DRAFT, 5, avail_gib=37.2),
        _reading(kinds.CAPTURE_END, TARGET, 6, avail_gib=36.9),
    ]
    return timeline


def test_first_and_last_reading_of_the_target_model():
    timeline = _timeline()
    assert timeline.reading(kinds.CAPTURE_END).line == 3
    assert timeline.reading(kinds.CAPTURE_END, pick="last").line == 6
    assert timeline.value(kinds.CAPTURE_END, "avail_gib", pick="last") == 36.9


def test_the_key_filters_and_the_draft_model_is_asked_for_by_name():
    timeline = _timeline()
    assert timeline.reading(kinds.CAPTURE_END, "usage_gib", pick="last").line == 3
    assert timeline.value(kinds.CAPTURE_END, "avail_gib", model=DRAFT) == 37.2
    assert [r.line for r in timeline.readings(kinds.CAPTURE_BEGIN, model=None)] == [2, 4]


def test_absent_readings_are_none_not_errors():
    timeline = _timeline()
    assert timeline.reading(kinds.MEMORY_POOL_END) is None
    assert timeline.value(kinds.LOAD_WEIGHT_BEGIN, "usage_gib") is None
    assert not timeline.has(kinds.LOAD_WEIGHT_BEGIN, model=DRAFT) and timeline.has(kinds.LOAD_WEIGHT_BEGIN)


def test_a_launch_answers_with_the_first_rank_that_has_the_reading():
    launch = Launch(id=0)
    empty = RankTimeline(rank=RankId("TP1", (("tp", 1),)), source="a.log")
    launch.ranks = {"TP1": empty, "TP0": _timeline()}
    assert launch.reading(kinds.LOAD_WEIGHT_BEGIN, "avail_gib").values["avail_gib"] == 139.2
    assert launch.reading(kinds.SCHEDULER_SUMMARY) is None
