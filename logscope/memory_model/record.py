"""A release's memory constants as typed values, read from the generated `data/cell_constants.yaml`.

Each field is a `Sourced` value: the constant and the file:line of the release's source it was read from, or
None with the reason the release lacks it (an old release without the code, or a line the extractor could
not match). Nothing here is looked up by a pair of strings: a field is an attribute."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Sourced(Generic[T]):
    """A constant of one release and where it was read; `value` None: the release has no such line (`absent`)."""

    value: T | None
    at: str | None
    absent: str | None = None


@dataclass(frozen=True)
class Heuristic:
    """custom all-reduce v2's per-mode thresholds (configs/custom_all_reduce_v2.py Heuristic / table row)."""

    one_shot_push: int
    one_shot_pull: int
    two_shot_pull: int
    mc_high: int  # the multicast range's upper bound


@dataclass(frozen=True)
class V2Row:
    graph: Heuristic
    eager: Heuristic
    two_shot_push: int


@dataclass(frozen=True)
class V2Table:
    """One arch's tuned table: a row per world size (or one row for every size: the default table)."""

    num_pull_blocks: int | None  # None: an expression of the SM count the text cannot evaluate
    num_pull_blocks_text: str
    at: str
    worlds: Mapping[int, V2Row]
    default_row: V2Row | None = None


@dataclass(frozen=True)
class V2Early:
    """The first v2 (0.5.12.post1-0.5.15.post1): one storage per rank sized by the jit kernel."""

    push_thresholds: Mapping[str, Mapping[int, int]]  # "sm100" / "default" -> world size -> one-shot push bytes
    at: str
    max_pull_bytes: Sourced[int]
    graph_input_count: Sourced[int]
    push_stages: Sourced[int]
    max_gpus: Sourced[int]


@dataclass(frozen=True)
class CustomArV2:
    present: bool
    absent: str | None
    default_on: Sourced[bool]
    max_size_kb: Sourced[int]
    align_bytes: Sourced[int]
    semaphore_bytes: Sourced[int]
    max_graph_inputs: Sourced[int]
    push_slots_per_peer: Sourced[int]
    two_shot_push_slot_rule: Sourced[str]
    arch: Mapping[str, V2Table]  # sm90 / sm100 / sm107 (absent when the release has no such table)
    other_arch: V2Table | None
    early: V2Early | None = None  # the first v2's sizing (releases without configs/custom_all_reduce_v2.py)
    opt_in_env: Sourced[str] = Sourced(None, None)  # 0.5.10.post1-0.5.11: v2 only with this variable set
    fallback_gate: Sourced[str] = Sourced(None, None)  # present: without full NVLink, v1 serves instead of v2


@dataclass(frozen=True)
class CustomArV1:
    max_size: Sourced[int]
    world_sizes: Sourced[tuple[int, ...]]
    from_vllm: Sourced[str] = Sourced(None, None)  # 0.3.x: the groups and custom all-reduce are vLLM's


@dataclass(frozen=True)
class Nccl:
    cumem_set_to: Sourced[str]
    nvls_set_to: Sourced[str]
    pre_warm_nccl: Sourced[str]  # the flag's help text; None: the release has no --pre-warm-nccl
    attention_tp_custom_ar: Sourced[bool]  # None with a line: the group inherits the TP setting
    sync_token_ids_across_tp: Sourced[bool]


@dataclass(frozen=True)
class DeepEp:
    num_max_dispatch_tokens_per_rank: Sourced[int]
    per_rank_shared_slots: Sourced[str]  # n_routed_experts + moe_ep_size, where the release has it
    shared_fusion_off_under_deepep: Sourced[str]  # deepseek_v2.py shared_experts_fusion_disable_reason's DeepEP reason
    reserve_mib: Sourced[int]  # the automatic mem_fraction_static rule's DeepEP reserve
    param_bytes: Sourced[int]
    v2_dispatcher: Sourced[str] = Sourced(None, None)  # deepep_v2: DeepEP's ElasticBuffer
    v2_prebuild: Sourced[str] = Sourced(None, None)  # where the release prebuilds it after the graph setup


