"""The failure stage: after assembly, every launch's failure evidence attributed by the signatures, with the
phase each interrupted. Rules read the result as `failures` (first in time first) and `root_failure`."""

from __future__ import annotations

import re
from typing import Any

from logscope.core import kinds
from logscope.core.events import Event
from logscope.core.model import Failure, Launch, UnmatchedFailure, UserStop
from logscope.core.samples import SamplesFile
from logscope.core.stage_functions import Releases
from logscope.pipeline.parse.serving import READY_KINDS, marked_may_precede_ready
from logscope.pipeline.parse.signatures.library import CUT_TRACEBACK_BASIS
from logscope.pipeline.parse.signatures.match import failures_of


def launch_failures(launch: Launch, launch_stamps: dict[str, list[str]] | None = None) -> list[Failure]:
    """The launch's failures; `launch_stamps`: the stamps of every launch's server_args dump per source (a failure
    pasted above the log is placed serving by a serving line stamped before it only when no launch came between)."""
    events = launch.all_events()
    ready: dict[str, Event] = {}  # source → its first line showing the server ready or serving
    past_warmup: dict[str, Event] = {}  # source → its first line showing the server past SGLang's warmup request
    for event in events:
        if event.kind in READY_KINDS and (event.source not in ready or event.line < ready[event.source].line):
            ready[event.source] = event
        data = event.data
        shows_past = event.kind == kinds.SERVER_READY or data.get("past_warmup") or not marked_may_precede_ready(event)
        earliest = event.source not in past_warmup or event.line < past_warmup[event.source].line
        if event.kind in READY_KINDS and shows_past and earliest:
            past_warmup[event.source] = event

    def last_phase_of(event: Event) -> str | None:
        if event.rank is not None and event.rank.label in launch.ranks:
            timelines = [launch.ranks[event.rank.label]]
        else:
            timelines = [t for t in launch.ranks.values() if any(p.source == event.source for p in t.phases)]
        last = set()
        for timeline in timelines:
            # <=: a phase line and a failure unwrapped from one physical line (a flattened log) share its number
            before = [p for p in timeline.phases if p.source == event.source and p.line <= event.line]
            last.add(before[-1].phase if before else None)
        # an untagged line in a file of several ranks: known only when every rank was at the same phase
        return last.pop() if len(last) == 1 else None

    def others_last_phase(event: Event) -> tuple[str, str] | None:
        """The last phase line before the event of the launch's other ranks, when they agree and the event's rank
        printed none (an untagged line is last_phase_of's), and those ranks."""
        label = event.rank.label if event.rank is not None else None
        own = launch.ranks.get(label) if label is not None else None
        if own is None or any(p.source == event.source and p.line <= event.line for p in own.phases):
            return None
        others = {}
        for other, timeline in launch.ranks.items():
            before = [p for p in timeline.phases if p.source == event.source and p.line <= event.line]
            if other != label and before:
                others[other] = before[-1].phase
        if len(set(others.values())) != 1:
            return None
        return next(iter(others.values())), ", ".join(sorted(others))

    phase_lines: dict[str, list[int]] = {}
    for timeline in launch.ranks.values():
        for p in timeline.phases:
            phase_lines.setdefault(p.source, []).append(p.line)
    found = failures_of(
        events,
        last_phase_of,
        ready,
        releases=releases_shown(launch.sglang_version),
        others_last_phase=others_last_phase,
        phase_lines=phase_lines,
        past_warmup=past_warmup,
        launch_stamps=launch_stamps,
    )
    if found and all(f.event.time for f in found):
        found.sort(key=lambda f: (f.event.time or "", f.event.source, f.event.line, _chained(f)))
    else:
        found.sort(key=lambda f: (f.event.source, f.event.line, _chained(f)))
    return found


def _chained(failure: Failure) -> bool:
    """The exception of a traceback CPython chained to an earlier one ("The above exception was the direct cause of the
    following exception:", "During handling of the above exception, another exception occurred:"): raised after the
    one before it, so it comes after it where both stand on one line (a chain a log shipper or a repr flattened with
    literal "\\n": SGLang's "Capture cuda graph failed: ..." wrapping the CalledProcessError of FlashInfer's JIT build)."""
    return failure.event.data.get("chained_at") is not None


