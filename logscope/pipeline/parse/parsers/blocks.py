"""Readers for records that span several lines: Python tracebacks, native backtraces and check_env output
(the nvidia-smi readers live with their grammar in nvidia_smi.py and nvidia_topo.py)."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable
from typing import Any, ClassVar

from logscope.core import kinds
from logscope.core.events import Event, RankId
from logscope.pipeline.parse.parsers import other_lines, sglang_line
from logscope.pipeline.parse.parsers.base import PREFIXED, BlockReader
from logscope.pipeline.parse.parsers.nvidia_topo import parse_topology, without_cut_cell
from logscope.pipeline.parse.parsers.rocm_topo import link_types

# a Ray task's exception names its cause in parentheses: "ray.exceptions.RayTaskError(OutOfMemoryError): ray::f()"
_EXC_LINE = re.compile(r"^\s*(?:[A-Za-z_]\w*\.)*[A-Za-z_]*(?:Error|Exception|Interrupt)(?:\([A-Za-z_]\w*\))?(?::|$)")
# after a traceback's frames, the exception line of a class whose name says nothing of an error: CPython prints every
# class outside builtins with its module (Lib/traceback.py TracebackException.format_exception_only: stype = smod + "."
# + qualname, then ": " and the message): triton.runtime.errors.OutOfResources, torch._dynamo.exc.Unsupported
# (with its colon: a name alone at the end of a paste may be cut, "torch.O")
# (a class of an exceptions module, or one named as an exception: "sglang.srt.Config: loaded 3 entries" after frames
# is a log line)
_QUALIFIED_EXC_LINE = re.compile(
    r"^(?:[a-z_][a-z0-9_]*\.)*(?:(?:[a-z_][a-z0-9_]*_)?(?:errors?|exc|exceptions?)\.[A-Z][A-Za-z0-9_]*"
    r"|[a-z_][a-z0-9_]*\.[A-Z][A-Za-z0-9_]*(?:Error|Exception|Unsupported|Failure|Timeout|Abort|Fault|Exit|Interrupt|Warning))"
    r":(?:\s|$)"
)
_FRAME = re.compile(r'^\s*File "')
_FAULTHANDLER_FRAME = re.compile(r'^\s*File "[^"]*", line \d+ in ')
# (the path as runs of non-blanks: `[^"]*` and `\s*` sharing a blank run was quadratic in it, review14a item 15)
_FAULTHANDLER_CUT = re.compile(r'^\s+File(?: "[^"\s]*(?:\s+[^"\s]+)*)?\s*$')  # a dump's frame line a copy cut before its end
# a Python frame line broken after its path by a copy ('File ".../memory_pool.py",' then 'line 499, in _init_mamba_pool')
_FRAME_HEAD_ALONE = re.compile(r'^\s*File "[^"]+",?\s*$')
_FRAME_TAIL = re.compile(r"^\s*line \d+,? in \S")
_TB_OPENERS = ("Traceback (most recent call last):", "Fatal Python error:", "(most recent call first):")
# CPython's lines between chained exceptions: the traceback after one shares the outer frames of the one before
_CHAIN_LINES = ("During handling of the above exception", "The above exception was the direct cause")
# an exception group's lines (CPython 3.11 Lib/traceback.py _ExceptionPrintContext.emit: two spaces per group depth,
# then a margin "|" ("+" on the group's first line) and a space before every line of it; TracebackException.format:
# "+-+---------------- 1 ----------------" before each sub-exception, "+------------------------------------" after the
# last): read as one traceback, the group's frames then those of its sub-exception, whose exception line ends it
_GROUP_MARGIN = re.compile(r"^\s*[|+] ")
_GROUP_RULE = re.compile(r"^\s*\+(?:-\+)?-{3,}(?: .+? -{3,})?\s*$")
_GROUP_EXCEPTION = re.compile(r"^(?:[A-Za-z_]\w*\.)*(?:Base)?ExceptionGroup: ")


# an exception's repr logged as the message of logging's Logger.exception, whose traceback follows it (CPython 3.11
# Lib/logging/__init__.py Formatter.format: the message, then "\n" and formatException's "Traceback (most recent call
# last):"): the idiom `logger.exception(repr(e))`, as vLLM's engine of ai-dynamo/dynamo#306 (built) printed it, "ERROR
# 03-20 02:45:15 engine.py:244] nixlUnknownError('NIXL_ERR_UNKNOWN')" then the traceback, its lines under the same
# prefix (a formatter that prefixes every line) or none
_TRACEBACK_OPENER = "Traceback (most recent call last):"
_EXCEPTION_REPR = re.compile(r"([A-Za-z_][\w.]{0,200}?(?:Error|Exception|Exit|Interrupt))\((['\"])(.{0,2000}?)\2\)\s*")


def logged_exception(logged: str, opener: str) -> str | None:
    """The exception line ("nixlUnknownError: NIXL_ERR_UNKNOWN") that the logged line `logged` gives as a repr right
    before the traceback `opener` opens, when the traceback's lines carry the record's prefix or none; else None."""
    at = opener.find(_TRACEBACK_OPENER)
    if at < 0 or opener[at + len(_TRACEBACK_OPENER) :].strip():
        return None
    prefix = opener[:at]
    if prefix.strip() and not logged.startswith(prefix):
        return None
    m = _EXCEPTION_REPR.fullmatch(logged, len(prefix)) if prefix.strip() else None
    if m is None:  # a traceback with no prefix under a record that has one: the repr ends the record's line
        logged = logged[-2400:]  # (the repr's bounded length: a long line is searched in its end only)
        m = _EXCEPTION_REPR.search(logged)
        if m is None or m.end() != len(logged) or (m.start() and not logged[m.start() - 1].isspace()):
            return None
    return f"{m.group(1)}: {m.group(3)}"


# torch.distributed's excepthook, installed by init_process_group (torch 2.5.1-2.12.0 distributed_c10d.py:
# excepthook_prefix = f"[rank{get_rank()}]", then f"{excepthook_prefix}: {s}" before every line of the traceback)
_TORCH_RANK = re.compile(r"^\s*\[rank(\d+)\]: ")


def _torch_rank(text: str) -> tuple[str, RankId | None]:
    """The line without torch's excepthook prefix, and the rank it names (None when it has none)."""
    m = _TORCH_RANK.match(text) if "[rank" in text[:12] else None
    if m is None:
        return text, None
    n = int(m.group(1))
    return text[m.end() :], RankId(label=f"rank{n}", dims=(("rank", n),))


