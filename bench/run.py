"""Benchmark: logscope analyze --format json against `grep -c -F -f <the prefilter's literals>` on the same
file, warm cache, plus peak RSS, CLI start-up and a small real log. Run by hand:

    python bench/run.py            # 64, 256 and 1024 MiB (generated into bench/out/ on first use)
    python bench/run.py 64 256     # chosen sizes
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
LOGSCOPE = [sys.executable, "-m", "logscope"]


def measure(cmd: list[str], repeat: int = 3) -> tuple[float, float]:
    """Best wall time over `repeat` runs and the peak RSS (MiB) of the child."""
    best, peak = float("inf"), 0.0
    for _ in range(repeat):
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - started
        if os.waitstatus_to_exitcode(status) not in (0, 1):
            raise SystemExit(f"failed: {' '.join(cmd)}")
        best = min(best, elapsed)
        peak = max(peak, usage.ru_maxrss / 1024)
    return best, peak


def ensure_log(size_mib: int) -> Path:
    path = OUT / f"log-{size_mib}.log"
    if not path.exists():
        subprocess.run([sys.executable, str(HERE / "generate.py"), str(size_mib), str(path)], check=True)
    return path


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [64, 256, 1024]
    OUT.mkdir(exist_ok=True)
    literals = OUT / "literals.txt"
    literals.write_text(subprocess.run([*LOGSCOPE, "literals"], capture_output=True, text=True, check=True).stdout)
    print(f"{'input':<12} {'grep -F (s)':>12} {'logscope (s)':>13} {'ratio':>7} {'MiB/s':>8} {'peak RSS MiB':>13}")
    for size in sizes:
        path = ensure_log(size)
        subprocess.run(["cat", str(path)], stdout=subprocess.DEVNULL, check=True)  # warm the page cache
        grep_out = OUT / "grep.out"
        grep_time, _ = measure(["bash", "-c", f"grep -c -F -f {literals} {path} > {grep_out}"])
        ours, rss = measure([*LOGSCOPE, "analyze", str(path), "--format", "json", "-o", str(OUT / "report.json")])
        print(f"{size:>5} MiB    {grep_time:>12.2f} {ours:>13.2f} {ours / grep_time:>7.2f} {size / ours:>8.0f} {rss:>13.0f}")
    gz = OUT / f"log-{sizes[0]}.log.gz"
    if not gz.exists():
        with open(gz, "wb") as handle:
            subprocess.run(["gzip", "-1", "-c", str(ensure_log(sizes[0]))], stdout=handle, check=True)
    grep_time, _ = measure(["bash", "-c", f"zcat {gz} | grep -c -F -f {literals} > {OUT / 'grep.out'}"])
    ours, rss = measure([*LOGSCOPE, "analyze", str(gz), "--format", "json", "-o", str(OUT / "report.json")])
    print(f"{sizes[0]:>5} MiB gz {grep_time:>12.2f} {ours:>13.2f} {ours / grep_time:>7.2f} {sizes[0] / ours:>8.0f} "
          f"{rss:>13.0f}   (baseline: zcat | grep)")
    helped, _ = measure([*LOGSCOPE, "--help"])
    small, _ = measure([*LOGSCOPE, "analyze", str(HERE.parent / "fixtures/real/h-001-sglang-11716.log")])
    print(f"logscope --help: {helped:.2f} s; analyze on a small real log: {small:.2f} s")


if __name__ == "__main__":
    main()
