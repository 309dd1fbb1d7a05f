"""One job, analysed in this process by the pipeline's entry (logscope/pipeline/analyze.py): no interpreter per
job. A file the pipeline refuses (unreadable, binary, corrupt compressed data) is left out and named, and the rest
of the job is analysed; a job that cannot be analysed at all becomes a row with its error. Never raises for bad input."""

from __future__ import annotations

import resource
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from logscope.core.errors import LogscopeError
from logscope.core.printable import shown_name
from logscope.fleet.jobs import Job
from logscope.fleet.rows import JobRows, rows_from_document, unanalysed_rows

GiB = 1 << 30
# the warnings that make `analyze` exit 1 too (logscope/cli.py: a failure it could not name never exits 0)
_FAILING_WARNINGS = frozenset({"unrecognized-failure"})


@dataclass(frozen=True, slots=True)
class Limits:
    """What one job may cost. The time limit is the engine's (it replaces a worker that overruns it)."""

    max_job_bytes: int = 4 * GiB  # a job with more bytes of files is a row with its error, never read
    memory_bytes: int = 2 * GiB  # address space of a worker process (RLIMIT_AS), 0: no bound
    timeout_s: float = 300.0
    redact: bool = True  # as `analyze` does by default: the tables do not keep secrets, e-mails, IPs, host names


def bound_memory(limits: Limits) -> None:
    """Cap this process's address space: a job that needs more gets MemoryError (a row with its error), and the
    machine keeps its memory. Called in a worker process, never in the process that runs `scan`."""
    if limits.memory_bytes:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = limits.memory_bytes if hard == resource.RLIM_INFINITY else min(limits.memory_bytes, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def warm_up() -> None:
    """Import the pipeline's stages (and their grammars, signatures and rules) once per worker, before the first
    job's clock starts."""
    from logscope.pipeline.analyze import analyze_sources
    from logscope.pipeline.ingest.ingest import Source

    analyze_sources([Source(name="warm-up.log", path=None, data=b"")], parallel=False)


def analyse_job(job: Job, limits: Limits) -> JobRows:
    files = job.on_disk()
    left_out = list(job.problems)
    if files.bytes > limits.max_job_bytes:
        why = f"{_gib(files.bytes)} of files, over the scan's cap of {_gib(limits.max_job_bytes)} per job (--max-job-bytes)"
        return unanalysed_rows(job.name, files, why + "; analyse it alone with `logscope analyze`", len(job.files))
    paths = [f.path for f in job.files]
    out_of_memory = False
    while paths:
        try:
            document = _analyse(paths, limits)
        except MemoryError:
            # nothing allocated here: the traceback holds the frames that hold the memory, and leaving this
            # block frees them; the row is made after it
            out_of_memory = True
            break
        except LogscopeError as exc:
            culprit = next((p for p in paths if str(exc).startswith(f"{shown_name(p)}:")), None)
            if culprit is None:
                return unanalysed_rows(job.name, files, _joined([*left_out, str(exc)]), len(job.files))
            left_out.append(str(exc))
            paths.remove(culprit)
            continue
        except Exception as exc:  # noqa: BLE001 - an internal error is one job's row, never the end of a scan
            why = f"internal error: {type(exc).__name__}: {exc} (please report this with the job's files)"
            return unanalysed_rows(job.name, files, _joined([*left_out, why]), len(job.files))
        exit_code = 2 if left_out else _exit_code(document)
        return rows_from_document(job.name, document, files, _joined(left_out) or None, exit_code, len(paths))
    if out_of_memory:
        why = f"out of memory: the job needed more than the per-job bound of {_gib(limits.memory_bytes)} (--job-memory)"
        return unanalysed_rows(job.name, files, _joined([*left_out, why]), len(job.files))
    return unanalysed_rows(job.name, files, _joined(left_out) or "no file to read", len(job.files))


def _analyse(paths: list[str], limits: Limits) -> dict[str, Any]:
    from logscope.core.redact import KINDS, redact_document
    from logscope.pipeline.analyze import analyze_sources
    from logscope.pipeline.ingest.ingest import Source, rank_hint_from_name

    sources = [Source(name=shown_name(p), path=Path(p), rank_hint=rank_hint_from_name(p)) for p in paths]
    document = analyze_sources(sources, parallel=False)
    redacted: dict[str, Any] = redact_document(document, () if limits.redact else KINDS)
    return redacted


def _exit_code(document: dict[str, Any]) -> int:
    fails = any(f["severity"] == "error" or f["rule"] in _FAILING_WARNINGS for f in document["findings"])
    return 1 if fails else 0


def _joined(problems: list[str]) -> str:
    return "; ".join(problems)


def _gib(count: int) -> str:
    return f"{count / GiB:.1f} GiB" if count >= GiB else f"{count / (1 << 20):.0f} MiB"