_QUOTED_OPENER = re.compile(r'"[^"]*(?:Traceback \(most recent|Fatal Python error)')


# tvm-ffi's SIGSEGV handler (apache-tvm-ffi src/ffi/backtrace.cc TVMFFISegFaultHandler, loaded with FlashInfer's
# JIT kernels): its header, then native frames in Python's frame form, innermost first ('  File "<unknown>", line 0,
# in cuEventQuery'); such a frame of a native file also opens a block when the header was not pasted
TVM_SEGFAULT = re.compile(r"^\s*!{7} (?P<name>Segfault) encountered !{7}\s*$")
_NATIVE_PY_FRAME = re.compile(
    r'^\s*File "(?P<file><unknown>|[^"]*\.(?:so[.\d]*|cc|cpp|cu|cuh|h|hpp|c))", line (?P<line>\d+), in (?P<func>\S.*?)\s*$'
)


# an exception line with an empty message: str(exc) began with a newline, so Python printed the message on the lines
# under it (sgl-kernel 0.3.21 load_utils.py: raise ImportError(error_msg), error_msg = f"""\n[sgl_kernel] CRITICAL:
# Could not load any common_ops library!\n...""") up to a blank line
_EMPTY_EXCEPTION = re.compile(r"^\s*(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception):\s*$")
_BODY_MAX = 40  # lines of such a message read at most
# the lines of one frame's source segment read after its first, at most: a bound (CPython 3.13 prints the first and
# last lines, three around each of the two anchors, a single line between two of them, each with its caret line, and
# "...<N lines>..." for a longer gap: under 32)
_SEGMENT_MAX = 32
# a line a logger wrote (a level word, glog's "E0123 ", a date): never a line of a message
_LOGGED = re.compile(r"^\s*(?:(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\b|[IWEF]\d{4}(?:\d{4})? |\d{4}-\d{2}-\d{2}[ T])")


