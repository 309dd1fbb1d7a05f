"""Benchmark, run by hand: logscope against baselines measured in the same run, on the same input.

Baselines: `LC_ALL=C grep -c -F -f bench/literals-14.txt` (a fixed set of 14 literals kept here, so the
baseline does not move when logscope's own literal set grows), ripgrep with the same 14 literals where `rg`
is installed, `cat` (reading the bytes), and the venv's `python -c pass` (starting the interpreter). Each case
runs its commands round-robin REPEAT times (logscope, then each baseline, then again), page cache warm; the
table gives the median wall time, the median CPU time (user + sys of the process and its children: the
worker processes), logscope's CPU use (CPU / wall) and peak RSS (the largest of the process and its waited-for
children), and the ratio of logscope's median to each baseline's median. Inputs are generated into bench/out/
(gitignored); `--clean` removes the large ones afterwards.

    python bench/run.py                         # every case
    python bench/run.py --cases paste paste-failure help 1g   # a subset
    python bench/run.py --cases long-lines       # 100 MB of 100 KB lines, each holding ERROR
    python bench/run.py --clean                 # then delete bench/out/*.log*, bench/out/ranks
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
LITERALS_14 = HERE / "literals-14.txt"
LOGSCOPE = [sys.executable, "-m", "logscope"]
REPEAT = 5
# as an installed package runs: with its bytecode cached (a developer shell may set PYTHONDONTWRITEBYTECODE)
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


@dataclass
class Runs:
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    rss_mib: float = 0.0

    def add(self, wall: float, cpu: float, rss: float) -> None:
        self.wall.append(wall)
        self.cpu.append(cpu)
        self.rss_mib = max(self.rss_mib, rss)

    @property
    def median(self) -> float:
        return statistics.median(self.wall)


def run_once(cmd: list[str], stdin: Path | None = None) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + sys, children included) and peak RSS (MiB) of one run of `cmd`."""
    # grep's output to a file, not /dev/null (GNU grep stops at the first match when it sees /dev/null); cat's
    # to /dev/null, so that it measures reading, not writing a copy
    sink_path = os.devnull if cmd[0] == "cat" else OUT / "stdout.txt"
    with open(sink_path, "wb") as sink, open(stdin or os.devnull, "rb") as source:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=source, stdout=sink, stderr=subprocess.DEVNULL, env=_ENV, cwd=HERE.parent)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def measure(commands: dict[str, list[str]], repeat: int, stdin: Path | None = None) -> dict[str, Runs]:
    runs = {name: Runs() for name in commands}
    for _ in range(repeat):
        for name, cmd in commands.items():
            runs[name].add(*run_once(cmd, stdin))
    return runs


def generated(size_mib: int) -> Path:
    path = OUT / f"log-{size_mib}.log"
    if path.exists():
        return path
    if size_mib > 1024 and size_mib % 1024 == 0:  # the 1 GiB log repeated: the same lines, numbered on
        one = generated(1024)
        with open(path, "wb") as handle:
            for _ in range(size_mib // 1024):
                with open(one, "rb") as part:
                    shutil.copyfileobj(part, handle, 1 << 24)
        return path
    subprocess.run([sys.executable, str(HERE / "generate.py"), str(size_mib), str(path)], check=True)
    return path


def gzipped(size_mib: int) -> Path:
    path = OUT / f"log-{size_mib}.log.gz"
    if not path.exists():
        with open(path, "wb") as handle:
            subprocess.run(["gzip", "-1", "-c", str(generated(size_mib))], stdout=handle, check=True)
    return path


LONG_LINE_FORMS = ("middle", "start", "end", "many", "traceback")


def long_lines() -> Path:
    """100 MB of 1,000 lines of 100 KB, each holding ERROR (minified JSON, a garbled capture): varied JSON-ish
    words, the level in the middle, at the start, at the end, every 2 KB, or after a Traceback header, in turn."""
    path = OUT / "long-lines.log"
    if path.exists():
        return path
    rng = random.Random(12)
    words = [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "request",
        "token",
        "cache",
        "kernel",
        "memory",
        "value",
        "field",
        "status",
        "id",
        "user",
        "path",
        "json",
        "key",
    ]
    joins = ['":"', "=", " ", ", ", '{"', '"}', ":"]
    with open(path, "w") as handle:
        for n in range(1000):
            parts, size = [], 0
            while size < 99_990:
                word = rng.choice(words) + rng.choice(joins) + str(rng.randint(0, 99999))
                parts.append(word)
                size += len(word)
            body = "".join(parts)[:99_990]
            half = len(body) // 2
            form = LONG_LINE_FORMS[n % len(LONG_LINE_FORMS)]
            if form == "middle":
                line = f"{body[:half]} ERROR {body[half:]}"
            elif form == "start":
                line = f"ERROR {body}"
            elif form == "end":
                line = f"{body} ERROR"
            elif form == "many":
                line = " ERROR ".join(body[i : i + 2000] for i in range(0, len(body), 2000))
            else:
                line = f"{body[:half]} Traceback (most recent call last): ERROR {body[half:]}"
            handle.write(line + "\n")
    return path


def rank_files() -> list[Path]:
    """8 files of 128 MiB: the 1 GiB log cut at line boundaries (`split -n l/8`)."""
    folder = OUT / "ranks"
    files = sorted(folder.glob("rank*.log"))
    if len(files) != 8:
        folder.mkdir(exist_ok=True)
        subprocess.run(
            ["split", "-n", "l/8", "-d", "--additional-suffix=.log", str(generated(1024)), str(folder / "rank")], check=True
        )
        files = sorted(folder.glob("rank*.log"))
    return files


def warm(paths: list[Path]) -> None:
    for path in paths:
        subprocess.run(["cat", str(path)], stdout=subprocess.DEVNULL, check=True)


def baselines(paths: list[Path]) -> dict[str, list[str]]:
    files = [str(p) for p in paths]
    out = {"grep -F 14": ["env", "LC_ALL=C", "grep", "-c", "-F", "-f", str(LITERALS_14), *files]}
    if shutil.which("rg"):
        out["rg -F 14"] = ["rg", "-c", "-F", "--no-config", "-j", "1", "-f", str(LITERALS_14), *files]
    out["cat"] = ["cat", *files]
    return out


def report(label: str, runs: dict[str, Runs]) -> None:
    ours = runs["logscope"]
    cpu = statistics.median(ours.cpu)
    parts = [
        f"{label:<16} logscope {ours.median:6.3f} s (min {min(ours.wall):.3f}, max {max(ours.wall):.3f}), "
        f"CPU {cpu:6.3f} s = {100 * cpu / ours.median:4.0f}%, RSS {ours.rss_mib:4.0f} MiB"
    ]
    for name, base in runs.items():
        if name != "logscope":
            base_cpu = max(statistics.median(base.cpu), 1e-3)
            parts.append(
                f"    {name:<14} {base.median:6.3f} s (CPU {statistics.median(base.cpu):6.3f} s): "
                f"logscope {ours.median / base.median:6.2f}x wall, {cpu / base_cpu:6.2f}x CPU"
            )
    print("\n".join(parts), flush=True)


def machine() -> str:
    model = ""
    with contextlib.suppress(OSError, StopIteration):
        model = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores "
        f"({model or platform.machine()}), Python {platform.python_version()}, load average {load}"
    )


