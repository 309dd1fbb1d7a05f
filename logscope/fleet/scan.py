"""`logscope scan`: find the jobs, reuse the rows of those whose files did not change since the last scan into
the same output, analyse the rest on an engine, print a line per job (verdict first) and a summary, and write
the tables. Exit code: 2 when a job (or a file of it) could not be analysed, or on a usage error; else 1 when a
job has an error-severity finding (as `analyze` exits 1); else 0."""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone

import polars as pl
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from logscope.core.errors import LogscopeError
from logscope.core.printable import terminal_safe
from logscope.fleet import tables
from logscope.fleet.engines import local, ray_tasks
from logscope.fleet.jobs import Grouping, Job, find_jobs, newest
from logscope.fleet.rows import JobRows
from logscope.fleet.schema import column_names
from logscope.fleet.worker import Limits

EXIT_OK, EXIT_FINDINGS, EXIT_UNANALYSED = 0, 1, 2
PROGRESS_MIN_JOBS = 20  # a shorter scan prints its lines without a bar
_VERDICTS = ("error", "warning", "info", "ok", "unanalysed")
_SUMMARY = column_names("jobs").index("summary")


@dataclass(frozen=True, slots=True)
class ScanOptions:
    paths: list[str]
    out: str
    grouping: Grouping = field(default_factory=Grouping)
    engine: str = "local"  # local | ray
    address: str | None = None  # the Ray cluster (None: a local instance)
    workers: int = 0  # 0: one per core
    limits: Limits = field(default_factory=Limits)
    since_ns: int | None = None  # only jobs with a file modified at or after this time
    full: bool = False  # analyse every job again, whatever the earlier tables hold


@dataclass(slots=True)
class ScanResult:
    rows: list[JobRows]  # the jobs analysed by this scan
    reused: list[JobRows]  # the unchanged jobs, whose rows the earlier tables gave
    written: list[str]
    seconds: float
    workers_replaced: int = 0

    @property
    def exit_code(self) -> int:
        every = self.rows + self.reused
        if any(r.error or r.verdict == "unanalysed" for r in every):
            return EXIT_UNANALYSED
        return EXIT_FINDINGS if any(r.verdict == "error" for r in every) else EXIT_OK


def parse_since(text: str) -> int:
    """An ISO date or time ('2026-12-01', '2026-12-01T08:00', UTC unless it names a zone) or an age ('90m', '12h',
    '7d') → nanoseconds since the epoch."""
    age = re.fullmatch(r"(\d+(?:\.\d+)?)([smhd])", text.strip())
    if age:
        seconds = float(age.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400}[age.group(2)]
        return time.time_ns() - int(seconds * 1e9)
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise LogscopeError(f"--since {text}: not a date (2026-12-01, 2026-12-01T08:00) or an age (90m, 12h, 7d)") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp() * 1e9)


def run_scan(options: ScanOptions, console: Console | None = None) -> int:
    console = console or Console(soft_wrap=True, highlight=False)
    started = time.monotonic()
    jobs, missing = find_jobs(options.paths, options.grouping)
    if missing:
        raise LogscopeError("; ".join(missing))
    if options.since_ns is not None:
        jobs = [j for j in jobs if j.problems or newest(j) >= options.since_ns]
    if not jobs:
        raise LogscopeError(
            f"{' '.join(options.paths)}: no job to scan" + (" (none changed since --since)" if options.since_ns else "")
        )
    earlier = None if options.full else tables.read(options.out)
    unchanged, kept = _unchanged(jobs, earlier)
    todo = [j for j in jobs if j.name not in unchanged]
    results: list[JobRows] = []
    for job in jobs:
        if job.name in unchanged:
            console.print(_line(unchanged[job.name], reused=True), markup=False)
    engine: Iterator[JobRows]
    replaced = 0
    if options.engine == "ray":
        engine = ray_tasks.run(todo, options.limits, options.address, options.workers or local.cores())
        pool = None
    else:
        pool = local.LocalPool(options.limits, options.workers)
        engine = pool.run(todo)
    with _progress(console, len(todo)) as progress:
        task = progress.add_task("analysing", total=len(todo)) if progress else None
        for rows in engine:
            results.append(rows)
            (progress.console if progress else console).print(_line(rows), markup=False)
            if progress and task is not None:
                progress.advance(task)
    if pool is not None:
        replaced = pool.replaced
    frames = tables.frames(results, kept)
    written = tables.write(options.out, frames)
    result = ScanResult(results, list(unchanged.values()), written, time.monotonic() - started, replaced)
    _summary(console, frames, result, options)
    return result.exit_code


