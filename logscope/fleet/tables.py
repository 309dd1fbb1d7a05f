"""Rows → polars DataFrames → Parquet files `<table>.parquet` in the output folder (or under an object-store URL,
written by polars with the credentials its object store finds in the environment), and the earlier tables read
back for an incremental scan. The schema version is written in each file's metadata."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable

import polars as pl

from logscope.fleet.rows import JobRows, Row
from logscope.fleet.schema import SCHEMA_VERSION, TABLE_NAMES, TABLES

_TYPES: dict[str, pl.DataType] = {
    "str": pl.String(),
    "int": pl.Int64(),
    "float": pl.Float64(),
    "bool": pl.Boolean(),
    "list[str]": pl.List(pl.String()),
}
METADATA_KEY = "logscope_fleet_schema"


def polars_schema(table: str) -> pl.Schema:
    return pl.Schema({c.name: _TYPES[c.type] for c in TABLES[table]})


def frame(table: str, rows: Iterable[Row]) -> pl.DataFrame:
    return pl.DataFrame(list(rows), schema=polars_schema(table), orient="row")


def frames(jobs: Iterable[JobRows], reused: dict[str, pl.DataFrame] | None = None) -> dict[str, pl.DataFrame]:
    """Every table from the jobs' rows (and the rows an incremental scan kept), sorted by job."""
    collected: dict[str, list[Row]] = {name: [] for name in TABLE_NAMES}
    for job in jobs:
        for name in TABLE_NAMES:
            collected[name].extend(job.tables[name])
    out = {}
    for name in TABLE_NAMES:
        parts = [frame(name, collected[name])]
        if reused is not None and name in reused:
            parts.append(reused[name])
        out[name] = pl.concat(parts).sort("job", maintain_order=True)
    return out


def is_url(out: str) -> bool:
    return "://" in out


def table_path(out: str, table: str) -> str:
    return f"{out.rstrip('/')}/{table}.parquet"


def write(out: str, tables: dict[str, pl.DataFrame]) -> list[str]:
    """Write every table; a local file is written beside its place and renamed over it (a reader never sees half a
    table). The paths written, in table order."""
    written = []
    if not is_url(out):
        os.makedirs(out, exist_ok=True)
    for name, df in tables.items():
        path = table_path(out, name)
        metadata = {METADATA_KEY: SCHEMA_VERSION}
        if is_url(out):
            df.write_parquet(path, metadata=metadata)
        else:
            handle, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".parquet", dir=out)
            os.close(handle)
            try:
                df.write_parquet(temporary, metadata=metadata)
                os.replace(temporary, path)
            except BaseException:
                os.unlink(temporary)
                raise
        written.append(path)
    return written


def read(out: str) -> dict[str, pl.DataFrame] | None:
    """The tables an earlier scan wrote to `out`, or None when there are none, or when they were written with
    another schema version (they are then not reused: every job is analysed again)."""
    tables = {}
    for name in TABLE_NAMES:
        path = table_path(out, name)
        if not is_url(out) and not os.path.exists(path):
            return None
        try:
            if pl.read_parquet_metadata(path).get(METADATA_KEY) != SCHEMA_VERSION:
                return None
            df = pl.read_parquet(path)
        except (OSError, pl.exceptions.PolarsError):
            return None
        if df.schema != polars_schema(name):
            return None
        tables[name] = df
    return tables
