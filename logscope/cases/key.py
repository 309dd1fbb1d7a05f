"""What a failure finding is matched on, the same for a thread's paste (when the index is built) and a new paste
(when it is matched): its signature and mechanism, its message with numbers, paths and addresses taken out, the
frames of its call stack without line numbers, its phase, the SGLang release and the GPU the input states."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from logscope.cases.failure import is_failure_finding
from logscope.core.model import Analysis, Failure
from logscope.core.signals import signal_name

FRAMES_KEPT = 8  # innermost frames compared (the outer ones are the same server start-up in every paste)
MESSAGE_CHARS = 160

# stripped before messages are compared: what differs between two reports of one failure
_STRIPS: tuple[tuple[re.Pattern[str], str], ...] = (
    # a line's own prefix: SGLang's "[2025-03-09 14:40:46 TP3] ", glog's "E0605 10:48:27.885119 10136 file.cpp:203] "
    (re.compile(r"^\s*(?:\[[^\]]{0,80}\]\s*)+"), ""),
    (re.compile(r"^[IWEF]\d{4}(?:\d{4})? \d\d:\d\d:\d\d\.\d+\s+\d+\s+\S+:\d+\]\s*"), ""),
    (re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?"), "<time>"),
    (re.compile(r"(?:[A-Za-z]:)?(?:[\w.+~-]*/)+[\w.+-]*(?::\d+)?"), "<path>"),  # a path (its file name goes with it)
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "<addr>"),
    (re.compile(r"\b[0-9a-fA-F]{12,}\b"), "<hex>"),
    (re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b"), "<ip>"),
    (re.compile(r"\b[\w.-]+\.(?:py|cpp|cu|cc|h|hpp|so)(?::\d+)?\b"), "<file>"),
    (re.compile(r"\d+(?:\.\d+)*"), "<n>"),
)
_SPACES = re.compile(r"\s+")
_GPU = re.compile(
    r"\b(GB300|GB200|B300|B200|H200|H100|H800|H20|A100|A800|A10G?|L40S|L40|L20|L4|RTX ?\d{4}|MI3\d\dX?|MI2\d\dX?)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class CaseKey:
    """One failure as the index stores it and as a new finding is compared with it."""

    finding: str  # the rule id (nccl-error, startup-oom, ...)
    signature: str | None
    mechanism: str | None
    message: str  # normalised: numbers, paths, addresses stripped, lower case
    frames: tuple[str, ...]  # innermost first, "file.py func" (Python) or the native frame as read
    phase: str | None
    quote: str = ""  # the message as printed, cut (what a listing shows)

    @property
    def match_class(self) -> str:
        """Two failures are the same kind only within one class: the signature, else the rule."""
        return f"signature:{self.signature}" if self.signature else f"rule:{self.finding}"

    def to_json(self) -> dict[str, Any]:
        return {
            "finding": self.finding,
            "signature": self.signature,
            "mechanism": self.mechanism,
            "message": self.message,
            "frames": list(self.frames),
            "phase": self.phase,
            "quote": self.quote,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CaseKey:
        return cls(
            data["finding"],
            data.get("signature"),
            data.get("mechanism"),
            data.get("message") or "",
            tuple(data.get("frames") or ()),
            data.get("phase"),
            data.get("quote") or "",
        )


def normalise_message(text: str) -> str:
    """The message without what differs between two reports of the same failure."""
    out = text
    for pattern, replacement in _STRIPS:
        out = pattern.sub(replacement, out)
    return _SPACES.sub(" ", out).strip().lower()[:MESSAGE_CHARS]


def gpu_models(texts: list[str]) -> tuple[str, ...]:
    """The GPU models named in the texts (H100, H200, A100, ...), upper case, in the order first seen."""
    found: dict[str, None] = {}
    for text in texts:
        for m in _GPU.finditer(text or ""):
            found.setdefault(m.group(1).upper().replace(" ", ""), None)
    return tuple(found)


def _frame(frame: str) -> str:
    """'model_runner.py:178 __init__' -> 'model_runner.py __init__'; a native frame as read, numbers stripped."""
    head, _, func = frame.partition(" ")
    return f"{head.split(':', 1)[0]} {func}".strip() if func else normalise_message(frame)


def failure_key(finding: dict[str, Any], failure: Failure | None) -> CaseKey:
    evidence = finding.get("evidence") or []
    message = str(evidence[0]["text"]) if evidence else str(finding.get("message") or "")  # the log's words first
    frames: tuple[str, ...] = ()
    quote = message.strip()
    if failure is not None:
        data = failure.event.data
        text = str(data.get("full_text") or failure.event.text)
        quote = (failure.said or text).strip()
        # a native crash is its signal and the frame where it hit, whichever handler's header printed them
        crashed = signal_name(failure.signal) if failure.native_frame else None
        message = f"{crashed} in {failure.native_frame}" if crashed else text
        if data.get("header_only"):
            message = ""  # a traceback's header alone holds no message: every cut paste's header is the same words
        python = [_frame(f) for f in reversed(data.get("frames") or [])]
        native = [_frame(f) for f in data.get("native_frames") or []]
        frames = tuple(dict.fromkeys(native + python))[:FRAMES_KEPT]
    return CaseKey(
        finding=finding["rule"],
        signature=finding.get("signature"),
        mechanism=finding.get("mechanism"),
        message=normalise_message(message),
        frames=frames,
        phase=finding.get("phase"),
        quote=quote[:MESSAGE_CHARS],
    )


def finding_keys(analysis: Analysis, findings: list[dict[str, Any]]) -> list[tuple[int, CaseKey]]:
    """(index in `findings`, key) of each failure finding, keyed on the failure its evidence names."""
    out = []
    for index, finding in enumerate(findings):
        if not is_failure_finding(finding):
            continue
        out.append((index, failure_key(finding, _failure_of(analysis, finding))))
    return out


def _failure_of(analysis: Analysis, finding: dict[str, Any]) -> Failure | None:
    failures = analysis.failures.get(finding.get("launch") or 0) or [f for fs in analysis.failures.values() for f in fs]
    lines = {(e["source"], e["line"]) for e in finding.get("evidence") or []}
    same = [f for f in failures if f.signature == finding.get("signature")]
    at = [f for f in same if (f.event.source, f.event.line) in lines]
    found = at or (same if "signature" in finding else [])  # a finding no failure stands behind: its evidence only
    return found[0] if found else None
