"""A crash loop's launches, bounded: a log that holds thousands of startups (a pod restarting and appending to
one file) keeps full detail for its first and last launches and the first launch of each distinct failure, and
aggregates the others into counts (RepeatedLaunches), so the stages after assembly, the rules and the report
cost the same whatever the number of launches. The coverage and the verdict say what was aggregated."""

from __future__ import annotations

import re
from collections import Counter

from logscope.core.events import FAILURE_KINDS
from logscope.core.model import Launch, RepeatedLaunches

FULL_FIRST = 5  # launches kept in full at the start
FULL_LAST = 5  # and at the end
FULL_FAILURES = 20  # the first launch of each distinct failure, at most this many
FOLD_ABOVE = FULL_FIRST + FULL_LAST + FULL_FAILURES  # fewer launches are all kept
_FAILURES_LISTED = 20  # distinct failure lines counted in the aggregate
_VARYING = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?|0x[0-9a-fA-F]+|\b\d+\b")


def failure_key(launch: Launch) -> tuple[str, ...]:
    """What a launch's failure lines say, times, addresses, pids and counts left out: one key per distinct failure
    (empty when the launch did not fail)."""
    texts = {_VARYING.sub("N", e.text) for e in launch.all_events() if e.kind in FAILURE_KINDS}
    return tuple(sorted(texts))


def fold_crash_loop(launches: list[Launch]) -> tuple[list[Launch], RepeatedLaunches | None]:
    """The launches kept in full (their ids unchanged) and the aggregate of the others, or all of them and None."""
    if len(launches) <= FOLD_ABOVE:
        return launches, None
    keep = {id(launch) for launch in launches[:FULL_FIRST] + launches[-FULL_LAST:]}
    keys = {id(launch): failure_key(launch) for launch in launches}
    seen: set[tuple[str, ...]] = set()
    for launch in launches:
        key = keys[id(launch)]
        if key and key not in seen and len(seen) < FULL_FAILURES:
            seen.add(key)
            keep.add(id(launch))
    kept = [launch for launch in launches if id(launch) in keep]
    folded = [launch for launch in launches if id(launch) not in keep]
    failures: Counter[str] = Counter()
    failed = ready = 0
    for launch in folded:
        key = keys[id(launch)]
        failed += bool(key)
        ready += launch.ready
        failures.update(key)
    return kept, RepeatedLaunches(
        launches=len(folded),
        first_id=folded[0].id,
        last_id=folded[-1].id,
        sources=sorted({s for launch in folded for s in launch.sources}),
        first_line=min(_lines(folded[0]), default=None),
        last_line=max(_lines(folded[-1]), default=None),
        ready=ready,
        failed=failed,
        failures=dict(failures.most_common(_FAILURES_LISTED)),
        kept=len(kept),
    )


def _lines(launch: Launch) -> list[int]:
    return [e.line for e in launch.all_events()] + [r.line for t in launch.ranks.values() for r in t.phases]
