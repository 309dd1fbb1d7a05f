"""The typed model every stage returns and the next one reads. Data flows one way:

    ingest (Source) → classify (events, Coverage) → assemble (Launch: ranks, readings, settings)
    → join_gpus (GpuJoin) · timeline_numbers (TimelineNumbers) · ledgers (RankLedger) · failures (Failure)
    → Analysis → rules (findings) → the logscope/1 document (report/json.py) → views.

No stage writes into another stage's product; the document is built once, at the end."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from logscope.core import kinds
from logscope.core.cell import Cell
from logscope.core.events import Event, RankId

# the model a phase reading belongs to (PhaseReading.model)
TARGET: Final = "target"
DRAFT: Final = "draft"
Pick = Literal["first", "last"]

UNRECOGNIZED_KEEP = 2000
TEXT_KEEP = 300
# the verdicts on an SGLang-prefixed startup line that no grammar reads (logscope/pipeline/parse/wordings.py)
CATALOGUED: Final = "catalogued"  # a catalogued release prints its wording: explained, not listed
UVICORN: Final = "uvicorn"  # a line of uvicorn, SGLang's HTTP server: explained, not listed
NEW_WORDING: Final = "new_wording"  # no catalogued release prints it: listed in `unrecognized` with this as grammar
WORDING_VERDICTS: Final = (CATALOGUED, UVICORN, NEW_WORDING)


STARTUP_ENDS_KEEP = 20  # startup parts listed in the coverage; the others are counted


@dataclass(frozen=True, slots=True)
class UnreadLine:
    """A candidate line that no grammar read: where it is, what it was a candidate of (a grammar, `failure` for a line
    that reads like one, NEW_WORDING), and its text."""

    source: str
    line: int
    grammar: str
    text: str

    def document(self) -> dict[str, Any]:
        return {"source": self.source, "line": self.line, "grammar": self.grammar, "text": self.text}


@dataclass
class Coverage:
    """What the classifier read: lines, candidates per grammar, and the candidates no grammar recognised."""

    lines: int = 0
    seen: Counter[str] = field(default_factory=Counter)
    recognized: Counter[str] = field(default_factory=Counter)
    recognized_lines: int = 0
    unrecognized: list[UnreadLine] = field(default_factory=list)
    unrecognized_total: int = 0
    # SGLang-prefixed lines of the startup parts that no grammar reads, by verdict (parse/wordings.py: a catalogued
    # wording, a uvicorn line, or a new wording, which is also listed in `unrecognized`), and per source where its
    # startup part ended (the running server's first line) or where the per-chunk cap stopped the judging
    prefixed: Counter[str] = field(default_factory=Counter)
    startup_ends: list[dict[str, Any]] = field(default_factory=list)
    startup_ends_total: int = 0  # past STARTUP_ENDS_KEEP (a crash loop's thousands of parts) only counted

    def startup_ended(self, source: str, start: int, end: int, why: str) -> None:
        self.startup_ends_total += 1
        if len(self.startup_ends) < STARTUP_ENDS_KEEP or why == "cap":
            self.startup_ends.append({"source": source, "from": start, "line": end, "why": why})

    def miss(self, source: str, line: int, grammar: str, text: str) -> None:
        self.unrecognized_total += 1
        # lines that read like a failure are kept past the cap: each may become a finding
        keep = 2 * UNRECOGNIZED_KEEP if grammar == "failure" else UNRECOGNIZED_KEEP
        if len(self.unrecognized) < keep:
            self.unrecognized.append(UnreadLine(source, line, grammar, text[:TEXT_KEEP]))


@dataclass
class PhaseReading:
    """One phase line of one rank: its phase id (phases.py), target or draft model, and its numbers."""

    phase: str
    model: str
    source: str
    line: int
    time: str | None
    values: dict[str, Any]
    text: str
    rank_assumed: bool = False
    full_text: str | None = None  # the whole line when `text` was cut at TEXT_KEEP (release inference reads it)


@dataclass
class RankTimeline:
    rank: RankId
    source: str
    phases: list[PhaseReading] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    # assembly state (the assembler's bookkeeping while it reads the rank's lines)
    reached: int = -1
    mode: str = "target"
    complete: bool = False
    failed: bool = False
    seen: set[tuple[Any, ...]] = field(default_factory=set)

    # ---- the query vocabulary: a rank's readings of a phase, for the target (default) or draft model
    def readings(self, phase: str, key: str | None = None, model: str | None = TARGET) -> list[PhaseReading]:
        """This rank's readings of `phase` in the order printed, of `model` (None: either) and holding `key`."""
        return [
            p
            for p in self.phases
            if p.phase == phase and (model is None or p.model == model) and (key is None or key in p.values)
        ]

    def reading(
        self, phase: str, key: str | None = None, model: str | None = TARGET, pick: Pick = "first"
    ) -> PhaseReading | None:
        """The first (or last) reading of `phase` that holds `key`; None when the rank printed none."""
        found = self.readings(phase, key, model)
        if not found:
            return None
        return found[0] if pick == "first" else found[-1]

    def value(self, phase: str, key: str, model: str | None = TARGET, pick: Pick = "first") -> Any:
        """The value `key` of that reading, or None."""
        found = self.reading(phase, key, model, pick)
        return None if found is None else found.values[key]

    def has(self, phase: str, model: str | None = TARGET) -> bool:
        return any(p.phase == phase and (model is None or p.model == model) for p in self.phases)