class TracebackReader(BlockReader):
    """A Python traceback or faulthandler dump; the exception line that ends it carries its frames. An exception line
    with an empty message opens one too: the lines under it are its message."""

    grammar = kinds.TRACEBACK_GRAMMAR
    literals = (
        *('File "', "Traceback (most recent", "Fatal Python error", "(most recent call first)", *_CHAIN_LINES),
        *("Error:", "Exception:"),
    )

    def starts(self, text: str) -> bool:
        text = _torch_rank(text)[0]
        if _EMPTY_EXCEPTION.match(text):
            return True
        if _NATIVE_PY_FRAME.match(text):
            return False
        if "`" in text or _QUOTED_OPENER.search(text):  # prose quoting a traceback's first line in a code span or
            return False  # in "...": the quoted part is read on its own
        if text.lstrip().startswith(_CHAIN_LINES):
            return True
        return any(opener in text for opener in _TB_OPENERS) or bool(_FRAME.match(text))

    def open(self, lineno: int, text: str) -> BlockReader:
        text, torch_rank = _torch_rank(text)
        self.events: list[Event] = []
        self.frames: list[dict[str, Any]] = []
        self.first_line = lineno
        self.rank: RankId | None = torch_rank
        self.time: str | None = None
        self.exception: Event | None = None
        self.after_frame = False
        self.frame_indent = 0  # the indent of the last frame line (its source segment's lines are deeper)
        self.segment_lines = -1  # lines of that frame's source segment read after its first (-1: none open)
        self.cut_frame = False
        self.cut_frame_path: str | None = None
        # a frame line that ends after its path (line number and function on the next line: a copy's line break)
        self.split_head: tuple[int, str, bool, str | None] | None = None
        self.reversed_lines = False
        self.innermost_first = "(most recent call first)" in text  # faulthandler prints the innermost frame first
        self.fatal: Event | None = None
        self.header: str | None = None  # "[..DP0 TP0 EP0] TpModelWorkerClient hit an exception: Traceback (...)"
        self.chained_at = lineno if text.lstrip().startswith(_CHAIN_LINES) else None
        self.opener = text.strip()[:300]
        self.logged: tuple[int, str] | None = None  # (line, exception line) of a repr logged right before it (classify)
        self.closed_by_record = False  # a log record or a native frame closed it: they are read on their own
        self.strays: list[tuple[int, str]] = []
        self.body: list[str] | None = None  # the message lines under an exception line with an empty message
        self.body_line = lineno  # the line number of the last of them
        # faulthandler dumps every thread; only "Current thread" is the one that crashed (None: no thread header yet)
        self.thread: str | None = self._thread_of(text)
        self.threads_seen = 0 if self.thread is None else 1  # each thread header faulthandler printed
        if _EMPTY_EXCEPTION.match(text):
            self.exception = self._exception_event(lineno, text)
            self.body, self.body_line = [], lineno
        elif "Fatal Python error" in text:
            # faulthandler's line, also behind a log prefix a wrapper added ("[.. TP3] Fatal Python error: ...")
            parsed_tb = other_lines.parse_traceback_line(text[text.find("Fatal Python error") :])
            if parsed_tb:
                self.fatal = Event(
                    kinds.FATAL_ERROR, self.source, lineno, text.strip()[:300], None, None, parsed_tb[1], kinds.TRACEBACK_GRAMMAR
                )
        elif not text.lstrip().startswith(_TB_OPENERS):  # "[..TP0] Scheduler hit an exception: Traceback (...)"
            parsed = sglang_line.parse_line(text)
            if parsed is not None:
                prefix, kind, data = parsed
                self.header = text.strip()[:300]
                if prefix:
                    self.rank, self.time = prefix.get("rank"), prefix.get("time")
                self.events.append(Event(kind, self.source, lineno, text.strip(), self.rank, self.time, data))
        self.feed_frame(lineno, text)
        return self

    @property
    def reading_message(self) -> bool:
        """Whether the lines now fed are taken as the message of an exception line with an empty message."""
        return self.body is not None

    def _feed_body(self, lineno: int, text: str) -> bool:
        """A line of the message under an exception line with an empty message, up to a blank line (ingest drops it:
        the line numbers leave a gap) or a record."""
        stripped = text.strip()
        if self.body is None or not stripped or lineno > self.body_line + 1 or len(self.body) >= _BODY_MAX:
            return False
        if PREFIXED.match(text) or _FRAME.match(text):
            return False
        if any(opener in stripped for opener in _TB_OPENERS) or stripped.startswith(_CHAIN_LINES) or _EXC_LINE.match(text):
            return False
        if _LOGGED.match(text) or _NATIVE_OPEN.match(text) or sglang_line.parse_line(text) is not None:
            return False  # a record of its own: a logger's line, a native backtrace, a line SGLang prints
        self.body.append(stripped)
        self.body_line = lineno
        return True

    def feed_frame(self, lineno: int, text: str) -> bool:
        head = self.split_head
        self.split_head = None
        if head is not None and _FRAME_TAIL.match(text):
            # the rest of a frame line that a copy broke after its path: one frame, read as joined
            text, lineno = f"{head[1].rstrip()} {text.strip()}", head[0]
            self.cut_frame, self.cut_frame_path = head[2], head[3]
        elif not _FRAME.match(text):
            return False
        self.frame_indent = len(text) - len(text.lstrip())
        self.segment_lines = -1  # (no source line of this frame read yet)
        parsed = other_lines.parse_traceback_line(text)
        if parsed and parsed[0] == kinds.FRAME:
            frame = {**parsed[1], "raw": text.strip()[:300], "at": lineno, "thread": self.thread, "thread_no": self.threads_seen}
            self.frames.append(frame)
            if _FAULTHANDLER_FRAME.search(text):
                self.innermost_first = True
                # faulthandler prints no source line under a frame (CPython 3.11-3.14 Python/traceback.c dump_frame:
                # '  File "%s", line %d in %s' and a newline): the next line is no code of it
                self.after_frame = False
                return True
        else:
            if _FRAME_HEAD_ALONE.match(text):  # its line number and function may follow on the next line
                self.split_head = (lineno, text, self.cut_frame, self.cut_frame_path)
            self.cut_frame = True  # a frame line cut short: frames under it may be missing
            self.cut_frame_path = text.strip()[:300]  # its path, as far as it goes, still names a package
        self.after_frame = True
        return True

    def feed(self, lineno: int, text: str) -> bool:
        text, torch_rank = _torch_rank(text)
        self.rank = self.rank or torch_rank
        if _GROUP_RULE.match(text):
            return True
        if (margin := _GROUP_MARGIN.match(text)) is not None:
            text = text[margin.end() :]
            if _GROUP_EXCEPTION.match(text):
                return True  # the group's own line: its sub-exceptions follow
        if self.exception is not None:
            return self._feed_body(lineno, text)
        if PREFIXED.match(text) or (_NATIVE_PY_FRAME.match(text) and not self._appended_backtrace()):
            self.closed_by_record = True  # another rank's record may come between the header and its frames
            return False  # a native frame in Python's form (tvm-ffi's handler) opens a native backtrace
        if self.feed_frame(lineno, text):
            return True
        stripped = text.strip()
        if self.innermost_first and self.frames and _FAULTHANDLER_CUT.match(text):
            self.cut_frame = True  # a dump's frame line cut before its path: frames under it may be missing
            return True
        if "Fatal Python error" in stripped and self.fatal is None:
            return False  # faulthandler's line after frames pasted without their header: a crash of its own
        if any(opener in stripped for opener in _TB_OPENERS) or stripped.startswith(("During handling", "The above exception")):
            self.after_frame = False
            self.innermost_first = self.innermost_first or "(most recent call first)" in stripped
            thread = self._thread_of(stripped)
            self.threads_seen += thread is not None
            self.thread = thread or self.thread
            return True
        if _EXC_LINE.match(text) or (self.frames and _QUALIFIED_EXC_LINE.match(text)):
            self.exception = self._exception_event(lineno, text)
            self.body, self.body_line = ([] if _EMPTY_EXCEPTION.match(text) else None), lineno
            return True
        if self.after_frame or set(stripped) <= set("^~ "):
            if self.after_frame and self.frames and stripped and "code" not in self.frames[-1]:
                self.frames[-1]["code"] = stripped[:200]  # the call a frame makes is evidence too
            if self.after_frame:
                self.segment_lines = 0
            self.after_frame = False  # the source line shown under a frame, or its ^^^ marker
            return True
        if self._segment_line(text):
            return True
        if not self.strays and self._header_alone():
            # one line that is no part of a traceback under its bare header: a line another writer printed between
            # the header and its frames (a progress bar), or prose after a header the copy cut ("the rest is too long")
            self.strays.append((lineno, text))
            return True
        return False

    def _segment_line(self, text: str) -> bool:
        """A further line of the source segment printed under a frame: CPython 3.13+ prints a call that spans several
        lines whole (its first and last lines and those around its anchors, each with its caret line, the lines between
        abbreviated "...<N lines>...", all indented four blanks under the frame: Lib/traceback.py
        StackSummary.format_frame_summary, CPython 3.13.0), where 3.11 and 3.12 printed its first line only. Such a
        line is indented deeper than the frame line; the exception line after the frames is not."""
        if self.segment_lines < 0 or self.segment_lines >= _SEGMENT_MAX or not text.strip():
            return False
        if len(text) - len(text.lstrip()) <= self.frame_indent:
            self.segment_lines = -1
            return False
        self.segment_lines += 1
        return True

    def _appended_backtrace(self) -> bool:
        """A native frame in Python's form under a Python traceback's own frames, before its exception line: tvm-ffi
        appends the C++ backtrace of an error raised in a kernel library to the Python traceback (apache-tvm-ffi
        0.1.15.post2 python/tvm_ffi/error.py _with_append_backtrace: each (filename, lineno, func) of the C++ backtrace
        appended with append_traceback, '  File "<unknown>", line 0, in __tvm_ffi_trtllm_fp8_block_scale_moe', then
        '  File ".../flashinfer/data/csrc/trtllm_fused_moe_kernel_launcher.cu", line 1580, in ...'), so the exception
        line after them ends this traceback. Its SIGSEGV handler's dump (TVM_SEGFAULT) has no Python frames above."""
        return bool(self.frames) and self.fatal is None and not self.innermost_first

    def handed_back(self) -> list[tuple[int, str]]:
        """The line taken under a bare header that was no part of the traceback: read on its own."""
        return self.strays

    def _exception_event(self, lineno: int, text: str) -> Event:
        event = self._exception_event_of(lineno, text)
        if len(text.strip()) > 300:
            event.data["full_text"] = text.strip()[:4000]
        return event

    def _exception_event_of(self, lineno: int, text: str) -> Event:
        if other_lines.has_oom_head(text):
            data = other_lines.parse_oom(text) or {}
            m = re.match(r"^\s*([\w.]+):", text)
            data["exception"] = m.group(1) if m else None
            if "Capture cuda graph failed" in text:
                data["context"] = "capture_failed"
            return Event(kinds.OOM, self.source, lineno, text.strip()[:300], self.rank, self.time, data, kinds.TORCH_OOM_GRAMMAR)
        parsed = sglang_line.parse_line(text)
        if parsed is not None:
            _, kind, data = parsed
            return Event(kind, self.source, lineno, text.strip()[:300], self.rank, self.time, data, kinds.EXCEPTION_GRAMMAR)
        name = text.split(":", 1)[0].strip()
        return Event(
            kinds.EXCEPTION,
            self.source,
            lineno,
            text.strip()[:300],
            self.rank,
            self.time,
            {"exception": name, "body_kind": None, "message": text.split(":", 1)[-1].strip()},
            kinds.EXCEPTION_GRAMMAR,
        )

    def _unreverse(self) -> None:
        """Frames of a log exported newest line first: each source line was read under the frame inside the one
        that runs it. Put back in order, each frame gets the line printed under the frame after it."""
        codes = [f.pop("code", None) for f in self.frames]
        self.frames.reverse()
        codes.reverse()
        for frame, code in zip(self.frames, codes[1:] + [None]):
            if code is not None:
                frame["code"] = code
        self.reversed_lines = True

    @staticmethod
    def _thread_of(text: str) -> str | None:
        # a bare "(most recent call first):" names no thread: the rest of a header that another writer's line cut
        if "(most recent call first)" not in text or text.strip().startswith("(most recent call first)"):
            return None
        return "current" if "Current thread" in text else "other"

    def close(self) -> list[Event]:
        other_threads: list[list[str]] = []
        if self.fatal is not None and any(f["thread"] for f in self.frames):
            # the crashed thread's frames only: another thread's frames say nothing of where the crash happened; they
            # say what the process was running then (match.py places a crash in time by them), outermost first
            for number in sorted({f["thread_no"] for f in self.frames if f["thread"] == "other"}):
                stack = [_frame_path(f) for f in self.frames if f["thread_no"] == number and f["thread"] == "other"]
                other_threads.append(stack[::-1] if self.innermost_first else stack)
            self.frames = [f for f in self.frames if f["thread"] == "current"]
        if self.innermost_first:
            self.frames.reverse()  # frames are kept outermost first, as a Python traceback prints them
        elif self.exception is None and _printed_newest_first(self.frames):
            self._unreverse()
        frames = [f"{f['file'].rsplit('/', 1)[-1]}:{f['lineno']} {f['func']}" for f in self.frames]
        paths = [_frame_path(f) for f in self.frames]
        events = list(self.events)
        if self.exception is not None and self.body:
            message = " ".join(self.body)
            self.exception.data["message"] = message[:4000]
            self.exception.data["full_text"] = f"{self.exception.text.rstrip()} {message}"[:4000]
        if self.exception is not None:
            self.exception.data["frames"] = frames
            self.exception.data["frame_paths"] = paths
            if self.header:
                self.exception.data["header"] = self.header
            if self.chained_at is not None:
                self.exception.data["chained_at"] = self.chained_at
            self.exception.data["opened_at"] = self.first_line  # the traceback's first line (match.py: what came before it)
            events.append(self.exception)
            events += _launch_it_ran(self.exception)
        elif self.fatal is not None:
            self.fatal.data.update(frames=frames, frame_paths=paths)
            if other_threads:
                self.fatal.data["other_threads"] = other_threads
            events.append(self.fatal)
        elif frames and self.logged is not None:
            # cut before its exception line, which the record logged right before it gives (logger.exception(repr(e)))
            exception = self._exception_event(*self.logged)
            exception.data.update(frames=frames, frame_paths=paths, opened_at=self.first_line, logged_before=True)
            events.append(exception)
        elif frames:  # cut before its exception line: the evidence is the innermost frame line, as printed
            innermost = self.frames[-1]
            events.append(
                Event(
                    kinds.TRACEBACK,
                    self.source,
                    innermost["at"],
                    innermost["raw"],
                    self.rank,
                    self.time,
                    {"frames": frames, "frame_paths": paths, "incomplete": True, "opened_at": self.first_line}
                    | ({"cut_frame": True, "cut_frame_path": self.cut_frame_path} if self.cut_frame else {})
                    | ({"lines_reversed": True} if self.reversed_lines else {})
                    | ({} if self.chained_at is None else {"chained_at": self.chained_at}),
                    kinds.TRACEBACK_GRAMMAR,
                )
            )
        elif self._header_alone():
            events.append(self._header_event())
        return events

    def _header_alone(self) -> bool:
        """A Python traceback's header with nothing after it, where the copy ends or where a line that is no part of a
        traceback (prose: "the rest is too long to paste") follows it: a failure whose frames and exception the copy
        cut off. A log record after it closes no such failure: a record of another rank may come between a header and
        its frames."""
        cut = self.exception is None and self.fatal is None and not self.frames and not self.header
        opener = self.chained_at is None and self.opener.startswith("Traceback (most recent call last)")
        return cut and opener and not self.closed_by_record

    def _header_event(self) -> Event:
        """The header as the evidence of the failure: nothing of it names a library or a phase."""
        data = {"frames": [], "frame_paths": [], "incomplete": True, "opened_at": self.first_line, "header_only": True}
        return Event(kinds.TRACEBACK, self.source, self.first_line, self.opener, self.rank, self.time, data, self.grammar)

    def close_at_end(self, open_fence: bool) -> list[Event]:
        """The block where the copy ends: as `close`; and a traceback's first frame line cut inside its path where the
        copy ends ('  File "/sgl-workspace' after "crashes with the following error:"), as a bare header there is: a
        failure whose frames and exception the copy cut off (only CPython's traceback prints that line's opening), where
        the copy ends inside the code fence the writer opened for it (an unfenced frame cut at the end of a copy may be
        a client's traceback of an error shown above it: sglang-12745)."""
        events = self.close()
        if not events and open_fence and self._frame_alone():
            data = {"frames": [], "frame_paths": [], "incomplete": True, "opened_at": self.first_line, "header_only": True}
            data |= {"cut_frame": True, "cut_frame_path": self.cut_frame_path}
            at = self.first_line
            events.append(Event(kinds.TRACEBACK, self.source, at, self.opener, self.rank, self.time, data, self.grammar))
        return events

    def _frame_alone(self) -> bool:
        """Only a cut frame line was read, opening the block: no header, frame, exception or record."""
        cut = self.exception is None and self.fatal is None and not self.frames and not self.header and self.cut_frame
        return cut and self.chained_at is None and _FRAME.match(self.opener) is not None and not self.closed_by_record