@dataclass(frozen=True)
class MemFraction:
    tiers: Sourced[tuple[tuple[float | None, float, float], ...]]  # <= 0.5.2: (below MiB, MiB, MiB per rank)
    dp_attention_flat_mib: Sourced[float]  # <= 0.5.2: + this with DP attention
    base_mib: Sourced[float]
    activation_mib_per_token: Sourced[float]
    activation_floor_tokens: Sourced[int]
    graph_mib_per_bs: Sourced[float]
    parallel_mib_per_8_ranks: Sourced[float]
    floor_mib: Sourced[float]
    floor_above_mib: Sourced[float]
    dp_attention_mib_per_bs_dp: Sourced[float]
    rounding_digits: Sourced[int]
    dp_attention_large_bs_over: Sourced[int] = Sourced(None, None)  # `if max_bs > 300:` ...
    dp_attention_large_bs_mib: Sourced[float] = Sourced(None, None)  # ... + max_bs x dp x 1.5
    # 0.3.0-0.4.6: the fraction by parallel size ({by, tiers: [[at least, fraction]], otherwise, cards_up_to_mib,
    # larger_cards: {fraction | reserve_mib}, large_card_boost: {over_mib, share_mib, cap_reserve_mib}})
    parallel_tiers: Sourced[Mapping[str, Any]] = Sourced(None, None)


@dataclass(frozen=True)
class GraphReserve:
    """The automatic rule's prefill / piecewise CUDA-graph and speculative-decoding terms."""

    bucket_mib: Sourced[float]  # per captured token bucket (non-MLA)
    bucket_switch: Sourced[str]  # what turns the term on (the condition's text)
    prefill_default_backend: Sourced[str]  # 0.5.14+: the prefill graph backend by default on CUDA
    buckets: Sourced[tuple[tuple[int, int | None, int], ...]]  # range(start, stop, step); stop None: max + 1
    mla_mib: Sourced[float]  # the flat MLA term
    mla_bucket_cap: Sourced[int]  # the bucket maximum for MLA models
    deepep_breakable_mib: Sourced[float]  # + with DeepEP under a breakable prefill graph
    deepep_buckets_from: Sourced[int]  # DeepEP re-aligns the buckets generated up to this maximum
    deepep_bucket_multiple: Sourced[int]
    standalone_mib: Sourced[float]
    eagle_mib: Sourced[float]
    decode_activation: Sourced[str]  # decode nodes size activation by running requests x draft tokens
    post_capture_env: Sourced[bool]  # SGLANG_ENABLE_POST_CAPTURE_KV_SIZING's default
    post_capture_base_mib: Sourced[float]  # what the rule reserves (plus the parallel slack) when it is on
    # the `if` conditions each graph term sits under ("always": none; <= 0.5.14 adds the decode and DP terms always)
    decode_graph_gate: Sourced[str] = Sourced(None, None)
    dp_attention_gate: Sourced[str] = Sourced(None, None)
    prefill_graph_gate: Sourced[str] = Sourced(None, None)
    # backend -> ((name, condition source), ...): when the release turns that prefill graph off before the rule
    auto_disable: Sourced[Mapping[str, Any]] = Sourced(None, None)


@dataclass(frozen=True)
class Requests:
    tokens_divisor: Sourced[int]
    per_context_factor: Sourced[int]
    user_divided_by: Sourced[str]


@dataclass(frozen=True)
class Disaggregation:
    queue_size: Sourced[int]
    staging_pool_size_mb: Sourced[int]
    staging_buffer: Sourced[bool]


@dataclass(frozen=True)
class DsaIndexer:
    quant_block_size: Sourced[int]
    scale_bytes: Sourced[int]


@dataclass(frozen=True)
class Placement:
    """engine.py's GPU of a rank: base_gpu_id + pp_term + tp_term; a DP replica moves the base by dp_base_step."""

    tp_term: Sourced[str] = Sourced(None, None)  # "(tp_rank % tp_size_per_node) * server_args.gpu_id_step"
    pp_term: Sourced[str] = Sourced(None, None)  # "(pp_rank % pp_size_per_node) * tp_size_per_node"
    dp_base_step: Sourced[str] = Sourced(None, None)  # data_parallel_controller.py: base_gpu_id += this


