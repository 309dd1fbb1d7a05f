"""`logscope query DIR "SQL"`: polars SQL over the tables `logscope scan` wrote (each table by its name:
jobs, phases, findings, cells, ledger), printed as a table, CSV or JSON.

The SQL reads those tables only (fleet/sql_guard.py: no file, URL or table function), and runs in a child
process under a memory cap (its address space: past it polars' allocation fails and the child ends) and a time
cap (the child is killed): a cross join of two large tables is one line of error, never the machine's memory."""

from __future__ import annotations

import multiprocessing
import os
import resource
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection

import polars as pl

from logscope.core.errors import LogscopeError
from logscope.core.printable import terminal_safe
from logscope.fleet.schema import TABLE_NAMES
from logscope.fleet.sql_guard import check_sql
from logscope.fleet.tables import is_url, table_path

FORMATS = ("table", "csv", "json")
GiB = 1 << 30


@dataclass(frozen=True)
class QueryLimits:
    memory_bytes: int = 4 * GiB  # the child's address space
    seconds: float = 60.0


def run_query(folder: str, sql: str, fmt: str = "table", limits: QueryLimits | None = None, terminal: bool = False) -> str:
    """The query's result rendered in `fmt`; `terminal`: control characters in the values are shown as escapes."""
    limits = limits or QueryLimits()
    if not is_url(folder) and not all(os.path.exists(table_path(folder, name)) for name in TABLE_NAMES):
        raise LogscopeError(
            f"{folder}: holds no tables of `logscope scan` (jobs.parquet, ...); run `logscope scan PATH --out {folder}`"
        )
    check_sql(sql, TABLE_NAMES)
    receive, send = multiprocessing.Pipe(duplex=False)
    child = multiprocessing.get_context("spawn").Process(
        target=_child, args=(send, folder, sql, fmt, limits.memory_bytes, terminal)
    )
    child.start()
    send.close()
    deadline = time.monotonic() + limits.seconds
    kind, text = "starting", ""
    try:
        while kind in ("starting", "ready"):
            if not receive.poll(max(deadline - time.monotonic(), 0.0)):
                raise LogscopeError(f"query: stopped after {limits.seconds:g} s, its time cap (--timeout)")
            try:
                kind, text = receive.recv()
            except EOFError:
                if kind == "ready":  # the query itself ended the process: an allocation past the cap aborts it
                    raise LogscopeError(
                        f"query: ran out of its memory cap of {limits.memory_bytes / GiB:g} GiB (--max-memory)"
                    ) from None
                raise LogscopeError(f"query: the process that runs it could not start (exit code {child.exitcode})") from None
    finally:
        receive.close()
        if child.is_alive():
            child.kill()
        child.join(5)
    if kind == "error":
        raise LogscopeError(text)
    return str(text)


def _child(send: Connection, folder: str, sql: str, fmt: str, memory_bytes: int, terminal: bool) -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)  # an allocation past the cap aborts with a Rust backtrace: the parent says it in one line
    if memory_bytes:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(
            resource.RLIMIT_AS, (memory_bytes if hard == resource.RLIM_INFINITY else min(memory_bytes, hard), hard)
        )
    send.send(("ready", ""))
    try:
        send.send(("ok", execute(folder, sql, fmt, terminal)))
    except LogscopeError as exc:
        send.send(("error", str(exc)))
    except MemoryError:
        send.close()


def execute(folder: str, sql: str, fmt: str, terminal: bool = False) -> str:
    context = pl.SQLContext({name: pl.scan_parquet(table_path(folder, name)) for name in TABLE_NAMES})
    try:
        result = context.execute(sql).collect()
    except (pl.exceptions.PolarsError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise LogscopeError(f"query: {first}") from None
    return render(_printable(result) if terminal else result, fmt)


def _printable(df: pl.DataFrame) -> pl.DataFrame:
    """Text values with their control characters shown as escapes (a job name with `\\x1b[31m` stays text)."""
    safe = pl.element().map_elements(terminal_safe, return_dtype=pl.String)
    changes = [
        pl.col(name).map_elements(terminal_safe, return_dtype=pl.String) for name, t in df.schema.items() if t == pl.String
    ]
    lists = [pl.col(name).list.eval(safe) for name, t in df.schema.items() if t == pl.List(pl.String)]
    return df.with_columns(*changes, *lists) if changes or lists else df


def render(df: pl.DataFrame, fmt: str) -> str:
    if fmt == "csv":  # CSV has no lists: a list column (findings.ranks) is joined with commas
        lists = [name for name, dtype in df.schema.items() if isinstance(dtype, pl.List)]
        return df.with_columns(pl.col(name).list.join(",") for name in lists).write_csv()
    if fmt == "json":
        return df.write_json() + "\n"
    with pl.Config(tbl_rows=-1, tbl_cols=-1, fmt_str_lengths=100, tbl_width_chars=200, tbl_hide_dataframe_shape=True):
        return f"{df}\n"
