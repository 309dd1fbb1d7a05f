"""Two processes' faulthandler dumps written to one stream at the same moment: CPython's faulthandler writes each
frame line in pieces (faulthandler.c dump_frame: '  File "', the file name, '", line ', the number, ' in ', the
function), so when two ranks crash together each piece of one rank's line lands next to the same piece of the
other's: '  File   File ""/a/pynccl.py/a/pynccl.py"", line , line 404404 in  in initinit'. Such a line is read back
as the one line both wrote; a line where the two differ (their thread ids) stays as it is."""

from __future__ import annotations

from functools import cache

# the doubled openers of faulthandler's lines: a line without one is never taken apart
MARKERS = ('  File   File ""', "Fatal Python error: Fatal Python error: ")
_MAX = 2000  # characters of a line tried at most


def undoubled(line: str) -> str | None:
    """The line two writers of the same text wrote together (each piece twice in a row), or None when the line is
    no such doubling. The longest doubled piece is tried first at every place, so a name keeps its letters."""
    if len(line) > _MAX or not any(marker in line for marker in MARKERS):
        return None
    text = line.rstrip()
    failed: set[int] = set()

    @cache
    def rest(at: int) -> str | None:
        if at == len(text):
            return ""
        if at in failed:
            return None
        for size in range((len(text) - at) // 2, 0, -1):
            if text[at : at + size] == text[at + size : at + 2 * size]:
                tail = rest(at + 2 * size)
                if tail is not None:
                    return text[at : at + size] + tail
        failed.add(at)
        return None

    try:
        return rest(0)
    except RecursionError:  # a piece per character over a long line: no such doubling
        return None
