"""The pipeline's entry: the input's large files are handed to the byte-range workers first, and only then
are the stages imported and run (logscope/pipeline/stages.py), so the workers scan while this process loads
its grammars, signatures and rules; a paste starts no worker and pays for none of this.

While the workers scan, a thread of this process also loads what the stages after the read need whatever the input
holds (`_DocumentWarmup`): the workers keep both cores busy then and this process mostly waits for their ranges, while
after the last range it runs alone on one core.

sources → scan (ingest) → the stages → Analysis → the document (schema logscope/1)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from logscope.core.errors import InputError
from logscope.pipeline.ingest.ingest import Source, scan_sources
from logscope.pipeline.ingest.linescan import LineChunk
from logscope.pipeline.ingest.samples import split_samples
from logscope.pipeline.parse import serving
from logscope.pipeline.parse.literal_set import cached_literals

if TYPE_CHECKING:
    from logscope.core.model import Analysis
    from logscope.pipeline.sizing.calibration import Calibration

DEADLINE_READ_BYTES = 1 << 18  # reads of a source under a deadline: the clock is looked at between them


@dataclass(frozen=True)
class ReadDeadline:
    """When reading stops (time.monotonic()): the lines read by then are analysed, the rest is not read, and
    each source says where it stopped (notes.stopped, in the verdict of every format). The stages after
    reading take two to three times as long as it, so a caller with a budget sets this well before its end."""

    at: float
    budget_s: float  # the time budget it comes from, as said in the note


def analyze_inputs(
    inputs: list[str],
    rules_dirs: list[str],
    model_config: Path | None = None,
    calibration: Path | None = None,
    cases: bool = True,
) -> dict[str, Any]:
    """`logscope analyze`: the named inputs (files, quoted globs, directories, - for stdin), with the files its
    options name (a calibration, a model's config.json) read first."""
    from logscope.pipeline.ingest.ingest import expand_inputs
    from logscope.pipeline.ingest.model_config import read_model_config
    from logscope.pipeline.sizing.calibration import load_calibration

    calib = load_calibration(calibration) if calibration is not None else None
    sources = expand_inputs(inputs)
    config = read_model_config(model_config)
    left_out = list(sources.left_out)
    remaining: list[Source] = list(sources)
    while True:
        try:
            document = analyze_sources(remaining, rules_dirs, config, calib, cases=cases)
            break
        except InputError as exc:  # a file found in a folder that cannot be read: named, the rest analysed
            culprit = next((s for s in remaining if s.name in sources.from_folders and str(exc).startswith(f"{s.name}:")), None)
            if culprit is None or any(s.path is None for s in remaining) or len(remaining) == 1:
                raise
            left_out.append(str(exc))
            remaining = [_fresh(s) for s in remaining if s is not culprit]
    if left_out:
        document["coverage"]["left_out"] = left_out
    return document


def _fresh(source: Source) -> Source:
    """A file's source, unread again (a failed attempt leaves its notes and counts on the old one)."""
    return Source(name=source.name, path=source.path, rank_hint=source.rank_hint)


def analyze_sources(
    sources: list[Source],
    rules_dirs: list[str] | None = None,
    model_config: dict[str, Any] | None = None,
    calibration: Calibration | None = None,
    deadline: ReadDeadline | None = None,
    parallel: bool = True,
    cases: bool = True,
) -> dict[str, Any]:
    """`parallel=False`: large files are read on this thread too (a caller that is itself one of a pool of workers);
    `cases=False`: no known cases are matched (the index is not opened)."""
    warmup = _DocumentWarmup(cases=cases, bundled_rules=not rules_dirs)
    analysis = analyze_model(sources, model_config, calibration, deadline, parallel, while_scanning=warmup.start)
    from logscope.pipeline import stages  # imported by analyze_model, once the workers started

    warmup.join()
    return stages.document(analysis, rules_dirs or [], cases)


class _DocumentWarmup:
    """What the stages after the read load whatever the input holds (the bundled rules, the release records and
    catalogue sections, the shipped calibration, the known cases' index and the modules that match them,
    redaction's), loaded on a thread while the range workers scan a large file: there it cost the time after the
    last range, when this process runs alone on one core (about 45 ms of the 1 GiB bench log's ~110, speed16,
    2026-12-07); while the workers scan, the cores are theirs and this process mostly waits. Each loader is cached
    per process, so the stages find its answer; the thread is joined before the document is built, and a loader
    that fails there is left to fail where the stages call it. A paste (no workers) starts no thread and loads
    only what it uses."""

    def __init__(self, cases: bool, bundled_rules: bool) -> None:
        self.cases = cases
        self.bundled_rules = bundled_rules
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        # the modules are imported here, on the calling thread, and the thread only calls their loaders: no module is
        # imported by two threads at once (the classifier imports its parsers lazily meanwhile)
        from logscope.core import redact  # noqa: F401 - the document's redaction (cli_shared.emit)
        from logscope.memory_model import releases
        from logscope.pipeline.rule_engine.engine import bundled_rules
        from logscope.pipeline.sizing.cell_rules import shipped_calibration

        # the release records and the catalogue's sections the sizing of each launch reads
        loaders: list[Callable[[], object]] = [releases.records, releases.nccl_ranges, releases.torch_allocators]
        loaders += [releases.deepep, shipped_calibration]
        if self.bundled_rules:
            loaders.insert(0, bundled_rules)
        if self.cases:
            from logscope.cases import block, key, match  # noqa: F401 - imported by stages.document for a failure
            from logscope.cases.index import bundled_index

            loaders.append(bundled_index)
        self.thread = threading.Thread(target=_load_each, args=(loaders,), name="logscope-document-warmup", daemon=True)
        self.thread.start()

    def join(self) -> None:
        if self.thread is not None:
            self.thread.join()


def _load_each(loaders: list[Callable[[], object]]) -> None:
    with contextlib.suppress(Exception):
        for load in loaders:
            load()


def analyze_model(
    sources: list[Source],
    model_config: dict[str, Any] | None = None,
    calibration: Calibration | None = None,
    deadline: ReadDeadline | None = None,
    parallel: bool = True,
    while_scanning: Callable[[], object] | None = None,
) -> Analysis:
    """`while_scanning`: called once the stages are imported, where range workers scan a large file."""
    sources, samples = split_samples(sources)
    if deadline is not None:
        for source in sources:
            source.read_bytes = min(source.read_bytes, DEADLINE_READ_BYTES)
    scanning: list[bool] = []
    started = lambda: scanning.append(True)  # noqa: E731 - the workers have their first ranges
    with scan_sources(sources, cached_literals(), serving.SERVING_BYTES, serving.STARTUP, parallel, started) as chunks:
        from logscope.pipeline import stages  # after the workers started: importing the stages takes a while

        if scanning and while_scanning is not None:
            while_scanning()
        if deadline is not None:
            chunks = [_until(deadline, source, each, i == 0) for i, (source, each) in enumerate(zip(sources, chunks))]
        return stages.analysis(sources, chunks, model_config, calibration, samples)


def _until(deadline: ReadDeadline, source: Source, chunks: Iterator[LineChunk], first: bool) -> Iterator[LineChunk]:
    """The source's chunks up to the deadline (the first source's first chunk in any case: a late start still
    gives a report of something); where it passes, the source's note says what was read."""
    read = 0
    for chunk in chunks:
        if not (first and read == 0) and time.monotonic() >= deadline.at:
            source.notes.stopped = _stopped_note(source, read, deadline.budget_s)
            return
        yield chunk
        read = chunk.first + chunk.size - 1


def _stopped_note(source: Source, read: int, budget_s: float) -> str:
    if not read:
        return f"not read: the analysis's time budget ({budget_s:g} s) ran out before it"
    total = source.data.count(b"\n") + (not source.data.endswith(b"\n")) if source.data is not None else 0
    of = f" of {total:,}" if total else ""
    budget = f"the analysis's time budget ({budget_s:g} s) ran out"
    return f"stopped after line {read:,}{of}: {budget}; the report covers lines 1-{read:,}"
