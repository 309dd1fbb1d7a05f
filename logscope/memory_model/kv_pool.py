"""How one launch sized its KV pool, rebuilt from its readings with SGLang's own profile formula:

    budget = MIN free after weights - MIN free before weights x (1 - mem_fraction_static) - reservations
    tokens = budget // cell_size, floored to a multiple of page_size, then the user cap (max_total_tokens)

Every number is a Figure: its value, how it is known (measured, stated, derived, inferred, assumed) and the
line it comes from. What the inputs do not show stays None, with the reason in `missing`."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from logscope.core import kinds
from logscope.core.events import Event
from logscope.core.model import Launch, PhaseReading, RankTimeline
from logscope.memory_model.record import ReleaseRecord, Sourced
from logscope.memory_model.releases import ReleaseChoice, inherited, launch_release, records, release_for

GIB = 1 << 30
# a K or V size is printed with two decimals: each printed GiB is within 0.005 of the true size
PRINT_HALF_STEP = 0.005
# cell sizes are whole multiples of this many bytes for every head size and dtype SGLang uses
# (head_dim x bytes, (kv_lora_rank + rope) x bytes); a derived size is snapped when one multiple fits the rounding
CELL_GRANULE = 32
_DTYPE_BYTES = {
    "bfloat16": 2,
    "float16": 2,
    "half": 2,
    "float32": 4,
    "float": 4,
    "fp8_e4m3": 1,
    "fp8_e5m2": 1,
    "float8_e4m3fn": 1,
    "float8_e5m2": 1,
    "float8_e4m3fnuz": 1,
    "fp8": 1,
}


@dataclass(frozen=True, slots=True)
class Figure:
    """A number quoted in a diagnosis, with how it is known and its evidence line."""

    value: Any
    kind: str  # measured | stated | derived | inferred | assumed | estimated
    basis: str
    rank: str | None = None
    source: str | None = None
    line: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": self.value, "kind": self.kind, "basis": self.basis}
        for key in ("rank", "source", "line"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out


@dataclass
class Layout:
    """The parallel layout a launch states (or its rank tags bound from below)."""

    tp: int = 1
    dp: int = 1
    pp: int = 1
    ep: int = 1
    dp_attention: bool = False
    stated: dict[str, bool] = field(default_factory=dict)

    @property
    def attention_tp(self) -> int:
        return max(1, self.tp // self.dp) if self.dp_attention and self.dp > 1 else self.tp

    def describe(self) -> str:
        def told(name: str) -> str:
            return "" if self.stated.get(name, True) else " (from rank tags)"

        parts = [f"tp {self.tp}{told('tp')}"]
        for name, value in (("dp", self.dp), ("pp", self.pp), ("ep", self.ep)):
            if value > 1:
                parts.append(f"{name} {value}{told(name)}")
        if self.dp_attention:
            parts.append(f"dp-attention{told('dp_attention')} (attention tp {self.attention_tp})")
        return ", ".join(parts)


@dataclass
class KvSizing:
    """One launch's KV sizing: the profile inputs, the pool it got, and what the inputs leave unknown."""

    launch: int
    layout: Layout
    ranks: int
    pre_gib: Figure | None = None  # MIN free before weights (SGLang's pre_model_load_memory)
    post_gib: Figure | None = None  # MIN free after the target weights
    mem_fraction_static: Figure | None = None
    reserved_gib: Figure | None = None
    budget_gib: Figure | None = None
    tokens: Figure | None = None
    kv_gib: Figure | None = None
    attention: str = "unknown"  # MHA | MLA | hybrid | unknown
    cell_bytes: Figure | None = None
    cell_half_width: float = 0.0  # bytes either side of a derived, unsnapped cell size
    draft_cell_bytes: Figure | None = None
    page_size: Figure | None = None
    cap_tokens: Figure | None = None
    init_usage_gib: Figure | None = None
    limiting_init_gib: Figure | None = None  # Init torch distributed mem usage of the rank that sets pre_gib
    kv_heads: int | None = None  # from config.json, when given
    layers: int | None = None
    pool_end_gib: Figure | None = None
    graphs_gib: Figure | None = None
    kv_dtype: str | None = None
    missing: list[str] = field(default_factory=list)

    @property
    def loaded_gib(self) -> float | None:
        """MIN free before weights minus MIN free after them: what loading took on the limiting ranks."""
        if self.pre_gib is None or self.post_gib is None:
            return None
        return float(self.pre_gib.value - self.post_gib.value)

    @property
    def min_fraction_static(self) -> float | None:
        """The mem_fraction_static below which the profile formula leaves no KV budget: 1 - post / pre."""
        if self.pre_gib is None or self.post_gib is None or self.pre_gib.value <= 0:
            return None
        return round(1 - float(self.post_gib.value) / float(self.pre_gib.value), 3)

    @property
    def effective_cell(self) -> float | None:
        """Bytes one token costs the budget: the target's cell, plus the draft model's when it has a pool."""
        if self.cell_bytes is None:
            return None
        return float(self.cell_bytes.value + (self.draft_cell_bytes.value if self.draft_cell_bytes else 0))

    @property
    def implied_tokens(self) -> float | None:
        if self.budget_gib is None or self.effective_cell is None:
            return None
        return float(self.budget_gib.value) * GIB / self.effective_cell

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "launch": self.launch,
            "layout": self.layout.describe(),
            "ranks": self.ranks,
            "attention": self.attention,
        }
        for name in (
            "pre_gib",
            "post_gib",
            "mem_fraction_static",
            "reserved_gib",
            "budget_gib",
            "tokens",
            "kv_gib",
            "cell_bytes",
            "draft_cell_bytes",
            "page_size",
            "cap_tokens",
            "init_usage_gib",
            "pool_end_gib",
            "graphs_gib",
        ):
            figure = getattr(self, name)
            out[name] = figure.to_json() if figure is not None else None
        if self.loaded_gib is not None:
            out["loaded_gib"] = round(self.loaded_gib, 2)
        if self.min_fraction_static is not None:
            out["min_fraction_static"] = self.min_fraction_static
        if self.implied_tokens is not None:
            out["implied_tokens"] = round(self.implied_tokens, 1)
        out["missing"] = list(self.missing)
        return out


