"""`logscope run -- <launch command>`: start the launch in its own process group, pass its stdout and stderr
through unchanged (bytes as read, each stream in its order), save both to the log file, sample NVML at every
phase line and at a fixed interval (logscope/measure/sampler.py) into the samples file beside the log
(logscope/core/samples.py), forward SIGINT/SIGTERM to the launch's group, and print the analysis of the log
and its samples when the server is ready and at the end. Exits with the launch's exit code (128 + the signal
when a signal ended it)."""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from types import FrameType
from typing import IO, Any

from logscope.core import kinds
from logscope.core.errors import LogscopeError
from logscope.core.limits import LINE_CAP
from logscope.core.samples import TEXT_KEEP, Header, Sample, header_json, sample_json, samples_path_for
from logscope.measure.phase_lines import PhaseLines
from logscope.measure.proctree import Ending, LaunchTree, Terminating
from logscope.measure.sampler import Nvml, Sampler, open_nvml

READ_BYTES = 1 << 16
MAX_PHASES = 10_000  # phase lines kept in RunResult.phases (the log and the samples file keep every one)
LOG_NAME = "launch.log"
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # SIGHUP: the terminal closed, the launch goes with it
_ESCALATION = (signal.SIGINT, signal.SIGTERM, signal.SIGKILL)  # what the 1st, 2nd, 3rd (and later) Ctrl-C send


@dataclass
class RunOptions:
    command: list[str]
    out_dir: Path
    interval_s: float = 0.5
    analysis: bool = True
    fmt: str = "text"
    nvml_module: Any = None  # pynvml, or a stand-in (tests)
    stdout_fd: int = 1
    stderr_fd: int = 2
    report_fd: int = 1  # where the analysis goes: stdout on a terminal, else stderr (the launch's stdout stays its own)
    report_path: Path | None = None  # --report FILE: each analysis replaces the file's content instead


@dataclass
class RunResult:
    exit_code: int
    log: Path
    samples: Path
    measured: bool
    # (log line, phase kind) of each line holding a phase literal, as seen (the analysis confirms the phase)
    phases: list[tuple[int, str]] = field(default_factory=list)
    interrupted: bool = False
    # the user's first signal forwarded: (its name, seconds since the start, the log's lines by then)
    user_stop: tuple[str, float, int] | None = None


def default_out_dir() -> Path:
    return Path(f"logscope-run-{datetime.now().strftime('%Y%m%d-%H%M%S')}")


def _say(fd: int, message: str) -> None:
    _write_all(fd, f"logscope run: {message}\n".encode())


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            time.sleep(0.001)
        except BrokenPipeError:
            return  # the reader went away (| head): the launch keeps running and its log is still saved


class _LogWriter:
    """The log file, written line by line per stream so that the two streams never mix inside a line; a line
    longer than LINE_CAP is written as it comes. Numbers each complete line as `logscope analyze` will, and hands
    `on_line` the lines that hold a match of `wanted` (every line when it is None). The complete lines of a read
    are written at once and searched as one block: 2-byte lines pass at tens of MiB/s, not line by line."""

    def __init__(self, handle: IO[bytes], on_line: Callable[[int, bytes], None], wanted: re.Pattern[bytes] | None = None) -> None:
        self.handle, self.on_line, self.wanted = handle, on_line, wanted
        self.lines = 0
        self.tails: dict[int, bytearray] = {}

    def feed(self, fd: int, data: bytes) -> None:
        tail = self.tails.setdefault(fd, bytearray())
        first = data.find(b"\n")
        if first >= 0:
            if tail:  # the line begun in an earlier read ends here
                tail += data[:first]
                line = bytes(tail)
                tail.clear()
                self.handle.write(line + b"\n")
            else:
                line = data[:first]
                self.handle.write(data[: first + 1])
            self.lines += 1
            self.on_line(self.lines, line)
            last = data.rfind(b"\n")
            if last > first:
                self._block(data, first + 1, last + 1)
            data = data[last + 1 :]
        tail += data
        if len(tail) > LINE_CAP:  # a very long line: to the file now, the rest of it follows
            self.handle.write(bytes(tail))
            tail.clear()
        self.handle.flush()  # the log is readable as it grows (tail -f, the analysis at the ready line)

    def _block(self, data: bytes, start: int, end: int) -> None:
        """Complete lines data[start:end] (ending in a newline): written at once, the wanted ones handed over."""
        self.handle.write(data[start:end])
        if self.wanted is None:
            for line in data[start : end - 1].split(b"\n"):
                self.lines += 1
                self.on_line(self.lines, line)
            return
        base, counted_to, done_to = self.lines, start, start
        for match in self.wanted.finditer(data, start, end):
            if match.start() < done_to:
                continue  # a second literal on a line already handed over
            begin = data.rfind(b"\n", start, match.start()) + 1 or start
            stop = data.find(b"\n", match.start(), end)
            base += data.count(b"\n", counted_to, begin)
            counted_to = done_to = begin
            self.on_line(base + 1, data[begin:stop])
            done_to = stop + 1
        self.lines += data.count(b"\n", start, end)

    def close(self) -> None:
        for fd, tail in self.tails.items():
            if tail:
                self.feed(fd, b"\n")
        self.handle.flush()


