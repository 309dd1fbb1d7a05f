"""Large plain files scanned in parallel by worker processes, each reading its own byte ranges.

A range owns the lines that start inside it: a worker moves its start and its end to the next line start with
a small read at each, so neighbouring ranges meet at the same newline without talking to each other. It reads
its range into one reusable buffer, cuts each read after its last newline (only the unfinished line is moved
to the front for the next read), and returns just the line count and the candidate lines (number, offset,
text), so nothing else crosses the process boundary. Processes, not threads: counting newlines and the `re`
fallback hold the GIL.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor
    from types import TracebackType

from logscope.core.errors import InputError
from logscope.core.limits import LINE_CAP
from logscope.pipeline.ingest.linescan import AnchoredPattern, Candidate, LiteralScan, Part, StartupScan, lines_matching

RANGE_MIN_BYTES = 16 << 20  # a smaller file is read on the main thread: starting workers costs more
RANGE_BYTES = 32 << 20  # one task: small enough to balance two cores over one file, large enough to amortise
# a worker's buffer (it grows only for a line longer than that, up to LINE_CAP): small enough that the newline
# count finds in the core's cache what the literal pass just read (about 8% less worker CPU here than 4 MiB)
READ_BYTES = 512 << 10
# Ranges given to the workers ahead of the one the classifier reads: one per worker and a spare while ranges come
# back dense (a 200 MB crash loop queued whole held every range's results while the main process classified the
# first: 1.4 GB at 100,000 launches); while they come back sparse, as long as fewer than AHEAD_SPARSE_BYTES of the
# file are out (given to a worker and not yet back) and the results of the ranges back but not yet read hold less than
# AHEAD_SPARSE_HELD: their results are a few lines, and the workers go on scanning while the main process is still
# importing the stages and reading the first ranges (bounded by the bytes given and unread, 96 MiB, the two
# workers stood idle for about 0.1 s of a 1 GiB serving log's start, 2026-12-07). The ranges out are bounded in
# bytes, not ranges: ranges given out sparse may all come back dense (a crash loop after hours of serving), and their
# results are then what waits (eight ranges of 32 MiB doubled the peak RSS of such a file, review10). A crash loop's
# range holds a candidate on every line (about 90 MB of results for 32 MiB), so a file's ranges are
# DENSE_RANGE_BYTES until one comes back with fewer than DENSE_FOUND candidates per RANGE_BYTES (a serving log's
# few), then RANGE_BYTES. Ranges are given as earlier ones come back (a callback on the executor's thread), not only
# as the classifier reads them.
AHEAD_SPARE = 1
AHEAD_SPARSE_BYTES = 96 << 20  # three ranges of RANGE_BYTES: the dense bound of two workers and a spare
# the results waiting to be read, in characters of their lines' text and LINE_RECORD for each line (a 1 GiB serving
# log's 33 ranges: about 0.35 MB in all); by lines alone, a log of long lines that hold a literal (records of 100 KB)
# would let gigabytes wait
AHEAD_SPARSE_HELD = 16 << 20
LINE_RECORD = 200  # about what a line's tuple, its numbers and its string's header take
DENSE_RANGE_BYTES = 8 << 20
DENSE_FOUND = 100_000
_PROBE_BYTES = 1 << 16

_scan: LiteralScan | None = None  # the worker process's compiled literals
_first_of: AnchoredPattern | None = None  # the pattern whose first lines each range reports
_startup: StartupScan | None = None  # the prefixed lines each range reports of its startup parts


@dataclass
class _QueuedFile:
    name: str
    path: str
    size: int
    cut: int = 0  # where its next range starts
    # its ranges given to a worker, in order
    scans: deque[Future[RangeScan]] = field(default_factory=deque)


@dataclass(frozen=True, slots=True)
class RangeScan:
    start: int  # offset of the range's first line
    end: int  # offset just past its last line
    lines: int
    found: list[Candidate]  # line index within the range, absolute offset, text
    cut_lines: int = 0  # lines longer than the buffer: their first LINE_CAP bytes were read, the rest skipped
    matches: list[tuple[int, str]] = field(default_factory=list)  # the range's first lines `first_of` matches (index, text)
    # the prefixed lines (as `found`) of the range's startup parts, read as if a part went on at the range's start
    # (the main thread settles that first part: linescan.settle_parts), the parts, and whether the cap cut the last
    startup: list[Candidate] = field(default_factory=list)
    startup_parts: list[Part] = field(default_factory=list)
    startup_capped: bool = False


def sparse(result: RangeScan) -> bool:
    """Whether the range came back with fewer than DENSE_FOUND candidates per RANGE_BYTES."""
    return len(result.found) * RANGE_BYTES < DENSE_FOUND * max(1, result.end - result.start)


def held(result: RangeScan) -> int:
    """About what a range's result holds while it waits to be read: its lines' text and LINE_RECORD for each line; a
    dense range's, its bytes (not summed line by line: a crash loop's range holds a line on every line)."""
    if not sparse(result):
        return result.end - result.start
    lines = (*result.found, *result.startup)
    return sum(len(text) for _, _, text in lines) + LINE_RECORD * len(lines)


def workers() -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, cores)


class RangeScanner:
    """A pool of worker processes (one per core) for the duration of one analysis; `parallel` is False where
    there is one core, and the caller then reads every source itself."""

    def __init__(
        self,
        literals: tuple[str, ...],
        enabled: bool,
        first_of: AnchoredPattern | None = None,
        startup: StartupScan | None = None,
    ) -> None:
        self.literals = literals
        self.pool: ProcessPoolExecutor | None = None
        self.files: deque[_QueuedFile] = deque()  # files with bytes not yet given to a worker, in order
        self.in_flight = 0  # ranges given to a worker and not yet read
        self.out_bytes = 0  # the bytes of those not yet back from the worker
        self.unread_held = 0  # what the results of those back and not yet read hold (`held`)
        self.sizes: dict[Future[RangeScan], int] = {}  # the ranges out: their bytes
        self.back: dict[Future[RangeScan], int] = {}  # the ranges back and not yet read: what their results hold
        self.sparse = False  # the last range that came back held few candidates
        self.closed = False
        self.all_submitted = False  # the caller submits no other file (`no_more_files`)
        self.closer: threading.Thread | None = None  # the pool's shutdown once every range is read
        self.forked = False  # the pool has started its workers (its first submit)
        # the classifier's thread and the executor's (where a range that comes back gives out the next) share the queue
        self.lock = threading.RLock()
        if not enabled or workers() < 2:
            return
        import multiprocessing  # only for large files: a paste does not pay for the import
        from concurrent.futures import ProcessPoolExecutor

        # fork is cheapest (the worker inherits the imported modules), but only safe on Linux in a single-threaded
        # process (a thread could hold a lock at the fork); the bot's server has threads, so there the workers spawn
        fork = sys.platform == "linux" and threading.active_count() == 1
        self.pool = ProcessPoolExecutor(
            workers(),
            mp_context=multiprocessing.get_context("fork" if fork else "spawn"),
            initializer=_init_worker,
            initargs=(literals, first_of, startup),
        )

    @property
    def parallel(self) -> bool:
        return self.pool is not None

    def _room(self) -> bool:
        """Whether another range may be given out: while ranges come back sparse, as long as fewer than
        AHEAD_SPARSE_BYTES are out and the results back unread hold less than AHEAD_SPARSE_HELD; else one per worker
        and a spare given and unread."""
        if self.sparse:  # (on many cores, one range per worker and a spare at least)
            out = max(AHEAD_SPARSE_BYTES, (workers() + AHEAD_SPARE) * RANGE_BYTES)
            return self.out_bytes < out and self.unread_held < AHEAD_SPARSE_HELD
        return self.in_flight < workers() + AHEAD_SPARE

    @property
    def range_bytes(self) -> int:
        return RANGE_BYTES if self.sparse else min(DENSE_RANGE_BYTES, RANGE_BYTES)

    def submit(self, name: str, path: str, size: int) -> Iterator[RangeScan]:
        """Queue the file after those queued before (the workers take their ranges in that order, as many not yet
        read at a time as `_room` allows); the iterator gives its ranges' results in file order."""
        queued = _QueuedFile(name, path, size)
        with self.lock:
            if size:
                self.files.append(queued)
            self._fill()
        return self._results(queued)

    def _fill(self) -> None:
        while self.files and self._room() and not self.closed:
            self._cut(self.files[0])

    def _cut(self, queued: _QueuedFile) -> None:
        """The file's next range, given to a worker."""
        assert self.pool is not None
        start, end = queued.cut, min(queued.cut + self.range_bytes, queued.size)
        # the pool forks its workers at its first submit, and a Ctrl-C that lands in a fork is raised inside
        # logging's at-fork hook, which swallows it ("Exception ignored in: <function _releaseLock>"): held back
        # until the fork is done, it is raised here
        with contextlib.nullcontext() if self.forked else sigint_held():
            future = self.pool.submit(_scan_range, queued.name, queued.path, start, end)
        self.forked = True
        queued.scans.append(future)
        queued.cut = end
        self.in_flight += 1
        self.out_bytes += end - start
        self.sizes[future] = end - start
        if end >= queued.size:
            self.files.remove(queued)
        future.add_done_callback(self._came_back)

    def _came_back(self, future: Future[RangeScan]) -> None:
        """A range's scan is done (on the executor's thread): the next ranges are given out now, without waiting
        for the classifier to read it."""
        if future.cancelled() or future.exception() is not None:
            return  # the classifier meets the error when it reads the range
        with self.lock:
            result = future.result()
            if future in self.sizes:  # (not yet read: the classifier may read it before this callback runs)
                self.out_bytes -= self.sizes.pop(future)
                self.back[future] = held(result)
                self.unread_held += self.back[future]
            self._note(result)
            self._fill()

    def _note(self, result: RangeScan) -> None:
        self.sparse = sparse(result)

    def _results(self, queued: _QueuedFile) -> Iterator[RangeScan]:
        while True:
            with self.lock:
                if not queued.scans and queued.cut >= queued.size:
                    self._done_with_workers()
                    return
                if not queued.scans:  # read before a file queued ahead of it: its range is given now
                    self._cut(queued)
                future = queued.scans.popleft()
            result = future.result()
            with self.lock:
                self.in_flight -= 1
                if future in self.back:
                    self.unread_held -= self.back.pop(future)
                else:  # read before its callback ran: that callback finds it no longer out
                    self.out_bytes -= self.sizes.pop(future, 0)
                self._note(result)
                self._fill()
            yield result

    def no_more_files(self) -> None:
        """The caller has submitted its last file: once their ranges are all read, the workers may go."""
        with self.lock:
            self.all_submitted = True

    def _done_with_workers(self) -> None:
        """Once every range of every file is given out and read (and no other file will come), the workers are told
        to exit now, not when the analysis is done: they exit while this process goes on alone (assembling, the
        rules, the document), and the join at the end finds them gone (it had waited 10-20 ms for their exit after
        the 1 GiB bench log's tail). The pool's own shutdown, on a thread of its own, joins them (a shutdown without
        waiting drops the pool's handles, so that a later one would join nothing); the end joins that thread."""
        if self.pool is not None and self.all_submitted and not self.files and not self.in_flight and not self.closed:
            self.closed = True
            self.closer = threading.Thread(target=self.pool.shutdown, name="logscope-range-workers-exit", daemon=True)
            self.closer.start()

    def __enter__(self) -> RangeScanner:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        with self.lock:
            self.closed = True  # a range that comes back now gives out no other
        if self.closer is not None:
            self.closer.join()  # the workers, told to exit once every range was read, joined
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)


