"""The typed model every stage returns and the next one reads. Data flows one way:

    ingest (Source) → classify (events, Coverage) → assemble (Launch: ranks, readings, settings)
    → join_gpus (GpuJoin) · timeline_numbers (TimelineNumbers) · ledgers (RankLedger) · failures (Failure)
    → Analysis → rules (findings) → the logscope/1 document (report/json.py) → views.

No stage writes into another stage's product; the document is built once, at the end."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from logscope.events import Event, RankId

UNRECOGNIZED_KEEP = 2000
TEXT_KEEP = 300


@dataclass
class Coverage:
    """What the classifier read: lines, candidates per grammar, and the candidates no grammar recognised."""

    lines: int = 0
    seen: Counter = field(default_factory=Counter)
    recognized: Counter = field(default_factory=Counter)
    recognized_lines: int = 0
    unrecognized: list[dict[str, Any]] = field(default_factory=list)
    unrecognized_total: int = 0

    def miss(self, source: str, line: int, grammar: str, text: str) -> None:
        self.unrecognized_total += 1
        if len(self.unrecognized) < UNRECOGNIZED_KEEP:
            self.unrecognized.append({"source": source, "line": line, "grammar": grammar, "text": text[:TEXT_KEEP]})


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
    seen: set = field(default_factory=set)


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

    @property
    def ready(self) -> bool:
        return any(e.kind == "server_ready" for e in self.events)


@dataclass(frozen=True)
class RankPlacement:
    """Where a rank runs: its GPU (always an assumption: the log never prints the device) and what the dumps
    say about that GPU."""

    gpu: int | None = None
    gpu_assumed: bool = True
    card_total_gib: float | None = None
    gpu_processes: int | None = None
    other_process_mib: float | None = None
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
    """Derived from the polars timeline: each reading's measured drop since the previous reading of its rank,
    and per phase the min / max / spread across ranks."""

    drops: dict[tuple[int, str, int], tuple[float, str]]  # (launch, rank, reading index) → (GiB, previous phase)
    stats: dict[int, list[dict[str, Any]]]  # launch id → phase stats rows


@dataclass(frozen=True)
class RankLedger:
    """Every GiB of one rank's card: the items, the cells they draw on, and the card total they close on."""

    items: list[dict[str, Any]]
    cells: list[dict[str, Any]]
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

    @property
    def cause(self) -> bool:
        """An error that can stop a launch (a fallback such as custom-ar-disabled is not)."""
        return self.finding not in FALLBACK_FINDINGS

    @property
    def phase_text(self) -> str:
        if self.phase == "unknown":
            return "an unknown phase (no phase line of this rank before it, and no frame that locates it)"
        return f"{self.phase} ({self.phase_basis})"


@dataclass
class InputFile:
    """One input as the document lists it."""

    path: str
    kind: str  # log | nvidia-smi | check_env | unknown
    lines: int
    recognized_lines: int


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
    unmatched_failures: list[dict[str, Any]]
    calibration: dict[str, Any] | None = None  # the summary of the calibration file used, if any
    gpu_ledgers: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # GPU index → outside-allocator items