def run_launch(options: RunOptions) -> RunResult:
    if not options.command:
        raise LogscopeError("run: no command after -- (e.g. logscope run -- python -m sglang.launch_server ...)")
    log_path = options.out_dir / LOG_NAME
    samples_path = samples_path_for(log_path)
    nvml = open_nvml(options.nvml_module)
    started = time.monotonic()
    try:
        child = subprocess.Popen(  # the user's own launch command
            options.command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=os.setpgrp,  # its own process group: signals reach the whole launch
        )
    except OSError as exc:
        raise LogscopeError(f"{options.command[0]}: cannot start the command: {exc.strerror or exc}") from None
    _make_out_dir(options.out_dir, child)  # only once the launch started: a command that cannot start leaves nothing
    if not nvml.available:
        _say(options.stderr_fd, f"nothing measured ({nvml.reason}); the log is saved{' and analysed' * options.analysis}")
    with open(log_path, "wb") as log_file, open(samples_path, "w", encoding="utf-8") as samples_file:
        samples_file.write(header_json(_header(options, nvml, child.pid, log_path)) + "\n")
        samples_file.flush()
        return _supervise(options, child, nvml, started, log_file, samples_file, log_path, samples_path)


def _make_out_dir(out_dir: Path, child: subprocess.Popen[bytes]) -> None:
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        raise LogscopeError(f"{out_dir}: cannot create the output folder: {exc.strerror or exc}") from None


def _header(options: RunOptions, nvml: Nvml, pid: int, log_path: Path) -> Header:
    return Header(
        log=log_path.name,
        started=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        command=tuple(options.command),
        root_pid=pid,
        nvml=nvml.available,
        reason=nvml.reason,
        driver=nvml.driver,
        interval_s=options.interval_s if nvml.available else None,
        gpus=nvml.gpus,
    )


