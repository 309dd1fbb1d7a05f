"""Cutting a long evidence line to a width around the part that matters (what the signature matched, the
numbers a message quotes), never at a fixed offset: the cut ends are marked with "[...]" and fall between words.
"""

from __future__ import annotations

import re

ELLIPSIS = "[...]"  # ASCII, so that it never reads as a cell the terminal renderer cut
_LABELS = re.compile(r"^(?:\((?:quoted in prose|from [^)]*)\) )+")  # how the line was read: always kept


def cut_around(text: str, focus: list[str] | tuple[str, ...] | None, width: int) -> str:
    """`text` as it is when it fits in `width`, else a window of `width` characters around the focus strings
    (the first found one is the anchor, in the order given; the others are kept when they fit), cut between
    words. A leading "(quoted in prose)" / "(from ...)" label is always kept."""
    if len(text) <= width:
        return text
    label = _LABELS.match(text)
    if label is not None:
        return label.group(0) + cut_around(text[label.end() :], focus, max(width - label.end(), 20))
    found = [(text.find(f), len(f)) for f in (focus or ()) if f and text.find(f) >= 0]
    if not found:
        return _cut_end(text, 0, width)
    low, high = found[0][0], found[0][0] + found[0][1] + 12  # the anchor and the number after it
    for spot, size in found[1:]:
        if max(high, spot + size + 12) - min(low, spot) <= width - 2 * len(ELLIPSIS):
            low, high = min(low, spot), max(high, spot + size + 12)
    room = width - 2 * len(ELLIPSIS) - (high - low)
    start = _word_start(text, max(0, low - max(room // 3, 0)), low)
    return _cut_end(text, start, width)


def _word_start(text: str, start: int, limit: int) -> int:
    if start == 0:
        return 0
    space = text.find(" ", start, limit)
    return space + 1 if space >= 0 else start


def _cut_end(text: str, start: int, width: int) -> str:
    head = ELLIPSIS if start > 0 else ""
    budget = width - len(head)
    if len(text) - start <= budget:
        return head + text[start:]
    end = start + budget - len(ELLIPSIS)
    space = text.rfind(" ", start + budget // 2, end)
    end = space if space > 0 else end
    return head + text[start:end].rstrip() + ELLIPSIS
