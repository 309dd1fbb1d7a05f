"""Logical lines → events, one source at a time.

A line reaches a lark grammar only when it holds one of the prefilter literals and has that grammar's
shape. Multi-line records (check_env output, tracebacks, nvidia-smi dumps) are read by small block
readers that the same loop drives. Every candidate line that no grammar recognises is kept for the
coverage report.
"""

from __future__ import annotations

import re

from logscope import prefilter
from logscope.events import Event
from logscope.ingest import LineChunk, Searches, Source, clean
from logscope.model import TEXT_KEEP, Coverage
from logscope.parsers import sglang_line
from logscope.parsers.base import PREFIXED, BlockReader, prefix_of
from logscope.parsers.registry import LINE_GRAMMARS, block_readers
from logscope.signatures.loader import bundled_signatures

_FULL_KEEP = 4000
_CODE_SPAN = re.compile(r"`([^`]{6,2000})`")
# what makes an unrecognised line worth showing first: it reads like a failure
FAILURE_LOOK = re.compile(r"Error\b|Exception\b|\bWARN\b|[Ff]ailed\b|FAILED|Fatal\b|\bERROR\b|[Aa]borted\b|[Ss]egmentation fault")

_GRAMMARS = {grammar.name: grammar for grammar in LINE_GRAMMARS}


class SourceClassifier:
    """Drives the grammars over one source's logical lines and returns its events."""

    def __init__(self, source: Source, coverage: Coverage, searches: Searches | None = None) -> None:
        self.source = source
        self.searches = searches
        self.coverage = coverage
        self.events: list[Event] = []
        self.readers: list[BlockReader] = block_readers(source.name)
        self.active: BlockReader | None = None
        self.pending: tuple[int, str] | None = None  # a failed sglang candidate that a wrapped next line may complete
        self.recognized_physical: set[int] = set()
        self.quoted = False  # classifying an inline code span from prose

    # ------------------------------------------------------------------ driver
    def run(self) -> list[Event]:
        for chunk in self.source.chunks(prefilter.PATTERN, self.searches):
            self._run_chunk(chunk)
        self._flush_pending()
        self._close_block()
        self.coverage.lines += self.source.lines
        self.coverage.recognized_lines += len(self.recognized_physical)
        self.source.recognized_lines = len(self.recognized_physical)
        return self.events

    def _run_chunk(self, chunk: LineChunk) -> None:
        """Candidate lines in order; while a block or a wrapped line is open, every line in between."""
        candidates, texts = chunk.candidates, chunk.texts
        next_candidate = 0
        position = 0
        while True:
            if self.active is not None or self.pending is not None:
                if position >= chunk.size:
                    return
                if next_candidate < len(candidates) and candidates[next_candidate] == position:
                    text = texts[next_candidate]
                    next_candidate += 1
                else:
                    text = chunk.line(position)
            else:
                if next_candidate >= len(candidates):
                    return
                position = candidates[next_candidate]
                text = texts[next_candidate]
                next_candidate += 1
            for logical in clean(text):
                self.feed(chunk.first + position, logical)
            position += 1

    def feed(self, lineno: int, text: str) -> None:
        if self.active is not None:
            if self.active.feed(lineno, text):
                self.recognized_physical.add(lineno)
                return
            self._close_block()
        if self.pending is not None and self._try_join(lineno, text):
            return
        self._flush_pending()
        for reader in self.readers:
            if reader.accepts(text):
                self.active = reader.open(lineno, text)
                self.coverage.seen[reader.grammar] += 1
                self.coverage.recognized[reader.grammar] += 1
                self.recognized_physical.add(lineno)
                return
        candidates = prefilter.grammars_for(text)
        if not candidates:
            return
        self._classify(lineno, text, candidates)

    # ------------------------------------------------------------------ one line
    def _classify(self, lineno: int, text: str, candidates: list[str]) -> None:
        if not _looks_like_a_record(text):
            # prose that mentions a literal ("... with DeepEP low latency.") is no log record, but the code
            # spans it quotes, or failure wording it holds, are evidence (marked as quoted)
            self._classify_prose(lineno, text)
            return
        looks_failed = "signature" in candidates
        candidates = [g for g in candidates if g != "signature"]
        tried: list[str] = []
        for name in candidates:
            grammar = _GRAMMARS[name]
            if not grammar.fits(text):
                continue
            tried.append(name)
            self.coverage.seen[name] += 1
            parsed = grammar.parse(text)
            if parsed is not None:
                self._emit(parsed.kind, lineno, text, parsed.data, parsed.prefix, name)
                self.coverage.recognized[name] += 1
                self.recognized_physical.add(lineno)
                return
        if looks_failed and self._failure_line(lineno, text):
            return
        if not tried:
            if looks_failed and FAILURE_LOOK.search(text):
                self.coverage.miss(self.source.name, lineno, "failure", text)
            return
        if tried[0] == "sglang" and self.pending is None:
            self.pending = (lineno, text)
            return
        self.coverage.miss(self.source.name, lineno, tried[0], text)

    def _failure_line(self, lineno: int, text: str) -> bool:
        """A line no grammar reads whose wording a line signature knows (torch allocator warnings, glog lines
        of transfer engines, NCCL result names, other backends' OOM texts)."""
        for sig in bundled_signatures().on("line"):
            if sig.pattern.match(text) is not None:
                self.coverage.seen["signature"] += 1
                self.coverage.recognized["signature"] += 1
                self.recognized_physical.add(lineno)
                self._emit("failure_line", lineno, text, {"message": text.strip()}, prefix_of(text), "signature")
                return True
        return False

    def _classify_prose(self, lineno: int, text: str) -> None:
        spans = _CODE_SPAN.findall(text) or ([text] if not self.quoted else [])
        if not spans:
            return
        was = self.quoted
        self.quoted = True
        try:
            for span in spans:
                candidates = prefilter.grammars_for(span)
                if not candidates:
                    continue
                if span is not text and _looks_like_a_record(span):
                    self._classify(lineno, span, candidates)
                elif "signature" in candidates:
                    self._failure_line(lineno, span)
        finally:
            self.quoted = was

    # ------------------------------------------------------------------ wrapped lines
    def _try_join(self, lineno: int, text: str) -> bool:
        """Rejoin a line a terminal wrapped, only when the continuation is no line of its own."""
        assert self.pending is not None
        if PREFIXED.match(text) or any(_GRAMMARS[g].fits(text) if g == "memory_line" else True
                                       for g in prefilter.grammars_for(text)):
            return False
        first_line, first = self.pending
        result = sglang_line.parse_line(first + text)
        if result is None:
            return False
        self.pending = None
        prefix, kind, data = result
        data["joined_lines"] = [first_line, lineno]
        self.coverage.recognized["sglang"] += 1
        self.recognized_physical.update((first_line, lineno))
        self._emit(sglang_line.KINDS.get(kind, kind), first_line, first + text, data, prefix, "sglang")
        return True

    def _flush_pending(self) -> None:
        if self.pending is not None:
            lineno, text = self.pending
            self.coverage.miss(self.source.name, lineno, "sglang", text)
            self.pending = None

    # ------------------------------------------------------------------ blocks
    def _close_block(self) -> None:
        if self.active is not None:
            for event in self.active.close():
                self._append(event)
            self.active = None

    # ------------------------------------------------------------------ output
    def _emit(self, kind: str, lineno: int, text: str, data: dict, prefix: dict | None, grammar: str) -> None:
        rank = prefix.get("rank") if prefix else None
        time = prefix.get("time") if prefix else None
        stripped = text.strip()
        if len(stripped) > TEXT_KEEP:
            data["full_text"] = stripped[:_FULL_KEEP]
        if self.quoted:
            data["quoted"] = True
        self._append(Event(kind, self.source.name, lineno, stripped[:TEXT_KEEP], rank, time, data, grammar))

    def _append(self, event: Event) -> None:
        self.events.append(event)