def _frame_path(frame: dict[str, Any]) -> str:
    return f"{frame['file']}:{frame['lineno']} {frame['func']}" + (f": {frame['code']}" if frame.get("code") else "")


def _printed_newest_first(frames: list[dict[str, Any]]) -> bool:
    """A traceback whose lines came newest first (a log console's export): the source line read under a frame
    calls that frame's own function (it is the line of the frame that calls it), for half the frames or more
    (a decorator's frame breaks the chain)."""
    with_code = [f for f in frames if f.get("code")]
    calls_itself = [f["func"] for f in with_code if re.search(rf"\b{re.escape(str(f['func']))}\(", str(f["code"]))]
    # two different functions at least: one recursive function calls itself in order too
    return len(set(calls_itself)) >= 2 and len(calls_itself) * 2 >= len(with_code)


_NAMES_SGLANG = re.compile("(?i)sglang")  # the argv runs SGLang (a module, a console script, a router, a path of it)


def _launch_it_ran(exception: Event) -> list[Event]:
    """The launch a subprocess call ran, from CPython's CalledProcessError ("Command '['python3', '-m',
    'sglang.launch_server', ...]' returned non-zero exit status 1.": subprocess.py's message holds the argv's repr):
    its flags are the launch's, as the command typed would give them."""
    if not str(exception.data.get("exception", "")).endswith("CalledProcessError"):
        return []
    from logscope.pipeline.parse.parsers.command_text import parse_command  # a reader of another block's kind
    from logscope.pipeline.parse.parsers.multiline_commands import command_event

    message = str(exception.data.get("message", ""))
    data = parse_command(message) if _NAMES_SGLANG.search(message) else None
    if data is None or data.get("kind") != "command":
        return []
    return [command_event(kinds.LAUNCH_COMMAND, exception.source, exception.line, message, data)]


