"""What `logscope run` costs a launch (by hand: python bench/run_overhead.py [--seconds 20] [--nvml fake|real]).

1. pass-through latency: `python -m logscope run --no-analysis -- <child>` where the child prints a line holding
   its wall-clock time every 20 ms (every 10th a 0.5.23 phase line, so the grammar and a sample are on the
   path); this script reads logscope's stdout and takes now - stamp for each line (target: under 50 ms).
2. CPU while sampling: `run_launch` in this process, the child printing 10 lines a second, NVML sampled every
   0.5 s and at each phase line; the process's CPU time over the wall time (target: under 2%). --nvml fake
   uses tests/fake_nvml.py (no GPU needed; it reads a small state file per call), --nvml real uses pynvml.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PHASE = "[2026-10-20 09:00:04 TP0] Load weight begin. avail mem=137.70 GB"
CHILD = """
import sys, time
n, every = int(sys.argv[1]), float(sys.argv[2])
for i in range(n):
    text = {phase!r} if i % 10 == 0 else "serving line " + "x" * 80
    sys.stdout.write(f"{{time.time():.6f}} {{text}}\\n")
    sys.stdout.flush()
    time.sleep(every)
"""


def latency(lines: int) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        child = Path(tmp) / "child.py"
        child.write_text(CHILD.format(phase=PHASE))
        command = [sys.executable, "-m", "logscope", "run", "--no-analysis", "--out", str(Path(tmp) / "out"), "--"]
        proc = subprocess.Popen([*command, sys.executable, str(child), str(lines), "0.02"], stdout=subprocess.PIPE, cwd=ROOT)
        delays = []
        assert proc.stdout is not None
        for raw in proc.stdout:
            now = time.time()
            stamp = raw.split(b" ", 1)[0]
            try:
                delays.append((now - float(stamp)) * 1000)
            except ValueError:
                continue
        proc.wait()
    return delays


def cpu(seconds: float, nvml_kind: str) -> tuple[float, float, int]:
    sys.path.insert(0, str(ROOT))
    from logscope.core.samples import read_samples
    from logscope.measure.run import RunOptions, run_launch

    with tempfile.TemporaryDirectory() as tmp:
        child = Path(tmp) / "child.py"
        child.write_text(CHILD.format(phase=PHASE))
        if nvml_kind == "fake":
            from tests.fake_nvml import FakeNvml

            state = Path(tmp) / "state.jsonl"
            state.write_text(json.dumps({"pid": os.getpid(), "mib": 600}) + "\n")
            nvml: Any = FakeNvml(state)
        else:
            import pynvml

            nvml = pynvml
        with open(os.devnull, "wb") as null:
            options = RunOptions(
                [sys.executable, str(child), str(int(seconds * 10)), "0.1"],
                Path(tmp) / "out",
                interval_s=0.5,
                analysis=False,
                nvml_module=nvml,
                stdout_fd=null.fileno(),
                stderr_fd=2,
            )
            wall, cpu0 = time.monotonic(), time.process_time()
            result = run_launch(options)
            wall, used = time.monotonic() - wall, time.process_time() - cpu0
        taken = len(read_samples(result.samples).samples)
    return used, wall, taken


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--lines", type=int, default=500)
    parser.add_argument("--nvml", choices=("fake", "real"), default="fake")
    args = parser.parse_args()
    delays = latency(args.lines)
    delays.sort()
    print(
        f"pass-through latency over {len(delays)} lines: median {statistics.median(delays):.2f} ms, "
        f"p99 {delays[int(len(delays) * 0.99) - 1]:.2f} ms, max {delays[-1]:.2f} ms (target < 50 ms)"
    )
    used, wall, taken = cpu(args.seconds, args.nvml)
    print(
        f"CPU while sampling ({args.nvml} NVML, {taken} samples, {wall:.1f} s): {used:.3f} s = {100 * used / wall:.2f}% "
        "of one core (target < 2%)"
    )


if __name__ == "__main__":
    main()
