"""Crash loops, run by hand: `logscope analyze` on a log that holds the same startup thousands of times.

Two inputs, generated into bench/out/ (gitignored):
- `crash-loop-N.log`: the SGLang 0.5.23 TP=2 startup of `fixtures/upstream/sglang-0.5.23-tp2.log` (21 lines,
  server_args to the ready line) repeated N times, as a crash-looping pod's appended log holds it;
- `one-line-20mb.log`: one phase line (`Load weight begin`) repeated to 20 MB: every line starts a launch.

Each is analysed with `--format json` to a file, REPEAT times; the table gives the wall time, CPU (user + sys,
children included) and peak RSS (the largest of the process and its children) of each run, and the load
average at the start (the machine is shared).

    python bench/crash_loop.py                      # 10,000 launches and the 20 MB repetition
    python bench/crash_loop.py --launches 1000 --repeat 1 --timeout 300
    python bench/crash_loop.py --launches 100000 --cases loop --repeat 1 --timeout 600
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
STARTUP = HERE.parent / "fixtures" / "upstream" / "sglang-0.5.23-tp2.log"
PHASE_LINE = b"[2026-10-20 09:00:04 TP0] Load weight begin. avail mem=137.70 GB\n"
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def crash_loop(launches: int) -> Path:
    path = OUT / f"crash-loop-{launches}.log"
    if not path.exists():
        _write_repeated(path, STARTUP.read_bytes(), launches)
    return path


def one_line_repetition(size: int = 20_000_000) -> Path:
    path = OUT / "one-line-20mb.log"
    if not path.exists():
        _write_repeated(path, PHASE_LINE, size // len(PHASE_LINE))
    return path


def _write_repeated(path: Path, block: bytes, times: int) -> None:
    """Written 1,000 blocks at a time: a child started by a process that once held the whole file inherits that
    peak in its own ru_maxrss (Popen's vfork shares the memory map until exec), so a 600 MB input generated in one
    piece read as a 585 MiB peak of logscope."""
    OUT.mkdir(exist_ok=True)
    with path.open("wb") as handle:
        for done in range(0, times, 1000):
            handle.write(block * min(1000, times - done))


def run_once(path: Path, timeout: float) -> str:
    cmd = [sys.executable, "-m", "logscope", "analyze", str(path), "--format", "json", "--output", str(OUT / "out.json")]
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=_ENV, cwd=HERE.parent)
    deadline = started + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.kill()
            _, status, usage = os.wait4(proc.pid, 0)
            return f"killed after {timeout:.0f} s (RSS {usage.ru_maxrss / 1024:.0f} MiB)"
        time.sleep(0.05)
    elapsed = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    stderr = proc.stderr.read().decode(errors="replace").strip() if proc.stderr else ""
    note = f", exit {code}: {stderr[:200]}" if code not in (0, 1) else ""
    cpu = usage.ru_utime + usage.ru_stime
    return f"{elapsed:6.2f} s wall, CPU {cpu:6.2f} s, RSS {usage.ru_maxrss / 1024:5.0f} MiB{note}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--cases", nargs="*", default=["loop", "line"], choices=["loop", "line"])
    args = parser.parse_args()
    inputs = {"loop": crash_loop(args.launches), "line": one_line_repetition()}
    for case in args.cases:
        path = inputs[case]
        for _ in range(args.repeat):
            load = os.getloadavg()[0]
            size = path.stat().st_size / 1e6
            print(f"{path.name} ({size:.1f} MB), load {load:.1f}: {run_once(path, args.timeout)}", flush=True)


if __name__ == "__main__":
    main()