CASES = ("paste", "paste-failure", "help", "64m", "1g", "4g", "ranks", "gz", "long-lines")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", nargs="*", default=list(CASES), choices=CASES)
    parser.add_argument("--repeat", type=int, default=REPEAT)
    parser.add_argument("--clean", action="store_true", help="delete the generated logs at the end")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    report_json = str(OUT / "report.json")
    python_pass = [sys.executable, "-c", "pass"]
    print(f"machine: {machine()}; medians of {args.repeat} runs, round-robin")
    if "paste" in args.cases:
        paste = OUT / "paste-2k.log"
        paste.write_bytes((HERE.parent / "fixtures/real/h-001-sglang-11716.log").read_bytes()[:2048])
        report(
            "2 KB paste stdin",
            measure({"logscope": [*LOGSCOPE, "analyze", "-"], "python -c pass": python_pass}, args.repeat, stdin=paste),
        )
    if "paste-failure" in args.cases:
        # a real startup crash (a traceback cut in graph capture): the failure's placement and the known cases load
        failure = HERE.parent / "fixtures/real/f-025-sglang-5770.log"
        report(
            "2 KB failure paste stdin",
            measure({"logscope": [*LOGSCOPE, "analyze", "-"], "python -c pass": python_pass}, args.repeat, stdin=failure),
        )
    if "help" in args.cases:
        report("--help", measure({"logscope": [*LOGSCOPE, "--help"], "python -c pass": python_pass}, args.repeat))
    for case, size in (("64m", 64), ("1g", 1024), ("4g", 4096)):
        if case in args.cases:
            path = generated(size)
            warm([path])
            ours = [*LOGSCOPE, "analyze", str(path), "-f", "json", "-o", report_json]
            report(
                f"{size} MiB" if size < 1024 else f"{size // 1024} GiB",
                measure({"logscope": ours, **baselines([path])}, args.repeat),
            )
    if "ranks" in args.cases:
        files = rank_files()
        warm(files)
        ours = [*LOGSCOPE, "analyze", *map(str, files), "-f", "json", "-o", report_json]
        report("8 x 128 MiB", measure({"logscope": ours, **baselines(files)}, args.repeat))
    if "gz" in args.cases:
        gz = gzipped(256)
        warm([gz])
        ours = [*LOGSCOPE, "analyze", str(gz), "-f", "json", "-o", report_json]
        zgrep = ["bash", "-c", f"zcat {gz} | LC_ALL=C grep -c -F -f {LITERALS_14}"]
        report("256 MiB .gz", measure({"logscope": ours, "zcat | grep -F 14": zgrep}, args.repeat))
    if "long-lines" in args.cases:
        path = long_lines()
        warm([path])
        ours = [*LOGSCOPE, "analyze", str(path), "-f", "json", "-o", report_json]
        report("100 MB of 100 KB lines", measure({"logscope": ours, **baselines([path])}, args.repeat))
    if args.clean:
        for path in [*OUT.glob("log-*.log"), *OUT.glob("log-*.log.gz"), *OUT.glob("long-lines.log")]:
            path.unlink()
        shutil.rmtree(OUT / "ranks", ignore_errors=True)


if __name__ == "__main__":
    main()
