"""A crash loop streams from the classifier into the assembler (classify.STREAM_AFTER): the result is the one of
reading the source whole, the first, last and failing launches are kept in full, the rest counted in the
coverage, and the events held stay bounded whatever the number of launches. Small thresholds stand in for a
huge input (the 100,000-launch figures are bench/crash_loop.py's)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from logscope.core.events import Event, SourceEvents
from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.assemble.assemble import assemble
from logscope.pipeline.ingest import ranges
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse import classify, serving
from tests.helpers import ROOT

STARTUP = (ROOT / "fixtures" / "upstream" / "sglang-0.5.23-tp2.log").read_text()
_CUT = "".join(STARTUP.splitlines(keepends=True)[:11])  # up to the weights loaded
_CUT_LESS_FREE = _CUT.replace("Load weight begin. avail mem=137.70 GB", "Load weight begin. avail mem=130.25 GB")
# a log viewer sorted the exception line before its traceback (the classifier joins them: blocks.py)
_SORTED_CRASH = (
    "[2026-10-20 09:00:06 TP1] RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, "
    "unhandled cuda error\n"
    "[2026-10-20 09:00:06 TP1] Scheduler hit an exception: Traceback (most recent call last):\n"
    'File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1024, in run_scheduler_process\n'
)
_OOM = "[2026-10-20 09:00:06 TP0] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {n}.00 GiB.\n"
_SERVED = '[2026-10-20 09:00:12] INFO:     127.0.0.1:40000 - "POST /generate HTTP/1.1" 200 OK\n'


def crash_loop(launches: int) -> str:
    """`launches` startups: each 10th fails with an OOM (one wording, its size varying) with less memory free at its
    start, launch 45 with the NCCL error printed before its traceback, launch 3 serves a request; the others get
    ready."""
    parts = []
    for n in range(1, launches + 1):
        if n == 45:
            parts.append(_CUT + _SORTED_CRASH)
        elif n % 10 == 0:
            parts.append(_CUT_LESS_FREE + _OOM.format(n=n % 7 + 1))
        else:
            parts.append(STARTUP + (_SERVED if n == 3 else ""))
    return "".join(parts)


def _analyze(text: str) -> dict:
    return analyze_sources([Source(name="loop.log", path=None, data=text.encode())], cases=False)


def test_a_streamed_crash_loop_gives_the_report_of_the_source_read_whole(monkeypatch):
    text = crash_loop(300)
    whole = _analyze(text)
    monkeypatch.setattr(classify, "STREAM_AFTER", 100)  # about five launches' events, then it streams
    monkeypatch.setattr(classify, "_RELEASE_EVERY", 16)
    streamed = _analyze(text)
    assert streamed == whole


def test_a_streamed_crash_loop_keeps_the_first_last_and_failing_launches(monkeypatch):
    monkeypatch.setattr(classify, "STREAM_AFTER", 100)
    report = _analyze(crash_loop(300))
    ids = [launch["id"] for launch in report["launches"]]
    # the first five, the first OOM (launch 10), the NCCL error (45), the last five
    assert ids == [1, 2, 3, 4, 5, 10, 45, 296, 297, 298, 299, 300]
    repeated = report["coverage"]["repeated_launches"]
    assert repeated["launches"] == 288 and repeated["ids"] == [6, 295] and repeated["kept_in_full"] == 12
    assert repeated["sources"] == ["loop.log"]
    assert repeated["failed"] == 28 and repeated["ready"] == 260  # launches 20-290 by tens; 6-295 less those
    assert repeated["failures"] == {"[N TP0] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate N.N GiB.": 28}
    # what the 288 were: 260 startups of 21 records (19 phase readings, the server_args and ready lines), 28 of 12
    assert repeated["records"] == 260 * 21 + 28 * 12
    assert repeated["avail_gib"] == {
        "load_weight_begin": [130.25, 137.7],
        "load_weight_end": [106.9, 106.9],
        "memory_pool_end": [14.8, 14.8],
        "capture_begin": [14.6, 14.6],
        "capture_end": [13.2, 13.2],
        "scheduler_summary": [13.1, 13.1],
    }
    first_line = 5 * 21 + 1
    assert repeated["lines"][0] == first_line + 1  # launch 3's served request adds a line before launch 6
    failures = [f for f in report["findings"] if f["severity"] == "error"]
    assert {f["launch"] for f in failures} >= {10, 45}
    nccl = next(f for f in failures if f["launch"] == 45)
    assert nccl["rule"] == "nccl-error" and "unhandled cuda error" in nccl["message"]


def _alive_events() -> int:
    return sum(1 for o in gc.get_objects() if type(o) is Event)


def _most_events_held(launches: int, hold: int) -> int:
    """The most Event objects alive while the assembler reads a crash loop of `launches` (sampled every 500)."""
    source = Source(name="loop.log", path=None, data=crash_loop(launches).encode())
    most = 0

    def sampled(read: SourceEvents) -> Iterator[Event]:
        nonlocal most
        for n, event in enumerate(read.events):
            if n % 500 == 0:
                most = max(most, _alive_events())
            yield event

    def sources() -> Iterator[SourceEvents]:
        chunks = source.chunks(classify.prefilter.all_literals(), None, serving.SERVING_BYTES, serving.STARTUP)
        classified, _ = classify.classify_sources([source], [chunks], hold)
        for read in classified:
            yield SourceEvents(read.name, sampled(read), read.tagged, read.grammars, read.streamed)

    launches_kept, _, repeated = assemble(sources(), {})
    assert repeated is not None and repeated.launches + len(launches_kept) == launches
    return most


@pytest.mark.parametrize("hold", [200])
def test_the_events_held_do_not_grow_with_the_launches(hold):
    """Not timed: the Event objects alive while 200 and 2,000 launches (4,200 and 42,000 lines) are read."""
    gc.collect()
    base = _alive_events()
    small, large = _most_events_held(200, hold) - base, _most_events_held(2000, hold) - base
    # held: the first STREAM_AFTER events, a release batch, the traceback look back and the launches kept in full
    assert large < small + 200, (small, large)
    assert large < 4000, large
    # read whole (never streaming), as before: every event of the 2,000 launches at once
    assert _most_events_held(2000, 10**9) - base > 10 * large


def test_the_workers_scan_a_few_ranges_ahead_of_the_reader(tmp_path, monkeypatch):
    """The ranges queued are scanned at most `ahead` past the one read (all of a 200 MB loop's results were held at
    once), in file order; a file read before the one queued ahead of it is still scanned; a crash loop's ranges
    (a candidate on every line) stay DENSE_RANGE_BYTES, a serving log's grow to RANGE_BYTES."""
    if ranges.workers() < 2:
        pytest.skip("one core: no worker processes")
    monkeypatch.setattr(ranges, "RANGE_BYTES", 16384)
    monkeypatch.setattr(ranges, "DENSE_RANGE_BYTES", 4096)
    monkeypatch.setattr(ranges, "DENSE_FOUND", 100)  # per 16 KiB: a startup's lines hold about 140
    first, second, sparse = tmp_path / "a.log", tmp_path / "b.log", tmp_path / "serving.log"
    first.write_text(STARTUP * 20)
    second.write_text(STARTUP * 10)
    sparse.write_text(STARTUP + _SERVED.replace("200 OK", "200 OK " + "x" * 400) * 400)
    with ranges.RangeScanner(classify.prefilter.all_literals(), enabled=True) as scanner:
        queued = [scanner.submit(p.name, str(p), p.stat().st_size) for p in (first, second)]
        ahead = ranges.workers() + ranges.AHEAD_SPARE  # dense ranges: one per worker and a spare
        assert scanner.in_flight == ahead and len(scanner.files) == 2
        parts_second = list(queued[1])  # before the first file: its ranges are given to a worker when asked
        parts_first = []
        for part in queued[0]:
            assert scanner.in_flight <= ahead
            parts_first.append(part)
        parts_sparse = list(scanner.submit(sparse.name, str(sparse), sparse.stat().st_size))
    assert sum(p.lines for p in parts_first) == 20 * 21 and sum(p.lines for p in parts_second) == 10 * 21
    assert max(p.end - p.start for p in parts_first) < 4096 + 200
    assert sum(p.lines for p in parts_sparse) == 21 + 400 and max(p.end - p.start for p in parts_sparse) > 12000


