"""The fatal signals a native crash reports, one table: each signal's name and the words each crash handler prints
for it, so two reports of one crash are the same signal whichever handler printed it.

CPython's faulthandler ("Fatal Python error: Segmentation fault"; its handler names, strings of python 3.11's
libpython3.11.so: "Segmentation fault", "Bus error", "Floating point exception", "Illegal instruction", "Aborted"),
UCX's handler ("Caught signal 11 (Segmentation fault: ..."), Abseil's and glog's ("*** SIGSEGV received at ..."),
gdb ("received signal SIGSEGV") and tvm-ffi's SIGSEGV handler (apache-tvm-ffi src/ffi/backtrace.cc: "!!!!!!! Segfault
encountered !!!!!!!")."""

from __future__ import annotations

import re
from typing import Final, NamedTuple


class FatalSignal(NamedTuple):
    name: str  # SIGSEGV
    number: int  # Linux x86-64 / aarch64
    words: tuple[str, ...]  # what handlers print for it, besides its name and number


FATAL_SIGNALS: Final = (
    FatalSignal("SIGSEGV", 11, ("Segmentation fault", "Segfault")),
    FatalSignal("SIGABRT", 6, ("Aborted",)),
    FatalSignal("SIGBUS", 7, ("Bus error",)),
    FatalSignal("SIGFPE", 8, ("Floating point exception",)),
    FatalSignal("SIGILL", 4, ("Illegal instruction",)),
)
_BY_WORD = {w.lower(): s.name for s in FATAL_SIGNALS for w in (s.name, *s.words)}
_BY_NUMBER = {s.number: s.name for s in FATAL_SIGNALS}
_NUMBER = re.compile(r"^(?:signal )?(\d+)$")


def signal_name(text: str | None) -> str | None:
    """SIGSEGV for "Segmentation fault", "Segfault", "SIGSEGV" or "signal 11" (a handler's words for a fatal
    signal); None for anything else (a glog check's message, an unknown word)."""
    if not text:
        return None
    words = text.strip().rstrip(".").lower()
    if words in _BY_WORD:
        return _BY_WORD[words]
    number = _NUMBER.match(words)
    return _BY_NUMBER.get(int(number.group(1))) if number else None