def exception_printed_before_its_traceback(events: list[Event]) -> list[Event]:
    """A log viewer that sorts lines by a timestamp can print a traceback's exception line just before the
    traceback's first line; the traceback then reads as cut. An exception line with no frames of its own on the
    line right before a traceback that has no exception line is that traceback's: it gets the frames."""
    return ExceptionsBeforeTracebacks().settle(events, keep=0)


class ExceptionsBeforeTracebacks:
    """exception_printed_before_its_traceback over a stream (a crash loop's source is handed on as it is read):
    events go out in order, the last `keep` held back, as far as a cut traceback looks back for its exception line
    (the event just before its opening line)."""

    def __init__(self) -> None:
        self.out: deque[Event] = deque()

    def settle(self, events: Iterable[Event], keep: int) -> list[Event]:
        """The events settled: all but the last `keep` of those seen, less the tracebacks joined to their line."""
        for event in events:
            if not self._joined(event):
                self.out.append(event)
        return [self.out.popleft() for _ in range(len(self.out) - keep)]

    def _joined(self, event: Event) -> bool:
        opened = event.data.get("opened_at")
        if event.kind != kinds.TRACEBACK or not event.data.get("incomplete") or opened is None:
            return False  # only a cut traceback looks back (a look back from every event was quadratic)
        # the block's own header ("[.. TP7] Scheduler hit an exception: Traceback ...") is on its opening line
        before = next((e for e in reversed(self.out) if e.line < opened), None)
        if (
            before is None
            or before.kind not in (kinds.EXCEPTION, kinds.OOM)
            or before.source != event.source
            or before.data.get("frames")
            or before.line + 1 != opened
        ):
            return False
        before.data.update(frames=event.data["frames"], frame_paths=event.data["frame_paths"], printed_before=True)
        if event.data.get("cut_frame"):  # the innermost frame shown need not be the one that raised it
            before.data.update(frames_cut=True, cut_frame_path=event.data.get("cut_frame_path"))
        before.rank = before.rank or event.rank
        before.time = before.time or event.time
        return True


