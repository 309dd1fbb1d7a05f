"""The nearest known cases of a failure: only cases of the same class (the same signature, or for a failure no
signature names, the same rule) are candidates, ranked by how much else they share (message, frames, mechanism,
phase, release, GPU); each comes with its score and the reason it matched, and with what its outcome means for the
release the log runs ("fixed in 0.5.17; this log is 0.5.16 (stated)")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from logscope.cases.key import CaseKey, gpu_models
from logscope.memory_model.releases import version_key

if TYPE_CHECKING:
    from logscope.cases.index import CaseIndex, KnownCase

TOP = 3
# the weights of what two failures of one class share (the class itself is required, not scored)
W_MESSAGE, W_FRAMES, W_MECHANISM, W_PHASE, W_RELEASE, W_HARDWARE = 0.40, 0.25, 0.10, 0.10, 0.08, 0.07
SAME_MESSAGE = 0.8  # token overlap from which two messages are "the same message"
SHARED_FRAMES = 0.5
UNNAMED_MESSAGE = 0.5  # a failure no signature names matches on its message alone, from this overlap
# a message's words: placeholders, identifiers, and runs of CJK characters (a Chinese or Japanese message has no
# Latin words: "结果：初始化失败" is two words, not none)
MESSAGE_WORD = re.compile(r"<\w+>|[a-z_][a-z0-9_]+|[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]+")


@dataclass(frozen=True)
class LogContext:
    """What the log says of itself: its SGLang release (stated, or a range inferred from wordings) and its GPUs."""

    release: str | None  # stated
    release_range: tuple[str, str] | None  # inferred
    hardware: tuple[str, ...]

    def release_text(self) -> str | None:
        if self.release:
            return f"{self.release} (stated)"
        if self.release_range:
            low, high = self.release_range
            return f"{low if low == high else f'{low} to {high}'} (inferred from its wordings)"
        return None


@dataclass(frozen=True)
class CaseMatch:
    case: KnownCase
    key: CaseKey  # the case's failure that matched
    score: float
    same_message: bool
    shared_frames: bool
    reason: str
    release_note: str | None  # the matched fix against the log's release, when both are known

    def to_json(self) -> dict[str, Any]:
        c = self.case
        return {
            "case": c.ref,
            "url": c.source,
            "title": c.title,
            "date": c.date,
            "score": round(self.score, 3),
            "reason": self.reason,
            "signature": self.key.signature,
            "finding": self.key.finding,
            "releases": list(c.releases),
            "hardware": list(c.hardware),
            "outcome": c.outcome.to_json(),
            **({"release_note": self.release_note} if self.release_note else {}),
        }


def log_context(document: dict[str, Any], launch_id: int | None) -> LogContext:
    launches = [launch for launch in document.get("launches", []) if launch_id is None or launch["id"] == launch_id]
    found: dict[str, Any] = next((launch["sglang_version"] for launch in launches if launch.get("sglang_version")), {})
    names = [str(g.get("name") or "") for g in document.get("gpus", [])]
    rng = found.get("range")
    return LogContext(found.get("version"), (str(rng[0]), str(rng[1])) if rng else None, gpu_models(names))


def _tokens(text: str) -> set[str]:
    return set(MESSAGE_WORD.findall(text))


def _overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def _shared(a: set[str], b: set[str]) -> float:
    """Of the shorter stack, the share of frames the other holds too (a cut paste shows fewer frames)."""
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def _score(key: CaseKey, other: CaseKey, case: KnownCase, log: LogContext) -> tuple[float, float, float]:
    message = _overlap(_tokens(key.message), _tokens(other.message))
    frames = _shared(set(key.frames), set(other.frames))
    score = W_MESSAGE * message + W_FRAMES * frames
    score += W_MECHANISM * (key.mechanism is not None and key.mechanism == other.mechanism)
    score += W_PHASE * (key.phase is not None and key.phase not in ("unknown", "startup") and key.phase == other.phase)
    score += W_RELEASE * _same_release(log, case)
    score += W_HARDWARE * bool(set(log.hardware) & set(case.hardware))
    return score, message, frames


def _minor(version: str) -> tuple[int, ...]:
    return version_key(version)[:3]


def _same_release(log: LogContext, case: KnownCase) -> bool:
    if not case.releases:
        return False
    if log.release:
        return any(_minor(r) == _minor(log.release) for r in case.releases)
    if log.release_range:
        low, high = (version_key(v) for v in log.release_range)
        return any(low <= version_key(r) <= high for r in case.releases)
    return False


def release_note(case: KnownCase, log: LogContext) -> str | None:
    """ "fixed in 0.5.17; this log is 0.5.16 (stated)": only when the log's release is known and older."""
    fixed = case.outcome.fixed_in
    if not fixed:
        return None
    if log.release and version_key(log.release) < version_key(fixed):
        return f"fixed in {fixed}; this log is {log.release} (stated)"
    if not log.release and log.release_range and version_key(log.release_range[1]) < version_key(fixed):
        return f"fixed in {fixed}; this log is {log.release_text()}"
    return None


