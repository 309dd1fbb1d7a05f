"""Probe, run by hand: where a range worker's CPU goes on a large file, in this process (one core, no pool).

Prints the CPU seconds of: the reads alone (READ_BYTES at a time, into one buffer), the reads with the Hyperscan pass
of the prefilter's literals (the literal set from the user cache, as the workers get it), the reads with the newline
count (linescan.newlines), and every RANGE_BYTES range scanned as a worker scans it (ranges._scan_range with the serving
line's pattern and the startup scan of pipeline/analyze.py), each the best of `--repeat` runs. Compare two trees on the
same file by running each tree's own interpreter on it; the host's load moves every figure, their ratios less.

    python bench/probe_workers.py bench/out/log-1024.log
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

from logscope.pipeline.ingest import linescan, ranges
from logscope.pipeline.parse import serving
from logscope.pipeline.parse.literal_set import cached_literals


def _reads(path: str, each: Callable[[bytearray, int], object]) -> None:
    buf = bytearray(ranges.READ_BYTES)
    with open(path, "rb", buffering=0) as handle:
        while got := handle.readinto(buf):
            each(buf, got)


def _best(repeat: int, run: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        started = time.process_time()
        run()
        times.append(time.process_time() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("path")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    literals = cached_literals()
    native = linescan.LiteralScan(literals).native()
    size = os.path.getsize(args.path)
    print(f"{args.path}: {size / (1 << 30):.2f} GiB, {len(literals)} literals, Hyperscan {'yes' if native else 'no'}")
    print(f"  reads alone           {_best(args.repeat, lambda: _reads(args.path, lambda b, n: None)):.3f} CPU-s")
    if native is not None:
        scan = _best(args.repeat, lambda: _reads(args.path, lambda b, n: native(b, 0, n)))
        print(f"  reads + Hyperscan     {scan:.3f} CPU-s")
    count = _best(args.repeat, lambda: _reads(args.path, lambda b, n: linescan.newlines(b, 0, n)))
    print(f"  reads + newlines      {count:.3f} CPU-s")
    ranges._init_worker(literals, serving.SERVING_BYTES, serving.STARTUP)
    starts = range(0, size, ranges.RANGE_BYTES)

    def scan_ranges() -> None:
        for start in starts:
            ranges._scan_range(args.path, args.path, start, min(size, start + ranges.RANGE_BYTES))

    print(f"  ranges as the workers {_best(args.repeat, scan_ranges):.3f} CPU-s ({len(starts)} ranges)")


if __name__ == "__main__":
    main()
