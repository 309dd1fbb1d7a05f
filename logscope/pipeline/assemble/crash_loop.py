"""A crash loop's launches, bounded: a log that holds thousands of startups (a pod restarting and appending to
one file) keeps full detail for its first and last launches and the first launch of each distinct failure, and
aggregates the others into counts (RepeatedLaunches) as they are assembled, so memory and the stages after
assembly, the rules and the report cost the same whatever the number of launches. The coverage and the verdict
say what was aggregated."""

from __future__ import annotations

import re
from collections import Counter, deque

from logscope.core.events import FAILURE_KINDS
from logscope.core.model import Launch, RepeatedLaunches
from logscope.core.phases import order_of as phase_order

FULL_FIRST = 5  # launches kept in full at the start
FULL_LAST = 5  # and at the end
FULL_FAILURES = 20  # the first launch of each distinct failure, at most this many
FOLD_ABOVE = FULL_FIRST + FULL_LAST + FULL_FAILURES  # fewer launches are all kept
_FAILURES_LISTED = 20  # distinct failure lines listed in the aggregate
_FAILURES_COUNTED = 1000  # distinct failure lines counted; further ones are counted together
OTHER_FAILURES = "(other failure lines)"
_VARYING = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?|0x[0-9a-fA-F]+|\b\d+\b")


def failure_key(launch: Launch) -> tuple[str, ...]:
    """What a launch's failure lines say, times, addresses, pids and counts left out: one key per distinct failure
    (empty when the launch did not fail)."""
    texts = {_VARYING.sub("N", e.text) for e in launch.all_events() if e.kind in FAILURE_KINDS}
    return tuple(sorted(texts))


class CrashLoopFolder:
    """Launches offered in their order: the first FULL_FIRST kept, the latest ones held in a window, and each that
    leaves the window kept when it shows a failure not seen before, else counted and let go."""

    def __init__(self) -> None:
        self.first: list[Launch] = []
        self.window: deque[Launch] = deque()
        self.failures_kept: list[Launch] = []
        self.seen: set[tuple[str, ...]] = set()
        self.folded = 0
        self.ready = self.failed = 0
        self.failures: Counter[str] = Counter()
        self.ids: list[int] = []  # first and last id folded
        self.ends: list[Launch | None] = [None]  # the first launch folded, then also the latest
        self.sources: set[str] = set()
        self.records = 0  # phase readings and events of the launches folded
        self.avail: dict[str, tuple[float, float]] = {}  # per phase, the lowest and highest free memory read

    def offer(self, launch: Launch) -> None:
        if len(self.first) < FULL_FIRST:
            self.first.append(launch)
            return
        self.window.append(launch)
        if len(self.window) > FOLD_ABOVE - FULL_FIRST:
            self._settle(self.window.popleft())

    def _settle(self, launch: Launch) -> None:
        key = failure_key(launch)
        if key and key not in self.seen and len(self.seen) < FULL_FAILURES:
            self.seen.add(key)
            self.failures_kept.append(launch)
            return
        self.folded += 1
        self.failed += bool(key)
        self.ready += launch.ready
        self.failures.update(t if t in self.failures or len(self.failures) < _FAILURES_COUNTED else OTHER_FAILURES for t in key)
        self.records += len(launch.all_events())
        for timeline in launch.ranks.values():
            self.records += len(timeline.phases)
            for reading in timeline.phases:
                gib = reading.values.get("avail_gib")
                if reading.model == "target" and isinstance(gib, float):
                    low, high = self.avail.get(reading.phase, (gib, gib))
                    self.avail[reading.phase] = (min(low, gib), max(high, gib))
        self.ids[1:] = [launch.id] if self.ids else [launch.id, launch.id]
        self.ends[self.ends[0] is not None :] = [launch]  # the first and the latest folded: where the folded lines span
        self.sources.update(launch.sources)

    def result(self) -> tuple[list[Launch], RepeatedLaunches | None]:
        """The launches kept in full, in their order (ids unchanged), and the aggregate of the others (None when
        none was)."""
        if self.folded:
            while len(self.window) > FULL_LAST:
                self._settle(self.window.popleft())
        kept = sorted(self.first + self.failures_kept + list(self.window), key=lambda launch: launch.id)
        if not self.folded:
            return kept, None
        first, last = self.ends[0], self.ends[-1]
        return kept, RepeatedLaunches(
            launches=self.folded,
            first_id=self.ids[0],
            last_id=self.ids[-1],
            sources=sorted(self.sources),
            first_line=min(_lines(first), default=None) if first is not None else None,
            last_line=max(_lines(last), default=None) if last is not None else None,
            ready=self.ready,
            failed=self.failed,
            failures=dict(self.failures.most_common(_FAILURES_LISTED)),
            kept=len(kept),
            records=self.records,
            avail_gib=_in_phase_order(self.avail),
        )


