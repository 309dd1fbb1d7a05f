"""Decorations a viewer or a terminal UI puts on every line of a block, taken off so that the log inside is read.

- Line-number gutters: vim's `:set number` (the number right-aligned in a column of one width, then a space; an empty
  line shows its number alone), `cat -n` and `nl` (`%6d` and a tab), `less -N` (the number, then a space), `grep -n`
  (the number, then ":" on a matching line and "-" on a line of context, unpadded). A run of such lines is a gutter
  when its numbers rise, mostly by one, and a column padded with spaces has one width.
- Pane borders: the vertical box-drawing bar that terminal UIs draw at a pane's left and right edge (k9s' log view,
  lazydocker, rich panels: "│ " before a line, the line padded to the pane's width, then "│").
- A log viewer's table pasted as Markdown rows: a table of records copied from a viewer's page (time stamp and
  message cells) becomes Markdown rows when pasted into an issue: "2026-06-04 03:58:55.423 | File \"...\", line 3616,
  in run_scheduler_process |  ", the header's rule "-- | -- | --", then rows with empty cells before the time stamp
  ("  |   | 2026-06-04 03:58:55.423 | scheduler.run_event_loop() |  "); the message cell is the log's line.

Each is taken off only where a run of lines carries it and the run holds a line of a log (a log record's prefix, a
traceback's opener or frame, a glog line): a table drawn in box characters (nvitop) or a numbered native backtrace
(UCX's "0  /usr/lib/libucs.so.0(...)") keeps its form for the readers of those.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

# (a date's or a time's first field is no line number: "2025-06-05 ...", "10:00:01 ...")
_NUMBERED = re.compile(r"^( *)(\d{1,9})([ \t:-]|$)(?!\d\d[-:])")
_MIN_NUMBERED = 3  # numbered lines a gutter's run needs
_BOX_BARS = "│┃║"
_BOX = re.compile(r"[\u2500-\u257f]")  # the Box Drawing block: a table's rules and joints
_LEFT_BAR = re.compile(r"^[│┃║] ?")
_RIGHT_BAR = re.compile(r"(?<!\s)\s+[│┃║]\s*$")  # (?<!\s): each run of blanks tried once, not from each blank
# a line of a log: a bracketed time stamp or rank prefix, a dated record, glog's head, a traceback's opener or frame
_LOG_LINE = re.compile(
    r"^\s*(?:\[\d{4}-\d\d-\d\d[ T]|\[\d\d:\d\d:\d\d|\d{4}-\d\d-\d\d[ T]\d\d:\d\d|[IWEF]\d{4}(?:\d{4})? \d\d:\d\d"
    r"|Traceback \(most recent call last\)|File \")"
)
_MAX_RUN = 100_000  # lines looked at on either side of a seed


def may_be_decorated(text: str) -> bool:
    """A cheap test of a line the classifier reads: it may carry a gutter's number, a pane's border or a table row's
    cells."""
    head = text[:1]
    tail = text.rstrip()[-1:]
    return (
        head.isdigit()
        or (head == " " and text.lstrip()[:1].isdigit())
        or head in _BOX_BARS
        or tail in _BOX_BARS
        or (tail == "|" and " | " in text)
    )


def undecorated(lines: Sequence[str], seeds: Iterable[int]) -> dict[int, str]:
    """Index → the line without its decoration, for every line of each decorated run that holds a seed line."""
    out: dict[int, str] = {}
    looked = -1  # the last line of the runs looked at: a seed inside one is not looked at again
    for seed in sorted(seeds):
        if seed <= looked:
            continue
        for run in (_gutter_run, _bordered_run, _table_run):
            last, stripped = run(lines, seed)
            looked = max(looked, last)
            if stripped:
                out.update(stripped)
                break
    return out


def _gutter_run(lines: Sequence[str], seed: int) -> tuple[int, dict[int, str] | None]:
    """The last line of the numbered run around the seed, and its lines without their numbers when it is a gutter."""
    m = _NUMBERED.match(lines[seed])
    if m is None:
        return seed, None
    form = _form(m)
    first = last = seed
    while first > 0 and seed - first < _MAX_RUN and _numbered_as(lines[first - 1], form):
        first -= 1
    while last + 1 < len(lines) and last - seed < _MAX_RUN and _numbered_as(lines[last + 1], form):
        last += 1
    found = [_NUMBERED.match(lines[i]) for i in range(first, last + 1)]
    numbers = [int(n.group(2)) for n in found if n is not None]
    steps = [b - a for a, b in zip(numbers, numbers[1:], strict=False)]
    if len(numbers) < _MIN_NUMBERED or min(steps) < 1 or 2 * steps.count(1) < len(steps):
        return last, None
    stripped = {first + k: lines[first + k][n.end(3) :] for k, n in enumerate(found) if n is not None}
    return last, stripped if any(_LOG_LINE.match(text) for text in stripped.values()) else None


def _form(m: re.Match[str]) -> tuple[str, int]:
    """A gutter's separator kind and, for a column padded with spaces, the column's width (0: unpadded numbers)."""
    if m.group(3) in (":", "-"):
        return ":", 0
    return "", m.end(2)


def _numbered_as(line: str, form: tuple[str, int]) -> bool:
    """The line has a number in the same gutter: grep's separators with any width, else a number that ends at the
    column's width (vim, cat -n, nl and less -N right-align their numbers in a column of one width)."""
    m = _NUMBERED.match(line)
    return m is not None and _form(m) == form


