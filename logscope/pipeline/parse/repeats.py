"""Lines read again: a log that repeats its lines (a crash-looping pod appending the same startup thousands of
times, ranks printing one wording) is classified once per distinct line, its timestamp set aside.

A line that one grammar read as a plain record (no block, no prose, no joined line) is remembered under its
text with the first `YYYY-MM-DD HH:MM:SS` replaced: the same line at another time is the same event at that
time. The timestamp must be the prefix's time and stand nowhere else in the line or its figures, so nothing
read from it is replayed stale."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import Any

_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}")
_ENTRIES = 4096  # distinct lines remembered per source; past it the memo starts again


@dataclass(frozen=True, slots=True)
class Reading:
    """What the classifier made of a line: its kind, figures, prefix (time left out), grammar, the grammars it
    tried (for the coverage counts)."""

    kind: str
    data: dict[str, Any]
    prefix: dict[str, Any] | None
    grammar: str
    tried: tuple[str, ...]


def _copy(value: Any) -> Any:
    """A fresh copy of the figures' dicts and lists: later stages add keys to an event's data."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


class RepeatedLines:
    def __init__(self) -> None:
        self._memo: dict[str, Reading] = {}

    @staticmethod
    def key(text: str) -> tuple[str, str | None]:
        """The line's key and its timestamp (None when it has none)."""
        found = _STAMP.search(text)
        if found is None:
            return text, None
        return text[: found.start()] + "\0" + text[found.end() :], found.group()

    def remember(self, text: str, reading: Reading) -> None:
        key, stamp = self.key(text)
        prefix_time = (reading.prefix or {}).get("time")
        if stamp is not None and (prefix_time != stamp or key.count(stamp) or stamp in repr(reading.data)):
            return  # the time is not only the prefix's: a replay could carry a stale figure
        if stamp is None and prefix_time is not None:
            return
        if len(self._memo) >= _ENTRIES:
            self._memo.clear()
        prefix = None if reading.prefix is None else {k: v for k, v in reading.prefix.items() if k != "time"}
        self._memo[key] = Reading(reading.kind, _copy(reading.data), prefix, reading.grammar, reading.tried)

    def replay(self, text: str) -> Reading | None:
        """The reading of a line seen before (its prefix with this line's time), or None."""
        key, stamp = self.key(text)
        known = self._memo.get(key)
        if known is None:
            return None
        # one string per second of the log, not one per line: a crash loop's events are most of its memory
        prefix = known.prefix if stamp is None or known.prefix is None else {**known.prefix, "time": sys.intern(stamp)}
        return Reading(known.kind, _copy(known.data), prefix, known.grammar, known.tried)
