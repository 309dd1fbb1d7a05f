"""Benchmark, run by hand: logscope against `LC_ALL=C grep -c -F -f <logscope's literals>` on the same input.

Warm page cache; each pair of commands runs REPEAT times interleaved (grep, logscope, grep, logscope, ...);
the table gives min / median / max wall time of each, the ratio of the medians, and the peak RSS of
logscope's process. Cases: 64 MiB, 256 MiB and 1 GiB of realistic log, a 256 MiB .gz against
`zcat | grep`, 8 rank files of 128 MiB as `logscope analyze rank*.log` against grep over the same 8 files,
and the start-up: `--help` and a 2 KB paste.

    python bench/run.py                 # everything (inputs generated into bench/out/ on first use)
    python bench/run.py --sizes 64 256  # a subset of the single-file sizes
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
LOGSCOPE = [sys.executable, "-m", "logscope"]
REPEAT = 5
# as an installed package runs: with its bytecode cached (a developer shell may set PYTHONDONTWRITEBYTECODE)
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_once(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one run of `cmd`."""
    # output to a file, not /dev/null: GNU grep stops at the first match when it sees /dev/null
    with open(OUT / "stdout.txt", "wb") as sink:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.DEVNULL, env=_ENV)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return elapsed, usage.ru_maxrss / 1024


def interleaved(baseline: list[str], ours: list[str], repeat: int) -> tuple[list[float], list[float], float]:
    base_times, our_times, peak = [], [], 0.0
    for _ in range(repeat):
        base_times.append(run_once(baseline)[0])
        elapsed, rss = run_once(ours)
        our_times.append(elapsed)
        peak = max(peak, rss)
    return base_times, our_times, peak


def generated(size_mib: int) -> Path:
    path = OUT / f"log-{size_mib}.log"
    if not path.exists():
        subprocess.run([sys.executable, str(HERE / "generate.py"), str(size_mib), str(path)], check=True)
    return path


def gzipped(size_mib: int) -> Path:
    path = OUT / f"log-{size_mib}.log.gz"
    if not path.exists():
        with open(path, "wb") as handle:
            subprocess.run(["gzip", "-1", "-c", str(generated(size_mib))], stdout=handle, check=True)
    return path


def rank_files() -> list[Path]:
    """8 files of 128 MiB: the 1 GiB log cut at line boundaries (`split -n l/8`)."""
    folder = OUT / "ranks"
    files = sorted(folder.glob("rank*.log"))
    if len(files) != 8:
        folder.mkdir(exist_ok=True)
        subprocess.run(["split", "-n", "l/8", "-d", "--additional-suffix=.log", str(generated(1024)),
                        str(folder / "rank")], check=True)
        files = sorted(folder.glob("rank*.log"))
    return files


def warm(paths: list[Path]) -> None:
    for path in paths:
        subprocess.run(["cat", str(path)], stdout=subprocess.DEVNULL, check=True)


def row(label: str, base: list[float], ours: list[float], rss: float) -> str:
    ratio = statistics.median(ours) / statistics.median(base)
    return (f"{label:<22} {min(base):6.2f} {statistics.median(base):6.2f} {max(base):6.2f}   "
            f"{min(ours):6.2f} {statistics.median(ours):6.2f} {max(ours):6.2f}   {ratio:5.2f}x  {rss:7.0f}")


def machine() -> str:
    model = ""
    with contextlib.suppress(OSError, StopIteration):
        model = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                     if line.startswith("model name"))
    return f"{datetime.date.today()}, {os.cpu_count()} cores ({model or platform.machine()}), Python {platform.python_version()}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="*", default=[64, 256, 1024])
    parser.add_argument("--repeat", type=int, default=REPEAT)
    parser.add_argument("--skip", nargs="*", default=[], choices=["gz", "ranks", "startup"])
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    literals = OUT / "literals.txt"
    literals.write_text(subprocess.run([*LOGSCOPE, "literals"], capture_output=True, text=True, check=True).stdout)
    report = OUT / "report.json"
    print(f"machine: {machine()}; {len(literals.read_text().splitlines())} literals; {args.repeat} runs each, interleaved")
    print(f"{'input':<22} {'grep -F: min   med    max':>26}   {'logscope: min   med    max':>26}   {'ratio':>6}  {'RSS MiB':>7}")
    grep = ["env", "LC_ALL=C", "grep", "-c", "-F", "-f", str(literals)]
    for size in args.sizes:
        path = generated(size)
        warm([path])
        base, ours, rss = interleaved([*grep, str(path)], [*LOGSCOPE, "analyze", str(path), "-f", "json", "-o", str(report)],
                                      args.repeat)
        print(row(f"{size} MiB", base, ours, rss), flush=True)
    if "gz" not in args.skip:
        gz = gzipped(256)
        warm([gz])
        base, ours, rss = interleaved(["bash", "-c", f"zcat {gz} | LC_ALL=C grep -c -F -f {literals}"],
                                      [*LOGSCOPE, "analyze", str(gz), "-f", "json", "-o", str(report)], args.repeat)
        print(row("256 MiB .gz (zcat|grep)", base, ours, rss), flush=True)
    if "ranks" not in args.skip:
        files = rank_files()
        warm(files)
        base, ours, rss = interleaved([*grep, *map(str, files)],
                                      [*LOGSCOPE, "analyze", *map(str, files), "-f", "json", "-o", str(report)], args.repeat)
        print(row("8 x 128 MiB files", base, ours, rss), flush=True)
    if "startup" not in args.skip:
        paste = OUT / "paste-2k.log"
        paste.write_text((HERE.parent / "fixtures/real/h-001-sglang-11716.log").read_text()[:2048])
        for label, cmd in (("--help", [*LOGSCOPE, "--help"]), ("2 KB paste", [*LOGSCOPE, "analyze", str(paste)])):
            _, ours, rss = interleaved(["true"], cmd, args.repeat)
            print(f"{label:<22} {'':>26}   {min(ours):6.2f} {statistics.median(ours):6.2f} {max(ours):6.2f}   "
                  f"{'':>6}  {rss:7.0f}")


if __name__ == "__main__":
    main()
