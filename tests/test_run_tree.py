"""`logscope run` ends the launch's whole tree with it (logscope/measure/proctree.py): grandchildren left
holding the pipes, a daemon that left the group with setsid, a launch that ignores SIGTERM; SIGHUP is forwarded;
the phase lines and sample requests it keeps are bounded; the log writer hands over the same lines whatever
the reads (the block path that makes 2-byte lines pass at tens of MiB/s)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from logscope.measure import sampler as sampler_module
from logscope.measure.phase_lines import PhaseLines
from logscope.measure.run import MAX_PHASES, RunOptions, _LogWriter, run_launch
from tests.helpers import ROOT

PHASE = b"[2026-10-20 09:00:04 TP0] Load weight begin. avail mem=137.70 GB"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in (b"Z", b"X")


def _wrapper(tmp_path: Path, script: str) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "logscope", "run", "--no-analysis", "--out", str(tmp_path / "run"), "--"]
    return subprocess.Popen([*command, "sh", "-c", script], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _pids(path: Path, count: int) -> list[int]:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if path.exists() and len(path.read_text().split()) >= count:
            return [int(p) for p in path.read_text().split()]
        time.sleep(0.05)
    raise AssertionError(f"{path}: the launch did not start its processes")


def test_grandchildren_and_a_setsid_daemon_end_with_the_launch(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    daemon = f"{sys.executable} -c 'import os, time; os.setsid(); time.sleep(300)'"
    script = f"sleep 300 & echo $! >> {pids}; {daemon} & echo $! >> {pids}; echo started; sleep 1.5; exit 3"
    wrapper = _wrapper(tmp_path, script)
    started = time.monotonic()
    out, err = wrapper.communicate(timeout=60)  # before: the wrapper waited for the pipes the sleeps held, forever
    held = _pids(pids, 2)
    assert wrapper.returncode == 3 and time.monotonic() - started < 30, err
    assert b"the launch exited; 2 of its processes still ran: SIGTERM sent" in err
    assert [pid for pid in held if _alive(pid)] == []


def test_sighup_is_forwarded_to_the_launch(tmp_path: Path) -> None:
    marker = tmp_path / "hup"
    on_hup = f"lambda *a: (open({str(marker)!r}, 'w').write('hup'), sys.exit(7))"
    child = f"import signal, sys, time; signal.signal(signal.SIGHUP, {on_hup}); print('ready', flush=True); time.sleep(60)"
    wrapper = _wrapper(tmp_path, f'exec {sys.executable} -c "{child}"')
    assert wrapper.stdout is not None and wrapper.stdout.readline() == b"ready\n"
    wrapper.send_signal(signal.SIGHUP)
    wrapper.communicate(timeout=30)
    assert marker.read_text() == "hup"  # before: the wrapper died of SIGHUP and the launch ran on
    assert wrapper.returncode == 7


def test_a_launch_that_ignores_sigterm_is_killed_after_the_grace(tmp_path: Path) -> None:
    child = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); time.sleep(300)"
    wrapper = _wrapper(tmp_path, f'exec {sys.executable} -c "{child}"')
    assert wrapper.stdout is not None and wrapper.stdout.readline() == b"ready\n"
    started = time.monotonic()
    wrapper.send_signal(signal.SIGTERM)
    _, err = wrapper.communicate(timeout=60)
    assert 9 <= time.monotonic() - started < 30
    assert wrapper.returncode == 128 + signal.SIGKILL
    assert b"the launch still runs 10 s after the signal: SIGKILL sent to its processes" in err


def test_the_phase_lines_kept_are_bounded(tmp_path: Path) -> None:
    count = MAX_PHASES + 5000
    line = PHASE + b"\n"
    child = f"import os; os.write(1, {line!r} * {count})"
    with open(os.devnull, "wb") as sink:
        options = RunOptions(
            [sys.executable, "-c", child],
            tmp_path / "run",
            analysis=False,
            nvml_module=_NoNvml(),
            stdout_fd=sink.fileno(),
            stderr_fd=sink.fileno(),
        )
        result = run_launch(options)
    assert len(result.phases) == MAX_PHASES and result.phases[-1][0] == MAX_PHASES
    assert (tmp_path / "run" / "launch.log").read_bytes().count(b"\n") == count


class _NoNvml:
    """pynvml as it is on a host without a driver."""

    def nvmlInit(self) -> None:  # noqa: N802 - pynvml's name
        raise RuntimeError("no NVIDIA driver")


def test_phase_sample_requests_waiting_are_bounded() -> None:
    release = threading.Event()

    class Slow:
        available = True

    sampler = sampler_module.Sampler(Slow(), os.getpid(), lambda sample: release.wait(30), 60.0, time.monotonic())  # type: ignore[arg-type]
    # never started: nothing takes the requests
    events = [sampler.at_phase(n, "x") for n in range(1000)]
    assert sampler.pending == sampler_module.MAX_PENDING and sampler.skipped == 1000 - sampler_module.MAX_PENDING
    assert all(e.is_set() for e in events[sampler_module.MAX_PENDING :])
    release.set()


@given(
    st.lists(
        st.sampled_from([PHASE, b"x", b"", b"serving line " * 3, b"Load weight" + b"y" * 5, PHASE + b" " + PHASE]), max_size=40
    ),
    st.lists(st.integers(1, 97), min_size=1, max_size=10),
)
@settings(max_examples=200, deadline=None)
def test_the_writer_hands_over_the_lines_a_line_by_line_reader_would(lines, cuts):
    data = b"".join(line + b"\n" for line in lines)
    detector = PhaseLines()

    class Sink:
        written = bytearray()

        def write(self, chunk: bytes) -> None:
            self.written += chunk

        def flush(self) -> None:
            pass

    seen: list[tuple[int, bytes]] = []
    sink = Sink()
    writer = _LogWriter(sink, lambda n, line: seen.append((n, line)), detector.pattern)  # type: ignore[arg-type]
    at = 0
    for cut in cuts * (len(data) // max(sum(cuts), 1) + 1):
        if at >= len(data):
            break
        writer.feed(1, data[at : at + cut])
        at += cut
    writer.feed(1, data[at:])
    expected = [(n, line) for n, line in enumerate(lines, 1) if detector.pattern.search(line)]
    assert [(n, line) for n, line in seen if detector.candidate(line) or detector.pattern.search(line)] == expected
    assert bytes(sink.written) == data and writer.lines == len(lines)