def _unchanged(
    jobs: list[Job], earlier: dict[str, pl.DataFrame] | None
) -> tuple[dict[str, JobRows], dict[str, pl.DataFrame] | None]:
    """Jobs whose files are as the earlier scan found them (same fingerprint, same logscope version, analysed
    without error) → their jobs row; and the earlier tables' rows of those jobs."""
    if earlier is None:
        return {}, None
    from logscope import __version__

    fingerprints = {j.name: j.on_disk().fingerprint for j in jobs}
    previous = earlier["jobs"].filter(pl.col("error").is_null() & (pl.col("logscope_version") == __version__))
    same = {
        row["job"]: JobRows(row["job"], row["verdict"], None)
        for row in previous.iter_rows(named=True)
        if fingerprints.get(row["job"]) == row["fingerprint"]
    }
    for row in previous.filter(pl.col("job").is_in(list(same))).iter_rows(named=True):
        same[row["job"]].tables["jobs"].append(tuple(row.values()))
    names = list(same)
    return same, {name: df.filter(pl.col("job").is_in(names)) for name, df in earlier.items()}


def _line(rows: JobRows, reused: bool = False) -> str:
    summary = rows.tables["jobs"][0][_SUMMARY] if rows.tables["jobs"] else ""
    tail = " (unchanged: rows reused)" if reused else ""
    if rows.error and rows.verdict != "unanalysed":
        tail += f" [left out: {rows.error}]"
    return terminal_safe(f"{rows.verdict:<10} {rows.job}: {summary}{tail}")  # names and text from the inputs


def _progress(console: Console, total: int) -> _Bar:
    return _Bar(console, total >= PROGRESS_MIN_JOBS and console.is_terminal)


class _Bar:
    def __init__(self, console: Console, shown: bool) -> None:
        self.progress = (
            Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=console,
                transient=True,
            )
            if shown
            else None
        )

    def __enter__(self) -> Progress | None:
        if self.progress is not None:
            self.progress.start()
        return self.progress

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()


def _summary(console: Console, frames: dict[str, pl.DataFrame], result: ScanResult, options: ScanOptions) -> None:
    jobs = frames["jobs"]
    verdicts = Counter(jobs["verdict"].to_list())
    by_verdict = ", ".join(f"{verdicts[v]} {v}" for v in _VERDICTS if verdicts[v])
    console.print(f"\n{len(jobs)} jobs: {by_verdict}", markup=False)
    failing = jobs.filter(pl.col("verdict").is_in(["error", "warning"]))
    mechanisms = Counter((m or "no mechanism named", v) for m, v in failing.select("top_mechanism", "verdict").iter_rows())
    if mechanisms:
        parts = [f"{n} {v} {m}" for (m, v), n in sorted(mechanisms.items(), key=lambda item: (-item[1], item[0]))]
        console.print(terminal_safe("by mechanism (top finding): " + ", ".join(parts)), markup=False)
    unanalysed = sum(1 for r in result.rows if r.error)
    analysed = len(result.rows)
    rate = analysed / result.seconds if result.seconds else 0.0
    engine = options.engine + (f" at {options.address}" if options.address else "")
    line = f"analysed {analysed} jobs ({rate:.1f} jobs/s, engine {engine}), reused {len(result.reused)} unchanged"
    if unanalysed:
        line += f"; {unanalysed} not (fully) analysed: the error column of the jobs table says why"
    if result.workers_replaced:
        line += f"; {result.workers_replaced} worker process{'es' if result.workers_replaced > 1 else ''} started again"
    console.print(line, markup=False)
    console.print(f"tables: {', '.join(result.written)}", markup=False)
    console.print(f'query them: logscope query {options.out} "SELECT verdict, count(*) FROM jobs GROUP BY verdict"', markup=False)
