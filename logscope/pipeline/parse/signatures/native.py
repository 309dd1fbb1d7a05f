"""A native crash as one piece of evidence: the signal, the frame where it hit and the library that frame
belongs to.

A crash prints in parts: UCX's handler line (`Caught signal 11 (Segmentation fault: ...)`) and its
`==== backtrace` block, or Abseil's `*** SIGSEGV received at ...` block, then CPython's faulthandler
(`Fatal Python error: Segmentation fault` and the Python threads' frames). A block and the faulthandler line right
after (or before) it are one crash: the faulthandler event takes the block's native frames, so the verdict quotes
the signal and the innermost frame where it hit, never the block's header."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from logscope.core import kinds
from logscope.core.events import Event
from logscope.core.native_libraries import crash_frames, library_of, source_library
from logscope.pipeline.parse.parsers.blocks import TVM_SEGFAULT

_CALLER_WINDOW = 8  # the innermost frames where the crash's library and the library that called it are looked for
_NEAR = 3  # lines between a block's last line and the faulthandler line (a blank line, a log prefix line)
_SIGNALS = (
    re.compile(r"Caught signal \d+ \((?P<name>[^:)]+)"),  # UCX ucs_handle_error
    re.compile(r"\*\*\* (?P<name>SIG[A-Z]+) (?:\(@[^)]*\) )?received"),  # Abseil / glog failure signal handler
    re.compile(r"(?:terminated with|received) signal (?P<name>SIG[A-Z]+)"),  # gdb
    TVM_SEGFAULT,  # tvm-ffi's SIGSEGV handler (src/ffi/backtrace.cc): its header is the block's opener
)


def merge_native(events: list[Event]) -> list[Event]:
    """The events less each native backtrace whose faulthandler line is next to it (that line's event takes its
    frames and its signal)."""
    absorbed: set[int] = set()
    glog_fatal = {(e.source, e.line): e for e in events if is_glog_fatal(e)}
    for event in events:  # glog's "F... Check failed: ..." line, then its "*** Check failure stack trace: ***" block
        if event.kind == kinds.NATIVE_BACKTRACE and "Check failure stack trace" in str(event.data.get("opener")):
            line = next(
                (
                    glog_fatal[(event.source, n)]
                    for n in range(event.line - 1, event.line - 3, -1)
                    if (event.source, n) in glog_fatal
                ),
                None,
            )
            if line is not None:
                event.data["native_error"] = str(line.data.get("message") or "").strip() or None
                absorbed.add(id(line))
    _signal_lines_to_frames(events, absorbed)
    fatal = {(e.source, e.line): e for e in events if e.kind == kinds.FATAL_ERROR}
    for event in events:
        if event.kind != kinds.NATIVE_BACKTRACE or id(event) in absorbed:
            continue
        last = int(event.data.get("last_line") or event.line)
        near = [*range(last + 1, last + 1 + _NEAR), *range(event.line - 1, event.line - 1 - _NEAR, -1)]
        partner = next((fatal[(event.source, n)] for n in near if (event.source, n) in fatal), None)
        if partner is None or partner.data.get("native_frames"):
            continue
        partner.data["native_frames"] = list(event.data.get("native_frames") or [])
        partner.data["native_opener"] = event.data.get("native_opener") or event.data.get("opener")
        partner.data["native_error"] = event.data.get("native_error")
        absorbed.add(id(event))
    return [e for e in events if id(e) not in absorbed]


_SIGNAL_GAP = 4  # lines between a signal line that opened no frames and the backtrace it announces ("(gdb) bt")


def _signal_lines_to_frames(events: list[Event], absorbed: set[int]) -> None:
    """A signal line whose block has no frames (gdb's "Thread 1 "python" received signal SIGSEGV", then the
    stop location and "(gdb) bt"; UCX's handler line with other lines between it and its backtrace) gives its
    signal to the backtrace right after it."""
    blocks = [e for e in events if e.kind == kinds.NATIVE_BACKTRACE]
    for event, after in zip(blocks, blocks[1:], strict=False):
        last = int(event.data.get("last_line") or event.line)
        if event.data.get("native_frames") or after.source != event.source or after.line - last > _SIGNAL_GAP:
            continue
        if any(p.search(str(event.data.get("opener") or "")) for p in _SIGNALS) and not after.data.get("native_opener"):
            after.data["native_opener"] = event.data.get("opener")
            absorbed.add(id(event))


def is_glog_fatal(event: Event) -> bool:
    """glog's FATAL line (`F1104 06:35:19.118512 2368741 transfer_engine.cpp:120] Check failed: ...`): glog aborts
    the process after printing it."""
    return event.kind == kinds.NATIVE_LOG and event.data.get("level") == "F"


def is_glog_error(event: Event) -> bool:
    """glog's ERROR or FATAL line as the native-log parser read it (its `srcloc` and `message`), not UCX's own logger's
    line at those levels (`printer`)."""
    return event.kind == kinds.NATIVE_LOG and event.data.get("level") in ("E", "F") and not event.data.get("printer")


def is_library_error(event: Event) -> bool:
    """glog's ERROR line whose source file a catalogued library's released source holds (`E0302 08:32:30.369483 57711
    rdma_context.cpp:450] Failed to query GID ...`, parsers/other_lines.py sets `source`), or UCX's own log line at
    ERROR (`printer`): that library's own code reported a failure, whatever its wording."""
    printed = event.data.get("source") or event.data.get("printer")  # UCX's logger names the library it belongs to
    return event.kind == kinds.NATIVE_LOG and event.data.get("level") == "E" and bool(printed)


def signal_of(event: Event) -> str | None:
    """What a crash says: glog's FATAL message, the handler's signal line (UCX, Abseil, gdb), else faulthandler's own
    words."""
    if event.data.get("native_error"):
        return str(event.data["native_error"])
    for text in (event.data.get("native_opener"), event.data.get("opener")):
        for pattern in _SIGNALS:
            m = pattern.search(str(text or ""))
            if m:
                return m.group("name").strip()
    if event.kind == kinds.FATAL_ERROR and event.data.get("error"):
        return str(event.data["error"]).strip()
    return None


class NativeCrash(NamedTuple):
    signal: str | None
    frame: str | None  # the innermost frame where the signal hit
    library: str | None  # the library whose code ran it: the outer one when one library called into another
    library_frame: str | None  # the innermost frame that names a library, when it is not `frame`
    via: str | None = None  # the library of that innermost frame, when another library's frame called into it


def _caller_library(frames: list[str], inner: str) -> str | None:
    """The library of the first frame outward of a library's frames that belongs to another library: the one whose
    code called into it (NIXL's UCX backend plugin, libplugin_UCX.so / nixlUcx*, calling ucp_worker_arm)."""
    for frame in frames:
        library = library_of(frame)
        if library is not None and library != inner:
            return library
    return None


def native_crash(event: Event, values: dict[str, Any]) -> NativeCrash | None:
    """The signal, the frame and the library of a crash with native frames, or of an error line whose captured
    source file a library holds (`CUDA error (.../flash-mla/csrc/...cu:111): invalid argument`)."""
    frames = [str(f) for f in event.data.get("native_frames") or []]
    if frames:
        hit = crash_frames(frames) or frames
        named = next(((f, lib) for f in hit[:_CALLER_WINDOW] if (lib := library_of(f))), None)
        if named is None:
            return NativeCrash(signal_of(event), hit[0], None, None)
        frame, inner = named
        caller = _caller_library(hit[hit.index(frame) + 1 : _CALLER_WINDOW], inner)
        library_frame = None if frame == hit[0] else frame
        if caller is not None:
            return NativeCrash(signal_of(event), hit[0], caller, library_frame, inner)
        return NativeCrash(signal_of(event), hit[0], inner, library_frame)
    path = values.get("file") or (event.data.get("source") if is_library_error(event) or is_glog_fatal(event) else None)
    library = source_library(str(path)) if path else None
    if library is None and (is_library_error(event) or is_glog_fatal(event)):
        library = event.data.get("printer")
    return NativeCrash(None, None, str(library), None) if library else None