_RECORD_START = re.compile(
    r"^\s*(?:\[|\d{4}-\d{2}-\d{2}[ T]|[IWEF]\d{4} |[\w.-]+:\d+:\d+ |File \"|\S*[$#] |export |[A-Z_]+=|\S*python|sglang "
    r"|(?:ERROR|WARNING|INFO|DEBUG|CRITICAL)\b|Loading \w+ checkpoint shards:"
    r"|(?:[A-Za-z_][\w.]*)?(?:Error|Exception|Interrupt)\b)"
)


def _looks_like_a_record(text: str) -> bool:
    """A log record, a traceback line, a shell line, or a line that starts with a known message head."""
    if _RECORD_START.match(text):
        return True
    return text.lstrip().startswith(prefilter.all_literals())


def classify_sources(sources: list[Source]) -> tuple[dict[str, list[Event]], Coverage]:
    coverage = Coverage()
    per_source: dict[str, list[Event]] = {}
    searches: list[Searches] = []
    for source in reversed(sources):  # each source's searches start the next one's when its reads run out
        searches.insert(0, Searches(source, prefilter.PATTERN, searches[0] if searches else None))
    for source, ahead in zip(sources, searches):
        per_source[source.name] = in_time_order(SourceClassifier(source, coverage, ahead).run())
    return per_source, coverage


def in_time_order(events: list[Event]) -> list[Event]:
    """A log exported newest first (cloud logging consoles do) is read oldest first: the events are reversed
    when their timestamps mostly go back in time. Line numbers stay those of the input."""
    times = [e.time for e in events if e.time]
    back = sum(1 for a, b in zip(times, times[1:]) if b < a)
    forward = sum(1 for a, b in zip(times, times[1:]) if b > a)
    return events[::-1] if back >= 2 and back > 2 * forward else events