_CHECK_ENV_START = re.compile(r"^\s*(Python: \d|CUDA available: |ROCM available: |NPU available: )")
_EXCEPTION_HEAD = re.compile(r"^\s*(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Interrupt|Exit)\b")
# check_env's keys (sglang 0.5.23 check_env.py) after its GPU line, and its package lines ("sgl_kernel: 0.3.18.post2",
# "vllm: Module Not Found")
_CHECK_ENV_KEY = re.compile(
    r"^(?:GPU \d+(?:,\d+)*(?: Compute Capability)?|CUDA_HOME|ROCM_HOME|NVCC|HIPCC|CUDA Driver Version|ROCM Driver Version"
    r"|PyTorch|NVIDIA Topology|AMD Topology|Hypervisor vendor|ulimit soft)$"
)
_PACKAGE_LINE = re.compile(r"^[a-z][a-z0-9_.-]*: (?:\d[\w.+-]*|Module Not Found)$")
# a copy of check_env that starts at its GPU line ("GPU 0,1,2,3: NVIDIA H200", the lines above it left out): the
# device name torch gives, nothing after it (nvidia-smi -L's line, with its UUID, is read by its own reader)
_CHECK_ENV_GPUS = re.compile(r"^GPU \d+(?:,\d+)*: (?:NVIDIA|Tesla|Quadro|GeForce|AMD|Instinct)\b[\w .-]*$")
_TOPOLOGY_KEYS = ("NVIDIA Topology", "AMD Topology", "Ascend Topology")
_AFTER_TOPOLOGY = re.compile(r"^\s*(Hypervisor vendor:|ulimit soft:)")
# check_env before 0.2 printed `nvidia-smi --query-gpu=driver_version --format=csv,noheader,nounits` as is:
# "CUDA Driver Version: 535.104.05" and then the same version once more per further GPU, on bare lines
_DRIVER_CONTINUATION = re.compile(r"^\s*\d+\.\d+(?:\.\d+)?\s*$")


