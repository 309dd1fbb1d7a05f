"""`logscope scan` against a shell loop of `logscope analyze`, by hand: builds synthetic job folders from the
development corpus (8 rank files each, 20 KB-2 MB, log-uniform: a corpus paste padded with serving lines) in a
temporary folder and prints, side by side: the loop (measured on a sample of jobs and extrapolated, said so),
`scan` on the local pool (1 worker and the default of one per core: how throughput grows with workers), and
`scan --engine ray` on a local Ray instance when ray is installed. Targets (issue 36): scan >= 10x the loop,
peak RSS < 500 MiB (the largest process: the scan or a worker), ray within 1.5x of local.

    python bench/fleet.py                      # 1,000 jobs, loop on 50 of them
    python bench/fleet.py --jobs 200 --loop-sample 20
"""

from __future__ import annotations

import argparse
import math
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fixtures" / "real"
LOGSCOPE = [sys.executable, "-m", "logscope"]


def build(folder: Path, jobs: int, low_kb: int, high_kb: int, seed: int) -> int:
    """The job folders; returns the bytes written."""
    rng = random.Random(seed)
    pastes = sorted(p for p in CORPUS.iterdir() if p.suffix == ".log")
    heads = [p.read_bytes() for p in pastes]
    written = 0
    for j in range(jobs):
        job = folder / f"job-{j:04d}"
        job.mkdir(parents=True)
        head = heads[j % len(heads)]
        for rank in range(8):
            size = int(1024 * math.exp(rng.uniform(math.log(low_kb), math.log(high_kb))))
            line = (
                f"[2026-05-11 08:20:12 TP{rank}] Decode batch. #running-req: 12, #token: 8123, token usage: 0.02, "
                f"gen throughput (token/s): 812.33, #queue-req: 0\n"
            ).encode()
            body = head + line * max(0, (size - len(head)) // len(line))
            (job / f"rank{rank}.log").write_bytes(body)
            written += len(body)
    return written


def timed(command: list[str]) -> tuple[float, float]:
    """(seconds, peak RSS in MiB of the largest process the command started, itself included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1, 2) or "Traceback" in proc.stderr:
        raise SystemExit(f"{' '.join(command)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(peak, before) / 1024


def loop(jobs: list[Path]) -> float:
    """A shell loop: one `logscope analyze` process per job, its rank files named."""
    script = "for d in " + " ".join(str(j) for j in jobs) + '; do logscope analyze "$d"/*.log -f json > /dev/null; done'
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    start = time.perf_counter()
    subprocess.run(["bash", "-c", script], env=env, check=False, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--loop-sample", type=int, default=50, help="jobs the shell loop runs on (its time is extrapolated)")
    parser.add_argument("--min-kb", type=int, default=20)
    parser.add_argument("--max-kb", type=int, default=2048)
    parser.add_argument("--seed", type=int, default=36)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="logscope-fleet-bench-"))
    try:
        start = time.perf_counter()
        total = build(folder / "jobs", args.jobs, args.min_kb, args.max_kb, args.seed)
        print(
            f"built {args.jobs} jobs x 8 rank files, {total / 2**30:.2f} GiB, in {time.perf_counter() - start:.1f} s ({folder})"
        )
        jobs = sorted((folder / "jobs").iterdir())
        sample = jobs[: args.loop_sample]
        loop_s = loop(sample) * len(jobs) / len(sample)
        rows: list[tuple[str, float, float | None]]  # name, seconds, peak RSS (MiB) where measured
        rows = [(f"shell loop of `logscope analyze` (measured on {len(sample)} jobs, extrapolated)", loop_s, None)]
        cores = len(os.sched_getaffinity(0))
        for workers in sorted({1, cores}):
            seconds, rss = timed(
                [
                    *LOGSCOPE,
                    "scan",
                    str(folder / "jobs"),
                    "--out",
                    str(folder / f"out-{workers}"),
                    "--full",
                    "--workers",
                    str(workers),
                ]
            )
            rows.append((f"scan, local pool, {workers} worker{'s' if workers > 1 else ''}", seconds, rss))
        try:
            import ray  # noqa: F401

            seconds, rss = timed(
                [
                    *LOGSCOPE,
                    "scan",
                    str(folder / "jobs"),
                    "--out",
                    str(folder / "out-ray"),
                    "--full",
                    "--engine",
                    "ray",
                    "--workers",
                    str(cores),
                ]
            )
            rows.append((f"scan --engine ray, local instance, {cores} CPUs (start-up included)", seconds, rss))
        except ImportError:
            print("ray not installed: `scan --engine ray` not measured (pip install -e '.[fleet]')")
        print(f"\n{'run':<78} {'seconds':>8} {'jobs/s':>8} {'vs loop':>8} {'peak RSS':>9}")
        for name, seconds, peak_rss in rows:
            peak = f"{peak_rss:.0f} MiB" if peak_rss is not None else "-"
            print(f"{name:<78} {seconds:8.1f} {len(jobs) / seconds:8.1f} {loop_s / seconds:7.1f}x {peak:>9}")
        local = {name: s for name, s, _ in rows if name.startswith("scan, local")}
        if len(local) == 2:
            one, many = local.values()
            print(f"\nthroughput with {cores} workers / 1 worker: {one / many:.2f}x")
        ray_rows = [s for name, s, _ in rows if "ray" in name]
        if ray_rows:
            print(f"ray / local ({cores} workers) time: {ray_rows[0] / list(local.values())[-1]:.2f}x")
        print("peak RSS: the largest process a run started (the scan or one of its workers), from getrusage")
        print(f"load average at the end: {os.getloadavg()[0]:.1f} on {cores} cores (other work on the host skews every figure)")
    finally:
        if not args.keep:
            shutil.rmtree(folder)


if __name__ == "__main__":
    main()