def layout_of(launch: Launch) -> Layout:
    cfg = launch.config
    layout = Layout()
    for name, key in (("tp", "tp_size"), ("dp", "dp_size"), ("pp", "pp_size"), ("ep", "ep_size")):
        value = cfg.get(key)
        if value is None:
            bound = launch.config_lower_bounds.get(key, {}).get("at_least")
            value, stated = (bound, False) if bound is not None else (1, False)
        else:
            stated = True
        setattr(layout, name, int(value))
        layout.stated[name] = stated
    layout.dp_attention = bool(cfg.get("enable_dp_attention"))
    layout.stated["dp_attention"] = "enable_dp_attention" in cfg
    if not layout.stated["dp_attention"] and _tags_show_dp_attention(launch):
        layout.dp_attention = True
    return layout


def _tags_show_dp_attention(launch: Launch) -> bool:
    """SGLang tags a rank `DPd TPt`. Plain DP restarts the TP index in every replica (DP1 TP0); under DP attention
    the TP index is global and each DP rank owns a block of it (DP1 TP1 with tp 4, dp 4)."""
    tags = [(t.rank.get("dp"), t.rank.get("tp")) for t in launch.ranks.values()]
    pairs = [(dp, tp) for dp, tp in tags if dp is not None and tp is not None]
    if not pairs or len(pairs) != len(tags):
        return False
    dps = {dp for dp, _ in pairs}
    tp_count = max(tp for _, tp in pairs) + 1
    if len(dps) < 2 or tp_count % len(dps):
        return False
    block = tp_count // len(dps)
    return all(tp // block == dp for dp, tp in pairs) and any(dp > 0 for dp in dps)


def target_reading(timeline: RankTimeline, phase: str, key: str, model: str = "target") -> PhaseReading | None:
    return timeline.reading(phase, key, model)


def _main_pool(timeline: RankTimeline, model: str = "target") -> PhaseReading | None:
    """The KV pool whose tokens SGLang profiled: the full-attention pool of a hybrid model, else the first."""
    pools = timeline.readings(kinds.KV_CACHE_ALLOCATED, "tokens", model)
    return next((p for p in pools if p.values.get("pool") == "full"), pools[0] if pools else None)


def _lowest(launch: Launch, pick: Any, what: str, kind: str = "measured") -> Figure | None:
    """The lowest value over the ranks: SGLang takes the MIN over the world for both profile readings."""
    found = []
    for label, timeline in launch.ranks.items():
        reading = pick(timeline)
        if reading is not None:
            found.append((reading[0], label, reading[1]))
    if not found:
        return None
    value, label, reading = min(found, key=lambda f: f[0])
    basis = f"{what}, lowest of {len(found)} rank(s)" if len(found) > 1 else what
    return Figure(round(value, 2), kind, basis, label, reading.source, reading.line)


def free_before_weights(timeline: RankTimeline) -> tuple[float, PhaseReading] | None:
    begin = target_reading(timeline, kinds.LOAD_WEIGHT_BEGIN, "avail_gib")
    if begin is not None:
        return begin.values["avail_gib"], begin
    end = target_reading(timeline, kinds.LOAD_WEIGHT_END, "avail_gib")
    if end is not None and "usage_gib" in end.values:
        return end.values["avail_gib"] + end.values["usage_gib"], end
    return None


def _post(timeline: RankTimeline) -> tuple[float, PhaseReading] | None:
    end = target_reading(timeline, kinds.LOAD_WEIGHT_END, "avail_gib")
    return (end.values["avail_gib"], end) if end is not None else None


def _value(reading: PhaseReading | None, key: str) -> tuple[float, PhaseReading] | None:
    return (reading.values[key], reading) if reading is not None and key in reading.values else None


def dtype_bytes(name: str | None) -> float | None:
    if not name:
        return None
    key = str(name).lower().removeprefix("torch.")
    if "fp4" in key or "float4" in key:
        return None  # FP4 pools add scale tensors whose layout the log does not show
    return _DTYPE_BYTES.get(key)


def derive_cell(kv_gib: float, tokens: int, page: int, attention: str) -> tuple[float, float, bool]:
    """Bytes per token from a printed pool size: (cell, half width of the rounding interval, snapped).
    SGLang allocates tokens + page_size rows; an MHA pool prints K and V apart, each rounded to 0.01."""
    rows = tokens + page
    half_gib = PRINT_HALF_STEP * (2 if attention == "MHA" else 1)
    low, high = (kv_gib - half_gib) * GIB / rows, (kv_gib + half_gib) * GIB / rows
    multiples = range(math.ceil(low / CELL_GRANULE), math.floor(high / CELL_GRANULE) + 1)
    if len(multiples) == 1:
        return float(multiples[0] * CELL_GRANULE), 0.0, True
    return kv_gib * GIB / rows, (high - low) / 2, False


def config_cell(
    model_config: dict[str, Any], layout: Layout, element_bytes: float, release: ReleaseChoice | None = None
) -> tuple[int, str] | None:
    """SGLang's cell size from a Hugging Face config.json: MLA (kv_lora_rank + qk_rope_head_dim) x layers x bytes,
    not divided by TP, plus DeepSeek V3.2's indexer keys (index_head_dim + index_head_dim // block x scale bytes,
    one byte each, per layer); MHA max(1, kv_heads // attention_tp) x (head_dim + v_head_dim) x layers x bytes.
    Layers are those of one PP stage. None when the config lacks the sizes."""
    cfg: dict[str, Any] = model_config["text_config"] if isinstance(model_config.get("text_config"), dict) else model_config
    layers = cfg.get("num_hidden_layers")
    if not isinstance(layers, int):
        return None
    stage_layers = math.ceil(layers / layout.pp)
    if isinstance(cfg.get("kv_lora_rank"), int):
        width = cfg["kv_lora_rank"] + int(cfg.get("qk_rope_head_dim") or 0)
        cell = int(width * stage_layers * element_bytes)
        how = (
            f"MLA: (kv_lora_rank {cfg['kv_lora_rank']} + qk_rope_head_dim {cfg.get('qk_rope_head_dim') or 0}) x "
            f"{stage_layers} layers x {element_bytes:g} B"
        )
        index = cfg.get("index_head_dim")
        chosen = release or release_for(None)
        block = _dsa_constant(chosen, lambda r: r.dsa_indexer.quant_block_size)
        scale = _dsa_constant(chosen, lambda r: r.dsa_indexer.scale_bytes)
        if isinstance(index, int) and block.value and scale.value is not None:
            per_layer = index + index // int(block.value) * int(scale.value)
            cell += per_layer * stage_layers
            how += (
                f" + indexer (index_head_dim {index} + {index} // {block.value} ({block.at}) x {scale.value} B "
                f"({scale.at})) x {stage_layers} layers"
            )
        return cell, how
    heads = cfg.get("num_attention_heads")
    kv_heads = cfg.get("num_key_value_heads") or heads
    head_dim = cfg.get("head_dim") or (cfg.get("hidden_size") // heads if cfg.get("hidden_size") and heads else None)
    if not isinstance(kv_heads, int) or not isinstance(head_dim, int):
        return None
    v_head_dim = int(cfg.get("v_head_dim") or head_dim)
    per_rank = max(1, kv_heads // layout.attention_tp)
    replicated = " (replicated: fewer KV heads than attention TP)" if kv_heads < layout.attention_tp else ""
    return int(per_rank * (head_dim + v_head_dim) * stage_layers * element_bytes), (
        f"MHA: max(1, {kv_heads} KV heads // attention tp {layout.attention_tp}) = {per_rank}{replicated} x "
        f"(head_dim {head_dim} + v_head_dim {v_head_dim}) x {stage_layers} layers x {element_bytes:g} B"
    )


def _dsa_constant(release: ReleaseChoice, field: Callable[[ReleaseRecord], Sourced[int]]) -> Sourced[int]:
    """A DSA indexer constant of the release, else of the newest older one, else of the newest release (a release
    without the indexer: said in `at`)."""
    found = inherited(release.record, field)
    if found.value is None:
        newest = records()[-1]
        latest = field(newest)
        found = Sourced(latest.value, f"{latest.at} (SGLang {newest.version}; not in {release.version})", found.absent)
    return found


def kv_sizing(launch: Launch, model_config: dict[str, Any] | None = None) -> KvSizing:
    layout = layout_of(launch)
    cfg = launch.config
    sizing = KvSizing(launch=launch.id, layout=layout, ranks=len(launch.ranks))
    sizing.pre_gib = _lowest(launch, free_before_weights, "free before weights (Load weight begin, or end's avail + mem usage)")
    sizing.post_gib = _lowest(launch, _post, "free after weights (Load weight end)")
    sizing.init_usage_gib = _lowest(
        launch, lambda t: _value(_init_delta(t), "usage_gib"), "Init torch distributed ends: mem usage"
    )
    if sizing.pre_gib is not None and sizing.pre_gib.rank in launch.ranks:
        own = _init_delta(launch.ranks[sizing.pre_gib.rank])
        if own is not None:
            sizing.limiting_init_gib = Figure(
                own.values["usage_gib"],
                "measured",
                "Init torch distributed ends: mem usage of the limiting rank",
                sizing.pre_gib.rank,
                own.source,
                own.line,
            )
    sizing.pool_end_gib = _lowest(
        launch,
        lambda t: _value(target_reading(t, kinds.MEMORY_POOL_END, "avail_gib"), "avail_gib"),
        "free after the KV pool (Memory pool end)",
    )
    sizing.graphs_gib = _graphs(launch)
    page = cfg.get("page_size")
    sizing.page_size = (
        Figure(int(page), "stated", f"page_size ({launch.config_source.get('page_size', 'config')})")
        if page is not None
        else Figure(1, "assumed", "SGLang's default page_size (not in the input)")
    )
    if cfg.get("max_total_tokens") is not None:
        sizing.cap_tokens = Figure(int(cfg["max_total_tokens"]), "stated", "max_total_tokens")
    _reservations(launch, sizing)
    _pool(launch, sizing, model_config)
    _budget(launch, sizing)
    return sizing


def _init_delta(timeline: RankTimeline) -> PhaseReading | None:
    """The init-distributed reading when it is the communicators' delta: 0.5.21+ print "Memory baseline taken"
    there instead, measured after every group is built (distributed/bootstrap.py measure_pre_model_load_memory),
    which holds none of them."""
    found = target_reading(timeline, kinds.INIT_DISTRIBUTED_END, "usage_gib")
    return None if found is None or found.values.get("reading") == kinds.MEMORY_BASELINE else found


def _graphs(launch: Launch) -> Figure | None:
    """What the target model's graph captures took on the rank that took most: the sum of every capture's mem
    usage (0.5.14+ capture prefill graphs, then decode graphs, each with its own begin/end line)."""
    best = None
    for label, timeline in launch.ranks.items():
        ends = timeline.readings(kinds.CAPTURE_END, "usage_gib")
        if not ends:
            continue
        total = round(sum(float(end.values["usage_gib"]) for end in ends), 2)
        if best is None or total > best.value:
            basis = "CUDA graph capture: mem usage (highest rank)"
            if len(ends) > 1:
                basis = f"CUDA graph capture: mem usage, the sum of {len(ends)} captures (highest rank)"
            best = Figure(total, "measured", basis, label, ends[0].source, ends[0].line)
    return best


def _reservations(launch: Launch, sizing: KvSizing) -> None:
    lines = [e for timeline in launch.ranks.values() for e in timeline.events if e.kind == kinds.KV_RESERVE]
    first_rank: dict[str, list[Event]] = {}
    for ev in lines:  # one rank's reservations: every rank prints the same ones
        first_rank.setdefault(ev.rank.label if ev.rank else "", []).append(ev)
    own: list[Event] = next(iter(first_rank.values()), [])
    if own:
        total = sum(float(e.data.get("reserve_gib", 0.0)) for e in own)
        sizing.reserved_gib = Figure(
            round(total, 2),
            "measured",
            "Reserving ... GB of the KV budget line(s)",
            own[0].rank.label if own[0].rank else None,
            own[0].source,
            own[0].line,
        )
    else:
        sizing.reserved_gib = Figure(0.0, "assumed", "no 'Reserving ... of the KV budget' line in the input")


def _pool(launch: Launch, sizing: KvSizing, model_config: dict[str, Any] | None) -> None:
    pools = {label: p for label, t in launch.ranks.items() if (p := _main_pool(t)) is not None}
    hybrid = any(t.has(kinds.OTHER_POOL_ALLOCATED, model=None) for t in launch.ranks.values()) or any(
        p.values.get("pool") in ("full", "swa") for t in launch.ranks.values() for p in t.phases
    )
    if not pools:
        summary = _lowest(
            launch,
            lambda t: _value(target_reading(t, kinds.SCHEDULER_SUMMARY, "tokens"), "tokens"),
            "max_total_num_tokens (scheduler summary)",
        )
        sizing.tokens = summary
        if summary is None:
            sizing.missing.append("no KV pool line (KV Cache is allocated / max_total_num_tokens)")
        else:
            sizing.missing.append("no KV Cache is allocated line: the cell size is unknown")
        sizing.attention = "hybrid" if hybrid else "unknown"
        return
    label, pool = min(pools.items(), key=lambda item: item[1].values["tokens"])
    tokens = int(pool.values["tokens"])
    basis = "KV Cache is allocated: #tokens" + (f", lowest of {len(pools)} rank(s)" if len(pools) > 1 else "")
    sizing.tokens = Figure(tokens, "measured", basis, label, pool.source, pool.line)
    sizing.attention = "hybrid" if hybrid else ("MHA" if "k_gib" in pool.values else "MLA")
    kv = pool.values.get("kv_gib")
    if kv is None:
        sizing.missing.append("the KV line prints no size")
        return
    sizing.kv_gib = Figure(
        kv,
        "measured",
        "KV Cache is allocated: K + V size" if sizing.attention == "MHA" else "KV Cache is allocated: KV size",
        label,
        pool.source,
        pool.line,
    )
    stated = pool.values.get("dtype") or launch.config.get("kv_cache_dtype")
    if stated in (None, "auto"):  # "auto": the model's dtype, printed by Load weight end
        stated = launch.model.get("dtype") or stated
    sizing.kv_dtype = str(stated) if stated else None
    page = int(sizing.page_size.value) if sizing.page_size else 1
    cell, half, snapped = derive_cell(kv, tokens, page, "MHA" if "k_gib" in pool.values else "MLA")
    how = f"{kv:.2f} GiB / ({tokens} + page {page}) rows" + (
        f", the one multiple of {CELL_GRANULE} B within the print rounding" if snapped else f", +/- {half:.1f} B"
    )
    sizing.cell_bytes = Figure(round(cell, 1), "derived", how, label, pool.source, pool.line)
    sizing.cell_half_width = half
    if model_config:
        _config_cell(launch, sizing, model_config)
    draft = next((p for p in (_main_pool(t, "draft") for t in launch.ranks.values()) if p is not None), None)
    if draft is not None and draft.values.get("kv_gib") is not None:
        d_cell, d_half, _ = derive_cell(
            draft.values["kv_gib"], int(draft.values["tokens"]), page, "MHA" if "k_gib" in draft.values else "MLA"
        )
        sizing.draft_cell_bytes = Figure(
            round(d_cell, 1), "derived", "draft model's KV line (its pool shares the budget)", None, draft.source, draft.line
        )
        sizing.cell_half_width += d_half


def _config_cell(launch: Launch, sizing: KvSizing, model_config: dict[str, Any]) -> None:
    cfg: dict[str, Any] = model_config["text_config"] if isinstance(model_config.get("text_config"), dict) else model_config
    if not isinstance(cfg.get("kv_lora_rank"), int):
        heads = cfg.get("num_key_value_heads") or cfg.get("num_attention_heads")
        sizing.kv_heads = heads if isinstance(heads, int) else None
    sizing.layers = cfg.get("num_hidden_layers") if isinstance(cfg.get("num_hidden_layers"), int) else None
    dtype = dtype_bytes(sizing.kv_dtype) or dtype_bytes(launch.model.get("dtype")) or 2
    computed = config_cell(model_config, sizing.layout, dtype, launch_release(launch.versions, launch.sglang_version))
    if computed is None or sizing.cell_bytes is None:
        return
    bytes_, how = computed
    derived = sizing.cell_bytes.value
    if abs(bytes_ - derived) <= max(sizing.cell_half_width, 0.5) + 1e-6:
        sizing.cell_bytes = Figure(
            float(bytes_),
            "derived",
            f"{how} (config.json; agrees with the KV line)",
            sizing.cell_bytes.rank,
            sizing.cell_bytes.source,
            sizing.cell_bytes.line,
        )
        sizing.cell_half_width = 0.0
    else:
        sizing.missing.append(
            f"config.json gives {bytes_} B per token ({how}) but the KV line shows {derived:.1f} B: the KV line is used"
        )


def _budget(launch: Launch, sizing: KvSizing) -> None:
    if sizing.pre_gib is None:
        sizing.missing.append("no free-memory reading before the weights (Load weight begin/end)")
    if sizing.post_gib is None:
        sizing.missing.append("no free-memory reading after the weights (Load weight end)")
    stated = launch.config.get("mem_fraction_static")
    if stated is not None:
        sizing.mem_fraction_static = Figure(
            float(stated), "stated", f"mem_fraction_static ({launch.config_source.get('mem_fraction_static', 'config')})"
        )
    if sizing.pre_gib is None or sizing.post_gib is None:
        return
    if any(p.values.get("sized_after_capture") for t in launch.ranks.values() for p in t.phases):
        sizing.missing.append(
            "the pool was sized after the CUDA graphs (post-capture KV sizing), whose budget formula the catalog does not give"
        )
        return
    reserved = sizing.reserved_gib.value if sizing.reserved_gib else 0.0
    pre, post = sizing.pre_gib.value, sizing.post_gib.value
    if sizing.mem_fraction_static is not None:
        mfs = sizing.mem_fraction_static.value
        sizing.budget_gib = Figure(
            round(post - pre * (1 - mfs) - reserved, 4),
            "derived",
            f"{post:.2f} - {pre:.2f} x (1 - {mfs:g}) - {reserved:.2f} reserved",
        )
        return
    cell = sizing.effective_cell
    if cell is None or sizing.tokens is None:
        sizing.missing.append("mem_fraction_static not in the input and no pool size to infer it from")
        return
    used = sizing.tokens.value * cell / GIB
    mfs = 1 - (post - reserved - used) / pre
    sizing.mem_fraction_static = Figure(
        mfs,
        "inferred",
        f"1 - ({post:.2f} - {reserved:.2f} - {used:.2f} GiB pool) / {pre:.2f}: "
        "the fraction that gives the logged pool (not in the input)",
    )
    sizing.budget_gib = Figure(round(used, 4), "inferred", "tokens x cell size (mem_fraction_static inferred)")
