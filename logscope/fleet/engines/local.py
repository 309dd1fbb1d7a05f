"""A pool of worker processes, one per core by default, each analysing one job at a time in-process. A worker
runs under an address-space bound (worker.bound_memory); a job that overruns the time limit has its worker
killed and replaced, and so has a worker that dies (a native crash, the kernel's OOM killer): either way the job
becomes a row with its error and the scan goes on."""

from __future__ import annotations

import errno
import multiprocessing
import os
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess

from logscope.core.errors import LogscopeError
from logscope.fleet.jobs import Job
from logscope.fleet.rows import JobRows, unanalysed_rows
from logscope.fleet.worker import Limits

_EXIT_CANNOT_LOAD = 3  # a worker's exit status when the pipeline could not be loaded under the memory bound
_FAILED_STARTS = 3  # workers that died before their first job, after which the scan stops with an error
_TIMED_JOBS = 3  # jobs timed before the pool judges whether another worker pays


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _serve(conn: Connection, limits: Limits) -> None:
    """A worker's loop: jobs in, rows out, until the pool sends None."""
    from logscope.fleet.worker import analyse_job, bound_memory, warm_up

    try:
        bound_memory(limits)
        warm_up()
    # the bound is too low for the pipeline to load: the pool says so, once. CPython's parser, compiling a module that
    # has no current .pyc under the bound, reports its failed allocation as a SyntaxError, or as a ValueError when an
    # AST node could not be built ("field 'target' is required for AnnAssign"); an import whose C code fails an
    # allocation without setting MemoryError reports "SystemError: error return without exception set"
    except (MemoryError, ImportError, SyntaxError, SystemError):
        os._exit(_EXIT_CANNOT_LOAD)
    except ValueError:
        if not limits.memory_bytes:
            raise
        os._exit(_EXIT_CANNOT_LOAD)
    # the OS refusing memory under the bound: the import system listing a package's folder (os.listdir) fails with
    # ENOMEM
    except OSError as e:
        if e.errno != errno.ENOMEM or not limits.memory_bytes:
            raise
        os._exit(_EXIT_CANNOT_LOAD)
    conn.send(("ready", None))
    while True:
        job = conn.recv()
        if job is None:
            return
        conn.send(("start", None))
        conn.send(("done", analyse_job(job, limits)))


@dataclass(slots=True)
class _Worker:
    process: BaseProcess
    conn: Connection
    ready: bool = False
    gone: bool = False  # its pipe reached its end: the process exited or is exiting
    job: Job | None = None
    started: float | None = None  # when the worker began the job (its clock starts there, not at start-up)
    born: float = field(default_factory=time.monotonic)
    ready_at: float | None = None  # when it began its first job: its start-up took ready_at - born
    last_start: float | None = None  # when it began its latest job (kept after it ends, to time it)
    done: int = 0  # jobs it finished


class _Pace:
    """When one more worker pays: a worker's start-up (the interpreter, the pipeline's imports, its grammars and
    rules) costs about a second, so a second worker only helps when the jobs left would keep the ones there busy
    for longer than that, and when a core is idle for it. Many small jobs (a job in tens of milliseconds) stay on
    the first worker; large ones get every idle core. Until a few jobs are timed, one worker runs."""

    def __init__(self, now: float) -> None:
        self.started = now
        self.startup_s: float | None = None
        self.jobs = 0
        self.busy_s = 0.0

    def job_done(self, w: _Worker) -> None:
        if w.ready_at is not None and self.startup_s is None:
            self.startup_s = w.ready_at - w.born
        w.done += 1
        if w.last_start is not None and w.done > 1:  # a worker's first job also pays for what loads on first use
            self.jobs += 1
            self.busy_s += time.monotonic() - w.last_start

    def worth_another(self, pending: int, workers: int) -> bool:
        if self.startup_s is None or self.jobs < _TIMED_JOBS:
            return False
        left_s = pending * self.busy_s / self.jobs / workers
        return left_s > 2 * self.startup_s and _idle_cores() >= 0.5


def _idle_cores() -> float:
    """Cores no process wants (the cores less the load average): a worker more on a machine whose cores are all
    taken only shares them, and pays its start-up on top."""
    return cores() - os.getloadavg()[0] if hasattr(os, "getloadavg") else 1.0