@dataclass
class Launch:
    """One server start: its ranks' timelines, its launch-level events, and the settings the inputs state."""

    id: int
    ranks: dict[str, RankTimeline] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)  # launch-level and untagged events
    config: dict[str, Any] = field(default_factory=dict)
    config_source: dict[str, str] = field(default_factory=dict)
    # parallel sizes the rank tags imply but no input states: lower bounds, never values
    config_lower_bounds: dict[str, dict[str, Any]] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    # the SGLang release: stated (check_env / pip) or a range inferred from the wordings (sglang_version.py)
    sglang_version: dict[str, Any] = field(default_factory=dict)
    environment: dict[str, str] = field(default_factory=dict)
    # every server argument the inputs state, as printed (the dump's Python values, the command's words)
    server_args: dict[str, Any] = field(default_factory=dict)
    server_args_source: dict[str, str] = field(default_factory=dict)
    model: dict[str, Any] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)

    def has_phases(self) -> bool:
        return any(r.phases for r in self.ranks.values())

    def rank(self, rank: RankId, source: str) -> RankTimeline:
        timeline = self.ranks.get(rank.label)
        if timeline is None:
            timeline = self.ranks[rank.label] = RankTimeline(rank=rank, source=source)
        return timeline

    def all_events(self) -> list[Event]:
        """Launch-level events, then each rank's."""
        return self.events + [e for timeline in self.ranks.values() for e in timeline.events]

    def reading(self, phase: str, key: str | None = None, model: str | None = TARGET) -> PhaseReading | None:
        """The first rank's (in the order the ranks appeared) first reading of `phase` holding `key`."""
        return next((r for t in self.ranks.values() if (r := t.reading(phase, key, model)) is not None), None)

    @property
    def ready(self) -> bool:
        return self.ready_event is not None

    @property
    def ready_event(self) -> Event | None:
        """The launch's first ready line: SGLang prints it with no rank tag, so it is the launch's event."""
        return next((e for e in self.events if e.kind == kinds.SERVER_READY), None)


@dataclass(frozen=True)
class RankPlacement:
    """Where a rank runs: its GPU (an assumption from the local rank, unless the rank's own messages name the
    device) and what the dumps say about that GPU."""

    gpu: int | None = None
    gpu_assumed: bool = True
    card_total_gib: float | None = None
    gpu_processes: int | None = None
    other_process_mib: float | None = None
    other_process_source: str = "nvidia-smi: other processes on this GPU"
    outside_allocator_mib: float | None = None


