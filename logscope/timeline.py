"""The assembled timeline as a polars DataFrame, and the numbers derived from it.

One row per phase reading: launch, rank, phase, model, line, time, avail_gib, usage_gib and the
phase-specific numbers. Derived: each reading's drop from the previous reading of the same rank and
model (a measured delta), and per phase the min / max / spread across ranks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from logscope.model import Launch, TimelineNumbers
from logscope.phases import progress_phases

if TYPE_CHECKING:
    import polars as pl

COLUMNS = {
    "launch": "Int64", "rank": "Utf8", "phase": "Utf8", "model": "Utf8", "graph": "Utf8", "source": "Utf8",
    "line": "Int64", "time": "Utf8", "avail_gib": "Float64", "usage_gib": "Float64", "tokens": "Int64",
    "k_gib": "Float64", "v_gib": "Float64", "kv_gib": "Float64", "elapsed_s": "Float64", "bs": "Int64",
    "seq": "Int64",
}


def timeline_numbers(launches: list[Launch]) -> TimelineNumbers:
    """Each reading's drop since the previous one of its rank (measured), and per phase the min / max / spread
    across ranks (launches of at least two ranks)."""
    frame = timeline_frame(launches)
    drops = {(row["launch"], row["rank"], row["seq"]): (row["drop_gib"], row["prev_phase"])
             for row in with_deltas(frame).iter_rows(named=True) if row["drop_gib"] is not None}
    stats = cross_rank_stats(frame)
    per_launch = {launch.id: [{k: v for k, v in row.items() if k != "launch"}
                              for row in stats.filter(stats["launch"] == launch.id).iter_rows(named=True)
                              if row["ranks"] >= 2]
                  for launch in launches}
    return TimelineNumbers(drops, per_launch)


def timeline_frame(launches: list[Launch]) -> pl.DataFrame:
    import polars as pl

    rows: list[dict[str, Any]] = []
    for launch in launches:
        for label, timeline in launch.ranks.items():
            for seq, reading in enumerate(timeline.phases):
                fields = {"phase": reading.phase, "model": reading.model, "source": reading.source,
                          "line": reading.line, "time": reading.time, **reading.values}
                row = {key: fields.get(key) for key in COLUMNS}
                row.update(launch=launch.id, rank=label, seq=seq)
                if isinstance(row.get("bs"), list):
                    row["bs"] = None
                rows.append(row)
    schema = {name: getattr(pl, dtype) for name, dtype in COLUMNS.items()}
    frame = pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)
    return frame.sort(["launch", "rank", "seq"])


def with_deltas(frame: pl.DataFrame) -> pl.DataFrame:
    """drop_gib: free memory lost since the previous reading of the same rank and model (+: consumed)."""
    import polars as pl

    # tqdm progress readings sit inside a capture; the phase readings are the ones a drop is measured between
    readings = frame.filter(pl.col("avail_gib").is_not_null() & ~pl.col("phase").is_in(list(progress_phases())))
    readings = readings.with_columns(
        (pl.col("avail_gib").shift(1).over(["launch", "rank", "model"]) - pl.col("avail_gib"))
        .round(2)
        .alias("drop_gib"),
        pl.col("phase").shift(1).over(["launch", "rank", "model"]).alias("prev_phase"),
    )
    return readings


def cross_rank_stats(frame: pl.DataFrame) -> pl.DataFrame:
    """Per launch, phase and model: min / max / spread of the free memory over ranks (first reading each)."""
    import polars as pl

    readings = frame.filter(pl.col("avail_gib").is_not_null() & ~pl.col("phase").is_in(list(progress_phases())))
    firsts = readings.group_by(["launch", "rank", "phase", "model", "graph"], maintain_order=True).first()
    stats = firsts.group_by(["launch", "phase", "model", "graph"], maintain_order=True).agg(
        pl.col("avail_gib").min().alias("min_gib"),
        pl.col("avail_gib").max().alias("max_gib"),
        pl.col("rank").count().alias("ranks"),
    )
    return stats.with_columns(
        (pl.col("max_gib") - pl.col("min_gib")).round(2).alias("spread_gib"),
        pl.when(pl.col("max_gib") > 0)
        .then(((pl.col("max_gib") - pl.col("min_gib")) / pl.col("max_gib") * 100).round(1))
        .otherwise(None)
        .alias("spread_pct"),
    )