def _supervise(
    options: RunOptions,
    child: subprocess.Popen[bytes],
    nvml: Nvml,
    started: float,
    log_file: IO[bytes],
    samples_file: IO[str],
    log_path: Path,
    samples_path: Path,
) -> RunResult:
    result = RunResult(0, log_path, samples_path, nvml.available)

    def write_sample(sample: Sample) -> None:
        samples_file.write(sample_json(sample) + "\n")
        samples_file.flush()

    sampler = Sampler(nvml, child.pid, write_sample, options.interval_s, started) if nvml.available else None
    if sampler is not None:
        sampler.start()
    detector = PhaseLines()
    ready_analysis: list[subprocess.Popen[bytes]] = []

    def on_line(number: int, line: bytes) -> None:
        kind = detector.candidate(line)
        if kind is None:
            return
        if len(result.phases) < MAX_PHASES:  # bounded: a crash loop prints phase lines without end
            result.phases.append((number, kind))
        taken = sampler.at_phase(number, line[:TEXT_KEEP].decode("utf-8", "replace")) if sampler is not None else None
        if kind == kinds.SERVER_READY and options.analysis and not ready_analysis:
            if taken is not None:
                taken.wait(timeout=2.0)  # the ready line's own sample, written on the sampler's thread
            log_file.flush()
            ready_analysis.append(_start_analysis(options, log_path, samples_path))

    writer = _LogWriter(log_file, on_line, detector.pattern)
    previous = {sig: signal.getsignal(sig) for sig in FORWARDED}

    presses = [0]  # Ctrl-C presses so far: the second sends SIGTERM, the third SIGKILL (a launch that ignores SIGINT)

    def forward(sig: int, _frame: FrameType | None) -> None:
        result.interrupted = True
        if result.user_stop is None:
            result.user_stop = (signal.Signals(sig).name, time.monotonic() - started, writer.lines)
        sent = sig
        if sig == signal.SIGINT:
            presses[0] += 1
            sent = _ESCALATION[min(presses[0], len(_ESCALATION)) - 1]
            if presses[0] > 1:
                then = "; Ctrl-C again sends SIGKILL" if sent == signal.SIGTERM else ""
                _say(options.stderr_fd, f"Ctrl-C x{presses[0]}: {signal.Signals(sent).name} sent to the launch{then}")
        with contextlib.suppress(ProcessLookupError):  # already gone
            os.killpg(child.pid, sent)

    for sig in FORWARDED:
        signal.signal(sig, forward)
    terminating = Terminating(forward)  # a launch that ignores SIGTERM or SIGHUP is killed after ESCALATE_S
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, terminating)
    try:
        outputs = {child.stdout.fileno(): options.stdout_fd, child.stderr.fileno(): options.stderr_fd}  # type: ignore[union-attr]
        _pump(child, writer, outputs, terminating, lambda message: _say(options.stderr_fd, message))
        code = child.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    writer.close()
    log_file.flush()
    if sampler is not None:
        sampler.stop()
        if sampler.error:
            _say(options.stderr_fd, sampler.error)
    if result.user_stop is not None:  # the analysis reports what follows it as the user's stop, not a crash
        name, at, lines = result.user_stop
        write_sample(Sample(at, "stop", lines, None, (), name))
    result.exit_code = 128 - code if code < 0 else code
    for pending in ready_analysis:
        pending.wait()
    if options.analysis and (not ready_analysis or code != 0):
        where = f"; written to {options.report_path}" if options.report_path is not None else ":"
        _say(options.report_fd, f"the launch ended with exit code {result.exit_code}; analysis of {log_path}{where}")
        _start_analysis(options, log_path, samples_path).wait()
    return result


def _pump(
    child: subprocess.Popen[bytes],
    writer: _LogWriter,
    outputs: dict[int, int],
    terminating: Terminating | None = None,
    say: Callable[[str], None] = lambda message: None,
) -> None:
    """Both pipes to their outputs as the bytes arrive (os.read: no line buffering to stall on a long line or
    binary junk), and to the log file; returns when the launch closed both, or when its tree has ended
    (measure/proctree.py: a grandchild left holding the pipes is ended with the launch, never waited for)."""
    ending = Ending(LaunchTree(child.pid), say)
    with selectors.DefaultSelector() as selector:
        for fd in outputs:
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            if ending.step(child.poll() is not None, terminating.at if terminating else None, time.monotonic()):
                break
            for key, _ in selector.select(timeout=0.2):
                fd = key.fd
                try:
                    data = os.read(fd, READ_BYTES)
                except InterruptedError:
                    continue
                if not data:
                    selector.unregister(fd)
                    continue
                _write_all(outputs[fd], data)
                writer.feed(fd, data)
    for stream in (child.stdout, child.stderr):
        if stream is not None:
            stream.close()


def _start_analysis(options: RunOptions, log_path: Path, samples_path: Path) -> subprocess.Popen[bytes]:
    """`logscope analyze` of the log and its samples, in its own process so that the launch's output keeps
    flowing while it reads (its output goes to report_fd: stdout on a terminal, else stderr; or, with --report,
    to that file, which the end's analysis replaces the ready line's with)."""
    command = [sys.executable, "-m", "logscope", "analyze", str(log_path), str(samples_path), "--format", options.fmt]
    if options.report_path is None:
        return subprocess.Popen(command, stdout=options.report_fd, stderr=options.stderr_fd, stdin=subprocess.DEVNULL)
    with open(options.report_path, "wb") as report:  # the child holds its own copy of the descriptor
        return subprocess.Popen(command, stdout=report, stderr=options.stderr_fd, stdin=subprocess.DEVNULL)