class CheckEnvReader(BlockReader):
    """`python -m sglang.check_env`: key: value lines, with the topology table as one multi-line value."""

    grammar = kinds.CHECK_ENV_GRAMMAR
    literals: ClassVar[tuple[str, ...]] = (
        *("Python: ", "CUDA available: ", "ROCM available: ", "NPU available: "),
        *(": NVIDIA", ": Tesla", ": Quadro", ": GeForce", ": AMD", ": Instinct"),  # a copy from its GPU line
    )

    def starts(self, text: str) -> bool:
        return bool(_CHECK_ENV_START.match(text) or _CHECK_ENV_GPUS.match(text.strip()))

    def open(self, lineno: int, text: str) -> BlockReader:
        self.first_line = lineno
        self.last_line = lineno
        self.values: dict[str, str] = {}
        self.topology: list[str] | None = None
        self.in_topology = False
        # a copy that starts at the GPU line: no "Python:" above says it is check_env, so only check_env's own lines
        # carry it on (a prose "Note: ..." or "CUDA error: ..." under a stated GPU is no value of it)
        self.from_gpu_line = not _CHECK_ENV_START.match(text)
        self.feed(lineno, text)
        return self

    def feed(self, lineno: int, text: str) -> bool:
        if self.in_topology and not _AFTER_TOPOLOGY.match(text):
            if PREFIXED.match(text) or text.lstrip().startswith(("$", "#")):
                return False
            assert self.topology is not None
            self.topology.append(text)
            self.last_line = lineno
            return True
        self.in_topology = False
        if "CUDA Driver Version" in self.values and _DRIVER_CONTINUATION.match(text):
            self.last_line = lineno
            return True
        if _EXCEPTION_HEAD.match(text):  # "RuntimeError: CUDA error: ..." under the block: a failure, no key
            return False
        parsed = other_lines.parse_check_env_line(text)
        if parsed is None or PREFIXED.match(text):
            return False
        key, value = parsed
        if self.from_gpu_line and not _CHECK_ENV_KEY.match(key) and not _PACKAGE_LINE.match(f"{key}: {value}"):
            return False
        if key in _TOPOLOGY_KEYS:
            self.in_topology = True
            self.topology = []
        self.values[key] = value
        self.last_line = lineno
        return True

    def close_at_end(self, open_fence: bool) -> list[Event]:
        """The copy ended inside check_env's topology value: its last row, cut short, ends in a cut cell when that
        cell is the start of a longer one the rows above hold ("NV1" of "NV18")."""
        if self.in_topology and self.topology:
            self.topology = without_cut_cell(self.topology, only_a_cut_start=True)
        return self.close()

    def close(self) -> list[Event]:
        data: dict[str, Any] = {"values": self.values, "last_line": self.last_line}
        events = [
            Event(kinds.CHECK_ENV, self.source, self.first_line, "check_env output", None, None, data, kinds.CHECK_ENV_GRAMMAR)
        ]
        if self.topology:
            # "AMD Topology": rocm-smi's link type table (sglang 0.5.23 check_env.py get_topology)
            topology = parse_topology(self.topology) or link_types(self.topology)
            if topology is not None:
                events.append(
                    Event(
                        kinds.TOPOLOGY,
                        self.source,
                        self.first_line,
                        "NVIDIA Topology (check_env)",
                        None,
                        None,
                        topology,
                        kinds.NVIDIA_TOPO_GRAMMAR,
                    )
                )
        return events


# native frames: torch c10 "frame #3: ncclProxyProgress + 0x1a (0x7f.. in /usr/lib/libnccl.so.2)", gdb
# "#3  0x00007f... in ncclProxyService (...) at proxy.cc:1234", UCX " 3  /usr/lib/libucs.so.0(ucs_x+0x2c) [0x7f..]"
# (its frame 0 may be the process's own title, " 0 sglang::scheduler_TP1(+0x1a7e3) [0x7f..]"), UCX built with
# debug information " 1 0x000000000006a920 SaveProxy()  /dvs/p4/.../src/proxy.cc:518" (address, symbol, file:line),
# glibc backtrace "/usr/lib/x86_64-linux-gnu/libnccl.so.2(+0x5c0de)[0x7f...]"
# Abseil's / glog's failure signal handler: "PC: @     0x7f3a1c2d4e10  (unknown)  SaveProxy()" and
# "    @     0x7f3a1c2d5a21        112  ncclProxySaveOp()" (address, frame size or "(unknown)", symbol); glog's
# "*** Check failure stack trace: ***" then "    @     0x7f8f2c1a1b2d  google::LogMessage::Fail()" (no size)
_NATIVE_FRAME = re.compile(
    r"^\s*(?:frame #\d+: (?P<torch>.+)|#\d+\s+(?:0x[0-9a-fA-F]+ in )?(?P<gdb>\S.*)"
    r"|\d+\s+0x[0-9a-fA-F]+\s+(?P<ucx_debug>\S.*)"
    r"|\d+\s+(?P<ucx>/\S+\(.*|\S+\([^()\s]*\)\s*\[0x[0-9a-fA-F]+\].*)"
    r"|(?P<glibc>/\S+\.so[.\d]*\(.*\)\s*\[0x[0-9a-fA-F]+\])"
    r"|(?:PC: )?@\s+0x[0-9a-fA-F]+\s+(?:(?:\(unknown\)|\d+)\s+)?(?P<absl>\S.*))\s*$"
)
# c10's "Exception raised from <function> at <file>:<line> (most recent call first):" opens its frames, also with its
# first letter lost to a paste cut ("xception raised from ..."): never faulthandler's "(most recent call first)"; a c10
# frame of any number opens them too (c10/util/Backtrace.cpp's "frame #" of torch 2.9.1 libc10.so, only ever printed in
# a c10::Error's backtrace): a copy cut before frame #0 still shows a native crash (frames already taken by an open
# block never reach this test)
_NATIVE_OPEN = re.compile(
    r"^\s*(?:frame #\d+: |#0\s+0x|==== backtrace|E?xception raised from |\*\*\* SIG[A-Z]+ |\*\*\* Aborted at )"
    # UCX's header (ucs/debug/debug.c ucs_debug_print_backtrace: "==== backtrace (tid:%7d) ====") copied without its
    # rules: "backtrace (tid:  59888)", the whole line
    r"|^\s*backtrace \(tid:\s*\d+\)\s*$"
    r"|^\s*(?:\[[^\]]*\]\s*)*Caught signal \d+ \("  # UCX's handler: "[host:pid:tid:tid] Caught signal 11 (...)"
    r"|^\s*(?:Program terminated with|Thread \d+ \"[^\"]*\" received) signal SIG"  # gdb, on a core or live
    r"|^\s*\*\*\* Check failure stack trace"  # glog's CHECK, under its "F... Check failed: ..." line
)
# the Linux kernel's call trace (an oops, a WARN, a BUG, a hung task): "Call Trace:", then one frame a line as x86's
# printk_stack_address prints it, "%s %s%pB" (arch/x86/kernel/dumpstack.c: the level, "? " for a frame the unwinder
# is unsure of, the symbol as %pB writes it: "name+0xoff/0xsize", " [module]" for a module's, lib/vsprintf.c) between
# "<TASK>" / "<IRQ>" markers; a copy cut before "Call Trace:" opens at its first frame
_KERNEL_FRAME = re.compile(
    r"^\s*(?P<unsure>\? )?(?P<kernel>[A-Za-z_.$][\w.$]*)\+0x[0-9a-f]+/0x[0-9a-f]+"
    r"(?P<module> \[\w+)?(?: [0-9a-f]+)?(?(module)\])\s*$"
)
_KERNEL_OPEN = re.compile(r"^\s*Call Trace:\s*$")
_KERNEL_MARK = re.compile(r"^\s*</?(?:TASK|IRQ|NMI|SOFTIRQ)>\s*$")
_BLOCK_HEADER = re.compile(r"^\s*(?:==== backtrace|backtrace \(tid:\s*\d+\)\s*$)")
_CAUGHT = re.compile(r"^\s*(?:\[[^\]]*\]\s*)*Caught signal \d+ \(")
_BLOCK_CLOSER = re.compile(r"^\s*={8,}\s*$")  # UCX's "=================================" under the frames


