"""Hostile inputs, each given to logscope run as a subprocess whose own peak memory is measured (os.wait4's
rusage of that one child): a gzip bomb, a 500 MB line, 200 MB of random bytes. Each must finish under
PEAK_MIB with a report or a one-line refusal. No timing is asserted beyond a generous timeout (speed lives in
bench/); the inputs are made while they are fed, never written out whole."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from logscope.core.limits import DECOMPRESSED_CAP, LINE_CAP
from tests.helpers import ROOT

PEAK_MIB = 250
TIMEOUT_S = 600
MiB = 1 << 20
PHASE = b"[2025-10-16 09:06:22 TP5] Memory pool end. avail mem=11.87 GB\n"


@dataclass
class Measured:
    returncode: int
    stdout: bytes
    stderr: str
    peak_mib: float


# Linux carries a process's peak RSS across exec, and a child made by vfork (as subprocess does) starts with its
# parent's: the pytest process's peak would be logscope's. So a small forking parent starts logscope and
# reports the peak of that one child (os.wait4) on a pipe; what it adds is its own few MiB at the fork.
_MEASURE = """
import os, sys
report = int(sys.argv[1])
pid = os.fork()
if pid == 0:
    os.close(report)
    os.execv(sys.executable, [sys.executable, "-m", "logscope", *sys.argv[2:]])
