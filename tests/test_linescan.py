"""The raw-bytes literal scan (linescan) and the parallel byte ranges (ranges): same lines, numbers and texts
whichever path reads an input."""

from __future__ import annotations

import dataclasses
import pickle
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from logscope.pipeline.ingest import linescan, ranges
from logscope.pipeline.ingest.ingest import Source, scan_sources
from logscope.pipeline.ingest.linescan import (
    AnchoredPattern,
    LineChunk,
    LiteralScan,
    StartupScan,
    decode_line,
    first_line_matching,
    newlines,
)
from logscope.pipeline.parse import literal_set, prefilter
from logscope.pipeline.parse.serving import STARTUP

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted(
    p for d in ("real", "pastes", "synthetic", "h200") for p in (ROOT / "fixtures" / d).glob("*") if p.suffix in (".log", ".txt")
)
EDGES = (
    b"a\n\nb\n",
    b"a\nb",
    b"\n",
    b"\n\n",
    b"a\r\nb\r\n",
    b"a\rb\n",
    b"x\x00y\n",
    b"p\x1fq\n",
    b"  \n",
    b"a\n\r\n",
    b"\xff\xfeWARN\xc3\n",
    b"ok\nERROR\x1f in the cut part\nWA\x00RN\n",
    b"",
)


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        (b"a\r", "a"),
        (b"a\rb", "a\rb"),
        (b"p\x1fq", "p"),
        (b"x\x00y", "x\x00y"),
        (b"\xff\xfeab\xc3", "\ufffd\ufffdab\ufffd"),
        (b"", ""),
    ],
)
def test_a_line_is_decoded_lossily_without_its_cr_and_what_follows_a_unit_separator(raw, text):
    assert decode_line(raw) == text


