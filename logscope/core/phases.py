"""The one table of startup phases. Every consumer reads it: the assembler (order, launch splitting), the
coverage (expected phases), the ledger (which readings chain into measured items), the timeline columns
of the text / Markdown / HTML views and the Mermaid gantt.

Adding a phase line: the CONTRIBUTING.md recipe ("How to add ..."): its kind in the catalogue (logscope/core/kinds.py), its
grammar rule and transformer method, one row here, and a fixture or golden that shows it."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

from logscope.core import kinds


@dataclass(frozen=True, slots=True)
class Column:
    """A column of the per-rank timeline table: the value `key` of this phase's reading."""

    title: str
    key: str = "avail_gib"
    graph: str | None = None  # only readings of this CUDA-graph kind ("verify" counts as decode)


@dataclass(frozen=True, slots=True)
class LedgerLink:
    """This phase's reading is a link of the ledger chain; `item` names the drop that ends at it."""

    item: str | None
    pick: str = "first"  # which reading when there are several: "first" or "last"


@dataclass(frozen=True, slots=True)
class Phase:
    id: str
    _: KW_ONLY  # the rest by name only: a positional second argument (a hand-typed order) is refused
    # printed at the same point of a startup as the row above it (another wording of that moment, or a reading
    # taken inside it): the order of a phase is its row's place in PHASES, counting such rows with the one above
    same_point: bool = False
    expected: bool = False  # a complete startup prints it (coverage lists it as missing otherwise)
    column: Column | None = None
    ledger: LedgerLink | None = None
    gantt: tuple[str, str] | None = None  # (segment title, the phase that starts the segment ending here)
    progress: bool = False  # a progress reading inside another phase (tqdm), not a phase boundary
    after: str = ""  # the stage in progress once this line is printed (where a later failure happened): a STAGES word


# The stages of a startup, then serving: a failure is placed in one (a phase line ends one stage and begins the
# next; a signature's `phase:` and a frame locator name one). A stage is a span, a phase a line that SGLang prints.
# "startup": the evidence places a failure in startup without naming the stage.
STAGES = ("init_distributed", "load_weight", "memory_pool", "capture", "warmup", "disaggregation", "startup", "serving")

PHASES: tuple[Phase, ...] = (
    Phase(kinds.INIT_DISTRIBUTED_BEGIN, after="init_distributed", expected=True),
    Phase(
        kinds.INIT_DISTRIBUTED_END,
        after="load_weight",
        expected=True,
        column=Column("init used", "usage_gib"),
        gantt=("init distributed", kinds.INIT_DISTRIBUTED_BEGIN),
    ),
    # 0.5.21+: "Init parallel ends. elapsed=" (no reading); the reading follows as "Memory baseline taken"
    Phase(kinds.INIT_PARALLEL_END, same_point=True, after="load_weight"),
    Phase(kinds.NCCL_PREWARM, same_point=True, after="load_weight"),
    Phase(kinds.LOAD_WEIGHT_BEGIN, after="load_weight", expected=True, column=Column("load begin"), ledger=LedgerLink(None)),
    Phase(
        kinds.LOAD_WEIGHT_END,
        after="memory_pool",
        expected=True,
        column=Column("load end"),
        ledger=LedgerLink("weights"),
        gantt=("load weights", kinds.LOAD_WEIGHT_BEGIN),
    ),
    Phase(kinds.KV_CACHE_ALLOCATED, after="memory_pool", expected=True, column=Column("KV pool", "kv_gib")),
    Phase(kinds.OTHER_POOL_ALLOCATED, same_point=True, after="memory_pool"),
    Phase(
        kinds.MEMORY_POOL_END,
        after="capture",
        expected=True,
        column=Column("pool end"),
        ledger=LedgerLink("kv_pool"),
        gantt=("KV pool", kinds.LOAD_WEIGHT_END),
    ),
    Phase(
        kinds.CAPTURE_BEGIN,
        after="capture",
        expected=True,
        column=Column("cap. begin", graph="decode"),
        ledger=LedgerLink("before_capture", "first"),
    ),
    Phase(kinds.CAPTURE_PROGRESS, same_point=True, after="capture", progress=True),
    Phase(
        kinds.CAPTURE_END,
        after="warmup",
        expected=True,
        column=Column("cap. end", graph="decode"),
        ledger=LedgerLink("cuda_graphs", "last"),
        gantt=("CUDA graph capture", kinds.CAPTURE_BEGIN),
    ),
    Phase(kinds.SCHEDULER_SUMMARY, after="warmup", column=Column("summary"), ledger=LedgerLink("after_capture")),
    Phase(kinds.SERVER_READY, after="serving"),
)