def test_a_streamed_log_listed_newest_first_is_read_whole_and_reversed(monkeypatch):
    """A cloud console's export lists the newest line first: past STREAM_AFTER events it is still reversed whole,
    never streamed backwards (the report is the one of the source read whole)."""
    text = "".join(reversed(crash_loop(60).splitlines(keepends=True)))
    whole = _analyze(text)
    monkeypatch.setattr(classify, "STREAM_AFTER", 100)
    assert _analyze(text) == whole
    assert [launch["id"] for launch in whole["launches"]][:5] == [1, 2, 3, 4, 5]
    assert whole["coverage"]["repeated_launches"]["launches"] == 60 - len(whole["launches"])


def test_the_rank_files_of_one_streamed_loop_count_their_launches_once(monkeypatch):
    """Each rank's file of a 100-launch loop streams; the loop's launches are counted once, the records of both,
    and the aggregate names the files (it named none: the per-file fold ran before the launches had sources)."""
    lines = crash_loop(100).splitlines(keepends=True)
    texts = {f"tp{n}.log": "".join(x for x in lines if f" TP{1 - n}]" not in x).encode() for n in (0, 1)}

    def analyzed(names: list[str]) -> dict:
        return analyze_sources([Source(name=name, path=None, data=texts[name]) for name in names], cases=False)

    whole = analyzed(["tp0.log", "tp1.log"])
    monkeypatch.setattr(classify, "STREAM_AFTER", 100)
    streamed = analyzed(["tp0.log", "tp1.log"])
    assert streamed == whole
    repeated = streamed["coverage"]["repeated_launches"]
    alone = [analyzed([name])["coverage"]["repeated_launches"] for name in texts]
    assert [each["sources"] for each in alone] == [["tp0.log"], ["tp1.log"]]
    assert repeated["sources"] == ["tp0.log", "tp1.log"]
    # the loop's launches once (the larger count of the two files), the records of both (TP0's hold the OOM lines)
    assert [each["launches"] for each in alone] == [88, 89] and repeated["launches"] == 89
    assert [each["records"] for each in alone] == [1016, 934] and repeated["records"] == 1016 + 934