def _short(ref: str, repo: str) -> str:
    """ "#N" for a thread of the case's own repository, else "owner/name#N"."""
    return ref[len(repo) :] if ref.startswith(f"{repo}#") else ref


def outcome_text(case: KnownCase) -> str:
    o = case.outcome
    parts = []
    if o.fixed:
        prs = ", ".join(_short(r, case.repo) for r in o.fixed_by)
        parts.append("fixed" + (f" in {o.fixed_in}" if o.fixed_in else "") + (f" by {prs}" if prs else ""))
    if o.duplicate_of:
        parts.append(f"duplicate of {_short(o.duplicate_of, case.repo)}")
    if o.workaround:
        parts.append(f"workaround {o.workaround}")
    if o.closed_without_fix:
        parts.append("closed without a fix")
    if parts:
        return ", ".join(parts)
    if o.state in ("open", "closed", "merged"):
        return f"{o.state}, no fix stated"
    return "outcome not stated"


def _reason(key: CaseKey, other: CaseKey, case: KnownCase, message: float, frames: float, log: LogContext) -> str:
    same = [what for what, yes in (("message", message >= SAME_MESSAGE), ("frames", frames >= SHARED_FRAMES)) if yes]
    parts = [
        f"same {' and '.join(same)}"
        if same
        else f"same {'signature ' + key.signature if key.signature else 'finding ' + key.finding}"
    ]
    if 0 < message < SAME_MESSAGE:
        parts.append(f"similar message ({message:.0%} of its words)")
    if key.phase and key.phase == other.phase and key.phase not in ("unknown", "startup"):
        parts.append(f"phase {key.phase}")
    if case.releases:
        parts.append(", ".join(case.releases[:2]))
    if case.hardware:
        parts.append("on " + "/".join(case.hardware[:2]))
    parts.append(outcome_text(case))
    return "; ".join(parts)


def nearest(key: CaseKey, index: CaseIndex, log: LogContext, top: int = TOP, exclude: str | None = None) -> list[CaseMatch]:
    """Up to `top` cases of the key's class, best first; a case's best-matching failure stands for it."""
    found: list[CaseMatch] = []
    for case in index.cases:
        if case.ref == exclude:
            continue
        best: tuple[float, float, float, CaseKey] | None = None
        for other in case.keys:
            if other.match_class != key.match_class:
                continue  # another signature is never offered as the same failure
            score, message, frames = _score(key, other, case, log)
            if best is None or score > best[0]:
                best = (score, message, frames, other)
        if best is None:
            continue
        score, message, frames, other = best
        if key.signature is None and message < UNNAMED_MESSAGE:
            continue  # no signature to share: only the message can make two such failures alike
        found.append(
            CaseMatch(
                case,
                other,
                score,
                message >= SAME_MESSAGE,
                frames >= SHARED_FRAMES,
                _reason(key, other, case, message, frames, log),
                release_note(case, log),
            )
        )
    # equal scores are common for a cut traceback (its message is a bare frame line): the case whose quoted line is
    # the failure's own (its path and line number unstripped) comes before older cases of the same score
    found.sort(key=lambda m: (-m.score, m.key.quote != key.quote, m.case.date or "", m.case.ref))
    return found[:top]