_index: tuple[tuple[Phase, ...], dict[str, Phase], dict[str, int]] = ((), {}, {})


def _indexed() -> tuple[tuple[Phase, ...], dict[str, Phase], dict[str, int]]:
    """The table by phase id and each phase's order (rebuilt when the table changes, as a test that adds a phase
    does): a new row between two others gets an order between theirs, and the rows after it move on."""
    global _index
    if _index[0] is not PHASES:
        orders: dict[str, int] = {}
        position = -1
        for phase in PHASES:
            position += 0 if phase.same_point and position >= 0 else 1
            orders[phase.id] = position
        _index = (PHASES, {phase.id: phase for phase in PHASES}, orders)
    return _index


def by_id() -> dict[str, Phase]:
    return _indexed()[1]


def order_of(phase_id: str) -> int:
    """The phase's position in a startup; phases printed at the same point share one."""
    return _indexed()[2][phase_id]


def is_phase(kind: str) -> bool:
    return kind in by_id()


def expected_phases() -> tuple[str, ...]:
    return tuple(p.id for p in PHASES if p.expected)


def ledger_chain() -> tuple[Phase, ...]:
    """The phases whose readings chain into ledger items, in startup order."""
    return tuple(p for p in PHASES if p.ledger is not None)


# SGLANG_ENABLE_POST_CAPTURE_KV_SIZING: the KV pool is sized after the graphs; the chain's order and the item
# each link ends become these (phase id, item)
POST_CAPTURE_CHAIN: tuple[tuple[str, str | None], ...] = (
    (kinds.LOAD_WEIGHT_BEGIN, None),
    (kinds.LOAD_WEIGHT_END, "weights"),
    (kinds.CAPTURE_BEGIN, "before_capture"),
    (kinds.CAPTURE_END, "cuda_graphs"),
    (kinds.MEMORY_POOL_END, "kv_pool"),
    (kinds.SCHEDULER_SUMMARY, "after_pool"),
)


def ledger_links(post_capture: bool) -> tuple[tuple[str, str | None, str], ...]:
    """(phase id, item the drop ending at it is, which reading to take) in the order the startup prints them."""
    if post_capture:
        picks = {p.id: p.ledger.pick for p in ledger_chain() if p.ledger is not None}
        return tuple((phase, item, picks[phase]) for phase, item in POST_CAPTURE_CHAIN)
    return tuple((p.id, p.ledger.item, p.ledger.pick) for p in ledger_chain() if p.ledger is not None)


def columns() -> tuple[tuple[Phase, Column], ...]:
    return tuple((p, p.column) for p in PHASES if p.column is not None)


def gantt_segments() -> tuple[tuple[str, str, str], ...]:
    """(title, start phase, end phase) for each segment of the startup gantt."""
    return tuple((p.gantt[0], p.gantt[1], p.id) for p in PHASES if p.gantt is not None)


def stage_after(phase_id: str) -> str:
    """The startup stage in progress after this phase line (SGLang's fixed order: init → load → pool → capture
    → warmup → serving)."""
    return by_id()[phase_id].after


def progress_phases() -> frozenset[str]:
    return frozenset(p.id for p in PHASES if p.progress)