def without_stated_beside_lines(failures: dict[int, list[Failure]], unread: list[UnmatchedFailure]) -> dict[int, list[Failure]]:
    """A failure stated only in a sentence gives way to a failure line anywhere in the input: a line some launch's
    failures hold, or a line that reads like a failure that no signature knows (`unread`, which then speaks for itself)."""
    lines = any(f.event.kind != kinds.STATED_FAILURE for found in failures.values() for f in found)
    if not lines and not any(m.unrecognized for m in unread):
        return failures
    return {launch: [f for f in found if f.event.kind != kinds.STATED_FAILURE] for launch, found in failures.items()}


def releases_shown(version: dict[str, Any]) -> Releases:
    """The SGLang releases a launch shows (sglang_version.py): the one stated, the range its wordings imply, or None."""
    if version.get("version"):
        return str(version["version"]), str(version["version"])
    span = version.get("range")
    return (str(span[0]), str(span[1])) if span else None


def _mib_to_gib(value: Any) -> float | None:
    return None if value is None else value / 1024


def oom_numbers(data: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """What every OOM message quotes, computed once: the request (as printed, else from the captured bytes),
    and the split of the process's memory between the PyTorch allocator and the rest (GiB)."""
    requested_mib = data.get("requested_mib")
    if requested_mib is None and values.get("bytes") is not None:
        requested_mib = values["bytes"] / 1048576
    request = data.get("requested_text")
    if request is None and values.get("bytes") is not None:
        request = f"{values['bytes'] / 1048576:.2f} MiB"
    held = _mib_to_gib(data.get("process_in_use_mib"))
    allocated = _mib_to_gib(data.get("allocated_mib"))
    pytorch = outside = None
    if held is not None and allocated is not None:
        pytorch = allocated + (_mib_to_gib(data.get("reserved_unallocated_mib")) or 0.0)
        outside = round(held - pytorch, 2)
    # another process the OOM text names ("Process 4021 has 21.69 GiB memory in use"): when it holds more than
    # half the card, it is the cause, whatever this process's settings. torch (c10 reportProcessMemoryInfo) lists
    # every process NVML sees on the device, this one included, under PIDs a container may not show: a listed
    # process is another one only when the text also states this process's use and the two differ
    this_mib = data.get("process_in_use_mib")
    others = [
        p
        for p in data.get("processes") or []
        if p.get("in_use_mib") is not None and this_mib is not None and abs(p["in_use_mib"] - this_mib) > 10.24
    ]
    other = max(others, key=lambda p: p["in_use_mib"], default=None)
    total = data.get("total_mib")
    other_text = None if other is None else f"Process {other.get('pid')} has {other['in_use_mib'] / 1024:.2f} GiB memory in use"
    owns = other is not None and total is not None and other["in_use_mib"] > total / 2
    return {
        "request": request,
        "requested_mib": requested_mib,
        "held_gib": held,
        "pytorch_gib": pytorch,
        "outside_gib": outside,
        "other_text": other_text,
        "other_pid": None if other is None else other.get("pid"),
        "other_owns_card": owns,
    }


# a Ray task's error names its cause: "ray.exceptions.RayTaskError(OutOfMemoryError): ray::main_task() ..."
_EXC_HEAD = re.compile(r"((?:[A-Za-z_]\w*\.)*\w*(?:Error|Exception|Interrupt|Failure)(?:\([A-Za-z_]\w*\))?)\s*:\s*")
# SGLang's wrappers around the real message (sglang 0.5.x *cuda_graph_runner.py: f"Capture cuda graph failed: {e}\n...")
_WRAPPERS = ("Capture cuda graph failed:",)
QUOTE_MAX = 220


def exception_quote(event: Event) -> str | None:
    """The innermost exception's class and message as the paste prints it, cut at a sentence end near QUOTE_MAX
    characters: what every verdict quotes instead of a bare class name."""
    text = str(event.data.get("full_text") or event.text)
    m = _EXC_HEAD.search(text)
    if m is None:
        return None
    name, message = m.group(1).rsplit(".", 1)[-1], text[m.end() :].strip()
    for wrapper in _WRAPPERS:
        if message.startswith(wrapper):
            message = message[len(wrapper) :].strip()
    inner = _EXC_HEAD.match(message)  # "RuntimeError: OSError: [Errno 12] ..." names the inner one
    if inner is not None:
        name, message = inner.group(1).rsplit(".", 1)[-1], message[inner.end() :].strip()
    if not message:
        return f"{name} (the paste shows no message)"
    return f"{name}: {_cut(message)}"


def _cut(message: str) -> str:
    """At a sentence end before QUOTE_MAX characters (else at QUOTE_MAX, marked), without the final period (the
    verdict's sentence ends it)."""
    if len(message) > QUOTE_MAX:
        end = message.rfind(". ", 0, QUOTE_MAX)
        message = message[: end + 1] if end > QUOTE_MAX // 2 else message[:QUOTE_MAX].rstrip() + " ..."
    return message.rstrip(".") if not message.endswith("...") else message


SHORT_CAPTURE = 40  # a captured error this short ("invalid argument") is quoted with the place the message names


def _error_of(failure: Failure, event_fact: dict[str, Any]) -> str | None:
    """The error a verdict names: the signature's capture, else the exception's message, the frame or the line's
    own words; a short capture is replaced by the whole message it sits in ("Failed: CUDA error
    .../deep_ep.cpp:230 'invalid argument'", not "invalid argument")."""
    error = (
        event_fact.get("error")
        or failure.values.get("error")
        or (failure.said.rstrip(".") if failure.said and failure.evidence == "line" else None)
        or event_fact.get("message")
        or (f"{failure.matched} (a native frame)" if failure.evidence == "native_frame" and failure.matched else None)
        or failure.said
        or (None if failure.event.kind == kinds.TRACEBACK else event_fact.get("text"))
    )
    if error is None:
        return None
    error = str(error)
    quote = exception_quote(failure.event)
    if len(error) < SHORT_CAPTURE and quote and error in quote and len(quote) > len(error) + 8:
        return quote.split(": ", 1)[1] if ": " in quote else quote
    return _cut(error) if len(error) > 2 * QUOTE_MAX else error


def native_error(failure: Failure, event_fact: dict[str, Any]) -> str | None:
    """What a native crash or a library's error line says, with the library named: the signal and the innermost
    frame where it hit ("Segmentation fault in SaveProxy() .../src/proxy.cc:518 (NCCL)"), or the error line with
    the library its source file belongs to."""
    named = f"{failure.library} through {failure.library_via}" if failure.library_via else failure.library
    library = f" ({named})" if named else ""
    if named and failure.library_frame:
        library = f" ({named}: {failure.library_frame})"
    if failure.native_frame:
        signal = failure.signal or (event_fact.get("error") if failure.event.kind == kinds.FATAL_ERROR else None)
        if signal:
            return f"{signal} in {failure.native_frame}{library}"
        return f"{failure.native_frame} (a native frame{' of ' + failure.library if failure.library else ''})"
    if failure.library and failure.said and not failure.library_basis:  # else the verdict's raised_by names it
        return f"{_cut(failure.said)}{library}"
    source = failure.event.data.get("source") if failure.event.kind == kinds.NATIVE_LOG else None
    if named and source and event_fact.get("message"):  # a glog error line of the library's own source file
        return f"{_cut(str(event_fact['message']).strip())} ({named}: {source})"
    return None


def _raised_by(failure: Failure) -> str | None:
    """The sentence that names the library whose code raised it, when only library.py's attribution names it."""
    # a cut traceback: the message names its innermost frame shown already, and what raised it is not shown
    if not failure.library_basis or failure.library_basis == CUT_TRACEBACK_BASIS:
        return None
    frame = f": {failure.library_frame.split(': ', 1)[0]}" if failure.library_frame else ""  # without its source line
    return f"It was raised in {failure.library} ({failure.library_basis}{frame})"


def failure_fact(failure: Failure, event_fact: dict[str, Any], root: Failure | None) -> dict[str, Any]:
    fact = dict(event_fact)
    fact.update(
        finding=failure.finding,
        mechanism=failure.mechanism,
        signature=failure.signature,
        evidence_kind=failure.evidence,
        phase=failure.phase,
        phase_basis=failure.phase_basis,
        phase_text=failure.phase_text,
        values=failure.values,
        quoted=failure.quoted,
        after_ready=failure.after_ready,
        went_on=failure.went_on,
        cause=failure.cause,
        quote=exception_quote(failure.event),
        said=_cut(failure.said) if failure.said else None,
        is_root=failure is root,
        rank_text=event_fact.get("rank") or "an untagged line",
        error=_error_of(failure, event_fact),
        library=failure.library,
        # named only by the innermost frame shown of a traceback cut above its exception line (its raiser not shown)
        library_from_cut=failure.library_basis == CUT_TRACEBACK_BASIS,
        signal=failure.signal,
        native_error=native_error(failure, event_fact),
        # the library whose code raised it, when only the attribution of library.py names it
        raised_by=_raised_by(failure),
    )
    if fact["native_error"]:
        fact["error"] = fact["native_error"]
    if failure.finding in ("startup-oom", "capture-oom", "runtime-oom", "oom-time-unknown"):
        fact.update(oom_numbers(event_fact, failure.values))
    fact["follows"] = ""  # the sentence a later failure of another mechanism ends with
    if root is not None and failure is not root and root.mechanism != failure.mechanism:
        where = root.event.rank.label if root.event.rank else "an untagged line"
        fact["follows"] = f" It follows an earlier {root.finding} on {where}."
    fact["text"] = failure.event.data.get("full_text") or failure.event.text  # cut later, around the focus
    # another process named in an OOM text is what its evidence must show first
    fact["focus"] = [*(f"Process {p.get('pid')} has" for p in event_fact.get("processes") or []), *failure.focus]
    if failure.quoted:
        fact["text"] = f"(quoted in prose) {fact['text']}"
    if failure.event.data.get("unwrapped"):
        fact["text"] = f"(from {failure.event.data['unwrapped']}) {fact['text']}"
    return fact


def root_of(failures: list[Failure]) -> Failure | None:
    """The first failure in time that can stop a launch (startup only), preferring one with a mechanism; a failure the
    program went on from before its process tree was ended is not it when another is shown."""
    startup = [f for f in failures if f.cause and not f.after_ready]
    startup = [f for f in startup if not f.went_on] or startup
    named = [f for f in startup if f.mechanism is not None and f.finding not in ("startup-crash", "failure-time-unknown")]
    found = named or startup
    return found[0] if found else None


def user_stop(launch: Launch, samples: dict[str, SamplesFile]) -> UserStop | None:
    """The user's signal that `logscope run` forwarded to this launch (its samples file's `stop` record), when it
    came while this launch's log ran: what the launch printed after it is its shutdown, not a crash."""
    for source in launch.sources:
        stop = samples[source].user_stop() if source in samples else None
        if stop is not None and stop.line is not None and _runs_at(launch, source, stop.line):
            return UserStop(stop.signal or "SIGINT", stop.t, source, stop.line)
    return None


def _runs_at(launch: Launch, source: str, line: int) -> bool:
    lines = [e.line for e in launch.all_events() if e.source == source]
    lines += [p.line for t in launch.ranks.values() for p in t.phases if p.source == source]
    return bool(lines) and min(lines) <= line + 1


def after_user_stop(failures: list[Failure], stop: UserStop | None) -> tuple[list[Failure], list[Failure]]:
    """(the failures before the user's stop, those printed after it: the launch shutting down as asked)."""
    if stop is None:
        return failures, []
    after = [f for f in failures if f.event.source == stop.source and f.event.line > stop.line]
    return [f for f in failures if f not in after], after
