"""The same per-job analysis as Ray tasks, on the cluster `ray.init(address)` reaches (or a local instance).
At most one task per CPU of the cluster is in flight, so a task's clock (the time limit) starts about when it
does; a task that overruns it is cancelled (its worker killed, Ray starts another), and a task Ray loses (a
worker crash, Ray's memory monitor) becomes a row with its error. Each node needs sglang-logscope installed."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from logscope.core.errors import LogscopeError
from logscope.fleet.jobs import Job
from logscope.fleet.rows import JobRows, unanalysed_rows
from logscope.fleet.worker import Limits, analyse_job


def available() -> bool:
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


def _task(job: Job, limits: Limits) -> JobRows:
    return analyse_job(job, limits)


def start(address: str | None, workers: int) -> Any:
    """Connect to the cluster at `address` (None: start a local instance with `workers` CPUs)."""
    try:
        import ray
    except ImportError:
        raise LogscopeError(
            "--engine ray: ray is not installed (from the logscope clone: pip install '.[fleet]'; "
            "sglang-logscope is not published on the package index)"
        ) from None
    if not ray.is_initialized():
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": "ERROR"}
        if address is None:
            options["num_cpus"] = workers
        try:
            ray.init(address=address, **options)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise LogscopeError(
                f"--engine ray: cannot reach the Ray cluster at {address or 'a new local instance'}: {exc}"
            ) from None
    return ray


def run(jobs: list[Job], limits: Limits, address: str | None, workers: int) -> Iterator[JobRows]:
    ray = start(address, workers)
    remote = ray.remote(max_retries=0, num_cpus=1)(_task)
    window = max(1, int(ray.cluster_resources().get("CPU", 1)))
    pending = list(reversed(jobs))
    flying: dict[Any, tuple[Job, float]] = {}
    while pending or flying:
        while pending and len(flying) < window:
            job = pending.pop()
            flying[remote.remote(job, limits)] = (job, time.monotonic())
        deadline = min(started + limits.timeout_s for _, started in flying.values())
        done, _ = ray.wait(list(flying), num_returns=1, timeout=max(0.01, deadline - time.monotonic()))
        for ref in done:
            job, _started = flying.pop(ref)
            try:
                yield ray.get(ref)
            except ray.exceptions.RayError as exc:
                why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                yield unanalysed_rows(
                    job.name, job.on_disk(), f"the Ray task failed: {type(exc).__name__}: {why}", len(job.files)
                )
        now = time.monotonic()
        for ref, (job, started) in list(flying.items()):
            if now - started > limits.timeout_s:
                ray.cancel(ref, force=True)
                del flying[ref]
                why = f"timed out after {limits.timeout_s:g} s (--job-timeout); its Ray task was cancelled"
                yield unanalysed_rows(job.name, job.on_disk(), why, len(job.files))
