"""Events → failures: which signature each piece of evidence matches, the mechanism and finding it
implies, and the phase it interrupted (from evidence only: a signature or frame that locates it, else the
rank's last phase line before it, else `unknown`).

Evidence of one event is tried from the most to the least direct: the exception (class and message),
the whole line, native frames (innermost first), Python frames (innermost first). Among signatures that
match the same piece, the one with the most literal text wins (the most specific wording).
"""

from __future__ import annotations

import re
from typing import Any

from logscope import phases
from logscope.events import Event
from logscope.model import Failure
from logscope.signatures.loader import Signature, SignatureSet, bundled_signatures

# event kinds that are a crash even when no signature names their mechanism
CRASH_KINDS = frozenset({"exception", "traceback", "fatal_error", "scheduler_died", "cuda_error", "oom",
                         "not_enough_memory", "failure_line", "native_backtrace"})
# event kinds that carry no failure evidence (phase lines, config, dumps)
# (phase lines, config, dumps; phase lines are those of the phase table)
_NOT_EVIDENCE = frozenset({
    "server_args", "launch_command", "env_export", "check_env",
    "smi_gpu", "smi_process", "smi_versions", "smi_mig", "topology", "frame", "nccl_info", "ar_config",
    "ar_registering", "symm_prealloc", "symm_default", "staging_buffer", "staging_allocator", "nccl_version",
})
_EXC_HEAD = re.compile(r"((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Interrupt|Failure))\s*:\s*")


def _exception_of(event: Event) -> tuple[str | None, str | None]:
    name = event.data.get("exception")
    text = event.data.get("full_text") or event.text
    m = _EXC_HEAD.search(text)
    if name is None and m is None:
        return None, None
    if m is not None and (name is None or m.group(1).endswith(str(name).rsplit(".", 1)[-1])):
        return name or m.group(1), text[m.end():]
    return name, event.data.get("message") or text


def _evidence(event: Event) -> list[tuple[str, str, str | None]]:
    """(kind, text, exception class) in the order the evidence is trusted."""
    out: list[tuple[str, str, str | None]] = []
    name, message = _exception_of(event)
    if message is not None:
        out.append(("exception", message, name))
    out.append(("line", event.data.get("full_text") or event.text, None))
    out += [(kind, frame, None) for kind, frame in _frames(event)]
    return out


def _frames(event: Event) -> list[tuple[str, str]]:
    """Native frames, then Python frames, each innermost first."""
    frames = [("native_frame", f) for f in event.data.get("native_frames", [])]
    return frames + [("frame", f) for f in reversed(event.data.get("frame_paths") or event.data.get("frames", []))]


def _best(candidates: tuple[Signature, ...], text: str, exception: str | None) -> tuple[Signature, dict] | None:
    best: tuple[int, Signature, dict] | None = None
    for sig in candidates:
        if sig.on == "exception" and not sig.matches_exception(exception):
            continue
        values = sig.pattern.match(text)
        if values is None:
            continue
        weight = sum(len(lit) for lit in sig.pattern.literals())
        if best is None or weight > best[0]:
            best = (weight, sig, values)
    return (best[1], best[2]) if best else None


def attribute(event: Event, signatures: SignatureSet) -> tuple[Signature, dict, str] | None:
    """The signature that names this event's mechanism (finding signatures only), and the evidence kind."""
    for kind, text, exception in _evidence(event):
        found = _best(signatures.naming(kind), text, exception)
        if found:
            return found[0], found[1], kind
    return None


def locate(event: Event, signatures: SignatureSet, matched: Signature | None) -> tuple[str, str] | None:
    """(phase, basis) from the event's own evidence: the matched signature, SGLang's capture wrapper, frames."""
    if matched is not None and matched.phase:
        return matched.phase, f"the {matched.id} signature"
    if event.data.get("context") == "capture_failed" or event.data.get("body_kind") == "capture_failed":
        return "capture", "Capture cuda graph failed"
    for kind, text in _frames(event):
        for sig in signatures.on(kind):
            if sig.phase and sig.pattern.match(text) is not None:
                return sig.phase, f"frame {text.split(': ', 1)[0].rsplit('/', 1)[-1]}"  # without the call it makes
    return None


def is_candidate(event: Event) -> bool:
    return event.kind not in _NOT_EVIDENCE and not phases.is_phase(event.kind)


# a startup finding and the finding the same failure gives while serving
RUNTIME_FINDING = {"startup-crash": "runtime-crash", "startup-oom": "runtime-oom"}


def _serving_basis(marker: Event) -> str:
    if marker.kind == "server_ready":
        return f"after the ready line at line {marker.line}"
    return f"after line {marker.line} showed it serving"


def failures_of(events: list[Event], last_phase_of: Any, ready: dict[str, Event],
                signatures: SignatureSet | None = None) -> list[Failure]:
    """Every failure among `events`, in the order given (the caller orders them in time).

    `last_phase_of(event)` gives the phase id of the rank's last phase line before the event, or None;
    `ready` the first line per source that shows the server ready or serving: a failure after it is a
    runtime failure, in the `serving` stage, whatever its signature locates.
    """
    sigs = signatures or bundled_signatures()
    out: list[Failure] = []
    for event in events:
        if not is_candidate(event):
            continue
        found = attribute(event, sigs)
        if found is None and event.kind not in CRASH_KINDS:
            continue
        sig, values, kind = found if found else (None, {}, "none")
        marker = ready.get(event.source)
        after_ready = marker is not None and event is not marker and event.line >= marker.line
        located = ("serving", _serving_basis(marker)) if after_ready and marker else locate(event, sigs, sig)
        if located is None:
            last = last_phase_of(event)
            located = (phases.stage_after(last), f"after the rank's last phase line, {last}") if last else ("unknown", "")
        finding = sig.finding if sig is not None and sig.finding else "startup-crash"
        if finding == "startup-oom" and located[0] == "capture":
            finding = "capture-oom"
        if located[0] == "serving":
            finding = RUNTIME_FINDING.get(finding, finding)
        focus = (sig.pattern.longest_literal(),) if sig is not None and kind in ("line", "exception") else ()
        out.append(Failure(finding=finding, mechanism=sig.mechanism if sig else None, signature=sig.id if sig else None,
                           evidence=kind, event=event, phase=located[0], phase_basis=located[1], values=values,
                           quoted=bool(event.data.get("quoted")), after_ready=after_ready, focus=focus))
    return out