class LocalPool:
    def __init__(self, limits: Limits, workers: int = 0) -> None:
        self.limits = limits
        self.size = workers or cores()
        # spawn: the process that runs `scan` has polars' threads; a fork could copy a lock a thread holds
        self.context = multiprocessing.get_context("spawn")
        self.replaced = 0  # workers started again after a death or a time-out
        self.failed_starts = 0

    def _start(self) -> _Worker:
        parent, child = self.context.Pipe()
        process = self.context.Process(target=_serve, args=(child, self.limits), daemon=True)
        process.start()
        child.close()
        return _Worker(process, parent)

    def run(self, jobs: list[Job]) -> Iterator[JobRows]:
        pending = deque(jobs)
        pace = _Pace(time.monotonic())
        workers = [self._start()] if jobs else []
        try:
            while pending or any(w.job is not None for w in workers):
                if len(workers) < min(self.size, len(pending) + 1) and pace.worth_another(len(pending), len(workers)):
                    workers.append(self._start())
                for w in workers:
                    if w.ready and w.job is None and pending:
                        w.job, w.started = pending.popleft(), None
                        w.conn.send(w.job)
                kept: list[_Worker] = []
                for w in workers:
                    rows = self._receive(w)
                    if rows is None and not w.process.is_alive():
                        rows = self._receive(w)  # what it sent just before it ended
                    if rows is not None:
                        pace.job_done(w)
                        yield rows
                    lost = self._lost_job(w)
                    if lost is None:
                        kept.append(w)
                        continue
                    job, why = lost
                    self._stop(w, kill=True)
                    if job is not None:
                        yield unanalysed_rows(job.name, job.on_disk(), why, len(job.files))
                    if pending:
                        kept.append(self._start())
                        self.replaced += 1
                workers = kept
                if pending and not workers:
                    workers.append(self._start())
                idle = any(w.ready and w.job is None for w in workers)
                if (pending and not idle) or (not pending and any(w.job is not None for w in workers)):
                    wait([w.conn for w in workers] + [w.process.sentinel for w in workers], timeout=self._next_deadline(workers))
        finally:
            for w in workers:
                self._stop(w)

    def _lost_job(self, w: _Worker) -> tuple[Job | None, str] | None:
        """(its job, why) for a worker that died or overran the time limit; None for one that goes on."""
        if w.gone or not w.process.is_alive():
            w.process.join(timeout=5)
            if not w.ready:
                self.failed_starts += 1
                if self.failed_starts > _FAILED_STARTS:
                    raise LogscopeError(
                        f"scan: the worker processes die before their first job (exit status {w.process.exitcode}); "
                        "is --job-memory too low for the pipeline to load?"
                    )
            return w.job, f"the worker process died while analysing it (exit status {w.process.exitcode})"
        if w.job is not None and w.started is not None and time.monotonic() - w.started > self.limits.timeout_s:
            return w.job, f"timed out after {self.limits.timeout_s:g} s (--job-timeout); its worker process was killed"
        return None

    def _receive(self, w: _Worker) -> JobRows | None:
        """The worker's messages so far (its rows when it finished its job); the end of its pipe marks it gone."""
        try:
            while w.conn.poll():
                kind, value = w.conn.recv()
                if kind == "ready":
                    w.ready = True
                elif kind == "start":
                    w.started = w.last_start = time.monotonic()
                    w.ready_at = w.ready_at or w.started
                elif kind == "done":
                    rows: JobRows = value
                    w.job, w.started = None, None
                    return rows
        except (EOFError, OSError):
            w.gone = True
        return None

    def _next_deadline(self, workers: list[_Worker]) -> float:
        now = time.monotonic()
        left = [w.started + self.limits.timeout_s - now for w in workers if w.started is not None]
        return max(0.01, min(left, default=1.0))

    def _stop(self, w: _Worker, kill: bool = False) -> None:
        if not kill and w.process.is_alive():
            try:
                w.conn.send(None)
            except OSError:
                kill = True
            w.process.join(timeout=5)
        if w.process.is_alive():
            w.process.kill()
            w.process.join()
        w.conn.close()