@pytest.mark.parametrize(
    "line_bytes",
    [
        (1,),  # blank lines only: counted by `count` throughout
        (200,),  # long lines: counted by `replace` after the first block
        (200, 200, 1, 200, 3, 5000),  # mixed: each block switches on what the one before held
        (70_000, 1, 2),  # a line longer than a block
        (33_000, *([1] * 33_000)),  # a block of one long line, then one of blank lines: the backoff's path
    ],
)
@pytest.mark.parametrize("bounds", [(0, None), (5, -7), (40_000, -1)])
def test_newlines_are_counted_as_bytes_count_counts_them_in_every_block_mode(line_bytes, bounds):
    data = bytearray(b"".join(b"x" * (n - 1) + b"\n" for n in line_bytes * (150_000 // sum(line_bytes) + 1)))
    start, stop = bounds
    end = len(data) + stop if stop is not None else len(data)
    assert newlines(data, start, end) == data.count(b"\n", start, end) > 0


@pytest.mark.parametrize("data", EDGES)
def test_line_counts_and_candidates_of_edge_cases(data):
    lines, found = LiteralScan(("WARN", "ERROR", "a")).candidates(data, 0, len(data))
    physical = data.split(b"\n")
    if data.endswith(b"\n") or not data:
        physical.pop()
    assert lines == len(physical)
    assert found == [
        (i, sum(len(p) + 1 for p in physical[:i]), decode_line(p))
        for i, p in enumerate(physical)
        if any(lit in decode_line(p) for lit in ("WARN", "ERROR", "a"))
    ]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_the_native_pass_finds_the_same_lines_as_re(path, monkeypatch):
    pytest.importorskip("hyperscan")
    data = path.read_bytes()
    scan = LiteralScan(prefilter.all_literals())
    by_re = scan.candidates(data, 0, len(data))
    monkeypatch.setattr("logscope.pipeline.ingest.linescan.NATIVE_MIN_BYTES", 0)
    assert scan.native() is not None
    assert scan.candidates(data, 0, len(data)) == by_re
    assert [i for i, _, text in by_re[1]] == [
        i
        for i, line in enumerate(data.decode("utf-8", "replace").split("\n"))
        if literal_set.holds_literal(line.split("\x1f")[0])
    ]


def test_the_compiled_database_is_stored_and_a_damaged_one_is_compiled_again(tmp_path, monkeypatch):
    hyperscan = pytest.importorskip("hyperscan")
    monkeypatch.setenv("LOGSCOPE_CACHE_DIR", str(tmp_path))
    literals = ("WARN", "ERROR", "Traceback")
    data = b"ok\nWARN a\nfine\nx ERROR\n"
    compiled = linescan._hyperscan_search(literals)
    assert compiled is not None
    [stored] = tmp_path.glob("hyperscan-db-*.pickle")

    def not_compiled(*_args):
        raise AssertionError("compiled although a stored database was there")

    monkeypatch.setattr(linescan, "_compiled_database", not_compiled)
    loaded = linescan._hyperscan_search(literals)
    assert loaded is not None and loaded(data, 0, len(data)) == compiled(data, 0, len(data)) == [6, 21]
    monkeypatch.undo()
    monkeypatch.setenv("LOGSCOPE_CACHE_DIR", str(tmp_path))
    stored.write_bytes(pickle.dumps(b"not a database"))
    again = linescan._hyperscan_search(literals)
    assert again is not None and again(data, 0, len(data)) == [6, 21]
    assert hyperscan.loadb(pickle.loads(stored.read_bytes()), hyperscan.HS_MODE_BLOCK) is not None  # stored anew


def _read(chunks):
    out = []
    for chunk in chunks:
        out.append(("candidates", [(chunk.first + i, t) for i, t in zip(chunk.candidates, chunk.texts)]))
        # every line, walked forward from each candidate and from the start, as the classifier does
        forward = [chunk.line(i) for i in range(chunk.size)]
        out.append(("lines", [(chunk.first + i, text) for i, text in enumerate(forward)]))
        assert [chunk.line(i) for i in range(chunk.size - 1, -1, -7)] == forward[::-1][::7]  # walking back
        match = chunk.first_match
        out.append(("first", [] if match is None else [(chunk.first + match[0], match[1])]))
        parts = [(chunk.first + a, None if b is None else chunk.first + b, a == 0) for a, b in chunk.startup_parts]
        out.append(("startup", parts))
    return out


def test_ranges_are_given_out_as_earlier_ones_come_back_while_none_is_read(tmp_path, monkeypatch):
    """The workers go on while the classifier is busy elsewhere (importing the stages): sparse ranges are given out as
    earlier ones come back, never more than AHEAD_SPARSE_BYTES out at once, and those back wait unread (a few lines
    each) while there is room for their lines; every line is still read once, in order."""
    if ranges.workers() < 2:
        pytest.skip("one core: no worker processes")
    path = tmp_path / "serving.log"
    path.write_bytes(b"plain line\n" * 20_000 + b"an ERROR line\n")
    monkeypatch.setattr(ranges, "RANGE_BYTES", 4096)
    monkeypatch.setattr(ranges, "DENSE_RANGE_BYTES", 4096)
    monkeypatch.setattr(ranges, "AHEAD_SPARSE_BYTES", 10 * 4096)
    out: list[int] = []
    with ranges.RangeScanner(("ERROR",), enabled=True) as scanner:
        given = scanner._cut

        def cut(queued):
            given(queued)
            out.append(scanner.out_bytes)

        monkeypatch.setattr(scanner, "_cut", cut)
        results = scanner.submit("serving.log", str(path), path.stat().st_size)
        waited = 0.0
        while scanner.files and waited < 60:
            time.sleep(0.05)
            waited += 0.05
        # every range given out with none read, the bound on the bytes out held at each
        assert not scanner.files and scanner.in_flight == -(-path.stat().st_size // 4096) == 54
        assert max(out) <= ranges.AHEAD_SPARSE_BYTES
        scans = list(results)
    assert sum(scan.lines for scan in scans) == 20_001
    assert [text for scan in scans for _, _, text in scan.found] == ["an ERROR line"]
    assert all(a.end == b.start for a, b in zip(scans, scans[1:]))
    assert scanner.in_flight == scanner.out_bytes == scanner.unread_held == 0


def test_ranges_back_unread_are_bounded_by_what_their_lines_hold(tmp_path, monkeypatch):
    """While the classifier reads none, sparse ranges are given out only until the results back hold AHEAD_SPARSE_HELD
    (their lines' text and a record each): then the workers wait for the reader, and the rest is given as it reads."""
    if ranges.workers() < 2:
        pytest.skip("one core: no worker processes")
    path = tmp_path / "serving.log"
    path.write_bytes((b"plain line\n" * 199 + b"an ERROR line\n") * 100)  # 2,199 bytes: about 2 candidates a range
    monkeypatch.setattr(ranges, "RANGE_BYTES", 4096)
    monkeypatch.setattr(ranges, "DENSE_RANGE_BYTES", 4096)
    monkeypatch.setattr(ranges, "AHEAD_SPARSE_BYTES", 3 * 4096)
    line = len("an ERROR line") + ranges.LINE_RECORD
    monkeypatch.setattr(ranges, "AHEAD_SPARSE_HELD", 6 * line)  # six candidate lines
    with ranges.RangeScanner(("ERROR",), enabled=True) as scanner:
        results = scanner.submit("serving.log", str(path), path.stat().st_size)
        waited = 0.0
        while (scanner.out_bytes or scanner.unread_held < 6 * line) and waited < 60:
            time.sleep(0.05)
            waited += 0.05
        time.sleep(0.2)
        # stopped at the bound: the lines back unread reach it, and the ranges out then (3 at most, 2 lines or 3
        # each) came back too
        assert scanner.out_bytes == 0 and 6 * line <= scanner.unread_held <= (6 + 3 * 3) * line
        assert scanner.unread_held % line == 0
        assert scanner.files and scanner.in_flight <= 8
        scans = list(results)
    assert sum(scan.lines for scan in scans) == 20_000
    assert sum(len(scan.found) for scan in scans) == 100
    assert all(a.end == b.start for a, b in zip(scans, scans[1:]))


@pytest.mark.parametrize("threaded", [False, True], ids=["fork", "spawn-from-a-thread"])
def test_byte_ranges_give_the_lines_of_a_sequential_read(tmp_path, monkeypatch, threaded):
    # the fixtures in order up to the first that holds the ready line (at least 12), so a fixture added before
    # it keeps the ready line in the body
    ready = next(i for i, p in enumerate(FIXTURES) if b"fired up and ready" in p.read_bytes())
    body = b"".join(p.read_bytes() for p in FIXTURES[: max(12, ready + 1)]) + b"\n\nlong " + b"x" * 5000 + b" WARN\nlast ERROR"
    # prefixed lines before the startup's end (the ready line near the end of the 12 fixtures) and after it
    body = body.replace(b"\n", b"\n[2026-01-01 00:00:00 TP0] no literal here\n", 40)
    body += b"\n[2026-01-01 00:00:09 TP0] no literal here"
    assert body.index(b"fired up and ready") > 10 * 3001
    path = tmp_path / "rank3.log"
    path.write_bytes(body)
    literals = prefilter.all_literals()
    # found by the workers where they read, as the serving line is
    first_of = AnchoredPattern(re.compile(rb" WARN\b|ERROR"), (b" WARN", b"ERROR"))
    sequential = Source(name=str(path), path=path)
    expected = _read(sequential.chunks(literals, None, first_of, STARTUP))
    monkeypatch.setattr(ranges, "RANGE_MIN_BYTES", 1)
    monkeypatch.setattr(ranges, "RANGE_BYTES", 3001)  # ranges start and end inside lines
    monkeypatch.setattr(ranges, "READ_BYTES", 512)  # reads end inside lines; one line is longer than a read
    if ranges.workers() < 2:
        pytest.skip("one core: no worker processes")
    parallel = Source(name=str(path), path=path)
    results: dict[str, object] = {}

    def scan() -> None:
        sources = [parallel, Source(name="mem", path=None, data=body)]
        with scan_sources(sources, literals, first_of, STARTUP) as (chunks, in_memory):
            results["got"], results["in_memory"] = _read(chunks), _read(in_memory)

    if threaded:  # a process with threads (the bot's server) spawns its workers instead of forking
        worker = threading.Thread(target=scan)
        worker.start()
        worker.join()
    else:
        scan()
    got = results["got"]
    assert results["in_memory"] == expected
    flat = lambda parts, kind: [x for k, xs in parts if k == kind for x in xs]  # noqa: E731
    assert flat(got, "candidates") == flat(expected, "candidates")
    assert flat(got, "lines") == flat(expected, "lines")
    lines = dict(flat(expected, "lines"))
    assert (
        flat(got, "first")[0]
        == flat(expected, "first")[0]
        == next((n, t) for n, t in sorted(lines.items()) if first_of.regex.search(t.encode()))
    )
    assert all(first_of.regex.search(text.encode()) and lines[n] == text for n, text in flat(got, "first"))
    # the startup parts and their prefixed lines are handed over up to their ends, whichever path reads the file
    assert joined(flat(got, "startup")) == joined(flat(expected, "startup"))
    assert joined(flat(got, "startup"))[0] == (1, lines_before(body, b"fired up and ready"))
    handed = [text for _, text in flat(got, "candidates") if text.endswith("no literal here")]
    assert handed == ["[2026-01-01 00:00:00 TP0] no literal here"] * body[: body.index(b"fired up")].count(b"no literal here")
    assert parallel.lines == sequential.lines == body.count(b"\n") + 1


def joined(parts: list[tuple[int, int | None, bool]]) -> list[tuple[int, int | None]]:
    """Startup parts of consecutive chunks, a part that goes on past its chunk joined to its continuation."""
    out: list[tuple[int, int | None]] = []
    for first, after, at_chunk_start in parts:
        if out and out[-1][1] is None and at_chunk_start:
            first = out.pop()[0]
        out.append((first, after))
    return out


def lines_before(body: bytes, needle: bytes) -> int:
    """The 1-based number of the line holding `needle`."""
    return body[: body.index(needle)].count(b"\n") + 1


# (lines, starting, cap): a startup part from the start (when starting) or from a "BEGIN" line, to a "RUN" line; its
# lines with "[" in them, at most cap per chunk
STARTUP_CASES = [
    ([b"[a", b"x", b"[b", b"RUN [c", b"[d"], True, 10),
    ([b"[a", b"[b", b"[c", b"RUN"], True, 2),
    ([b"[a", b"[b"], True, 2),
    ([b"x", b"y [z"], True, 5),
    ([b"RUN", b"[a"], True, 5),
    ([], True, 3),
    ([b"[a\r", b"[b\x1fcut"], True, 5),
    ([b"[a", b"RUN", b"[b", b"BEGIN [c", b"[d", b"RUN", b"[e", b"BEGIN", b"[f"], True, 10),
    ([b"[a", b"RUN", b"BEGIN", b"[b", b"[c", b"RUN"], False, 10),
    ([b"[a", b"BEGIN", b"[b", b"[c", b"[d", b"RUN"], False, 2),
    ([b"[a", b"[b"], False, 5),
]


def _reference(lines: list[bytes], starting: bool, cap: int) -> tuple[list, list, bool]:
    out: list = []
    parts: list = [[0, None]] if starting else []
    offset = 0
    inside = starting
    for i, line in enumerate(lines):
        if not inside and b"BEGIN" in line:
            inside = True
            parts.append([i, None])
        if inside and b"RUN" in line:
            inside = False
            parts[-1][1] = i
        if inside and b"[" in line:
            if len(out) == cap:
                parts[-1][1] = i
                return out, [tuple(p) for p in parts], True
            out.append((i, offset, decode_line(line)))
        offset += len(line) + 1
    return out, [tuple(p) for p in parts], False


@pytest.mark.parametrize(("lines", "starting", "cap"), STARTUP_CASES)
def test_the_startup_scan_hands_over_the_prefixed_lines_of_its_parts(lines, starting, cap):
    data = b"".join(line + b"\n" for line in lines)
    scan = StartupScan(re.compile(rb"\["), AnchoredPattern(re.compile(rb"RUN"), (b"RUN",)), re.compile("BEGIN"), cap)
    _, literal = LiteralScan(("BEGIN",)).candidates(data, 0, len(data))
    assert scan.parts(data, 0, len(data), literal, starting, cap) == _reference(lines, starting, cap)


def test_a_worker_cuts_a_line_longer_than_its_buffer_and_keeps_the_offsets_after_it(tmp_path, monkeypatch):
    # a 10,000-byte line with a 4,096-byte buffer and a 1,024-byte cap: its first 1,024 bytes are read, the
    # rest skipped and counted; the candidate after it keeps its true file offset
    monkeypatch.setattr(ranges, "READ_BYTES", 4096)
    monkeypatch.setattr(ranges, "LINE_CAP", 1024)
    lines = [b"a avail mem=1 GB\n", b"avail " + b"x" * 10_000 + b"\n", b"b\n", b"c avail mem=2 GB\n", b"d\n"]
    path = tmp_path / "long.log"
    path.write_bytes(b"".join(lines))
    with open(path, "rb", buffering=0) as handle:
        count, found, cuts, _first, _startup = ranges._scan_lines(handle, 0, path.stat().st_size, LiteralScan(("avail mem",)))
    assert (count, cuts) == (5, 1)
    assert [(index, offset) for index, offset, _text in found] == [(0, 0), (3, sum(map(len, lines[:3])))]
    assert found[1][2] == "c avail mem=2 GB"


SERVING_LINES = (
    b'INFO:     10.0.3.4:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    b"[2026-01-01 10:00:00 TP0] Decode batch. #running-req: 1, #token: 90",
    b"GET /v1/files/file-1f2e3d 200 OK",  # the batch API's file retrieval (a GET that is a request served)
    # a batch ran (issue 34: the scheduler was running; SGLang's warmup request is one, the verdict says so)
    b'INFO:     127.0.0.1:40000 - "POST /generate HTTP/1.1" 200 OK',
    b"[2026-01-01 10:00:00 TP0] Prefill batch. #new-seq: 1, #new-token: 6, #cached-token: 0",
)
NOT_SERVING = (
    b'INFO:     127.0.0.1:40000 - "GET /get_model_info HTTP/1.1" 200 OK',  # SGLang's warmup probe runs no batch
    b"GET /v1/models 200 OK",  # the readiness probe (SGLang's wait_for_server polls it) runs no batch either
    b'"GET /health HTTP/1.1" 200 OK and POST /x 500',
    b"POST /v1/chat/completions\n 200 OK",  # the pattern never matches across a line's end
    b"Decode batch #running-req",
)


@pytest.mark.parametrize("tail", SERVING_LINES)
@pytest.mark.parametrize("path", FIXTURES[::5], ids=lambda p: p.name)
def test_the_anchored_search_finds_the_first_line_a_line_by_line_search_finds(path, tail):
    from logscope.pipeline.parse.serving import SERVING_BYTES

    data = path.read_bytes() + b"\n" + b"\n".join(NOT_SERVING) + b"\n" + tail + b"\nafter\n"
    lines = data.split(b"\n")
    expected = next((i, decode_line(line)) for i, line in enumerate(lines) if SERVING_BYTES.regex.search(line))
    assert first_line_matching(SERVING_BYTES, data, 0, len(data)) == expected
    assert first_line_matching(SERVING_BYTES, b"\n".join(NOT_SERVING), 0, len(b"\n".join(NOT_SERVING))) is None


@pytest.mark.parametrize(
    "extra", [b"", "\u00e9".encode() * 40 + b"\n", b"cut\x1f" + b"x" * 96 + b"\n"], ids=["ascii", "utf8", "unit-sep"]
)
def test_chunk_lines_of_a_width_are_those_a_full_decode_measures(extra):
    widths = frozenset({80, 100, 120})
    body = b"".join(p.read_bytes() for p in FIXTURES[:6]) + b"a" * 80 + b"\r\n" + b"b" * 79 + b"\r\n" + b"c" * 100 + b"\n"
    data = extra + body + b"d" * 120
    chunk = LineChunk.in_memory(1, data.count(b"\n") + 1, [], data)
    lines = chunk.all_lines()
    decoded = [decode_line(raw) for raw in data.split(b"\n")]
    assert list(lines) == decoded
    assert lines.of_width(widths) == [i for i in range(len(decoded) - 1) if len(decoded[i]) in widths]


def test_the_sparse_look_ahead_gives_each_worker_a_range_and_a_spare_on_many_cores(monkeypatch):
    monkeypatch.setattr(ranges, "workers", lambda: 16)
    scanner = ranges.RangeScanner(("ERROR",), enabled=False)  # no pool: the bound alone
    scanner.sparse = True
    scanner.out_bytes = 16 * ranges.RANGE_BYTES
    assert scanner._room()  # 17 ranges of 32 MiB may be out, beyond AHEAD_SPARSE_BYTES (review10 item 5)
    scanner.out_bytes = 17 * ranges.RANGE_BYTES
    assert not scanner._room()
    monkeypatch.setattr(ranges, "workers", lambda: 2)
    scanner.out_bytes = ranges.AHEAD_SPARSE_BYTES
    assert not scanner._room()
    scanner.out_bytes = 0
    assert scanner._room()
    scanner.unread_held = ranges.AHEAD_SPARSE_HELD  # ranges back unread: bounded by what their results hold
    assert not scanner._room()


def test_what_a_waiting_result_holds_is_its_lines_text_or_a_dense_ranges_bytes():
    line = ranges.LINE_RECORD
    few = ranges.RangeScan(0, 1 << 20, 5000, [(3, 300, "x" * 100_000), (9, 900, "an ERROR line")], startup=[(1, 10, "ab")])
    assert ranges.sparse(few) and ranges.held(few) == 100_000 + 13 + 2 + 3 * line  # long lines weigh their length
    dense = ranges.RangeScan(0, 4096, 200, [(i, i, "ERROR") for i in range(200)])
    assert not ranges.sparse(dense) and ranges.held(dense) == 4096


_INTERRUPTED_FORK = """
import os, signal, sys
from logscope.pipeline.ingest import ranges
ranges.RANGE_MIN_BYTES = 1 << 16
fired = []
def interrupt():  # Ctrl-C landing while the pool forks its workers (after each fork, in the parent)
    if not fired:
        fired.append(1)
        os.kill(os.getpid(), signal.SIGINT)
os.register_at_fork(after_in_parent=interrupt)
sys.argv = ["logscope", "analyze", sys.argv[1]]
from logscope.entry import main
main()
"""


def test_a_ctrl_c_during_the_pools_fork_ends_the_run_with_130(tmp_path):
    """review10 item 9: logging's at-fork hook swallowed a SIGINT that landed during the pool's fork ("Exception
    ignored in: <function _releaseLock>") and the run went on to exit 1. The signal is sent from an at-fork hook in
    the parent, so it lands in the fork every time."""
    if ranges.workers() < 2:
        pytest.skip("one core: no worker processes")
    path = tmp_path / "big.log"
    path.write_bytes(b"[2025-03-09 14:40:46 TP0] Load weight begin. avail mem=78.50 GB\n" * 4000 + b"RuntimeError: boom\n")
    run = subprocess.run(
        [sys.executable, "-c", _INTERRUPTED_FORK, str(path)], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert run.returncode == 130, run.stderr
    assert "Exception ignored" not in run.stderr


def test_sigint_held_raises_the_interrupt_as_the_block_ends():
    reached = []
    with pytest.raises(KeyboardInterrupt), ranges.sigint_held():
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)  # to this thread: others the suite left may not block it
        reached.append("the block went on")
    assert reached == ["the block went on"]


def _startup_ends(chunks) -> tuple[int, int]:
    """(startup parts ended, prefixed lines handed over) of a file's chunks."""
    chunks = list(chunks)
    ended = sum(after is not None for chunk in chunks for _, after in chunk.startup_parts)
    handed = sum(text.endswith("no literal here") for chunk in chunks for text in chunk.texts)
    return ended, handed


def test_the_startup_cap_holds_per_file_whatever_the_cutting(tmp_path, monkeypatch):
    """review10 item 8: the cap on a startup part's prefixed lines held per range (or per read), so how many startup
    parts a crash loop's file ended depended on where it was cut (1254 on main vs 1755 at 142118c on one file). Per
    file it is the parts up to the file's first prefixed line past the cap, whichever path reads it, however cut."""
    launch = (
        b"[2026-01-01 00:00:00] server_args=ServerArgs(model_path='m', tp_size=1)\n"
        + b"[2026-01-01 00:00:01 TP0] no literal here\n" * 7
        + b"[2026-01-01 00:00:02] The server is fired up and ready to roll!\n"
        + b"[2026-01-01 00:00:03 TP0] Decode batch. #running-req: 1, #token: 9\n" * 20
    )
    path = tmp_path / "loop.log"
    path.write_bytes(launch * 400)
    # 8 prefixed lines a launch (its server_args line too): 12 launches' and 4 of the 13th's
    startup = dataclasses.replace(STARTUP, cap=100)
    literals = prefilter.all_literals()
    got = set()
    for read_bytes in (4096, 50_000):
        source = Source(name="mem", path=None, data=path.read_bytes())
        source.read_bytes = read_bytes
        got.add(("read", _startup_ends(source.chunks(literals, None, None, startup))))
    if ranges.workers() >= 2:
        monkeypatch.setattr(ranges, "RANGE_MIN_BYTES", 1)
        for range_bytes in (8192, 65_536):
            monkeypatch.setattr(ranges, "RANGE_BYTES", range_bytes)
            monkeypatch.setattr(ranges, "DENSE_RANGE_BYTES", range_bytes)
            source = Source(name=str(path), path=path)
            with scan_sources([source], literals, None, startup) as (chunks,):
                got.add(("ranges", _startup_ends(chunks)))
    assert {counts for _, counts in got} == {(13, 12 * 7 + 3)}


@pytest.mark.parametrize("cut", [0, 1, 199, 200, 3_000])
def test_a_stretch_of_most_of_its_buffer_is_counted_whole_less_the_newlines_outside_it(cut):
    # 512 KiB of 200-byte lines (a read of a serving log): the whole-buffer `replace`, less `count` of the bytes
    # before and after the stretch, which hold newlines of their own
    data = bytearray((b"x" * 199 + b"\n") * (512 * 1024 // 200))
    start, end = cut, len(data) - cut
    assert end - start >= 0.9 * len(data)
    outside = data.count(b"\n", 0, start) + data.count(b"\n", end)
    assert newlines(data, start, end) == data.count(b"\n", start, end) == data.count(b"\n") - outside
    assert (outside > 0) is (cut > 0)


class _ReplaceSpy(bytearray):
    """A read's buffer that notes each `replace` of the whole buffer (a block's slice is a plain bytearray)"""

    calls: list[int]

    def replace(self, *args, **kwargs):  # type: ignore[override]
        self.calls.append(len(self))
        return super().replace(*args, **kwargs)


@pytest.mark.parametrize(
    ("shape", "whole"),
    [
        # a read that opens with one 40 KiB record (a JSON line, a flattened traceback), then blank lines: by the first
        # block alone it was counted whole, ~9x the block-wise cost (review15a item 2: 588 ms vs 65 ms per 64 MiB)
        (b"x" * 40_960 + b"\n" + b"\n" * (512 * 1024 - 40_961), False),
        # ... then 16-byte lines; or long lines with a stretch of blank lines in the middle, or at the end
        (b"x" * 40_960 + b"\n" + (b"y" * 15 + b"\n") * ((512 * 1024 - 40_961) // 16), False),
        ((b"x" * 199 + b"\n") * 1_200 + b"\n" * 40_000 + (b"x" * 199 + b"\n") * 1_200, False),
        ((b"x" * 199 + b"\n") * 2_400 + b"\n" * 40_000, False),
        # a stretch of 6 KiB of blank lines around the middle, or 5 KiB at the very end: the 4 KiB samples find it
        ((b"x" * 199 + b"\n") * 1_300 + b"\n" * 6_144 + (b"x" * 199 + b"\n") * 1_300, False),
        ((b"x" * 199 + b"\n") * 2_600 + b"\n" * 5_120, False),
        # long lines throughout: counted whole
        ((b"x" * 149 + b"\n") * (512 * 1024 // 150), True),
    ],
)
def test_the_whole_buffer_is_counted_by_replace_only_when_its_first_middle_and_last_blocks_are_long_lines(shape, whole):
    data = _ReplaceSpy(shape)
    data.calls = []
    assert newlines(data, 0, len(data)) == bytes(data).count(b"\n") > 0
    assert data.calls == ([len(data)] if whole else [])


class _CountSpy(bytearray):
    """A read's buffer that notes the bytes each `count` of it looks at"""

    counted: list[int]

    def count(self, sub, start=0, end=None):  # type: ignore[override]
        stop = len(self) if end is None else min(end, len(self))
        self.counted.append(stop - start)
        return super().count(sub, start, stop)


def test_a_serving_reads_samples_are_three_small_blocks_before_it_is_counted_whole():
    # 512 KiB of 150-byte lines (a read of a serving log): three 4 KiB samples (12 KiB counted by `count`, not the
    # 96 KiB of three 32 KiB blocks: a third of the count's cost), then one `replace` of the whole buffer
    data = _CountSpy((b"x" * 149 + b"\n") * (512 * 1024 // 150))
    data.counted = []
    assert newlines(data, 0, len(data)) == bytes(data).count(b"\n") == 512 * 1024 // 150
    assert data.counted[:3] == [4096, 4096, 4096]
    assert sum(data.counted) == 3 * 4096  # and the empty stretches before and after


class _CountedNatives(dict):
    """linescan._NATIVE, counting its look-ups (each hashes the ~1,100 literals)"""

    lookups = 0

    def __contains__(self, key):
        _CountedNatives.lookups += 1
        return super().__contains__(key)

    def __getitem__(self, key):
        _CountedNatives.lookups += 1
        return super().__getitem__(key)


def test_the_loaded_native_search_is_not_looked_up_again_for_each_read(monkeypatch):
    pytest.importorskip("hyperscan")
    literals = ("Decode batch", "ERROR", "Traceback (most recent call last):")
    monkeypatch.setattr(linescan, "_NATIVE", _CountedNatives())
    scan = LiteralScan(literals)
    data = bytearray(b"[2025-10-01 12:00:00 TP0] Decode batch. #running-req: 4\n" * 3000 + b"ERROR: x\nok\n")
    first = scan.hits(data, 0, len(data))  # large: the native search loaded
    native = dict.get(linescan._NATIVE, literals)
    loaded = _CountedNatives.lookups
    assert native is not None and loaded > 0
    assert len(first) == 3001
    small = (len(data) - 200, len(data))  # under NATIVE_MIN_BYTES: the native search once loaded (its match's last byte)
    ends = sorted(m.end() - 1 for lit in literals for m in re.finditer(re.escape(lit.encode()), data) if m.start() >= small[0])
    assert len(ends) == 4  # three of the last lines' "Decode batch" and the ERROR
    assert scan.hits(data, *small) == native(data, *small) == ends == first[-4:]
    assert scan.hits(data, 0, len(data)) == first
    assert _CountedNatives.lookups == loaded


def test_the_workers_are_let_go_once_every_range_of_every_file_is_read(tmp_path, monkeypatch):
    """They exit while the analysis goes on (the scanner is still open), not at its end; a file read before the
    others' ranges are all read keeps them."""
    if ranges.workers() < 2:
        pytest.skip("one core: no worker processes")
    first, second = tmp_path / "a.log", tmp_path / "b.log"
    first.write_bytes(b"plain line\n" * 3_000 + b"an ERROR line\n")
    second.write_bytes(b"an ERROR line\n" + b"plain line\n" * 3_000)
    monkeypatch.setattr(ranges, "RANGE_BYTES", 4096)
    monkeypatch.setattr(ranges, "DENSE_RANGE_BYTES", 4096)
    with ranges.RangeScanner(("ERROR",), enabled=True) as scanner:
        assert scanner.pool is not None
        results_a = scanner.submit("a.log", str(first), first.stat().st_size)
        results_b = scanner.submit("b.log", str(second), second.stat().st_size)
        scanner.no_more_files()
        scans_a = list(results_a)
        assert not scanner.closed  # b's ranges: given out, not read
        scan_b = next(results_b)
        workers = list(scanner.pool._processes.values())
        assert len(workers) == ranges.workers() and not scanner.closed
        scans_b = [scan_b, *results_b]
        assert scanner.closed and scanner.in_flight == 0
        deadline = time.monotonic() + 30
        while any(p.is_alive() for p in workers) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not any(p.is_alive() for p in workers)  # gone before the scanner's end
    # and joined (reaped) by its end: a command's CPU time counts its workers', and nothing outlives it
    assert [p.exitcode for p in workers] == [0] * len(workers)
    assert scanner.closer is not None and not scanner.closer.is_alive()
    assert [sum(s.lines for s in scans) for scans in (scans_a, scans_b)] == [3_001, 3_001]
    assert [text for scans in (scans_a, scans_b) for scan in scans for _, _, text in scan.found] == ["an ERROR line"] * 2


def test_a_file_submitted_after_the_others_were_read_is_still_scanned_where_more_may_come(tmp_path, monkeypatch):
    if ranges.workers() < 2:
        pytest.skip("one core: no worker processes")
    path = tmp_path / "a.log"
    path.write_bytes(b"plain line\n" * 3_000 + b"an ERROR line\n")
    monkeypatch.setattr(ranges, "RANGE_BYTES", 4096)
    monkeypatch.setattr(ranges, "DENSE_RANGE_BYTES", 4096)
    with ranges.RangeScanner(("ERROR",), enabled=True) as scanner:
        first = list(scanner.submit("a.log", str(path), path.stat().st_size))
        assert not scanner.closed  # no_more_files was not said: the workers stay
        again = list(scanner.submit("a.log", str(path), path.stat().st_size))
    assert first == again and sum(s.lines for s in again) == 3_001 and len(again) == -(-33_014 // 4096) == 9