def _bordered_run(lines: Sequence[str], seed: int) -> tuple[int, dict[int, str] | None]:
    """The last line of the bordered run around the seed, and its lines inside their borders when it holds a log."""
    if _inner(lines[seed]) is None:
        return seed, None
    first = last = seed
    while first > 0 and seed - first < _MAX_RUN and _inner(lines[first - 1]) is not None:
        first -= 1
    while last + 1 < len(lines) and last - seed < _MAX_RUN and _inner(lines[last + 1]) is not None:
        last += 1
    if last == first:
        return last, None
    stripped = {i: str(_inner(lines[i])) for i in range(first, last + 1)}
    return last, stripped if any(_LOG_LINE.match(text) for text in stripped.values()) else None


def _inner(line: str) -> str | None:
    """The line inside a pane's left and right bars (one of them may be out of the copy), or None when it has neither
    or draws more than its borders (a table's row)."""
    left = _LEFT_BAR.match(line)
    right = _RIGHT_BAR.search(line)
    if left is None and right is None:
        return None
    inner = line[left.end() if left else 0 : right.start() if right else len(line)]
    return None if _BOX.search(inner) else inner


# a table row's cells before the message: empty cells, then a record's time stamp ("  |   | 2026-06-04 03:58:55.423 | ")
# (one class before the stamp: no nested repeat to backtrack through on a line of blanks and bars)
_ROW_STAMP = re.compile(r"[ \t|]*\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)? *\| ?")
_RULE_CHARS = frozenset(" \t|:-")


def _table_run(lines: Sequence[str], seed: int) -> tuple[int, dict[int, str] | None]:
    """The last line of the table rows around the seed, and each row's message cell (the header's rule: an empty line)
    when the rows hold a log's line."""
    if _row_message(lines[seed]) is None:
        return seed, None
    first = last = seed
    while first > 0 and seed - first < _MAX_RUN and _table_line(lines[first - 1]):
        first -= 1
    while last + 1 < len(lines) and last - seed < _MAX_RUN and _table_line(lines[last + 1]):
        last += 1
    messages = {i: _row_message(lines[i]) for i in range(first, last + 1)}
    if sum(message is not None for message in messages.values()) < 2:
        return last, None
    stripped = {i: message or "" for i, message in messages.items()}
    return last, stripped if any(_LOG_LINE.match(text) for text in stripped.values()) else None


def _row_message(line: str) -> str | None:
    """A table row's message cell: the text between the time stamp's cell and the row's closing bar, or None."""
    m = _ROW_STAMP.match(line)
    if m is None:
        return None
    rest = line[m.end() :].rstrip()
    return rest[:-1].rstrip() if rest.endswith("|") else None


def _table_line(line: str) -> bool:
    """A row of the table, or its header's rule ("-- | -- | --")."""
    return _row_message(line) is not None or ("-" in line and "|" in line and set(line.rstrip()) <= _RULE_CHARS)
