"""DeepEP buffer sizes for SGLang's call, and the expert count SGLang's DeepSeek code passes.

- low latency: DeepEP's get_low_latency_rdma_size_hint (csrc/legacy/config.hpp LowLatencyLayout);
- normal: the larger of the default dispatch/combine configs' get_nvl_buffer_size_hint /
  get_rdma_buffer_size_hint (csrc/legacy/config.hpp), for the configs of deep_ep/buffers/legacy.py;
- the NVSHMEM heap that holds the RDMA buffer grows in NVSHMEM_CUMEM_GRANULARITY steps (DeepEP sets 2**29 in
  deep_ep/buffers/legacy.py Buffer.__init__), so what is reserved is the request rounded up to a step."""

from __future__ import annotations

from dataclasses import dataclass

from logscope.memory_model.record import DeepEpSource, ReleaseRecord


def low_latency_bytes(num_max_tokens: int, hidden: int, num_experts: int) -> int:
    """BF16 messages of int4 + max(2 x hidden, hidden + 4 x hidden/128) bytes (dispatch) and
    4 x hidden/128 + 2 x hidden (combine); 2 send + 2 receive buffers + 2 signalling buffers, aligned to 128 B."""
    scales = hidden // 128
    dispatch = 16 + max(2 * hidden, hidden + 4 * scales)
    combine = 4 * scales + 2 * hidden
    send = max(num_max_tokens * dispatch, num_experts * num_max_tokens * combine)
    recv = max(num_experts * num_max_tokens * dispatch, num_experts * num_max_tokens * combine)
    signaling = -(-(4 * num_experts) // 128) * 128
    total = 2 * send + 2 * recv + 2 * signaling
    return (total // 128 + 1) * 128


def reserved_bytes(requested: int, granularity: int | None) -> int:
    """The NVSHMEM heap for a request: whole granularity steps (the request itself when the step is unknown)."""
    if not granularity:
        return requested
    return -(-requested // granularity) * granularity


def normal_bytes(hidden_bytes: int, ranks: int, source: DeepEpSource) -> tuple[int, int] | None:
    """(NVL bytes, RDMA bytes) of normal mode; None when DeepEP has no default config for this rank count."""
    peers = source.max_nvl_peers.value
    topk, scales, meta = source.max_topk.value, source.max_scales.value, source.source_meta_bytes.value
    bits, sms = source.topk_idx_bits.value, source.num_sms.value
    if None in (peers, topk, scales, meta, bits, sms):
        return None
    assert peers is not None and topk is not None and scales is not None and meta is not None
    assert bits is not None and sms is not None
    channels = sms // 2
    nvl_bytes = rdma_bytes = 0
    for table in (source.dispatch_config, source.combine_config):
        row = table.get(ranks)
        if row is None:
            return None
        _nvl_send, nvl_recv, rdma_send, rdma_recv = row
        rdma_ranks, nvl_ranks = max(ranks // peers, 1), min(ranks, peers)
        per_token = hidden_bytes + meta + topk * (bits // 8) + topk * 4 + scales * 4
        nvl = channels * nvl_ranks * (2 * rdma_ranks + 3) * 4 + channels * nvl_ranks * nvl_recv * per_token
        nvl_bytes = max(nvl_bytes, -(-nvl // 128) * 128)
        if ranks > peers:
            recv = -(-rdma_recv // rdma_send) * rdma_send  # Config aligns rdma recv tokens up to the send chunk
            rdma = channels * rdma_ranks * (peers * 2 + 2) * 2 * 4 + channels * rdma_ranks * recv * (per_token + 16) * 2
            rdma_bytes = max(rdma_bytes, -(-rdma // 128) * 128)
    return nvl_bytes, rdma_bytes


@dataclass(frozen=True)
class ExpertCount:
    total: int
    how: str  # "256 routed + 16 per-rank shared slots (ep 16)"
    source: tuple[str, ...]


def expert_count(
    release: ReleaseRecord, routed: int, shared_experts: int, ep: int, redundant: int, enforce_fusion: bool
) -> ExpertCount:
    """num_experts the release's DeepSeek MoE layer builds under DeepEP: n_routed_experts, + ep_size per-rank
    shared slots where the release has them and shared-expert fusion is on, + redundant experts. Releases whose
    shared_experts_fusion_disable_reason turns fusion off under DeepEP use the routed count unless
    --enforce-shared-experts-fusion."""
    rule = release.deepep
    fusion_off = rule.shared_fusion_off_under_deepep.value is not None and not enforce_fusion
    slots = ep if shared_experts and rule.per_rank_shared_slots.value and not fusion_off else 0
    parts = [f"{routed} routed"]
    if slots:
        parts.append(f"{slots} per-rank shared slots (ep {ep})")
    elif shared_experts and rule.per_rank_shared_slots.value and fusion_off:
        parts.append("no shared slots: shared-expert fusion is off under DeepEP (--enforce-shared-experts-fusion not set)")
    if redundant:
        parts.append(f"{redundant} redundant")
    at = tuple(a for a in (rule.per_rank_shared_slots.at, rule.shared_fusion_off_under_deepep.at) if a)
    return ExpertCount(routed + slots + redundant, " + ".join(parts), at)


@dataclass(frozen=True)
class DispatchBudget:
    """What the DeepEP rules read: the dispatch cap in force, the low-latency buffer it sizes, and the memory
    left after the KV pool."""

    tokens: int | None  # SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK as set, else the release's default
    tokens_set: bool  # set in the input
    default_tokens: int | None  # the release's default (environ.py)
    release: str
    low_latency_gib: float | None  # the buffer requested (get_low_latency_rdma_size_hint)
    reserved_gib: float | None  # the NVSHMEM heap it takes (whole NVSHMEM_CUMEM_GRANULARITY steps)
    room_gib: float | None  # free memory at the capture begin (or memory pool end) of the first rank that printed it

    def fit_tokens(self, free_gib: float | None, headroom_gib: float = 0.5) -> int | None:
        """The cap whose buffer fits `free_gib` less a headroom: the buffer grows linearly with the cap."""
        if free_gib is None or not self.low_latency_gib or self.tokens is None:
            return None
        return int(round(max(free_gib - headroom_gib, 0.0) / self.low_latency_gib * self.tokens - 0.5))