class NativeBacktraceReader(BlockReader):
    """A native backtrace (torch's c10 "frame #N", gdb, UCX, glibc): its frames in order, innermost first."""

    grammar = kinds.NATIVE_BACKTRACE_GRAMMAR
    literals = (
        *("frame #", "==== backtrace", "backtrace (tid:", "xception raised from", "#0 ", "#0\t", "*** SIG", "*** Aborted at"),
        *("Caught signal", "with signal SIG", "received signal SIG", "*** Check failure stack trace"),
        *("Segfault encountered", 'File "<unknown>", line', "Call Trace:", "/0x"),
    )

    def starts(self, text: str) -> bool:
        return bool(
            _NATIVE_OPEN.match(text)
            or TVM_SEGFAULT.match(text)
            or _NATIVE_PY_FRAME.match(text)
            or _KERNEL_OPEN.match(text)
            or _KERNEL_FRAME.match(text)
        )

    def open(self, lineno: int, text: str) -> BlockReader:
        self.first_line = lineno
        self.last_line = lineno
        self.opener = text.strip()
        self.frames: list[str] = []
        self.closed = False
        self.python_form = bool(TVM_SEGFAULT.match(text) or _NATIVE_PY_FRAME.match(text))
        self.kernel_form = bool(_KERNEL_OPEN.match(text) or _KERNEL_FRAME.match(text))
        self.feed(lineno, text)
        return self

    def feed(self, lineno: int, text: str) -> bool:
        if self.closed:
            return False
        if self.python_form:
            frame = _NATIVE_PY_FRAME.match(text)
            if frame is not None:
                where = "" if frame["file"] == "<unknown>" else f" at {frame['file']}:{frame['line']}"
                self.frames.append(f"{frame['func']}{where}"[:300])
                self.last_line = lineno
                return True
            return lineno == self.first_line
        if self.kernel_form:
            kernel = _KERNEL_FRAME.match(text)
            if kernel is not None:
                module = f"{kernel['module']}]" if kernel["module"] else ""  # the function and its module, as a frame
                if not kernel["unsure"]:  # "? ": an address the unwinder found on the stack, no frame of the call chain
                    self.frames.append(f"{kernel['kernel']}{module}"[:300])
                self.last_line = lineno
                return True
            if _KERNEL_MARK.match(text):
                self.last_line = lineno
                return True
            return lineno == self.first_line
        m = _NATIVE_FRAME.match(text)
        if m is not None:
            self.frames.append(next(g for g in m.groups() if g).strip()[:300])
            self.last_line = lineno
            return True
        if not self.frames and "Caught signal" in self.opener and _CAUGHT.match(text):
            self.last_line = lineno  # every rank's handler line before the one backtrace UCX prints
            return True
        if not self.frames and lineno != self.first_line and _BLOCK_HEADER.match(text):
            self.last_line = lineno  # the "Caught signal" line, then the block's header
            return True
        if self.frames and _BLOCK_CLOSER.match(text):
            self.closed = True
            self.last_line = lineno
            return True
        return lineno == self.first_line

    def close(self) -> list[Event]:
        data: dict[str, Any] = {"native_frames": self.frames, "opener": self.opener, "last_line": self.last_line}
        m = re.match(r"^\s*E?xception raised from (\S+) at (\S+)", self.opener)
        if m:
            data["native_frames"] = [f"{m.group(1)} at {m.group(2)}", *self.frames]
        opened_by_frame = self.opener.startswith(("frame #", "#0")) or (self.kernel_form and "Call Trace" not in self.opener)
        text = f"kernel call trace: {self.opener}" if self.kernel_form and opened_by_frame else self.opener
        if not self.kernel_form and opened_by_frame:
            text = f"native backtrace: {self.opener}"
        return [Event(kinds.NATIVE_BACKTRACE, self.source, self.first_line, text[:300], None, None, data, self.grammar)]