@contextlib.contextmanager
def sigint_held() -> Iterator[None]:
    """SIGINT blocked for this thread while the block runs: one that arrives meanwhile stays pending and is raised
    (KeyboardInterrupt) as the block ends, not inside code that runs in between. (A signal sent to the process goes
    to another thread that does not block it, if there is one: the pool forks only where this is the only thread.)"""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _init_worker(literals: tuple[str, ...], first_of: AnchoredPattern | None, startup: StartupScan | None) -> None:
    global _scan, _first_of, _startup
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle (exit 130, no tracebacks)
    _scan = LiteralScan(literals)
    _first_of = first_of
    _startup = startup


def _scan_range(name: str, path: str, start: int, end: int) -> RangeScan:
    assert _scan is not None
    try:
        with open(path, "rb", buffering=0) as handle:
            own_start, own_end = _line_start(handle, start), _line_start(handle, end)
            lines, found, cut, matches, startup = _scan_lines(handle, own_start, own_end, _scan, _first_of, _startup)
    except OSError as exc:
        raise InputError(f"{name}: cannot read: {exc.strerror or exc}") from None
    return RangeScan(own_start, own_end, lines, found, cut, matches, *startup)


def _line_start(handle: object, offset: int) -> int:
    """The first line start at or after `offset`: 0, or just past a newline (the file's end if none)."""
    if offset <= 0:
        return 0
    fd = handle.fileno()  # type: ignore[attr-defined]
    at = offset - 1
    while True:
        block = os.pread(fd, _PROBE_BYTES, at)
        if not block:
            return at
        newline = block.find(b"\n")
        if newline >= 0:
            return at + newline + 1
        at += len(block)