def _lines(launch: Launch) -> list[int]:
    return [e.line for e in launch.all_events()] + [r.line for t in launch.ranks.values() for r in t.phases]


def fold_crash_loop(launches: list[Launch]) -> tuple[list[Launch], RepeatedLaunches | None]:
    """The launches kept in full and the aggregate of the others, or all of them and None."""
    folder = CrashLoopFolder()
    for launch in launches:
        folder.offer(launch)
    return folder.result()


def combined(seen_apart: list[RepeatedLaunches], folded_after: RepeatedLaunches | None) -> RepeatedLaunches | None:
    """The aggregates of the sources (the rank files of one crash loop count its launches once each: the largest
    counts stand) and of the launches their merge folded further (added)."""
    if not seen_apart:
        return folded_after
    widest = max(seen_apart, key=lambda r: r.launches)
    # the rank files of one loop: each file's launches are the loop's, its records are its own (added)
    avail = _spans(seen_apart)
    failures: Counter[str] = Counter()
    for each in seen_apart:
        failures |= Counter(each.failures)
    sources = sorted({s for each in seen_apart for s in each.sources})
    base = RepeatedLaunches(
        launches=widest.launches,
        first_id=min(r.first_id for r in seen_apart),
        last_id=max(r.last_id for r in seen_apart),
        sources=sources,
        first_line=widest.first_line,
        last_line=widest.last_line,
        ready=max(r.ready for r in seen_apart),
        failed=max(r.failed for r in seen_apart),
        failures=dict(failures.most_common(_FAILURES_LISTED)),
        kept=widest.kept,
        records=sum(r.records for r in seen_apart),
        avail_gib=avail,
    )
    if folded_after is None:
        return base
    failures.update(folded_after.failures)
    return RepeatedLaunches(
        launches=base.launches + folded_after.launches,
        first_id=min(base.first_id, folded_after.first_id),
        last_id=max(base.last_id, folded_after.last_id),
        sources=sorted({*sources, *folded_after.sources}),
        first_line=base.first_line,
        last_line=base.last_line,
        ready=base.ready + folded_after.ready,
        failed=base.failed + folded_after.failed,
        failures=dict(failures.most_common(_FAILURES_LISTED)),
        kept=folded_after.kept,
        records=base.records + folded_after.records,
        avail_gib=_spans([base, folded_after]),
    )


def _spans(aggregates: list[RepeatedLaunches]) -> dict[str, tuple[float, float]]:
    """Per phase, the lowest and highest free memory over the aggregates, in phase order."""
    spans: dict[str, tuple[float, float]] = {}
    for each in aggregates:
        for phase, (low, high) in each.avail_gib.items():
            was = spans.get(phase, (low, high))
            spans[phase] = (min(was[0], low), max(was[1], high))
    return _in_phase_order(spans)


def _in_phase_order(spans: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
    return dict(sorted(spans.items(), key=lambda item: (phase_order(item[0]), item[0])))
