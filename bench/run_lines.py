"""`logscope run`'s pass-through of short lines (by hand: python bench/run_lines.py [--mib 64] [--line 2]).

The launch writes --mib MiB of --line-byte lines (`x\\n`, or phase lines with --phase) as fast as it can;
`logscope run --no-analysis` passes them to /dev/null and into its log. Prints the wall time, the throughput
in MiB/s and the wrapper's peak RSS (wait4: the wrapper and the launch, whichever is larger)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

CHILD = """
import os, sys
total, size, phase = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "phase"
line = b"[2026-10-20 09:00:04 TP0] Load weight begin. avail mem=137.70 GB\\n" if phase else b"x" * (size - 1) + b"\\n"
block = line * (65536 // len(line))
sent = 0
while sent < total:
    os.write(1, block)
    sent += len(block)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mib", type=int, default=64)
    parser.add_argument("--line", type=int, default=2, help="bytes a line, its newline included")
    parser.add_argument("--phase", action="store_true", help="every line a phase line (64 bytes): a crash loop's worst")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "logscope", "run", "--no-analysis", "--out", tmp, "--"]
        command += [sys.executable, "-c", CHILD, str(args.mib << 20), str(args.line), "phase" if args.phase else "plain"]
        started = time.monotonic()
        with open(os.devnull, "wb") as sink:
            proc = subprocess.Popen(command, stdout=sink, stderr=subprocess.DEVNULL)
            _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.monotonic() - started
        log = os.path.getsize(os.path.join(tmp, "launch.log"))
    print(
        f"{args.mib} MiB of {'phase' if args.phase else args.line}-byte lines: {seconds:.2f} s, {args.mib / seconds:.1f} MiB/s; "
        f"log {log / (1 << 20):.1f} MiB; peak RSS {usage.ru_maxrss / 1024:.0f} MiB; exit {os.waitstatus_to_exitcode(status)}"
    )


if __name__ == "__main__":
    main()