@dataclass
class GpuJoin:
    """The dumps joined with the launches. `gpus` are records of the dump fields as read (open-ended: each
    nvidia-smi form prints other fields), merged by index or bus id."""

    gpus: list[dict[str, Any]]
    topology: dict[str, Any]
    versions: dict[str, str]
    placements: dict[tuple[int, str], RankPlacement]  # (launch id, rank label) → placement
    tp_groups: dict[int, list[dict[str, Any]]]  # launch id → the links inside each TP group


@dataclass(frozen=True)
class TimelineNumbers:
    """Derived from the timeline: each reading's measured drop since the previous reading of its rank,
    and per phase the min / max / spread across ranks."""

    drops: dict[tuple[int, str, int], tuple[float, str]]  # (launch, rank, reading index) → (GiB, previous phase)
    stats: dict[int, list[dict[str, Any]]]  # launch id → phase stats rows


@dataclass(frozen=True)
class RankLedger:
    """Every GiB of one rank's card: the items, the cells they draw on, and the card total they close on."""

    items: list[dict[str, Any]]
    cells: list[Cell]
    card_total_gib: float | None
    card_total_source: str | None
    eager_comm_gib: float
    lazy_comm_gib: float
    has_readings: bool  # False: no reading to build a ledger from (items empty, card total not looked up)


FALLBACK_FINDINGS = frozenset({"custom-ar-disabled"})


@dataclass(frozen=True)
class Failure:
    """One piece of failure evidence, attributed by a signature (or by none: a crash of unknown mechanism)."""

    finding: str
    mechanism: str | None
    signature: str | None
    evidence: str  # which evidence matched: exception | line | frame | native_frame | none
    event: Event
    phase: str
    phase_basis: str
    values: dict[str, Any] = field(default_factory=dict)
    quoted: bool = False
    after_ready: bool = False
    focus: tuple[str, ...] = ()  # the parts of the evidence line a cut must keep (what the signature matched)
    matched: str | None = None  # the frame that named the mechanism, as a verdict quotes it (frame evidence only)
    said: str | None = None  # the evidence line from the signature's first words on (without its log prefix)
    signal: str | None = None  # a native crash's signal (Segmentation fault, SIGSEGV)
    native_frame: str | None = None  # the innermost native frame where it hit, as a verdict quotes it
    library: str | None = None  # the native library that frame or the error's source file belongs to
    library_frame: str | None = None  # the innermost frame of that library, when it is not native_frame
    library_via: str | None = None  # the library the crash hit in, when `library`'s code called into it (UCX under NIXL)
    library_basis: str | None = None  # what names the library that raised it, when no native frame or signature did
    # the program went on after it (a phase line, a progress bar...) before its process tree was ended (the shell's
    # "Killed" that did not give way to it): not what stopped the launch
    went_on: bool = False

    @property
    def cause(self) -> bool:
        """An error that can stop a launch (a fallback such as custom-ar-disabled is not)."""
        return self.finding not in FALLBACK_FINDINGS

    @property
    def phase_text(self) -> str:
        if self.phase == "unknown":
            return f"an unknown time ({self.phase_basis})" if self.phase_basis else "an unknown time"
        if self.phase == "startup":  # the evidence says startup, not which step
            return f"an unknown startup step ({self.phase_basis})"
        return f"{self.phase} ({self.phase_basis})"


UNRECOGNIZED = "unrecognized"  # an unmatched failure's kind when no failure was read from its line


@dataclass(frozen=True)
class UnmatchedFailure:
    """A line that reads like a failure that no signature names: `kind` is UNRECOGNIZED when nothing read a failure
    from it (a line no grammar or signature read, a glog ERROR line of no catalogued library's file), else the kind of
    the event a failure without a signature came from."""

    source: str
    line: int
    text: str
    kind: str
    serving_after: int | None = None  # the line of its input that showed the server serving before it, if any

    @property
    def unrecognized(self) -> bool:
        return self.kind == UNRECOGNIZED

    def document(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"source": self.source, "line": self.line, "text": self.text, "kind": self.kind}
        if self.serving_after is not None:
            doc["serving_after"] = self.serving_after
        return doc