def _scan_lines(
    handle: object,
    start: int,
    end: int,
    scan: LiteralScan,
    first_of: AnchoredPattern | None = None,
    startup: StartupScan | None = None,
) -> tuple[int, list[Candidate], int, list[tuple[int, str]], tuple[list[Candidate], list[Part], bool]]:
    buf = bytearray(READ_BYTES)
    held = 0  # bytes of an unfinished line at the front of buf
    offset = start  # file offset of buf[0]
    position = start  # next file offset to read
    lines = cuts = 0
    cutting = False  # inside a line longer than the buffer: its first LINE_CAP bytes are held, the rest dropped
    found: list[Candidate] = []
    matches: list[tuple[int, str]] = []
    prefixed: list[Candidate] = []
    parts: list[Part] = []
    starting, capped = True, False  # as if a startup part went on at the range's start
    first_settled = False
    handle.seek(start)  # type: ignore[attr-defined]
    while True:
        got = 0
        read_at = position  # the file offset of buf[held] for this read
        if position < end:
            if held == len(buf) and not cutting:
                if len(buf) <= LINE_CAP:
                    buf.extend(bytes(len(buf)))  # one line longer than the buffer, not yet over the cap
                else:
                    held, cutting = LINE_CAP, True  # memory stays bounded whatever the line's length
                    cuts += 1
            got = handle.readinto(memoryview(buf)[held : held + min(len(buf) - held, end - position)])  # type: ignore[attr-defined]
            position += got
        if cutting:
            newline = buf.find(b"\n", held, held + got) if got else -1
            if newline < 0 and got and position < end:
                continue  # still inside the over-long line
            rest_from = newline + 1 if newline >= 0 else held + got
            rest = bytes(buf[rest_from : held + got])
            buf[held] = 0x0A  # the cut line, ended where the cap cut it
            count, hits = scan.candidates(buf, 0, held + 1)
            found.extend((lines + index, offset + at, text) for index, at, text in hits)
            lines += count
            offset = read_at + (rest_from - held)
            buf[: len(rest)] = rest
            held, cutting = len(rest), False
            continue
        filled = held + got
        finished = position >= end or got == 0
        complete = filled if finished else buf.rfind(b"\n", 0, filled) + 1
        if complete:
            count, hits = scan.candidates(buf, 0, complete)
            found.extend((lines + index, offset + at, text) for index, at, text in hits)
            if first_of is not None and not first_settled:
                serving = [(lines + index, text) for index, text in lines_matching(first_of, buf, 0, complete)]
                first_settled = first_of.add(matches, serving)  # kept: asking `enough` again each read parses time stamps
            if startup is not None and not capped:
                more, read_parts, capped = startup.parts(buf, 0, complete, hits, starting, startup.cap - len(prefixed))
                prefixed.extend((lines + index, offset + at, text) for index, at, text in more)
                for part_from, part_to in read_parts:
                    after = None if part_to is None else lines + part_to
                    if parts and parts[-1][1] is None and part_from == 0:
                        parts[-1] = (parts[-1][0], after)  # the part that went on from the previous read
                    else:
                        parts.append((lines + part_from, after))
                starting = parts[-1][1] is None if parts else starting
            lines += count
            held = filled - complete
            buf[:held] = buf[complete:filled]
            offset += complete
        else:
            held = filled
        if finished:
            return lines, found, cuts, matches, (prefixed, parts, capped)