@dataclass(frozen=True)
class ReleaseRecord:
    """Every memory constant one SGLang release's source gives, read from its wheel."""

    version: str
    wheel: str
    custom_ar_v2: CustomArV2
    custom_ar_v1: CustomArV1
    nccl: Nccl
    deepep: DeepEp
    mem_fraction: MemFraction
    graph_reserve: GraphReserve
    requests: Requests
    disaggregation: Disaggregation
    dsa_indexer: DsaIndexer
    placement: Placement = Placement()


@dataclass(frozen=True)
class DeepEpSource:
    """DeepEP's normal-mode buffer constants (deep_ep/buffers/legacy.py, csrc/legacy/config.hpp) at a commit."""

    commit: str
    num_sms: Sourced[int]
    dispatch_config: Mapping[int, tuple[int, int, int, int]]  # ranks -> (nvl send, nvl recv, rdma send, rdma recv)
    dispatch_at: str
    combine_config: Mapping[int, tuple[int, int, int, int]]
    max_topk: Sourced[int]
    max_scales: Sourced[int]
    max_nvl_peers: Sourced[int]
    topk_idx_bits: Sourced[int]
    source_meta_bytes: Sourced[int]
    nvshmem_cumem_granularity: Sourced[int]  # the NVSHMEM heap's growth step DeepEP sets


def sourced(entry: Any) -> Sourced[Any]:
    if not isinstance(entry, Mapping):
        return Sourced(None, None, "not extracted for this release")
    value = entry.get("value")
    if isinstance(value, list):
        value = tuple(value)
    return Sourced(value, entry.get("at"), entry.get("absent"))


def _heuristic(raw: Mapping[str, Any]) -> Heuristic:
    return Heuristic(int(raw["one_shot_push"]), int(raw["one_shot_pull"]), int(raw["two_shot_pull"]), int(raw["mc"][1]))


def _row(raw: Mapping[str, Any]) -> V2Row:
    return V2Row(_heuristic(raw["graph"]), _heuristic(raw["eager"]), int(raw.get("two_shot_push", 0)))


def _table(raw: Mapping[str, Any] | None) -> V2Table | None:
    if not raw:
        return None
    blocks = raw.get("num_pull_blocks")
    worlds = {int(w): _row(r) for w, r in (raw.get("worlds") or {}).items()}
    default = _row(raw["row"]) if "row" in raw else None
    return V2Table(blocks if isinstance(blocks, int) else None, str(blocks), str(raw["at"]), worlds, default)


def _early(raw: Mapping[str, Any] | None) -> V2Early | None:
    if not raw or not raw.get("push_thresholds"):
        return None
    maps = raw["push_thresholds"]
    thresholds = {arch: {int(w): int(b) for w, b in maps[arch].items()} for arch in ("sm100", "default") if arch in maps}
    return V2Early(
        thresholds,
        str(maps["at"]),
        sourced(raw.get("max_pull_bytes")),
        sourced(raw.get("graph_input_count")),
        sourced(raw.get("push_stages")),
        sourced(raw.get("max_gpus")),
    )


def _custom_ar_v2(raw: Mapping[str, Any]) -> CustomArV2:
    arch = {name: table for name, t in (raw.get("arch") or {}).items() if (table := _table(t)) is not None}
    return CustomArV2(
        present=bool(raw.get("present")),
        absent=raw.get("absent"),
        default_on=sourced(raw.get("default_on")),
        max_size_kb=sourced(raw.get("max_size_kb")),
        align_bytes=sourced(raw.get("align_bytes")),
        semaphore_bytes=sourced(raw.get("semaphore_bytes")),
        max_graph_inputs=sourced(raw.get("max_graph_inputs")),
        push_slots_per_peer=sourced(raw.get("push_slots_per_peer")),
        two_shot_push_slot_rule=sourced(raw.get("two_shot_push_slot_rule")),
        arch=arch,
        other_arch=_table(raw.get("other_arch")),
        early=_early(raw.get("early")),
        opt_in_env=sourced(raw.get("opt_in_env")),
        fallback_gate=sourced(raw.get("fallback_gate")),
    )