@dataclass
class InputFile:
    """One input as the document lists it."""

    path: str
    kind: str  # log | nvidia-smi | check_env | unknown
    lines: int
    recognized_lines: int
    cut_lines: int = 0  # lines longer than limits.LINE_CAP, cut there
    elided_lines: int = 0  # lines the readers were given as their head and tail (limits.READ_GAP)
    encoding: str | None = None  # when not UTF-8 without a byte-order mark
    stopped: str | None = None  # why reading stopped before the end (the cap on compressed inputs)
    unterminated: bool = False  # its last line has no newline (limits.ReadNotes.unterminated); not in the document


@dataclass(frozen=True)
class UserStop:
    """The user's signal (Ctrl-C: SIGINT, or SIGTERM) that `logscope run` forwarded to the launch, `t_s` seconds
    after it started, when the log held `line` lines: the failures printed after it are the launch stopping."""

    signal: str
    t_s: float
    source: str
    line: int

    def document(self, failures_after: int) -> dict[str, Any]:
        return {
            "signal": self.signal,
            "t_s": round(self.t_s, 3),
            "source": self.source,
            "line": self.line,
            "failures_after": failures_after,
        }


@dataclass(frozen=True)
class RepeatedLaunches:
    """The launches of a crash loop aggregated rather than kept in full (pipeline/assemble/crash_loop.py): how
    many, where, how many got ready or failed, and each distinct failure line (times and numbers as N) with the
    number of aggregated launches that printed it; how many recognised records (phase readings and events) they
    held, and per phase the lowest and highest free memory a target reading printed (GiB)."""

    launches: int
    first_id: int
    last_id: int
    sources: list[str]
    first_line: int | None
    last_line: int | None
    ready: int
    failed: int
    failures: dict[str, int]
    kept: int  # the launches kept in full
    records: int = 0
    avail_gib: dict[str, tuple[float, float]] = field(default_factory=dict)

    def document(self) -> dict[str, Any]:
        return {
            "launches": self.launches,
            "ids": [self.first_id, self.last_id],
            "sources": self.sources,
            "lines": [self.first_line, self.last_line],
            "ready": self.ready,
            "failed": self.failed,
            "failures": self.failures,
            "kept_in_full": self.kept,
            "records": self.records,
            "avail_gib": {phase: list(span) for phase, span in self.avail_gib.items()},
        }


@dataclass
class Analysis:
    """Everything the pipeline found, before the rules: what the rules see (as facts) and the document shows."""

    inputs: list[InputFile]
    coverage: Coverage
    launches: list[Launch]
    global_events: list[Event]
    join: GpuJoin
    timeline: TimelineNumbers
    ledgers: dict[tuple[int, str], RankLedger]  # (launch id, rank label) → ledger
    failures: dict[int, list[Failure]]  # launch id → failures, first in time first
    unmatched_failures: list[UnmatchedFailure]
    calibration: dict[str, Any] | None = None  # the summary of the calibration file used, if any
    gpu_ledgers: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # GPU index → outside-allocator items
    kv_sizing: dict[int, Any] = field(default_factory=dict)  # launch id → kv_sizing.KvSizing (the KV sizing stage)
    # (launch id, rank label) → ledger.device.RankDevice: the NVML samples of `logscope run` at the rank's phase lines
    devices: dict[tuple[int, str], Any] = field(default_factory=dict)
    repeated: RepeatedLaunches | None = None  # a crash loop's launches aggregated rather than kept in full
    # launch id → the user's stop forwarded by `logscope run`, and how many failures followed it (set aside)
    user_stops: dict[int, tuple[UserStop, int]] = field(default_factory=dict)
