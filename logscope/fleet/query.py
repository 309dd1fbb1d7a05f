"""`logscope query DIR "SQL"`: polars SQL over the tables `logscope scan` wrote (each table by its name:
jobs, phases, findings, cells, ledger), printed as a table, CSV or JSON."""

from __future__ import annotations

import os

import polars as pl

from logscope.core.errors import LogscopeError
from logscope.fleet.schema import TABLE_NAMES
from logscope.fleet.tables import is_url, table_path

FORMATS = ("table", "csv", "json")


def run_query(folder: str, sql: str, fmt: str = "table") -> str:
    if not is_url(folder) and not all(os.path.exists(table_path(folder, name)) for name in TABLE_NAMES):
        raise LogscopeError(
            f"{folder}: holds no tables of `logscope scan` (jobs.parquet, ...); run `logscope scan PATH --out {folder}`"
        )
    context = pl.SQLContext({name: pl.scan_parquet(table_path(folder, name)) for name in TABLE_NAMES})
    try:
        result = context.execute(sql).collect()
    except (pl.exceptions.PolarsError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise LogscopeError(f"query: {first}") from None
    return render(result, fmt)


def render(df: pl.DataFrame, fmt: str) -> str:
    if fmt == "csv":  # CSV has no lists: a list column (findings.ranks) is joined with commas
        lists = [name for name, dtype in df.schema.items() if isinstance(dtype, pl.List)]
        return df.with_columns(pl.col(name).list.join(",") for name in lists).write_csv()
    if fmt == "json":
        return df.write_json() + "\n"
    with pl.Config(tbl_rows=-1, tbl_cols=-1, fmt_str_lengths=100, tbl_width_chars=200, tbl_hide_dataframe_shape=True):
        return f"{df}\n"
