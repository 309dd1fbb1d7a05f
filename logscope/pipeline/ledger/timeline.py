"""The assembled timeline as rows, and the numbers derived from it.

One row per phase reading (launch, rank, phase, model, graph, free GiB), in launch, rank and reading order.
Derived: each reading's drop from the previous reading of the same rank and model (a measured delta), and per
phase the min / max / spread across ranks. A few hundred rows even for a gigabyte of log, so plain Python:
importing a data-frame library cost more than the whole small-paste analysis. Rounding is half to even on the
scaled value (`round(x * 100, 0) / 100`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from logscope.core.model import Launch, TimelineNumbers
from logscope.core.phases import progress_phases


@dataclass(frozen=True, slots=True)
class Row:
    launch: int
    rank: str
    seq: int  # the reading's index in its rank's timeline
    phase: str
    model: str | None
    graph: str | None
    avail_gib: float


@dataclass(frozen=True, slots=True)
class Drop:
    row: Row
    drop_gib: float | None  # None: the first reading of its rank and model
    prev_phase: str | None


def timeline_numbers(launches: list[Launch]) -> TimelineNumbers:
    """Each reading's drop since the previous one of its rank (measured), and per phase the min / max / spread
    across ranks (launches of at least two ranks)."""
    rows = timeline_rows(launches)
    drops = {
        (d.row.launch, d.row.rank, d.row.seq): (d.drop_gib, d.prev_phase) for d in with_deltas(rows) if d.drop_gib is not None
    }
    stats = cross_rank_stats(rows)
    per_launch = {
        launch.id: [
            {k: v for k, v in row.items() if k != "launch"} for row in stats if row["launch"] == launch.id and row["ranks"] >= 2
        ]
        for launch in launches
    }
    return TimelineNumbers(drops, per_launch)  # type: ignore[arg-type]


def timeline_rows(launches: list[Launch]) -> list[Row]:
    """The phase readings with a free-memory figure (tqdm progress readings inside a capture left out: drops are
    measured between phase readings), sorted by launch, rank and reading."""
    progress = progress_phases()
    rows = [
        Row(launch.id, label, seq, reading.phase, reading.model, reading.values.get("graph"), float(reading.values["avail_gib"]))
        for launch in launches
        for label, timeline in launch.ranks.items()
        for seq, reading in enumerate(timeline.phases)
        if reading.values.get("avail_gib") is not None and reading.phase not in progress
    ]
    return sorted(rows, key=lambda r: (r.launch, r.rank, r.seq))


def with_deltas(rows: list[Row]) -> list[Drop]:
    """drop_gib: free memory lost since the previous reading of the same rank and model (+: consumed)."""
    previous: dict[tuple[int, str, str | None], Row] = {}
    out = []
    for row in rows:
        key = (row.launch, row.rank, row.model)
        before = previous.get(key)
        previous[key] = row
        out.append(
            Drop(
                row,
                None if before is None else _round(before.avail_gib - row.avail_gib, 2),
                None if before is None else before.phase,
            )
        )
    return out


def cross_rank_stats(rows: list[Row]) -> list[dict[str, Any]]:
    """Per launch, phase, model and graph: min / max / spread of the free memory over ranks (each rank's first
    reading), in the order the groups first appear."""
    firsts: dict[tuple[object, ...], Row] = {}
    for row in rows:
        firsts.setdefault((row.launch, row.rank, row.phase, row.model, row.graph), row)
    groups: dict[tuple[object, ...], list[Row]] = {}
    for row in firsts.values():
        groups.setdefault((row.launch, row.phase, row.model, row.graph), []).append(row)
    stats = []
    for (launch, phase, model, graph), members in groups.items():
        low, high = min(r.avail_gib for r in members), max(r.avail_gib for r in members)
        stats.append(
            {
                "launch": launch,
                "phase": phase,
                "model": model,
                "graph": graph,
                "min_gib": low,
                "max_gib": high,
                "ranks": len(members),
                "spread_gib": _round(high - low, 2),
                "spread_pct": _round((high - low) / high * 100, 1) if high > 0 else None,
            }
        )
    return stats


def _round(value: float, digits: int) -> float:
    scale = 10.0**digits
    return round(value * scale, 0) / scale
