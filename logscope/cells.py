"""Communication memory as group x mechanism cells, estimated from the config found.

Constants and size formulas are SGLang's and DeepEP's own (custom all-reduce v1/v2 buffers, DeepEP's
low-latency RDMA size hint, PD staging buffers, the symmetric-memory preallocation). NCCL communicator sizes
are calibrated on the H200 probe in fixtures/h200 (650 MiB eager init, 388 MiB for a split communicator at
world size 1); they vary with
channels, peers and NCCL_BUFFSIZE, so every cell says `estimated` and how it was computed.
"""

from __future__ import annotations

from typing import Any

from logscope import kinds
from logscope.calibration import Calibration
from logscope.events import Event
from logscope.model import Launch
from logscope.model_table import moe_shape

MIB = 1 << 20
GIB = 1 << 30
NCCL_EAGER_MIB = 650
NCCL_SPLIT_MIB = 388
CUSTOM_AR_V1_MAX = 8 * MIB
_V2_SM90_PUSH = {2: 16 * MIB, 3: 512 * 1024, 4: 384 * 1024, 5: 256 * 1024, 6: 192 * 1024, 7: 192 * 1024, 8: 128 * 1024}


def deepep_low_latency_bytes(num_max_tokens: int, hidden: int, num_experts: int) -> int:
    """DeepEP's get_low_latency_rdma_size_hint closed form (BF16 sizing), aligned to 128 bytes."""
    scales = hidden // 128
    dispatch = 16 + max(2 * hidden, hidden + 4 * scales)
    combine = 4 * scales + 2 * hidden
    send = max(num_max_tokens * dispatch, num_experts * num_max_tokens * combine)
    recv = max(num_experts * num_max_tokens * dispatch, num_experts * num_max_tokens * combine)
    signaling = -(-(4 * num_experts) // 128) * 128
    total = 2 * send + 2 * recv + 2 * signaling
    return (total // 128 + 1) * 128


def custom_ar_v2_bytes(world: int, max_size: int = 16 * MIB) -> tuple[int, int]:
    """(symmetric workspace, local buffer) of CustomAllReduceV2 with the SM90 table (catalog 4.4)."""
    push = min(_V2_SM90_PUSH.get(world, MIB), max_size)
    pull = min(16 * MIB, max_size)
    pull_blocks = 64
    workspace = 2 * world * push + pull + 128 * pull_blocks
    local = 131072 * world * 8
    return workspace, local


def _cell(group: str, mechanism: str, gib: float | None, timing: str, basis: str) -> dict[str, Any]:
    return {"group": group, "mechanism": mechanism, "gib": None if gib is None else round(gib, 3),
            "kind": "estimated", "timing": timing, "basis": basis}


# (cell group, cell mechanism) → the probe mechanisms that measure it (summed), and which group's size applies;
# "rank": the size does not matter (a rank's own buffers)
_PROBED = {
    ("tp", "pynccl"): (("nccl_communicator", "nccl_first_collective"), "tp"),
    ("tp", "torch_nccl"): (("nccl_split_communicator",), "tp"),
    ("attention_tp", "torch_nccl"): (("nccl_split_communicator",), "attention_tp"),
    ("moe_ep", "torch_nccl"): (("nccl_split_communicator",), "ep"),
    ("pp", "pynccl"): (("nccl_communicator", "nccl_first_collective"), "pp"),
    ("pp", "torch_nccl_p2p"): (("nccl_p2p",), "pp"),
    ("tp", "custom_ar"): (("custom_ar_ipc",), "rank"),
}


def calibrate_cells(cells: list[dict[str, Any]], calibration: Calibration | None,
                    sizes: dict[str, int]) -> list[dict[str, Any]]:
    """Cells whose mechanism the calibration measured at this group size become `measured (probe)`: the
    memory outside the PyTorch allocator that the probe's stage took. Others keep their estimate, and say why."""
    if calibration is None:
        return cells
    out = []
    for cell in cells:
        probed = _PROBED.get((cell["group"], cell["mechanism"]))
        if probed is None:
            out.append(cell)
            continue
        mechanisms, group = probed
        size = None if group == "rank" else sizes.get(group)
        found = [calibration.lookup(m, size) for m in mechanisms]
        if any(f is None for f in found):
            at = f" at group size {size}" if size is not None else ""
            out.append({**cell, "basis": f"{cell['basis']}; the calibration {calibration.label()} has no "
                                         f"{'/'.join(m for m, f in zip(mechanisms, found) if f is None)}{at}"})
            continue
        mib = sum(f.outside_allocator_mib for f in found if f is not None)
        stages = " + ".join(f"{f.stage} {f.outside_allocator_mib:.0f} MiB" for f in found if f is not None)
        scope = "a rank's own buffers" if group == "rank" else f"group size {size}"
        out.append({**cell, "gib": round(mib / 1024, 3), "kind": "measured (probe)",
                    "basis": f"probe on {calibration.gpu or 'unknown GPU'}: {stages} ({scope}; {calibration.label()})"})
    return out


def _int(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def launch_cells(launch: Launch, calibration: Calibration | None = None) -> list[dict[str, Any]]:
    """The cells one rank of this launch holds (the same on every rank of a symmetric launch), measured by the
    calibration where it covers them, else estimated."""
    cfg = launch.config
    env = launch.environment
    bounds = launch.config_lower_bounds
    events = launch.all_events()

    def size(key: str) -> int:  # the stated size, else the lower bound the rank tags show (enough to know a group exists)
        return _int(cfg.get(key), _int(bounds.get(key, {}).get("at_least"), 1))

    tp, dp, ep, pp = size("tp_size"), size("dp_size"), size("ep_size"), size("pp_size")
    cells: list[dict[str, Any]] = []
    if tp > 1:
        cells.append(_cell("tp", "pynccl", NCCL_EAGER_MIB / 1024, "eager",
                           f"pynccl communicator created with the group, ~{NCCL_EAGER_MIB} MiB (H200 probe)"))
        cells.append(_cell("tp", "torch_nccl", NCCL_SPLIT_MIB / 1024, "eager",
                           f"torch device-group communicator, ~{NCCL_SPLIT_MIB} MiB (H200 probe)"))
        cells += _custom_ar_cells(cfg, events, tp)
    if cfg.get("enable_dp_attention") and dp > 1 and tp // dp != tp:
        cells.append(_cell("attention_tp", "torch_nccl", NCCL_SPLIT_MIB / 1024, "lazy",
                           "attention-TP group (DP attention), created at its first collective"))
    if ep > 1 and ep != tp:
        cells.append(_cell("moe_ep", "torch_nccl", NCCL_SPLIT_MIB / 1024, "lazy", "MoE-EP group, first collective"))
    if cfg.get("moe_a2a_backend") == "deepep" or cfg.get("enable_deepep_moe") is True:
        cells += _deepep_cells(launch, env, max(ep, tp))
    if pp > 1:
        cells.append(_cell("pp", "pynccl", NCCL_EAGER_MIB / 1024, "eager", "PP group pynccl communicator"))
        cells.append(_cell("pp", "torch_nccl_p2p", NCCL_SPLIT_MIB / 1024, "lazy",
                           "P2P send/recv transport, created at the first send"))
    if cfg.get("enable_symm_mem") is True:
        pool_gib = float(env.get("SGLANG_SYMM_MEM_PREALLOC_GB_SIZE", 4) or 4)
        prealloc = [e for e in events if e.kind == kinds.SYMM_PREALLOC]
        if prealloc:
            pool_gib = prealloc[0].data["gib"]
        cells.append(_cell("tp", "symm_mem_pool", pool_gib if pool_gib > 0 else 0.0, "lazy",
                           "symmetric-memory pool preallocated after capture (SGLANG_SYMM_MEM_PREALLOC_GB_SIZE)"))
    cells += _pd_cells(cfg, env, events)
    attention_tp = tp // dp if cfg.get("enable_dp_attention") and dp > 1 else tp
    return calibrate_cells(cells, calibration, {"tp": tp, "ep": ep, "pp": pp, "attention_tp": attention_tp})


def _custom_ar_cells(cfg: dict[str, Any], events: list[Event], tp: int) -> list[dict[str, Any]]:
    if cfg.get("disable_custom_all_reduce") is True or any(e.kind == kinds.AR_DISABLED for e in events):
        return []
    config = next((e.data for e in events if e.kind == kinds.AR_CONFIG), None)
    if config is not None and "symmetric_memory_mib" in config:
        mib = config["symmetric_memory_mib"] + config.get("local_buffer_mib", 0.0)
        return [_cell("tp", "custom_ar_v2", mib / 1024, "eager", "All Reduce config line (symmetric + local buffer)")]
    if tp > 8:
        return []
    legacy = 3 * CUSTOM_AR_V1_MAX + 8448
    return [_cell("tp", "custom_ar", legacy / GIB, "eager", "v1: 3 x 8 MiB + Signal (IPC buffers); v2 is similar")]


def _deepep_cells(launch: Launch, env: dict[str, Any], group: int) -> list[dict[str, Any]]:
    mode = str(launch.config.get("deepep_mode") or "auto")
    tokens = _int(env.get("SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK"), 128)
    tokens_basis = "" if "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK" in env else " (the default; not set in the input)"
    model = launch.model
    shape = None
    if model.get("hidden_size") and model.get("num_experts"):
        shape = {"hidden_size": model["hidden_size"], "num_experts": model["num_experts"], "name": "model config"}
    else:
        shape = moe_shape(model.get("architecture"), model.get("path"))
    cells = []
    if mode in ("low_latency", "auto"):
        if shape is None:
            cells.append(_cell("moe_ep", "deepep_low_latency", None, "lazy",
                               "cannot estimate: hidden_size and num_experts unknown (pass --model-config config.json)"))
        else:
            size = deepep_low_latency_bytes(tokens, shape["hidden_size"], shape["num_experts"]) / GIB
            cells.append(_cell("moe_ep", "deepep_low_latency", size, "lazy",
                               f"RDMA hint for {tokens} tokens/rank{tokens_basis} x hidden {shape['hidden_size']} x "
                               f"{shape['num_experts']} experts ({shape['name']})"))
    if mode in ("normal", "auto"):
        cells.append(_cell("moe_ep", "deepep_normal", None, "lazy",
                           "NVL buffer from DeepEP's dispatch/combine config hints: not estimable from the log"))
    return cells


def _pd_cells(cfg: dict[str, Any], env: dict[str, Any], events: list[Event]) -> list[dict[str, Any]]:
    mode = cfg.get("disaggregation_mode")
    if mode not in ("prefill", "decode"):
        return []
    cells = [_cell("pd", "transfer_registration", 0.0, "eager", "KV pool registered with the NIC: no extra HBM")]
    printed = [e for e in events if e.kind in (kinds.STAGING_BUFFER, kinds.STAGING_ALLOCATOR)]
    if printed:
        mib = sum(e.data["mib"] for e in printed)
        cells.append(_cell("pd", "staging_buffer", mib / 1024, "eager", "StagingBuffer/StagingAllocator lines"))
    elif str(env.get("SGLANG_DISAGG_STAGING_BUFFER", "0")) == "1":
        if mode == "decode":
            mib = _int(env.get("SGLANG_DISAGG_STAGING_POOL_SIZE_MB"), 4096)
            cells.append(_cell("pd", "staging_buffer", mib / 1024, "eager", "decode ring SGLANG_DISAGG_STAGING_POOL_SIZE_MB"))
        else:
            cells.append(_cell("pd", "staging_buffer", None, "eager",
                               "prefill: max(1, chunked_prefill_size // page_size) x sum(kv_item_lens); item lengths unknown"))
    if env.get("SGLANG_MOONCAKE_CUSTOM_MEM_POOL"):
        cells.append(_cell("pd", "custom_mempool", 0.0, "eager", "KV pool allocated from the Mooncake NVLink mempool"))
    return cells
