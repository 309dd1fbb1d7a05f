"""Events → failures: which signature each piece of evidence matches, the mechanism and finding it
implies, and the phase it interrupted (from evidence only: a signature or frame that locates it, else the
rank's last phase line before it, else `unknown`).

Evidence of one event is tried from the most to the least direct: the exception (class and message),
the whole line, native frames (innermost first), Python frames (innermost first). Among signatures that
match the same piece, the one with the most literal text wins (the most specific wording).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from logscope.core import engine_stages, kinds, native_stages, phases, stage_functions
from logscope.core.events import Event
from logscope.core.held_literals import HeldLiterals
from logscope.core.model import Failure
from logscope.core.python_libraries import SGLANG, is_stdlib_frame, module_library
from logscope.core.signals import signal_name
from logscope.core.stage_functions import Releases
from logscope.core.text_memo import OwnedMemo
from logscope.pipeline.ingest.unwrap import API_ERROR
from logscope.pipeline.parse.parsers.prose_guards import NAMED_IN_SENTENCE
from logscope.pipeline.parse.parsers.stated_failure import DEVICE_MEMORY, HOST_MEMORY, stated_memory
from logscope.pipeline.parse.parsers.time_claims import LAUNCHER_FAILED, at_startup, client_step, firm_sentence
from logscope.pipeline.parse.serving import (
    ASGI_EXCEPTION,
    BEFORE_WARMUP,
    VLLM_READY,
    WARMUP_BATCH,
    WARMUP_REQUEST,
    marked_may_precede_ready,
)
from logscope.pipeline.parse.signatures.client_errors import (
    client_program_failure,
    placed_by_client,
    refused_by_server,
)
from logscope.pipeline.parse.signatures.jit_builds import JitBuilds
from logscope.pipeline.parse.signatures.library import (
    CUT_TRACEBACK_BASIS,
    Raiser,
    message_names_library,
    op_library,
    raising_library,
)
from logscope.pipeline.parse.signatures.lines_before import PROSE_KINDS, LinesBefore, from_other_ranks
from logscope.pipeline.parse.signatures.loader import (
    EARLIER_FAILURE,
    NEXT_LINE,
    OTHER_FAILURE,
    Signature,
    SignatureSet,
    bundled_signatures,
)
from logscope.pipeline.parse.signatures.native import (
    NativeCrash,
    is_glog_error,
    is_glog_fatal,
    is_library_error,
    merge_native,
    native_crash,
    signal_of,
)
from logscope.pipeline.parse.signatures.stated_library import stated_raiser
from logscope.pipeline.parse.signatures.warmup import warmup_batches

# event kinds that are a crash even when no signature names their mechanism
CRASH_KINDS = frozenset(
    {
        kinds.EXCEPTION,
        kinds.TRACEBACK,
        kinds.FATAL_ERROR,
        kinds.SCHEDULER_DIED,
        kinds.CUDA_ERROR,
        kinds.OOM,
        kinds.NOT_ENOUGH_MEMORY,
        kinds.FAILURE_LINE,
        kinds.NATIVE_BACKTRACE,
        # SGLang's "<Component> hit an exception:" header whose traceback was not read: the process logs it, then dies
        kinds.PROCESS_EXCEPTION,
        # a sentence that states the run failed (parsers/stated_failure.py): kept only when nothing else shows a failure
        kinds.STATED_FAILURE,
        # a log record at a failing level that no signature reads: kept only when nothing else in its input shows one
        kinds.LOGGED_FAILURE,
    }
)
# event kinds that carry no failure evidence (phase lines, config, dumps)
# (phase lines, config, dumps; phase lines are those of the phase table)
_NOT_EVIDENCE = frozenset(
    {
        kinds.SERVER_ARGS,
        kinds.LAUNCH_COMMAND,
        kinds.ENV_EXPORT,
        kinds.CHECK_ENV,
        kinds.SMI_GPU,
        kinds.SMI_PROCESS,
        kinds.SMI_VERSIONS,
        kinds.SMI_MIG,
        kinds.TOPOLOGY,
        kinds.FRAME,
        kinds.NCCL_INFO,
        kinds.AR_CONFIG,
        kinds.AR_REGISTERING,
        kinds.SYMM_PREALLOC,
        kinds.SYMM_DEFAULT,
        kinds.STAGING_BUFFER,
        kinds.STAGING_ALLOCATOR,
        kinds.NCCL_VERSION,
        kinds.STATED_ENV,
    }
)
_EXC_HEAD = re.compile(r"((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Interrupt|Failure))\s*:\s*")


def _exception_of(event: Event) -> tuple[str | None, str | None]:
    name = event.data.get("exception")
    text = event.data.get("full_text") or event.text
    m = _EXC_HEAD.search(text)
    if name is None and m is None:
        return None, None
    if m is not None and (name is None or m.group(1).endswith(str(name).rsplit(".", 1)[-1])):
        return name or m.group(1), text[m.end() :]
    return name, event.data.get("message") or text


def _evidence(event: Event) -> list[tuple[str, str, str | None]]:
    """(kind, text, exception class) in the order the evidence is trusted: a native crash's signal first (what
    crashed, whichever handler printed it; a mechanism its frames name still wins over it)."""
    out: list[tuple[str, str, str | None]] = []
    crashed = signal_name(signal_of(event)) if event.data.get("native_frames") else None
    if crashed is not None:
        out.append(("signal", f"fatal signal {crashed}", None))
    name, message = _exception_of(event)
    if message is not None:
        out.append(("exception", message, name))
    out.append(("line", event.data.get("full_text") or event.text, None))
    out += [(kind, frame, None) for kind, frame in _frames(event)]
    raiser = _raising_frame(event, name, message)
    if raiser is not None:
        out.append(("innermost_frame", raiser, None))
    return out


def _raising_frame(event: Event, name: str | None, message: str | None) -> str | None:
    """The innermost Python frame when it raised the exception the paste shows: the exception line is there (not
    a traceback cut before it), no native frame lies under it, and it is no CUDA error (CUDA's, whoever called)."""
    frames = event.data.get("frame_paths") or event.data.get("frames") or []
    if not frames or name is None or event.data.get("native_frames") or event.data.get("frames_cut"):
        return None
    if event.kind == kinds.CUDA_ERROR:
        return None
    if "CUDA error" in (message or "") or "CUDA error" in str(event.data.get("full_text") or event.text):
        return None
    # the standard library's frames are the tools the code above them called (importlib, subprocess): that code raised
    raiser = next((str(f) for f in reversed(frames) if not is_stdlib_frame(str(f))), str(frames[-1]))
    return None if op_library(raiser) is not None else raiser  # it called a library's op, which raised inside it


def _frames(event: Event) -> list[tuple[str, str]]:
    """Native frames, then Python frames, each innermost first."""
    frames = [("native_frame", f) for f in event.data.get("native_frames", [])]
    if event.kind == kinds.NATIVE_LOG and event.data.get("source"):  # a glog error line's source file, as released
        frames.append(("native_frame", str(event.data["source"])))
    return frames + [("frame", f) for f in reversed(event.data.get("frame_paths") or event.data.get("frames", []))]


def _best(candidates: tuple[Signature, ...], text: str, exception: str | None) -> tuple[Signature, dict[str, Any]] | None:
    """The matching signature with the most literal text; a mechanism's signature before any generic crash signature,
    and those in their file's order (the more specific first), whatever their literals' length."""
    best: tuple[tuple[int, int], Signature, dict[str, Any]] | None = None
    lowered: str | None = None
    for sig in candidates:
        if sig.on == "exception" and not sig.matches_exception(exception):
            continue
        haystack = text
        if sig.pattern.nocase:
            lowered = haystack = text.lower() if lowered is None else lowered
        if sig.pattern.required not in haystack:
            continue  # (what sig.match would say, without its calls)
        values = sig.match(text)
        if values is None:
            continue
        generic = sig.mechanism in FALLBACK_MECHANISMS
        weight = (0, 0) if generic else (1, sum(len(lit) for lit in sig.pattern.literals()))
        if best is None or weight > best[0]:
            best = (weight, sig, values)
    return (best[1], best[2]) if best else None


def attribute(event: Event, signatures: SignatureSet) -> tuple[Signature, dict[str, Any], str, str] | None:
    """The signature that names this event's mechanism (finding signatures only), the evidence kind, and the
    evidence text it matched (a frame, when a frame named it)."""
    fallback = None
    # a warning's line (classify._failure_line), or a wording the released code logs at warning level (a catalogued
    # line): no quiet_in_warnings signature reads it
    warned = bool(event.data.get("warning")) or event.data.get("level") == "warning"
    for kind, text, exception in _evidence(event):
        found = _best_of(signatures, kind, text, exception, warned)
        if found and found[0].mechanism in FALLBACK_MECHANISMS:
            fallback = fallback or (found[0], dict(found[1]), kind, text)  # a mechanism in later evidence wins
        elif found:
            return found[0], dict(found[1]), kind, text
    return fallback


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
# what a finding read from a sentence says of itself: a wording quoted in prose is weaker evidence than a log line
PROSE_NOTE = "read from a wording quoted in prose, not from a log line: lower confidence"
# what a time taken from the paste's prose or a client's command says of itself
CLAIM_NOTE = "not a log line: lower confidence"
# what a failure stated in a sentence of the paste, and no log line, says of itself
STATED_NOTE = "stated in the issue's own words, not a log line: lower confidence"
LAUNCHER_NOTE = "a launcher's log line, not SGLang's: lower confidence"
LAUNCHER = re.compile(LAUNCHER_FAILED)

# the generic crash signatures (a faulthandler line, a dead scheduler): any named mechanism in the same event's
# other evidence (its native or Python frames) wins over them
FALLBACK_MECHANISMS = frozenset({"process"})
# kernel_library.yaml's checks: the macro several kernel libraries copy (CUTLASS_CHECK's "Got cutlass error: ... at:
# <line>"), which names the library only by a source file it may not print
KERNEL_CHECK_MECHANISM = "kernel_library"


_ADDRESS = re.compile(r"\s*\[0x[0-9a-fA-F]+\]|\(\+0x[0-9a-fA-F]+\)|\+0x[0-9a-fA-F]+")
_PATH = re.compile(r"(?:/[^/\s()]+)+/([^/\s()]+/[^/\s()]+)")


def frame_quote(frame: str) -> str:
    """A frame as a verdict quotes it: without addresses, each path cut to its last two parts (the library or
    source file and line stay: 'libnccl.so.2 SaveProxy() .../src/proxy.cc:518')."""
    text = _ADDRESS.sub("", frame)
    return " ".join(_PATH.sub(r".../\1", text).split())[:200]


_best_memo: OwnedMemo[tuple[Signature, dict[str, Any]] | None] = OwnedMemo()


# per candidate tuple (kept, so its id is not reused), the index of its patterns' required literals: cased patterns'
# in the first, nocase patterns' (against the lowered text) in the second, the others' slot an impossible literal
_REQUIRED: dict[int, tuple[tuple[Signature, ...], HeldLiterals, HeldLiterals | None]] = {}
_NEVER = "\0" * 8


def _holding(candidates: tuple[Signature, ...], text: str) -> tuple[Signature, ...]:
    """The candidates (in their order) whose required literal the text holds: those _best could match (its loop
    tested each of some hundred signatures a line, review15a item 7)."""
    entry = _REQUIRED.get(id(candidates))
    if entry is None or entry[0] is not candidates:
        cased = HeldLiterals([_NEVER if s.pattern.nocase else s.pattern.required for s in candidates])
        folded = [s.pattern.required if s.pattern.nocase else _NEVER for s in candidates]
        entry = (candidates, cased, HeldLiterals(folded) if any(s.pattern.nocase for s in candidates) else None)
        _REQUIRED[id(candidates)] = entry
    held = set(entry[1].held(text))
    if entry[2] is not None:
        held.update(entry[2].held(text.lower()))
    return tuple(candidates[at] for at in sorted(held))


def _best_of(
    signatures: SignatureSet, kind: str, text: str, exception: str | None, warned: bool = False
) -> tuple[Signature, dict[str, Any]] | None:
    """_best over the set's finding signatures of this kind, once per distinct evidence (OwnedMemo)."""

    def best() -> tuple[Signature, dict[str, Any]] | None:
        candidates = _holding(signatures.naming(kind), text)
        if warned:
            candidates = tuple(sig for sig in candidates if not sig.quiet_in_warnings)
        return _best(candidates, text, exception)

    return _best_memo.answer(signatures, (kind, text, exception, warned), best)


def locate(
    event: Event, signatures: SignatureSet, matched: Signature | None, releases: Releases = None
) -> tuple[str, str] | None:
    """(phase, basis) from the event's own evidence: the matched signature, SGLang's capture wrapper, frames (the
    released source of `releases`, the SGLang releases the input shows, when given)."""
    if matched is not None and matched.phase == "serving" and ASGI_EXCEPTION in event.text:
        return "serving", (
            f"uvicorn's '{ASGI_EXCEPTION}', logged only while it answers an HTTP request whose handler raised: the HTTP"
            f" server SGLang starts once every scheduler finished startup was serving: {matched.id}"
        )
    if matched is not None and matched.phase == "serving":
        return "serving", f"SGLang prints this only while its scheduler runs batches, a warmup request's too: {matched.id}"
    if matched is not None and matched.phase in _VAGUE:
        return _refined((matched.phase, f"the {matched.id} signature"), event, releases)
    if matched is not None and matched.phase:
        return matched.phase, f"the {matched.id} signature"
    if event.data.get("context") == "capture_failed" or event.data.get("body_kind") == "capture_failed":
        return "capture", "Capture cuda graph failed"
    found = locating_frame(event, signatures)
    if found is not None:
        sig, text = found
        located = str(sig.phase), f"frame {text.split(': ', 1)[0].rsplit('/', 1)[-1]}"  # without the call it makes
        return _refined(located, event, releases) if sig.phase in _VAGUE else located
    by_catalogue = _placed_by_catalogue(event, releases)
    if by_catalogue is not None:
        return by_catalogue
    # a traceback's header, or the header line read alone (its traceback cut away or not read)
    header = str(event.data.get("header") or (event.text if event.kind == kinds.PROCESS_EXCEPTION else ""))
    for wrapper, why in _SERVING_HEADERS.items():
        if wrapper in header:
            return "serving", f"the header '{wrapper}': {why}"
    return None


# the startup steps a phase line can place a failure in (not warmup: after startup's last step requests may have begun)
_STEPS = frozenset({"init_distributed", "load_weight", "memory_pool", "capture"})
# a locator's stage that leaves the step (startup) or the time (disaggregation: PD set-up or a request's transfer) open
_VAGUE = frozenset({"startup", "disaggregation"})


def _refined(located: tuple[str, str], event: Event, releases: Releases) -> tuple[str, str]:
    """A vague locator's stage made precise by the released source: a startup step for `startup`, the time for
    `disaggregation`; never turned from startup to serving (the locator read the frame that says startup)."""
    by_source = _placed_by_catalogue(event, releases)
    if by_source is None or by_source[0] == located[0] or (located[0] == "startup" and by_source[0] in _VAGUE | {"serving"}):
        return located
    return by_source[0], f"{located[1]}; {by_source[1]}"


# an exception line read without its traceback (`AssertionError: Committed KV cache already freed (...)`)
_EXCEPTION_LINE = re.compile(r"\b[A-Z]\w*(?:Error|Exception): ")


def _placed_by_catalogue(event: Event, releases: Releases) -> tuple[str, str] | None:
    """(stage, basis) from the released source (catalog/stages.json): the traceback's SGLang frames when every placed
    frame runs only at startup or only while serving, else the message when only such code prints it."""
    frames = event.data.get("frame_paths") or event.data.get("frames") or []
    cut = event.kind == kinds.TRACEBACK and bool(event.data.get("incomplete"))
    found = stage_functions.place_stack([str(f) for f in frames], releases, cut) if frames else None
    if found is not None:
        placement, frame = found
        return placement.phase or placement.stage, placement.basis(f"frame {frame.split(': ', 1)[0].rsplit('/', 1)[-1]}")
    # vLLM's engine (run by Dynamo, verl, LMCache ...), in a stack with no SGLang frame: its own functions place it
    if frames and not any(stage_functions.module_of(str(f).split(":", 1)[0]) for f in frames):
        by_engine = engine_stages.place_stack([str(f) for f in frames])
        if by_engine is not None:
            engine, frame = by_engine
            return engine.phase or engine.stage, engine.basis(frame.split(": ", 1)[0].rsplit("/", 1)[-1])
    said = stage_functions.place_wording(str(event.data.get("full_text") or event.text), releases)
    if said is not None and said[0].stage == "serving" and not frames and _EXCEPTION_LINE.search(str(event.text)):
        # the scheduler's batches run the server's warmup request first (startup: sglang 0.4-0.5 http_server
        # _wait_and_warmup sends one request once the scheduler is ready), and an exception of the request path ends
        # the scheduler at the first request that reaches it, the warmup's included: the exception line alone, with
        # no frames, does not say that the server had started serving. Every serving wording is left unplaced so, an
        # admin request's too (a weight update, a LoRA load): the table keeps one root of each run, not all the roots
        # that reach it, so it cannot tell a wording off the warmup's path (review16b item 8)
        return None
    if said is not None:
        placement, literal = said
        return placement.phase or placement.stage, placement.basis(f"the code that prints '{literal}'")
    return None


# the weight updates a running server takes (sglang 0.4.1.post7-0.5.23 Engine / http_server / Scheduler / TpModelWorker /
# ModelRunner update_weights_from_disk, _from_tensor, _from_distributed, _from_ipc; load_lora_adapter 0.4.9.post6 on):
# they call the model's load_weights, or the loader's load_weights_and_postprocess, as its loading does
_WEIGHT_UPDATE = re.compile(r"[ .](?:update_weights_from_\w+|load_lora_adapter\w*)\b")


_locator_memo: OwnedMemo[Signature | None] = OwnedMemo()


def _phase_locator(signatures: SignatureSet, kind: str, text: str) -> Signature | None:
    """The set's first phase-locating signature of this kind that matches the frame, once per distinct frame
    (OwnedMemo: a crash loop repeats its stack)."""
    return _locator_memo.answer(
        signatures,
        (kind, text),
        lambda: next((s for s in signatures.on(kind) if s.phase and s.pattern.match(text) is not None), None),
    )


def locating_frame(event: Event, signatures: SignatureSet) -> tuple[Signature, str] | None:
    """The first frame (innermost first) that a phase-locating signature matches, and that signature. A startup
    frame anywhere in the stack wins over a serving one (a model's forward called from graph capture is capture),
    except a disaggregation frame under a serving one: the PD event loops call disaggregation code per batch."""
    if stage_functions.run_by_hand([str(f) for f in event.data.get("frame_paths") or event.data.get("frames") or []]):
        return None  # a `python -c` command's or stdin's code: an import check or snippet, no server's step
    serving: tuple[Signature, str] | None = None
    disaggregation: tuple[Signature, str] | None = None
    frames = list(_frames(event))
    for at, (kind, text) in enumerate(frames):
        sig = _phase_locator(signatures, kind, text)
        if sig is None:
            continue
        if sig.phase == "load_weight" and any(_WEIGHT_UPDATE.search(outer) for _, outer in frames[at + 1 :]):
            # the model's load_weights called by a weight update (an RL trainer's, a LoRA adapter's load): no startup
            # step; the released source places the stack (catalog/stages.json), or nothing does
            return None
        if sig.phase == "serving":
            if disaggregation is not None:  # PD code a serving loop runs (event_loop_*_disagg_decode) is serving
                return sig, text
            serving = serving or (sig, text)
        elif sig.phase == "disaggregation":  # the disaggregation folder holds PD set-up and the PD event loops' steps
            disaggregation = disaggregation or (sig, text)
        elif _callers_line(text) and (serving is not None or _CHAINED_CALL.search(text.split(": ", 1)[-1])):
            # a caller's own line (sgl.Engine(...)) never outranks SGLang's serving frame under it, and a line that
            # calls a method on what it built (sgl.Engine(...).generate(...)) is that call as much as the
            # constructor: no startup locator (review15b item 12)
            continue
        else:  # the first locator a frame holds locates it (replay before its runner's file)
            return disaggregation or (sig, text)
    return disaggregation or serving


# a method called on what the line's call returned: `X(...).generate(...)`
_CHAINED_CALL = re.compile(r"\)\s*\.\s*[A-Za-z_]\w*\s*\(")


def _callers_line(frame: str) -> bool:
    """The frame is the caller's code, outside SGLang's package (its path names no sglang/ folder)."""
    return "sglang/" not in frame.split(":", 1)[0]


# wrappers whose code runs only while serving: the overlap worker's thread only runs batches the scheduler hands it
# (sglang 0.5.2 tp_worker_overlap_thread.py); the tokenizer manager's print_exception_wrapper wraps only the tasks
# auto_create_handle_loop creates (handle_loop, sigterm_watchdog, watch_load_thread), which only request handlers call
# (generate_request, the weight updates, sessions, profiling; sglang 0.4.1.post7-0.5.23 managers/tokenizer_manager.py):
# the first request, the warmup's included, starts them
_SERVING_HEADERS = {
    "TpModelWorkerClient hit an exception": "its thread runs the scheduler's batches",
    "TokenizerManager hit an exception": "it wraps only the loops the tokenizer manager starts on its first request",
}


def is_candidate(event: Event) -> bool:
    return event.kind not in _NOT_EVIDENCE and not phases.is_phase(event.kind)


# a startup finding and the finding the same failure gives while serving, or when its time is not shown
# the finding and mechanism of a sentence that says which memory ran out (stated_failure.stated_memory)
_STATED_MEMORY = {DEVICE_MEMORY: ("startup-oom", "memory"), HOST_MEMORY: ("host-oom", "host_memory")}
RUNTIME_FINDING = {"startup-crash": "runtime-crash", "startup-oom": "runtime-oom"}
TIME_UNKNOWN_FINDING = {"startup-crash": "failure-time-unknown", "startup-oom": "oom-time-unknown"}
_COMPLETION_ID = re.compile(r"\bcmpl-[0-9a-f]{8}")
_BENCH_MARK = re.compile(r"Starting main benchmark run|Serving Benchmark Result")


def _serving_basis(marker: Event) -> str:
    if marker.kind == kinds.SERVER_READY:
        return f"after the ready line at line {marker.line}"
    if marker.data.get("past_warmup") and "Prefill batch" in marker.text:
        return (
            f"after line {marker.line}, a prefill batch of more than SGLang's warmup request sends (one sequence, nothing"
            " cached, running or queued)"
        )
    if WARMUP_BATCH.search(marker.text):
        return f"after line {marker.line} showed the scheduler running a batch (SGLang's warmup request is one too)"
    if ASGI_EXCEPTION in marker.text:
        return (
            f"after line {marker.line}, uvicorn's '{ASGI_EXCEPTION}': an HTTP request's handler raised, so"
            " the HTTP server SGLang starts once every scheduler finished startup was answering requests"
        )
    if VLLM_READY.search(marker.text):
        return (
            f"after line {marker.line}, vLLM's API server up: it starts uvicorn once its engine is built, and sends no"
            " warmup request"
        )
    if BEFORE_WARMUP.search(marker.text):
        return (
            f"after line {marker.line}, uvicorn up: SGLang starts its HTTP server once every scheduler finished startup"
            " (its warmup request comes next)"
        )
    if WARMUP_REQUEST.search(marker.text) or _COMPLETION_ID.search(marker.text):
        warmup = " (SGLang's warmup request of a VLM is one too)" if WARMUP_REQUEST.search(marker.text) else ""
        return f"after line {marker.line} named an OpenAI-compatible request by its id: a request had reached the server{warmup}"
    if _BENCH_MARK.search(marker.text):
        return f"after line {marker.line}, SGLang's benchmark client's output: the server had answered its requests"
    return f"after line {marker.line} showed it serving"


# the basis of a placement by the rank's last phase line alone (no frame, signature or serving line): the step after that
# line, read as if the log ran on without a gap from it to the failure
AFTER_LAST_PHASE = "after the rank's last phase line, "


# a full date and time at a line's start or in its prefix ("[2025-06-01 09:59:05 TP0] Decode batch", "2025-06-01T09:59:05")
_FULL_STAMP = re.compile(r"\b(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)\b")
_EVENT_STAMP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$")


def _stamp_of(marker: Event) -> str | None:
    if marker.time is not None and _EVENT_STAMP.match(marker.time):
        return marker.time
    found = _FULL_STAMP.search(marker.text[:80])
    return f"{found.group(1)} {found.group(2)}" if found else None


def relaunch_stamps(events: Iterable[Event]) -> dict[str, list[str]]:
    """The full date-and-time stamps of the server_args dumps (each a launch's first line) among `events`, per source."""
    stamps: dict[str, list[str]] = {}
    for e in events:
        stamp = _stamp_of(e) if e.kind == kinds.SERVER_ARGS else None
        if stamp is not None:
            stamps.setdefault(e.source, []).append(stamp)
    return stamps


def _stamped_before(marker: Event, event: Event, relaunches: list[str]) -> bool:
    """A serving line pasted after the failure was printed before it: both carry a full date and time, the serving
    line's the earlier (a paste that shows the error first, then the log that led to it), and no launch of its input
    (`relaunches`: the stamps of its server_args dumps) is stamped between them: after a relaunch the failure may be
    the new launch's startup (review12a item 12)."""
    stamp = _stamp_of(marker)
    if stamp is None or event.time is None or _EVENT_STAMP.match(event.time) is None or not stamp < event.time:
        return False
    return not any(stamp < at <= event.time for at in relaunches)


def _after_launch(event: Event, located: tuple[str, str], launches: dict[str, list[int]]) -> tuple[str, str] | None:
    """Startup when the launch's server_args dump (the first line SGLang logs) came before the failure and no phase line
    or serving line did: the server had begun its start and nothing shows it past any step."""
    if not located[1].startswith(_NO_PHASE):
        return None
    before = [line for line in launches.get(event.source, ()) if line < event.line]
    if not before:
        return None
    return "startup", f"after line {before[-1]}, the launch's server_args dump, with no phase line or serving line since"


_NO_PHASE = "no phase line of this rank before it"


def _right_after_command(event: Event, commands: dict[str, list[int]]) -> tuple[str, str] | None:
    """Startup when a traceback opens on the line right after a launch command's last line: the program the command
    started raised before it printed any line of its own (SGLang logs its server_args, then its startup steps, before
    it can serve), as a terminal shows it."""
    # (a record quoted in a sentence, "Error message: `RuntimeError: ...`", is what the user saw, no terminal's next
    # line: it says nothing of what the program printed before it, review16a item 11)
    if event.kind not in (kinds.TRACEBACK, kinds.EXCEPTION) or event.data.get("quoted"):
        return None
    opened = int(event.data.get("opened_at") or event.line)
    if opened - 1 not in commands.get(event.source, ()):
        return None
    return "startup", (
        f"the traceback opens right after the launch command (its last line {opened - 1}): the program raised before it"
        " printed any line of its own"
    )


def _stated_beside_serving(event: Event, marker: Event | None) -> tuple[str, str] | None:
    """A failure stated only in prose, beside a log that shows the server serving wherever the log stands ("The
    server crashes with a segmentation fault." over the decode batches that led to it): the log is its lead-up, no
    line of it places the failure before or after. Only when no sentence of the paste said another time (the
    claims come first). A line the warmup prints too shows no requests served."""
    if event.kind != kinds.STATED_FAILURE or marker is None or marker.line <= event.line:
        return None
    if marked_may_precede_ready(marker):  # a prefill batch or uvicorn's start: the warmup's, perhaps, and no more
        return None
    return "serving", f"{_serving_basis(marker)}; the failure is stated in prose, the log beside it shows the server serving"


def _no_more_than_warmup(event: Event, marker: Event | None, past_warmup: Event | None, relaunches: list[str] | None) -> bool:
    """No line before the failure shows more than SGLang's warmup request would: no serving line at all (_time_of's
    test of the marker), or only lines the warmup prints too (uvicorn's start, its prefill batch, its POST) with no line
    past the warmup (`past_warmup`: the ready line, a served request) before the failure."""
    if marker is None or event is marker:
        return True
    if not (event.line >= marker.line or _stamped_before(marker, event, relaunches or [])):
        return True
    return marked_may_precede_ready(marker) and not (past_warmup is not None and past_warmup.line <= event.line)


def _time_of(
    event: Event,
    sigs: SignatureSet,
    sig: Signature | None,
    marker: Event | None,
    last_phase_of: Any,
    releases: Releases,
    past_warmup: Event | None = None,
    relaunches: list[str] | None = None,
) -> tuple[str, str]:
    """(stage, basis) from evidence only: the ready line or a serving line before it, the signature or a frame
    that locates it, a wrapper header, the rank's last phase line; else `unknown` with the reason. `relaunches`: the
    stamps of the input's server_args dumps (a launch stamped between a serving line and the failure parts them)."""
    stamped = marker is not None and event.line < marker.line and _stamped_before(marker, event, relaunches or [])
    after_ready = marker is not None and event is not marker and (event.line >= marker.line or stamped)
    located = locate(event, sigs, sig, releases)
    # a warmup failure SGLang names itself stays warmup when only a batch line (the warmup's own) was before it
    # (before SGLang's own warmup request can have run: a batch line, the warmup's is one, or uvicorn's start)
    warmup_named = located is not None and located[0] == "warmup" and marked_may_precede_ready(marker)
    if after_ready and marker is not None and not warmup_named:
        past = past_warmup is not None and past_warmup.line <= event.line and marked_may_precede_ready(marker)
        basis = _serving_basis(past_warmup if past and past_warmup is not None else marker)
        if stamped:
            basis += f" (pasted after the failure, but stamped {_stamp_of(marker)}, before the failure's {event.time})"
        return "serving", basis
    if located is not None and located[0] == "startup":  # the frame says startup, the rank's last phase line the step
        last = last_phase_of(event)
        stage = phases.stage_after(last) if last else None
        if stage in _STEPS:
            return str(stage), f"{located[1]}, after the rank's last phase line, {last}"
    if located is not None:
        return located
    if event.data.get("unwrapped") == API_ERROR:
        return "serving", 'inside an API error response ({"object":"error", ...}): the server answered a request with it'
    last = last_phase_of(event)
    if not last:
        return "unknown", "no phase line of this rank before it, and no frame, header, batch line or ready line that places it"
    stage = phases.stage_after(last)
    if stage == "warmup":  # startup's last step was done: warming up or already serving, the paste does not say
        return "unknown", f"after the rank's last phase line, {last} (startup's end); nothing shows whether requests had begun"
    return stage, f"{AFTER_LAST_PHASE}{last}"


_CHAIN_GAP = 3  # the exception line, a blank line, "During handling of the above exception ...": at most this apart


def _from_chained(
    event: Event, chained: dict[tuple[str, int], Event], sigs: SignatureSet, releases: Releases
) -> tuple[str, str] | None:
    """The location of the traceback CPython chained to this exception ("During handling of the above exception"):
    its frames are the same call stack's outer frames."""
    for gap in range(_CHAIN_GAP + 1):  # 0: a log shipper flattened both onto one line
        later = chained.get((event.source, event.line + gap))
        if later is not None and later is not event:
            found = locate(later, sigs, None, releases)
            if found is not None and found[0] != "serving":
                return found[0], f"{found[1]} of the traceback chained to it at line {later.data['chained_at']}"
    return None


# NCCL's line prefix `host:pid:tid [cudaDev]`: the lines of one thread (its WARN and its return chain)
_NCCL_THREAD = re.compile(r":(\d+:\d+) \[\d+\]")
_CHAIN_WINDOW = 40  # lines after a WARN where its return chain is read
_NVSHMEM_CHAIN = "non-zero status"
_FLATTENED = re.compile(r"\\n|\n")  # lines a log shipper joined with literal or real newlines
_NVSHMEM_WINDOW = 10  # NVSHMEM prints its callers' status lines right after the failing one


def _after(later: Event, event: Event, window: int) -> bool:
    """`later` follows `event` within `window` lines (on its line too: a log shipper's one-line JSON body holds all)."""
    return later is not event and 0 <= later.line - event.line <= window


class _NativeContext:
    """The native libraries' return-chain lines per input (NCCL's `file:line -> rc`, NVSHMEM's `file:line: non-zero
    status`: each caller prints one as the error returns), and the NCCL release each input names."""

    def __init__(self, events: list[Event]) -> None:
        self.chains: dict[str, list[Event]] = {}
        self.nvshmem: dict[str, list[Event]] = {}
        self.versions: dict[str, set[str]] = {}
        for e in events:
            if e.kind == kinds.NCCL_INFO and e.data.get("chain"):
                self.chains.setdefault(e.source, []).append(e)
            elif _NVSHMEM_CHAIN in e.text or "nvshmem" in e.text.lower():
                self.nvshmem.setdefault(e.source, []).append(e)
            elif e.kind == kinds.NCCL_VERSION and e.data.get("nccl"):
                self.versions.setdefault(e.source, set()).add(str(e.data["nccl"]).split("+", 1)[0])

    def chain(self, event: Event) -> list[str]:
        """The lines of the event's NCCL thread: its own (a shipper may have put several on its line) and the return
        chain's lines just after it."""
        text = str(event.data.get("full_text") or event.text)
        thread = _NCCL_THREAD.search(text)
        if thread is None:
            return [text]
        mark = f":{thread.group(1)} ["
        own = [part for part in _FLATTENED.split(text) if mark in part]
        after = (e.text for e in self.chains.get(event.source, []) if _after(e, event, _CHAIN_WINDOW))
        return [*own, *(t for t in after if mark in t)]

    def nvshmem_chain(self, event: Event) -> str:
        """The event's text and the NVSHMEM lines just after it (the callers' status lines of the same error)."""
        after = (e.text for e in self.nvshmem.get(event.source, []) if _after(e, event, _NVSHMEM_WINDOW))
        return "\n".join([str(event.data.get("full_text") or event.text), *after])

    def version(self, event: Event) -> str | None:
        found = self.versions.get(event.source, set())
        if len(found) == 1:
            return next(iter(found))
        return native_stages.nccl_version_in(str(event.data.get("full_text") or event.text)) if not found else None


def _native_init(event: Event, sig: Signature | None, native: _NativeContext) -> tuple[str, str] | None:
    """Startup when the failure's NCCL return chain, NVSHMEM wording or Mooncake glog line names the library's init
    code (per its released source): communicator, buffer or transfer engine set-up, which runs before anything is
    served."""
    text = str(event.data.get("full_text") or event.text)
    mechanism = sig.mechanism if sig is not None else None
    found = None
    if mechanism == "nccl" or "NCCL WARN" in text:
        found = native_stages.place_nccl(native.chain(event), native.version(event))
    if found is None and mechanism == "deepep":
        found = native_stages.place_deepep(text)
    if found is None and (mechanism == "deepep" or "nvshmem" in text.lower()):
        found = native_stages.place_nvshmem(native.nvshmem_chain(event))
    if found is None and mechanism == "pd_transfer" and is_glog_error(event):  # its file, line and message as parsed
        found = native_stages.place_mooncake(str(event.data["srcloc"]), str(event.data["message"]))
    return (found.phase, found.basis) if found is not None else None


# the native libraries whose log lines report a failure SGLang then raises on (the traceback printed right after);
# CUDA's device-side assert lines are raised at the next synchronising call, in the code running then; a kernel
# library's CUDA check returns its error to the op, which raises it
_NATIVE_MECHANISMS = frozenset({"nccl", "deepep", "pd_transfer", "cuda", "kernel_library"})
_RAISED_WINDOW = 12  # lines between a library's error line and the traceback SGLang prints for it


def _from_traceback_after(
    event: Event, mechanism: str | None, tracebacks: dict[str, list[Event]], sigs: SignatureSet, releases: Releases
) -> tuple[str, str] | None:
    """A native library's error line takes the place of the SGLang traceback printed just after it (the next one of
    its input): the application running that library call, raising when it failed. `mechanism`: the failure's, as
    its signature or the library that raised it names it."""
    if mechanism not in _NATIVE_MECHANISMS or event.kind in (kinds.TRACEBACK, kinds.EXCEPTION):
        return None
    after = (e for e in tracebacks.get(event.source, []) if e is not event and e.line >= event.line)  # a flattened log: one line
    later = min(after, key=lambda e: e.line, default=None)
    if later is None or later.line - event.line > _RAISED_WINDOW:
        return None
    found = locate(later, sigs, None, releases)
    if found is None or found[0] in _VAGUE:
        return None
    return found[0], f"{found[1]}, of the SGLang traceback at line {later.line} printed just after it"


# the startup bars a failure may stop: the step each shows, and what it says of it
_BAR_STEPS = {
    kinds.SHARD_PROGRESS: ("load_weight", "the weight loader's progress bar", "loading"),
    kinds.ENGINE_CAPTURE_BAR: ("capture", "vLLM's CUDA graph capture bar", "capture"),
}


_BAR_AFTER = 2  # the lines after a failure a bar's last drawing is looked for at


def _from_loading_bar(event: Event, bars: dict[str, list[Event]], last_phase_of: Any) -> tuple[str, str] | None:
    """A startup step's progress bar printed last before the failure (or on its line, the error glued after it), not
    finished: the weight loader's bar (loading), vLLM's capture bar (capture); or a line vLLM's engine prints only while
    it starts (parsers/engine_lines.py), with no line of its end of startup after it. A rank whose own phase lines place it is
    placed by them; a bar rarely names its rank, so the step of the failing rank is the one the bar shows, said so."""
    if last_phase_of(event) is not None:
        return None
    bar = max(
        (b for b in bars.get(event.source, []) if b.line <= event.line and b is not event), key=lambda b: b.line, default=None
    )
    if bar is None:
        # a bar drawn just after the failure: tqdm draws a bar's last state when it is closed, as the process ends after
        # the exception it printed (tqdm 4.67.1 std.py: __iter__ closes the bar in its finally, and close() with leave
        # redraws it once more)
        after = [b for b in bars.get(event.source, []) if 0 < b.line - event.line <= _BAR_AFTER and b.kind in _BAR_STEPS]
        if after and after[0].data["done"] < after[0].data["total"]:
            step, named, doing = _BAR_STEPS[after[0].kind]
            return step, (
                f"line {after[0].line} just after it, {named} at {after[0].data['done']}/{after[0].data['total']} as"
                f" tqdm draws it when the process ends: {doing} had not finished"
                f"{'' if after[0].rank else ' (the bar names no rank)'}"
            )
        return None
    if bar.kind == kinds.ENGINE_STARTUP_LINE:
        if bar.data["ended"]:
            return None
        return str(bar.data["step"] or "startup"), (
            f"after line {bar.line}, a line vLLM's engine prints only while it starts ({bar.data['what']}), and no line of"
            " its end of startup after it"
        )
    if bar.data["done"] >= bar.data["total"]:
        return None
    step, named, doing = _BAR_STEPS[bar.kind]
    return step, (
        f"after line {bar.line}, {named} at {bar.data['done']}/{bar.data['total']}: {doing} had"
        f" not finished{'' if bar.rank else ' (the bar names no rank)'}"
    )


def _from_other_threads(event: Event, releases: Releases) -> tuple[str, str] | None:
    """Serving, when faulthandler's dump of a crash whose own thread's frames are not shown holds another thread that
    was running SGLang code (its innermost frame) under a function only a serving server runs (the released source:
    catalog/stages.json): a request's work in flight (a KV transfer, a batch). A thread waiting (its innermost frame
    the standard library's) or in a serving loop's own function says nothing: such threads start at startup."""
    found = []
    for stack in event.data.get("other_threads") or []:
        if not stack or stage_functions.module_of(stack[-1].split(":", 1)[0]) is None:
            continue  # its innermost frame is no SGLang code: waiting (a queue, a lock, a socket)
        innermost = stage_functions.place_frame(stack[-1], releases)
        whole = stage_functions.place_stack(stack, releases)
        if whole is None or whole[0].stage != "serving" or (innermost is not None and innermost.stage != "serving"):
            continue
        if whole[0].qualname.rsplit(".", 1)[-1] == (whole[0].root or "").rsplit(".", 1)[-1]:
            continue  # the serving loop's own function: an idle loop
        found.append(whole)
    if not found:
        return None
    placement, frame = found[0]
    where = frame_quote(frame.split(": ", 1)[0])
    return "serving", f"another thread of the dump was running SGLang code: {placement.basis(f'frame {where}')}"


def _wording_unless_said(
    event: Event, by_wording: tuple[str, str] | None, stated: dict[str, _ClaimIndex]
) -> tuple[str, str] | None:
    """A wording before the failure that only startup code prints places it at startup, unless the paste's own firm
    sentence says it failed while serving ("CUDA graphs capture successfully. On the first actual inference request,
    the scheduler crashes:"): as with the rank's last phase line, the line before it holds only for a log pasted whole
    from that line to the failure."""
    if by_wording is None or by_wording[0] == "serving":
        return by_wording
    words = _from_claim(event, stated, firm=True)
    if words is None or words[0] != "serving":
        return by_wording
    return words[0], f"{words[1]}; the line before it placed it at startup ({by_wording[1]})"


class _ClaimIndex:
    """One source's claims, read once: which claims _from_claim counts for a failure on a line is a prefix (every
    claim before the line), the claims on the line and a suffix (the claims after it that speak of this failure), so the
    agreement of their times and the last of them come from running sums, a bisect a failure (a paste of many stated
    failures and many claims was failures x claims: review15b item 18). Lines out of order: read as they come."""

    def __init__(self, claims: list[Event]) -> None:
        self.claims = claims
        self.lines = [c.line for c in claims]
        self.ordered = all(x <= y for x, y in zip(self.lines, self.lines[1:], strict=False))
        said = [str(c.data["said"]) for c in claims]
        self.launcher = [LAUNCHER.match(text) is not None for text in said]
        self.cue = [c.kind == kinds.TIME_CUE for c in claims]
        # a claim's bit: 2 x (at startup) + (a cue sentence)
        self.bit = [1 << (2 * at_startup(str(c.data["stage"])) + cue) for c, cue in zip(claims, self.cue, strict=True)]
        # counted after the failure's line: a cue, or a sentence neither a client step nor a launcher's line
        self.after = [
            cue or (client_step(text) is None and not launcher)
            for cue, text, launcher in zip(self.cue, said, self.launcher, strict=True)
        ]
        n = len(claims)
        self.prefix = [0] * (n + 1)  # the bits of claims[:i]
        self.last_kept = [-1] * (n + 1)  # the last claim of claims[:i] that is no cue
        for i in range(n):
            self.prefix[i + 1] = self.prefix[i] | self.bit[i]
            self.last_kept[i + 1] = i if not self.cue[i] else self.last_kept[i]
        self.suffix = [0] * (n + 1)  # the bits of the claims of claims[i:] counted after the line
        self.last_after = [-1] * (n + 1)  # the last of them
        self.last_after_kept = [-1] * (n + 1)  # the last of them that is no cue
        for i in range(n - 1, -1, -1):
            counted = self.after[i]
            self.suffix[i] = self.suffix[i + 1] | (self.bit[i] if counted else 0)
            self.last_after[i] = self.last_after[i + 1] if self.last_after[i + 1] >= 0 else (i if counted else -1)
            later = self.last_after_kept[i + 1]
            self.last_after_kept[i] = later if later >= 0 else (i if counted and not self.cue[i] else -1)

    def before(self, event: Event) -> list[Event]:
        """The claims _from_claim counts for the failure, in their order: every claim when the failure is stated in
        prose, else as _counted says."""
        if event.kind == kinds.STATED_FAILURE:
            return self.claims
        return [c for c in self.claims if _counted(c, event)]

    def agreed(self, event: Event) -> tuple[Event | None, int]:
        """(the last claim counted, once cue sentences that disagree are left out; the bits of those counted)."""
        if event.kind == kinds.STATED_FAILURE:
            bits, last, last_kept = self.prefix[-1], len(self.claims) - 1, self.last_kept[-1]
        elif not self.ordered:
            return _agreed(self.before(event))
        else:
            lo, hi = bisect_left(self.lines, event.line), bisect_right(self.lines, event.line)
            on = [i for i in range(lo, hi) if _counted(self.claims[i], event)]
            bits = self.prefix[lo] | self.suffix[hi]
            for i in on:
                bits |= self.bit[i]
            on_kept = [i for i in on if not self.cue[i]]
            last = self.last_after[hi] if self.last_after[hi] >= 0 else (on[-1] if on else lo - 1)
            last_kept = (
                self.last_after_kept[hi] if self.last_after_kept[hi] >= 0 else (on_kept[-1] if on_kept else self.last_kept[lo])
            )
        return _pick(self.claims, bits, last, last_kept)


def _counted(c: Event, event: Event) -> bool:
    """A claim _from_claim counts for a failure that is not stated in prose (see its comments)."""
    said = str(c.data["said"])
    return (
        c.kind == kinds.TIME_CUE
        or c.line < event.line
        or (c.line > event.line and client_step(said) is None and not LAUNCHER.match(said))
        or (c.line == event.line and LAUNCHER.match(said) is not None)
        or (c.line == event.line and event.kind == kinds.LOGGED_FAILURE)
        # a failure read out of a sentence (quoted, a code span, or its words): a claim of the same sentence says when
        # it came ("The server crashes on launch with `RuntimeError: ...`")
        or (c.line == event.line and bool(event.data.get("quoted") or event.data.get("in_sentence")))
    )


def _agreed(before: list[Event]) -> tuple[Event | None, int]:
    bits, last, last_kept = 0, len(before) - 1, -1
    for i, c in enumerate(before):
        cue = c.kind == kinds.TIME_CUE
        bits |= 1 << (2 * at_startup(str(c.data["stage"])) + cue)
        last_kept = i if not cue else last_kept
    return _pick(before, bits, last, last_kept)


def _pick(claims: list[Event], bits: int, last: int, last_kept: int) -> tuple[Event | None, int]:
    """time_claims' phrasing is the more exact reading: a cue sentence that disagrees with it does not cancel it; the
    claims must then agree (bits: 1 serving claim, 2 serving cue, 4 startup claim, 8 startup cue)."""
    if bits & 3 and bits & 12:  # they disagree: the cue sentences are left out
        bits &= 5
        last = last_kept
    if not bits or (bits & 1 and bits & 4) or last < 0:
        return None, bits
    return claims[last], bits


# a sentence's failure verb governing its startup phrase ("The server crashes at startup with:"), unlike a loose cue
# ("After the server finished startup, it crashed.", "I increased the startup timeout but it still crashes:")
_FAILED_AT_START = re.compile(
    r"(?i)\b(?:crash(?:es|ed)?|fail(?:s|ed)?|died|dies|errors?(?:ed)? out)\s+(?:at|during|on|while|in)\s+(?:the\s+)?"
    r"(?:server(?:'s)?\s+|PD\s+)?(?:startup|start-up|warmup|warm-up|launch|initiali[sz]ation|starting)\b"
)


def _firm(claim: Event) -> bool:
    """Whether a claim is firm: as its reader said, else as time_claims judges its sentence."""
    return bool(claim.data["firm"]) if "firm" in claim.data else firm_sentence(str(claim.data["said"]))


def _from_claim(
    event: Event, claims: dict[str, _ClaimIndex], firm: bool = False, claim_only: bool = False
) -> tuple[str, str] | None:
    """What the paste's own words say of the time, when every claim before the failure agrees (a benchmark client's
    command, a sentence: parse/parsers/time_claims.py): inferred, and the basis says so. `firm`: only a claim firm
    enough to outweigh the log's last phase line (time_claims._firm: no comparison, negation or early-failure word).
    `claim_only`: a firm time claim ("during PD warmup") or a cue whose failure verb governs its startup phrase, not a
    sentence's loose cue words or a claim about a setting (review16a item 6)."""
    # a launcher's line on the failure's own line too (a shipper flattened both): it logs its words before the exception
    # a sentence that states the failure may place it itself ("it fails during startup with ...")
    # a failure stated only in prose: every sentence of it speaks of that failure, before it or after (one sentence
    # stands for the others: _without_stated)
    # a sentence of cue words names the failure it speaks of (parse/parsers/time_cues.py): it says when that failure
    # came, written before the log or after it
    index = claims.get(event.source)
    if index is None:
        return None
    claim, _ = index.agreed(event)  # (the rules of which claims count: _ClaimIndex, _counted, _pick)
    if claim is None:
        return None
    if firm and not _firm(claim):
        return None
    if claim_only and not (_FAILED_AT_START.search(str(claim.data["said"])) if claim.kind == kinds.TIME_CUE else _firm(claim)):
        return None
    if LAUNCHER.match(str(claim.data["said"])):
        return str(claim.data["stage"]), (
            f"inferred from line {claim.line}, '{claim.data['said']}': the launcher's line that its launch of the"
            f" model raised; {LAUNCHER_NOTE}"
        )
    if claim.line == event.line and event.kind == kinds.LOGGED_FAILURE:
        return str(claim.data["stage"]), f"inferred from the record's own words '{claim.data['said']}'"
    client = client_step(str(claim.data["said"]))
    why = f": {client}" if client else ""
    return str(claim.data["stage"]), (
        f"inferred from line {claim.line}, the paste's own words '{claim.data['said']}'{why}; {CLAIM_NOTE}"
    )


# torch.multiprocessing.spawn's ProcessContext.join (torch 2.9.1 torch/multiprocessing/spawn.py): raise
# ProcessRaisedException(msg, ...), msg = "\n\n-- Process %d terminated with the following error:\n" + the child's
# traceback: the parent's exception only carries the child's failure
_CHILD_WRAPPERS = ("ProcessRaisedException",)


def _reraises_child(event: Event) -> bool:
    return event.kind == kinds.EXCEPTION and str(event.data.get("exception") or "").endswith(_CHILD_WRAPPERS)


def failures_of(
    events: list[Event],
    last_phase_of: Any,
    ready: dict[str, Event],
    signatures: SignatureSet | None = None,
    releases: Releases = None,
    others_last_phase: Any = None,
    phase_lines: dict[str, list[int]] | None = None,
    past_warmup: dict[str, Event] | None = None,
    launch_stamps: dict[str, list[str]] | None = None,
) -> list[Failure]:
    """Every failure among `events`, in the order given (the caller orders them in time).

    `last_phase_of(event)` gives the phase id of the rank's last phase line before the event, or None;
    `ready` the first line per source that shows the server ready or serving: a failure after it is a
    runtime failure, in the `serving` stage, whatever its signature locates; `releases` the SGLang releases the input
    shows (its released source places a failure); `others_last_phase(event)` the last phase line of the launch's
    other ranks before it, and those ranks, when the event's rank printed none (failures.py); `phase_lines` the line
    numbers of each input's phase lines (a wording before the last of them places nothing); `past_warmup` the first
    line per source that shows the server past SGLang's warmup request (the ready line, a served request);
    `launch_stamps` the stamps of every launch's server_args dump per source (relaunch_stamps: the input's other
    launches too), else those of `events`.
    """
    sigs = signatures or bundled_signatures()
    events = merge_native(events)
    chained = {(e.source, e.data["chained_at"]): e for e in events if e.data.get("chained_at") is not None}
    native_context = _NativeContext(events)
    lines_before = LinesBefore(events, _not_context, phase_lines or {})
    # the lines each source's failures are read beside, gathered in one pass over the events
    tracebacks: dict[str, list[Event]] = {}
    bars: dict[str, list[Event]] = {}
    claims: dict[str, list[Event]] = {}
    builds: dict[str, list[Event]] = {}
    last_crash: dict[str, int] = {}  # the events come rank by rank, not in line order: the latest line of each source
    for e in events:
        if e.kind in (kinds.TRACEBACK, kinds.EXCEPTION) and (e.data.get("frame_paths") or e.data.get("frames")):
            tracebacks.setdefault(e.source, []).append(e)
        if e.kind in _BAR_STEPS or e.kind == kinds.ENGINE_STARTUP_LINE:
            bars.setdefault(e.source, []).append(e)
        elif e.kind in (kinds.TIME_CLAIM, kinds.TIME_CUE):
            claims.setdefault(e.source, []).append(e)
        elif e.kind == kinds.JIT_BUILD:
            builds.setdefault(e.source, []).append(e)
        if e.kind in CRASH_KINDS and e.kind not in (kinds.PROCESS_EXCEPTION, kinds.LOGGED_FAILURE):
            last_crash[e.source] = max(e.line, last_crash.get(e.source, -1))
    jit = JitBuilds(builds)
    launches: dict[str, list[int]] = {}  # the lines of each source's server_args dumps (a launch's first line)
    commands: dict[str, list[int]] = {}  # the last line of each source's launch commands
    for e in events:
        if e.kind == kinds.SERVER_ARGS:
            launches.setdefault(e.source, []).append(e.line)
        elif e.kind == kinds.LAUNCH_COMMAND and e.data.get("kind") == "command":
            commands.setdefault(e.source, []).append(int((e.data.get("joined_lines") or [e.line, e.line])[-1]))
    launch_stamps = launch_stamps if launch_stamps is not None else relaunch_stamps(events)
    # the claims that are sentences of when it failed, not a reproduction's client step
    stated = {
        source: _ClaimIndex([c for c in found if client_step(str(c.data["said"])) is None]) for source, found in claims.items()
    }
    claim_index = {source: _ClaimIndex(found) for source, found in claims.items()}
    out: list[Failure] = []
    for event in events:
        if not is_candidate(event):
            continue
        found = attribute(event, sigs) if event.kind != kinds.STATED_FAILURE else None
        if found is None and event.kind in (kinds.TRACEBACK, kinds.EXCEPTION) and client_program_failure(event):
            continue  # a client program's own failure (SGLang's frontend language, no server code): no rank's; an
            # unrecognised failure of the paste (stages._unmatched_failures)
        if found is None and refused_by_server(event):
            # a client's error for a request the server answered and refused is none of the server's (listed as an
            # unread line, stages._unmatched_failures); unless its answer's message holds a failure a signature reads
            # ("Error code: 400 - {... 'message': '... CUDA error: ...'}": the server's own error, review15b item 6)
            continue
        if found is not None and _passed_on(found[0], found[2], event):
            found = None  # SGLang's frame raised what a library's own error says: that library is the raiser
        if found is None and event.kind not in CRASH_KINDS and not is_glog_fatal(event) and not is_library_error(event):
            continue
        if found is None and event.kind == kinds.PROCESS_EXCEPTION and last_crash.get(event.source, -1) >= event.line:
            continue  # its traceback (or exception line) is read after it: that is the failure, not the header
        if found is None and _reraises_child(event) and last_crash.get(event.source, -1) > event.line:
            continue  # the child's traceback printed under it is the failure
        sig, values, kind, matched = found if found else (None, {}, "none", "")
        if found is None and event.kind == kinds.PROCESS_EXCEPTION:
            values = {"error": f"{event.data.get('process')} hit an exception (no traceback read after it)"}
        if event.kind == kinds.STATED_FAILURE:
            values = {"error": f'"{event.data["sentence"]}" ({STATED_NOTE})'}
        crash = native_crash(event, values)
        mechanism = sig.mechanism if sig else None
        raiser = None
        # a library's own signature (sgl_kernel's loader) is named as its library; otherwise, with no signature
        # naming it, the library that raised it
        own = module_library(sig.mechanism) if sig is not None else None
        own = own if own != SGLANG else None
        if sig is None or sig.mechanism in FALLBACK_MECHANISMS or own is not None:
            raiser = raising_library(event, crash.library if crash else None, *_exception_of(event))
            raiser = raiser if own is None or raiser is None or raiser.library == own else None
            built = jit.library_of(event) if raiser is None or raiser.other_package else None
            if built is not None:  # the build tool raised: the library whose JIT build it ran
                basis = f"the JIT build it ran is the library's (line {built[1].line}: {built[1].text.strip()[:120]})"
                raiser = Raiser(built[0], basis, None)
            if raiser is None and event.kind == kinds.STATED_FAILURE:
                raiser = stated_raiser(event.data["sentence"])
            mechanism = raiser.mechanism if raiser else mechanism
        marker = ready.get(event.source)
        located = _time_of(
            event,
            sigs,
            sig,
            marker,
            last_phase_of,
            releases,
            (past_warmup or {}).get(event.source),
            launch_stamps.get(event.source),
        )
        if located[0] == "unknown":
            located = (
                _from_chained(event, chained, sigs, releases)
                or _native_init(event, sig, native_context)
                or _from_traceback_after(event, mechanism, tracebacks, sigs, releases)
                or _from_loading_bar(event, bars, last_phase_of)
                or (from_other_ranks(event, others_last_phase) if others_last_phase else None)
                or _from_other_threads(event, releases)
                or _right_after_command(event, commands)
                or _wording_unless_said(event, lines_before.wording(event, releases), stated)
                or placed_by_client(event)
                or _from_claim(event, claim_index)
                # weaker than the paste's sentence of when it failed: a paste of the start's head and the crash's tail
                or _after_launch(event, located, launches)
                or _stated_beside_serving(event, marker)
                or located
            )
        elif (
            located[1].startswith(AFTER_LAST_PHASE) and (words := _from_claim(event, stated, firm=True)) and words[0] == "serving"
        ):
            # the paste's own sentence says when it failed ("it crashes after running for 3 hours"): a startup step read
            # off the last phase line only holds for a log pasted whole from that line to the failure, and a paste of the
            # startup's head and the crash's tail is not. A client step (a curl, a benchmark command) says only that a
            # request was sent, perhaps before the restart the log shows: the log places the failure then
            last = located[1][len(AFTER_LAST_PHASE) :]
            located = words[0], f"{words[1]}; the rank's last phase line before it, {last}, is startup's"
        elif (
            located[0] == "serving"
            and _no_more_than_warmup(event, marker, (past_warmup or {}).get(event.source), launch_stamps.get(event.source))
            # (a time claim, or a cue whose failure verb governs its startup phrase: a loose cue, "after the server
            # finished startup, it crashed", or a sentence about a setting does not outweigh the serving code's
            # frames, review16a item 6)
            and (words := _from_claim(event, stated, claim_only=True))
            and at_startup(words[0])
        ):
            # placed while serving by what the warmup request runs or prints too (the scheduler loop's frames, a
            # wording only a running scheduler prints, uvicorn's start, one prefill batch) and nothing past the warmup
            # before it, and the paste's own sentence says startup ("... becomes None during PD warmup", probe
            # sgl-project/sglang#13021): the one batch before the ready line is the warmup's (warmup.py), so the
            # failure is the warmup's, startup's last step (fixtures/mined/README's warmup rule)
            located = (
                "warmup",
                (
                    f"{words[1]}; {located[1]}, which the server's warmup request runs too, and nothing past the warmup"
                    " came before it"
                ),
            )
        elif located[0] == "startup":
            # placed at startup with no step told (a constructor's frames, cut above the step): an unfinished weight
            # loader's bar last before it tells the step
            located = _from_loading_bar(event, bars, last_phase_of) or located
        after_ready = located[0] == "serving"
        finding = sig.finding if sig is not None and sig.finding else "startup-crash"
        if event.kind == kinds.STATED_FAILURE:
            # a sentence that says memory ran out ("it runs out of GPU memory after a few hours"): an OOM, not a crash,
            # whichever library it names (that library stays the failure's: "DeepGEMM's warmup OOMs")
            memory = stated_memory(str(event.data["said"]), str(event.data.get("full_text") or event.text))
            finding, mechanism = _STATED_MEMORY.get(memory, (finding, mechanism)) if memory else (finding, mechanism)
        if finding == "startup-oom" and located[0] == "capture":
            finding = "capture-oom"
        if located[0] == "serving":
            finding = RUNTIME_FINDING.get(finding, finding)
        elif located[0] == "unknown":
            finding = TIME_UNKNOWN_FINDING.get(finding, finding)
        focus = (sig.pattern.longest_literal(),) if sig is not None and kind in ("line", "exception") else ()
        said = None
        if sig is not None and kind in ("line", "exception"):
            full = str(event.data.get("full_text") or event.text)
            # a pattern that opens with a capture ("^{result:text} error (run with ...)") quotes the line from its start
            opens_with_capture = sig.pattern.anchored and sig.pattern.segments[0][0].literal is None
            at = 0 if opens_with_capture else full.find(sig.pattern.literals()[0])
            word = at
            # from the start of its first word; a wording that opens with punctuation (": undefined symbol: ") from the
            # start of the name before it ("/usr/.../common_ops.abi3.so: undefined symbol: ...")
            named = at > 0 and not (full[at].isalnum() or full[at] == "_")
            while word > 0 and (full[word - 1].isalnum() or full[word - 1] == "_" or (named and not full[word - 1].isspace())):
                word -= 1
            at = at if word > 0 and full[word - 1] == "\\" else word  # not into a literal "\n" before it
            at = _with_source_place(full, at)
            said = full[at:].strip() if at >= 0 else None
            if said and event.data.get("in_sentence"):  # a sentence quoting the wording: up to that sentence's end
                said = _SENTENCE_END.split(said, 1)[0].rstrip(".")
        basis = located[1]
        if event.data.get("in_sentence") and sig is not None:
            basis = f"{basis}; {PROSE_NOTE}" if basis else PROSE_NOTE
        out.append(
            Failure(
                finding=finding,
                mechanism=mechanism,
                signature=sig.id if sig else None,
                evidence=kind,
                event=event,
                phase=located[0],
                phase_basis=basis,
                values=values,
                quoted=bool(event.data.get("quoted")),
                after_ready=after_ready,
                focus=focus,
                matched=frame_quote(matched) if kind in ("frame", "native_frame") else None,
                said=said,
                signal=crash.signal if crash else None,
                native_frame=frame_quote(crash.frame) if crash and crash.frame else None,
                library=crash.library if crash and crash.library else (raiser.library if raiser else own),
                library_frame=_library_frame(crash, raiser),
                library_via=crash.via if crash else None,
                library_basis=raiser.basis if raiser is not None and not (crash and crash.library) else None,
            )
        )
    out = _named_by_statement(_without_claim_twins(_headers_as_exceptions(out, events)), events)
    # the stated failures go first: an announcing line or a parent's echo gives way to another failure, never to words
    kept = _without_records(
        _without_cut_heads(_without_stated(_without_named(warmup_batches(_placed_by_burst(out), ready)))),
        sigs.giving_way(EARLIER_FAILURE),
    )
    kept = _without_echoes(_without_announcers(kept, sigs.giving_way(NEXT_LINE)), sigs.giving_way(OTHER_FAILURE))
    return _without_kill_ends(kept, sigs.giving_way(EARLIER_FAILURE), events)


# a capture that is only the header of the traceback the line opens ("Initialization failed. warmup error: Traceback
# (most recent call last):", as sglang's http_server.py prints f"...warmup error: {traceback.format_exc()}"): CPython's
# traceback module's headers (3.8-3.14: "Traceback (most recent call last):", "Exception Group Traceback (most recent
# call last):")
_BLOCK_HEADER = re.compile(r"^(?:\+ )?(?:Exception Group )?Traceback \(most recent call last\):?$")


def _headers_as_exceptions(found: list[Failure], events: list[Event]) -> list[Failure]:
    """A line's failure whose captured error is only a traceback's header takes the exception line of the traceback
    that opened at its line ("AssertionError: res=<Response [502]>", never "Traceback (most recent call last):")."""
    if not any(_BLOCK_HEADER.match(str(f.values.get("error", "")).strip()) for f in found):
        return found
    opened = {
        (e.source, int(e.data["opened_at"])): e
        for e in events
        if e.kind == kinds.EXCEPTION and e.data.get("opened_at") and e.data.get("exception")
    }
    out = []
    for f in found:
        exception = opened.get((f.event.source, f.event.line))
        if exception is not None and _BLOCK_HEADER.match(str(f.values.get("error", "")).strip()):
            message = str(exception.data.get("message") or "").strip()
            name = str(exception.data["exception"])
            f = replace(f, values=f.values | {"error": f"{name}: {message}" if message else name})
        out.append(f)
    return out


# the place a native program's own message opens with, right before its wording: CUDA's device-side assert
# (__assertfail's "%s:%d: %s: block: [%d,%d,%d], thread: [%d,%d,%d] Assertion `%s` failed.", as torch 2.9.1's
# libtorch_cuda.so holds its head: "<file>:<line>: <function>: block: [..."), a C/C++ source file's path, its line and
# function (the function as __func__ prints it: "indexSelectLargeIndex", "operator()")
_SOURCE_PLACE = re.compile(r"(?:^|(?<=[\s\]]))[^\s:\]]+\.(?:cu|cuh|cpp|cc|cxx|c|h|hpp):\d+: ?[^\s:]+: $")
_SOURCE_PLACE_MAX = 300  # the longest place looked for (a bounded tail: no scan of a long line)


def _with_source_place(full: str, at: int) -> int:
    """Where a verdict's quote of the wording at `at` opens: at the source place right before it, when there is one."""
    if at <= 0:
        return at
    start = max(0, at - _SOURCE_PLACE_MAX)
    m = _SOURCE_PLACE.search(full, start, at)
    return m.start() if m is not None else at


def _without_claim_twins(found: list[Failure]) -> list[Failure]:
    """A sentence that names a failure and says when it happened ("the server hits a CUDA illegal memory access after
    a few minutes of load") is read twice, as a failure line and as a time claim: one failure, the failure line's."""
    read = {(f.event.source, f.event.line) for f in found if f.event.kind not in (kinds.TIME_CLAIM, kinds.TIME_CUE)}
    return [
        f for f in found if f.event.kind not in (kinds.TIME_CLAIM, kinds.TIME_CUE) or (f.event.source, f.event.line) not in read
    ]


# what names the library of a log failure whose raiser the log does not show, when the sentence does
STATED_FOR_LOG_BASIS = "the issue's sentence stating the failure names it; the log does not show what raised it: lower confidence"


def _named_by_statement(found: list[Failure], events: list[Event]) -> list[Failure]:
    """A log failure whose raiser the log does not show (no mechanism named, a generic crash wording with no library
    under it, or only the innermost frame shown of a traceback cut before its exception line, a host's frame:
    SGLang's, vLLM's) takes the library that the input's own
    sentences stating the failure name, when they name exactly one (stated_library.py), or that the error they quote
    names (its CUDA runtime wording, a library's path or status, as a log line of it would): the frames that would
    name it were cut away, the issue says which library failed. Said so in its basis (the issue's words, lower confidence)."""
    # an error the prose quotes ("a sporadic `CUDA error: an illegal memory access was encountered` crash at ...", a
    # sentence naming the exception) names its library by its own words as a log line of it would (CUDA's runtime
    # wording, a library's path, op or status): the failure the cut log shows is that one
    quoted: dict[tuple[str, int], str] = {}
    for f in found:
        in_prose = f.quoted or f.event.data.get(NAMED_IN_SENTENCE) or f.event.data.get("in_sentence")
        if in_prose and f.event.kind != kinds.STATED_FAILURE and f.library_basis != CUT_TRACEBACK_BASIS:
            # a quote a signature reads names its mechanism, not a library: another failure, which names none ("")
            said = f.library or ("" if f.mechanism and f.mechanism not in FALLBACK_MECHANISMS else None)
            if said is not None:
                quoted[(f.event.source, f.event.line)] = said
    stated: dict[str, set[str]] = {}
    for (source, _), library in quoted.items():
        stated.setdefault(source, set()).add(library)
    # the lines whose failure is read as a failure line (a log line also read as a sentence, "Aborted (core dumped)",
    # a sentence quoting the error): that failure says what the line names, the sentence adds nothing
    read = {(f.event.source, f.event.line) for f in found if f.event.kind != kinds.STATED_FAILURE}
    for e in events:
        if e.kind == kinds.STATED_FAILURE and (e.source, e.line) not in read:
            raiser = stated_raiser(str(e.data.get("sentence") or ""), as_raiser=True)
            stated.setdefault(e.source, set()).add(raiser.library if raiser else "")
    out = []
    for f in found:
        named = stated.get(f.event.source, set())
        # a crash's generic wording, or a CUDA check that several kernel libraries print alike, no library under it
        generic = f.mechanism in (*FALLBACK_MECHANISMS, KERNEL_CHECK_MECHANISM) and not f.library
        unnamed = f.mechanism is None or generic or f.library_basis == CUT_TRACEBACK_BASIS
        if unnamed and f.event.kind != kinds.STATED_FAILURE and len(named) == 1 and "" not in named and f.library not in named:
            library = next(iter(named))
            raiser = Raiser(library, STATED_FOR_LOG_BASIS, None)
            f = replace(f, mechanism=raiser.mechanism, library=library, library_basis=raiser.basis, library_frame=None)
        out.append(f)
    return out


def _passed_on(sig: Signature, kind: str, event: Event) -> bool:
    """A signature that names SGLang only because its frame is the innermost (sglang.yaml's `sglang-raised-*`, tried
    after every other piece of evidence), on an exception whose own message names a library's source, op or wording:
    SGLang's code passed on that library's error ("RuntimeError: Error in function 'BatchPrefillWithPagedKVCache...'
    at .../flashinfer/data/include/flashinfer/attention/prefill.cuh:2436: ..." under flashinfer_backend.py)."""
    if kind != "innermost_frame" or module_library(sig.mechanism) != SGLANG:
        return False
    return message_names_library(event, *_exception_of(event)) is not None


def _not_context(event: Event) -> bool:
    """A failure, or the paste's prose: no line that shows how far the server had got. A failure's single line
    (FAILURE_LINE) is one the program printed where it was, so its wording still says how far it had got ("Rank 0
    scheduler is dead", logged only while the engine waits for its schedulers at startup, before the traceback it
    announces)."""
    crash = event.kind in CRASH_KINDS and event.kind != kinds.FAILURE_LINE
    return crash or event.kind in PROSE_KINDS or bool(event.data.get("in_sentence"))


def _placed_by_burst(found: list[Failure]) -> list[Failure]:
    """A library's glog ERROR line that no wording places takes the place of the failure of the same mechanism printed
    just after it in its input (within _RAISED_WINDOW lines) when that one is placed: the library reports one failure
    in several lines, and its later line (a wording of its init code, SGLang's own line about the transfer) says when."""
    placed = [f for f in found if f.phase != "unknown"]
    out = []
    for f in found:
        if f.phase == "unknown" and is_library_error(f.event):
            later = next(
                (
                    p
                    for p in placed
                    if p.mechanism == f.mechanism
                    and p.event.source == f.event.source
                    and _after(p.event, f.event, _RAISED_WINDOW)
                ),
                None,
            )
            if later is not None:
                basis = f"as the {later.mechanism} failure at line {later.event.line} just after it: {later.phase_basis}"
                finding = later.finding if f.finding == TIME_UNKNOWN_FINDING.get("startup-crash") else f.finding
                f = replace(f, phase=later.phase, phase_basis=basis, after_ready=later.after_ready, finding=finding)
        out.append(f)
    return out


def _without_announcers(found: list[Failure], announcers: frozenset[str]) -> list[Failure]:
    """An announcing line's failure (`announcers`: its signatures, marked `gives_way: next_line`) gives way to the
    failure read from the line right after it (or after it on the same physical line: a log shipper's JSON body holds
    both)."""

    def announced(i: int, f: Failure) -> bool:
        return any(
            g.event.source == f.event.source and (g.event.line == f.event.line + 1 or (g.event.line == f.event.line and j > i))
            for j, g in enumerate(found)
        )

    return [f for i, f in enumerate(found) if not (f.signature in announcers and announced(i, f))]


def _without_echoes(found: list[Failure], echoes: frozenset[str]) -> list[Failure]:
    """The parent's report of a dead child (`echoes`: its signatures, marked `gives_way: other_failure`) gives way to
    any other failure of its input (the child's own); it is the failure itself when nothing else is shown."""
    sources = {f.event.source for f in found if f.signature not in echoes}
    return [f for f in found if f.signature not in echoes or f.event.source not in sources]


def _without_kill_ends(found: list[Failure], ends: frozenset[str], events: list[Event]) -> list[Failure]:
    """A process tree's end by its own program (`ends`: its signatures, marked `gives_way: earlier_failure`) gives way
    to a failure read before it in its input with no line between them that shows the program going on (a line that is
    no failure and no prose: a phase line, a progress bar, a batch or ready line, a launch's server_args): SGLang logs
    a failure at error level and kills its tree at once (sglang 0.4.6.post5 and 0.5.23 http_server.py _wait_and_warmup:
    logger.error(f"Initialization failed. warmup error: ...") then kill_process_tree(os.getpid()), whose SIGKILL the
    shell reports as "Killed"). A failure the program went on after, or one of another input, is not why it was
    killed: the end is then the failure shown."""
    if not any(f.signature in ends for f in found):
        return found
    # reading order: by line, and on one line (a log shipper's one-line body) in the order read
    order = {id(e): i for i, e in enumerate(sorted(events, key=lambda e: (e.source, e.line)))}
    went_on: dict[str, list[tuple[int, int, str]]] = {}
    for e in events:
        if not _not_context(e):
            went_on.setdefault(e.source, []).append((order[id(e)], e.line, e.text))

    def at(f: Failure) -> int:
        return order.get(id(f.event), -1)

    def before(g: Failure, f: Failure, went: bool) -> bool:
        """`g`, no end, is read before the end `f` in its input, the program going on (`went`) or not between them."""
        between = went_on.get(f.event.source, [])
        return (
            g.signature not in ends
            and g.event.source == f.event.source
            and 0 <= at(g) < at(f)
            # (what the end's own text holds is no line between: the command a job report names, "[1]+  Killed  python3
            # -m sglang.launch_server ..."; the pieces of a one-line body each have their own)
            and any(at(g) < n < at(f) and (line, text) != (f.event.line, f.event.text) for n, line, text in between) == went
        )

    kept = [f for f in found if f.signature not in ends or not any(before(g, f, False) for g in found)]
    kept_ends = [f for f in kept if f.signature in ends]
    return [replace(g, went_on=True) if any(before(g, f, True) for f in kept_ends) else g for g in kept]


def _without_stated(found: list[Failure]) -> list[Failure]:
    """A failure stated in a sentence gives way to any failure a log line shows (the prose adds nothing to it), and
    one sentence stands for the others (an issue states its failure in several)."""
    stated = [f for f in found if f.event.kind == kinds.STATED_FAILURE]
    if len(stated) == len(found):
        return stated[:1]
    return [f for f in found if f.event.kind != kinds.STATED_FAILURE]


def _without_named(found: list[Failure]) -> list[Failure]:
    """An exception a sentence names after its own words gives way to any other failure of the input (a log line, a
    quoted one, a stated one): the sentence only retells it."""
    named = [f for f in found if f.event.data.get(NAMED_IN_SENTENCE)]
    if len(named) == len(found):
        return found
    return [f for f in found if not f.event.data.get(NAMED_IN_SENTENCE)]


def _without_records(found: list[Failure], ends: frozenset[str] = frozenset()) -> list[Failure]:
    """A failing-level log record that no signature read gives way to any other failure of its input: the record only
    says that something failed (its traceback, or the line a signature names, says what). A process tree's end
    (`ends`: "[1]+  Killed ...", "Killed") is no such failure: it says the tree was killed, not why, so SGLang's
    record before it stays (review15b item 17)."""
    shown = {f.event.source for f in found if not _only_a_record(f) and f.signature not in ends}
    return [f for f in found if not _only_a_record(f) or f.event.source not in shown]


def _only_a_record(failure: Failure) -> bool:
    """A failing-level record that no signature read."""
    return failure.event.kind == kinds.LOGGED_FAILURE and failure.signature is None


def _without_cut_heads(found: list[Failure]) -> list[Failure]:
    """A glog error line named only by its source file gives way to the next line when a signature names that line's
    wording for the same mechanism: the line was cut (a terminal's width) and the wording is its rest."""
    worded = {(f.event.source, f.event.line, f.mechanism) for f in found if f.evidence in ("line", "exception")}
    return [
        f
        for f in found
        if not (
            f.event.kind == kinds.NATIVE_LOG
            and f.evidence == "native_frame"
            and (f.event.source, f.event.line + 1, f.mechanism) in worded
        )
    ]


def _library_frame(crash: NativeCrash | None, raiser: Raiser | None) -> str | None:
    """The innermost frame of the library that raised it, as a verdict quotes it, when it is not the crash's frame."""
    if crash is not None and crash.library_frame:
        return frame_quote(crash.library_frame)
    return frame_quote(raiser.frame) if raiser is not None and raiser.frame else None