_, status, usage = os.wait4(pid, 0)
os.write(report, str(usage.ru_maxrss).encode())
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_measured(args: list[str], feed: Iterator[bytes] | None = None) -> Measured:
    """`python -m logscope ARGS`, stdin fed from `feed` (a broken pipe ends the feeding: logscope may refuse
    the input before reading it all), with that process's peak RSS."""
    peak_read, peak_write = os.pipe()
    proc = subprocess.Popen(
        [sys.executable, "-c", _MEASURE, str(peak_write), *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        pass_fds=(peak_write,),
        stdin=subprocess.PIPE if feed is not None else subprocess.DEVNULL,
    )
    os.close(peak_write)
    out: dict[str, bytes] = {}

    def drain(name: str, stream) -> None:
        out[name] = stream.read()

    def write() -> None:
        with contextlib.suppress(BrokenPipeError):
            for block in feed or ():
                proc.stdin.write(block)
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.close()

    threads = [
        threading.Thread(target=drain, args=("stdout", proc.stdout)),
        threading.Thread(target=drain, args=("stderr", proc.stderr)),
    ]
    if feed is not None:
        threads.append(threading.Thread(target=write))
    for thread in threads:
        thread.start()
    killer = threading.Timer(TIMEOUT_S, proc.kill)
    killer.start()
    try:
        proc.wait()
    finally:
        killer.cancel()
    for thread in threads:
        thread.join()
    with os.fdopen(peak_read, "rb") as handle:
        peak_kib = int(handle.read() or 0)
    return Measured(proc.returncode, out["stdout"], out["stderr"].decode(errors="replace"), peak_kib / 1024)


def blocks(total: int, make: Callable[[int], bytes], size: int = 4 * MiB) -> Iterator[bytes]:
    sent = 0
    while sent < total:
        block = make(min(size, total - sent))
        sent += len(block)
        yield block


def gzip_bomb(path: Path, expands_to: int, member: int = 64 * MiB) -> None:
    """Concatenated gzip members of `member` bytes of 'a' each, no newline anywhere; the member is compressed
    once (about 64 KiB) and written expands_to / member times, so nothing large is ever held or written."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    piece = b"a" * MiB
    data = b"".join(compressor.compress(piece) for _ in range(member // MiB)) + compressor.flush()
    with path.open("wb") as handle:
        for _ in range(expands_to // member):
            handle.write(data)


def test_a_gzip_bomb_stops_at_the_cap_with_a_report(tmp_path):
    bomb = tmp_path / "bomb.log.gz"
    gzip_bomb(bomb, 2 << 30)
    assert bomb.stat().st_size < 8 * MiB
    run = run_measured(["analyze", str(bomb), "-f", "json"])
    assert run.returncode == 0, run.stderr
    assert run.peak_mib < PEAK_MIB, f"peak RSS {run.peak_mib:.0f} MiB"
    report = json.loads(run.stdout)
    entry = report["inputs"][0]
    assert entry["stopped"].startswith(f"stopped after {DECOMPRESSED_CAP >> 30} GiB of decompressed data")
    assert entry["lines"] == 1 and entry["cut_lines"] == 1  # the first 1 MiB of the one line, the rest skipped
    assert report["coverage"]["cut_lines"] == 1 and report["coverage"]["line_cap_bytes"] == LINE_CAP
    assert f"logscope: warning: {bomb}: stopped after 1 GiB" in run.stderr


def test_a_500_mb_line_is_cut_and_the_lines_around_it_read():
    line = 500 * MiB
    feed = iter([PHASE, *blocks(line, lambda n: b"x" * n), b"\n", PHASE.replace(b"TP5", b"TP6")])
    run = run_measured(["analyze", "-", "-f", "json"], feed)
    assert run.returncode == 0, run.stderr
    assert run.peak_mib < PEAK_MIB, f"peak RSS {run.peak_mib:.0f} MiB"
    report = json.loads(run.stdout)
    assert report["inputs"][0]["lines"] == 3 and report["inputs"][0]["cut_lines"] == 1
    ranks = {r["rank"]: (r["phases"][0]["line"], r["phases"][0]["avail_gib"]) for r in report["launches"][0]["ranks"]}
    assert ranks == {"TP5": (1, 11.87), "TP6": (3, 11.87)}
    assert "1 line longer than 1 MiB cut there" in report_text(report)


def report_text(report: dict) -> str:
    from logscope.report.view import build_view

    return build_view(report).verdict


def test_200_mb_of_random_bytes_are_refused_in_one_line():
    run = run_measured(["analyze", "-"], blocks(200 * MiB, os.urandom))
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert run.stderr.startswith("logscope: error: <stdin>: binary data, not a text log: ")
    assert run.peak_mib < PEAK_MIB, f"peak RSS {run.peak_mib:.0f} MiB"


def test_200_mb_of_random_bytes_after_a_log_head_are_reported():
    """Past the head that is judged, bytes are read as text whatever they are: cut into lines, counted."""
    head = PHASE + b"INFO: the log goes on in plain words\n" * 2000  # 74 kB of log: the judged head is text
    run = run_measured(["analyze", "-", "-f", "json"], iter([head, *blocks(200 * MiB, os.urandom)]))
    assert run.returncode in (0, 1), run.stderr
    assert run.peak_mib < PEAK_MIB, f"peak RSS {run.peak_mib:.0f} MiB"
    report = json.loads(run.stdout)
    assert report["launches"][0]["ranks"][0]["phases"][0]["avail_gib"] == 11.87
    assert report["inputs"][0]["lines"] > 2001 + 200 * MiB // 512  # random bytes hold a newline every 256 bytes


STARTUP_0523 = (ROOT / "fixtures" / "upstream" / "sglang-0.5.23-tp2.log").read_bytes()


def _compressed(fmt: str, data: bytes) -> bytes:
    import bz2
    import gzip
    import lzma

    return {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}[fmt](data)


@pytest.mark.parametrize("fmt", ["gz", "bz2", "xz"])
def test_a_crash_loop_keeps_the_first_and_last_launches_and_aggregates_the_rest(tmp_path, fmt):
    """2,000 appended copies of one startup (a crash-looping pod), in each compressed format: the first and last
    five launches in full, the 1,990 others counted in the coverage and the verdict, memory flat."""
    path = tmp_path / f"loop.log.{fmt}"
    path.write_bytes(_compressed(fmt, STARTUP_0523 * 2000))
    run = run_measured(["analyze", str(path), "-f", "json"])
    assert run.returncode == 0, run.stderr
    assert run.peak_mib < PEAK_MIB, f"peak RSS {run.peak_mib:.0f} MiB"
    report = json.loads(run.stdout)
    assert [launch["id"] for launch in report["launches"]] == [1, 2, 3, 4, 5, 1996, 1997, 1998, 1999, 2000]
    repeated = report["coverage"]["repeated_launches"]
    assert repeated["launches"] == 1990 and repeated["ids"] == [6, 1995]
    assert repeated["ready"] == 1990 and repeated["failed"] == 0 and repeated["kept_in_full"] == 10
    assert repeated["lines"] == [5 * 21 + 1, 1995 * 21]
    text = run_cli_text(path)
    assert "no startup problem found in 42000 lines (2000 launches, 10 launches in full" in text
    assert "1990 repeated launches aggregated (launches 6-1,995, lines 106-41,895" in text


def test_a_crash_loop_keeps_each_distinct_failure_in_full(tmp_path):
    crash = b"[2026-10-20 09:00:06 TP1] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
    cut = STARTUP_0523.split(b"\n")[:11]
    failing = b"\n".join(cut) + b"\n" + crash
    path = tmp_path / "loop.log"
    path.write_bytes(STARTUP_0523 * 30 + failing * 20 + STARTUP_0523 * 30)
    report = json.loads(run_measured(["analyze", str(path), "-f", "json"]).stdout)
    assert [launch["id"] for launch in report["launches"]] == [1, 2, 3, 4, 5, 31, 76, 77, 78, 79, 80]
    repeated = report["coverage"]["repeated_launches"]
    assert repeated["launches"] == 69 and repeated["failed"] == 19 and repeated["ready"] == 50
    assert list(repeated["failures"].values()) == [19]


def test_one_phase_line_repeated_is_bounded():
    """Every line starts a launch: 40,000 of them are aggregated, never 40,000 launches in the report."""
    run = run_measured(["analyze", "-", "-f", "json"], iter([PHASE * 40_000]))
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert len(report["launches"]) <= 10
    assert report["coverage"]["repeated_launches"]["launches"] + len(report["launches"]) >= 20_000


def run_cli_text(path: Path) -> str:
    return subprocess.run(
        [sys.executable, "-m", "logscope", "analyze", str(path), "--width", "200"], capture_output=True, cwd=ROOT, text=True
    ).stdout