def _graph_reserve(raw: Mapping[str, Any]) -> GraphReserve:
    fields = {name: sourced(raw.get(name)) for name in GraphReserve.__dataclass_fields__}
    ranges = fields["buckets"]
    if ranges.value is not None:
        rows = tuple((int(r[0]), None if r[1] is None else int(r[1]), int(r[2])) for r in ranges.value)
        fields["buckets"] = Sourced(rows, ranges.at, ranges.absent)
    return GraphReserve(**fields)


def record(version: str, raw: Mapping[str, Any]) -> ReleaseRecord:
    """The typed record of one `versions:` row of cell_constants.yaml."""

    def section(name: str) -> Mapping[str, Any]:
        found = raw.get(name)
        return found if isinstance(found, Mapping) else {}

    n, d, m, r = section("nccl"), section("deepep"), section("mem_fraction"), section("max_running_requests")
    pd, dsa, v1 = section("disaggregation"), section("dsa_indexer"), section("custom_ar_v1")
    return ReleaseRecord(
        version=version,
        wheel=str(raw.get("wheel", "")),
        custom_ar_v2=_custom_ar_v2(section("custom_ar_v2")),
        custom_ar_v1=CustomArV1(sourced(v1.get("max_size")), sourced(v1.get("world_sizes")), sourced(v1.get("from_vllm"))),
        nccl=Nccl(
            sourced(n.get("cumem_set_to")),
            sourced(n.get("nvls_set_to")),
            sourced(n.get("pre_warm_nccl")),
            sourced(n.get("attention_tp_custom_ar")),
            sourced(n.get("sync_token_ids_across_tp")),
        ),
        deepep=DeepEp(
            sourced(d.get("num_max_dispatch_tokens_per_rank")),
            sourced(d.get("expert_count_per_rank_shared_slots")),
            sourced(d.get("shared_fusion_off_under_deepep")),
            sourced(d.get("reserve_mib")),
            sourced(d.get("param_bytes")),
            sourced(d.get("v2_dispatcher")),
            sourced(d.get("v2_prebuild")),
        ),
        mem_fraction=MemFraction(*(sourced(m.get(f)) for f in MemFraction.__dataclass_fields__)),
        graph_reserve=_graph_reserve(section("graph_reserve")),
        requests=Requests(*(sourced(r.get(f)) for f in Requests.__dataclass_fields__)),
        disaggregation=Disaggregation(*(sourced(pd.get(f)) for f in Disaggregation.__dataclass_fields__)),
        dsa_indexer=DsaIndexer(*(sourced(dsa.get(f)) for f in DsaIndexer.__dataclass_fields__)),
        placement=Placement(*(sourced(section("placement").get(f)) for f in Placement.__dataclass_fields__)),
    )


def _config(raw: Mapping[str, Any]) -> tuple[dict[int, tuple[int, int, int, int]], str]:
    ranks = {int(k): (int(v[0]), int(v[1]), int(v[2]), int(v[3])) for k, v in raw["ranks"].items()}
    return ranks, str(raw["at"])


def deepep_source(raw: Mapping[str, Any] | None) -> DeepEpSource | None:
    if not raw:
        return None
    dispatch, dispatch_at = _config(raw["dispatch_config"])
    combine, _ = _config(raw["combine_config"])
    return DeepEpSource(
        commit=str(raw["commit"]),
        num_sms=sourced(raw["num_sms"]),
        dispatch_config=dispatch,
        dispatch_at=dispatch_at,
        combine_config=combine,
        max_topk=sourced(raw["max_topk"]),
        max_scales=sourced(raw["max_scales"]),
        max_nvl_peers=sourced(raw["max_nvl_peers"]),
        topk_idx_bits=sourced(raw["topk_idx_bits"]),
        source_meta_bytes=sourced(raw["source_meta_bytes"]),
        nvshmem_cumem_granularity=sourced(raw.get("nvshmem_cumem_granularity")),
    )
