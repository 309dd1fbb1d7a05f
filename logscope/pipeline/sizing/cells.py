"""Communication memory as group x mechanism cells, per SGLang release, NCCL environment and GPU arch.

Each cell says which rule it used (`rule`: release span, environment, arch, group size W, source lines) and
whether its size is read from a log line, measured by a probe, or estimated. Constants come from the
generated `data/cell_constants.yaml`; NCCL communicator sizes from rows measured per environment
(`data/nccl_h200.yaml`, or a probe calibration with a row for the input's environment). Formulas:
- custom all-reduce v2 (CUDA default where SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2 defaults true): one symmetric
  workspace of 2W push slots x max push size + the pull buffer + semaphores, plus `graph_params`
  (max graph inputs x W x 8 B) in the PyTorch allocator; sizes from the arch's tuned table, capped at max_size;
- custom all-reduce v1: meta + buffer (IPC) and rank_data, each max_size, plus the native Signal struct;
- DeepEP low latency: DeepEP's get_low_latency_rdma_size_hint (csrc/legacy/config.hpp) for the expert count
  the release's DeepSeek code passes;
- PD prefill staging: queue count x max(1, chunked_prefill_size // page_size) pages x bytes per page.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from logscope.core import kinds
from logscope.core.cell import Basis, Cell, CellAlternative, Timing
from logscope.core.events import Event
from logscope.core.model import Launch
from logscope.core.model_table import moe_shape
from logscope.memory_model import deepep
from logscope.memory_model.allocator import AllocatorChoice
from logscope.memory_model.interconnect import Interconnect
from logscope.memory_model.nccl import NcclChoice, channel_buffers
from logscope.memory_model.record import V2Row, V2Table
from logscope.memory_model.releases import ReleaseChoice, launch_release, torch_caching_allocator
from logscope.memory_model.releases import deepep as deepep_source
from logscope.memory_model.releases import nccl as nccl_constants
from logscope.pipeline.sizing.calibration import Calibration
from logscope.pipeline.sizing.cell_rules import NcclEnv, NcclSizes, measured_on, nccl_env, nccl_sizes, same_gpu

MIB = 1 << 20
GIB = 1 << 30
_UINT64_BYTES = 8  # graph_params is torch.uint64


deepep_low_latency_bytes = deepep.low_latency_bytes


def _cell(
    group: str,
    mechanism: str,
    gib: float | None,
    timing: Timing,
    basis: str,
    kind: Basis = "estimated",
    rule: dict[str, Any] | None = None,
    inputs: dict[str, Any] | None = None,
) -> Cell:
    """A cell of `gib` (None: unknown); its release range and sources come from the rule."""
    sources = tuple(str(a) for a in (rule or {}).get("source", []))
    return Cell(
        group,
        mechanism,
        None if gib is None else round(gib * GIB),
        kind,
        timing,
        basis,
        inputs or {},
        sources,
        (rule or {}).get("sglang"),
        rule,
    )


def _rule(
    release: ReleaseChoice,
    *,
    env: str | None = None,
    arch: str | None = None,
    world: int | None = None,
    at: list[str | None] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"sglang": release.span, "version_known": release.known}
    if not release.known:
        out["note"] = release.note
    for key, value in (("env", env), ("arch", arch), ("world", world)):
        if value is not None:
            out[key] = value
    sources = [a for a in at or [] if a]
    if sources:
        out["source"] = sources
    return out


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
_NCCL_MECHANISMS = {"nccl_communicator", "nccl_first_collective", "nccl_split_communicator", "nccl_p2p"}


def calibrate_cells(
    cells: list[Cell],
    calibration: Calibration | None,
    sizes: dict[str, int],
    env: NcclEnv | None = None,
    gpu_name: str | None = None,
) -> list[Cell]:
    """Cells whose mechanism the calibration measured at this group size, under the input's NCCL environment,
    become `measured (probe)`: the memory outside the PyTorch allocator that the probe's stage took. Others
    keep their estimate, and say why."""
    if calibration is None or not same_gpu(calibration.gpu, gpu_name):
        return cells
    out = []
    for cell in cells:
        probed = _PROBED.get((cell.group, cell.mechanism))
        if probed is None:
            out.append(cell)
            continue
        mechanisms, group = probed
        size = None if group == "rank" else sizes.get(group)
        keyed = env is not None and any(m in _NCCL_MECHANISMS for m in mechanisms)
        found = [calibration.lookup(m, size, env.key() if keyed and env is not None else None) for m in mechanisms]
        if any(f is None for f in found):
            at = f" at group size {size}" if size is not None else ""
            under = f" under {env.describe()}" if keyed and env is not None else ""
            missing = "/".join(m for m, f in zip(mechanisms, found) if f is None)
            out.append(replace(cell, basis=f"{cell.basis}; the calibration {calibration.label()} has no {missing}{at}{under}"))
            continue
        mib = sum(f.outside_allocator_mib for f in found if f is not None)
        stages = " + ".join(f"{f.stage} {f.outside_allocator_mib:.0f} MiB" for f in found if f is not None)
        scope = "a rank's own buffers" if group == "rank" else f"group size {size}"
        under = f"; {env.describe()}" if keyed and env is not None else ""
        out.append(
            replace(
                cell,
                measured_gib=round(mib / 1024, 3),
                kind="measured (probe)",
                basis=f"probe on {measured_on(calibration.gpu, gpu_name)}: {stages} ({scope}; {calibration.label()}{under})",
            )
        )
    return out


def _int(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _flag(value: Any) -> bool:
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def gpu_arch(gpu: dict[str, Any] | None) -> tuple[str | None, str]:
    """The custom all-reduce v2 table key (sm90 / sm100 / sm107 / other) from the GPU's compute capability
    (check_env), else its name; None when the input shows neither. The mapping is configs/custom_all_reduce_v2.py's
    `_get_all_reduce_configs` (major 9: SM90; major 10: SM107 from minor 7, else SM100; others: default)."""
    gpu = gpu or {}
    capability = str(gpu.get("compute_capability") or "")
    if re.match(r"\d+\.\d+", capability):
        major, minor = (int(x) for x in capability.split(".")[:2])
        arch = "sm90" if major == 9 else ("sm107" if minor >= 7 else "sm100") if major == 10 else "other"
        return arch, f"compute capability {capability} (check_env)"
    name = gpu.get("name")
    if name:
        if re.search(r"\b(GH|H)(100|200|800|20)\b", name):
            return "sm90", f"{name} (Hopper)"
        if re.search(r"\b(GB|B)(200|300)\b", name):
            return "sm100", f"{name} (Blackwell)"
        return "other", f"{name} (no tuned table)"
    return None, "GPU not in the input"


def launch_cells(
    launch: Launch,
    calibration: Calibration | None = None,
    gpu: dict[str, Any] | None = None,
    kv_cell_bytes: float | None = None,
    links: Interconnect | None = None,
) -> list[Cell]:
    """The cells one rank of this launch holds (the same on every rank of a symmetric launch), measured by the
    calibration where it covers them, else estimated. `gpu` (nvidia-smi / check_env: name, compute capability)
    picks the custom all-reduce table; `kv_cell_bytes` (from KV sizing) sizes PD staging."""
    cfg = launch.config
    env = launch.environment
    bounds = launch.config_lower_bounds
    events = launch.all_events()
    release = launch_release(launch.versions, launch.sglang_version)

    def size(key: str) -> int:  # the stated size, else the lower bound the rank tags show (enough to know a group exists)
        return _int(cfg.get(key), _int(bounds.get(key, {}).get("at_least"), 1))

    tp, dp, ep, pp = size("tp_size"), size("dp_size"), size("ep_size"), size("pp_size")
    attention_tp = max(1, tp // dp) if cfg.get("enable_dp_attention") and dp > 1 else tp
    nccl = nccl_env(env, cfg)
    gpu_name = str((gpu or {}).get("name") or "") or None
    measured = nccl_sizes(nccl, gpu_name=gpu_name)
    arch, arch_basis = gpu_arch(gpu)
    nccl_version = str(launch.versions["nccl"]) if launch.versions.get("nccl") else None
    communicators = _Communicators(release, nccl, measured, gpu_name, nccl_constants(nccl_version))
    allocator = torch_caching_allocator(str(launch.versions["torch"]) if launch.versions.get("torch") else None)
    cells: list[Cell] = []
    if tp > 1:
        cells.append(communicators.pynccl("tp", "TP group"))
        cells.append(communicators.channels("tp", "pynccl", "eager", env, "its warm-up all-reduce at init"))
        cells.append(communicators.torch_group("tp", "TP device group", cfg))
        torch_timing = cells[-1].timing
        cells.append(communicators.channels("tp", "torch_nccl", torch_timing, env, "its first collective"))
        cells += _custom_ar_cells("tp", cfg, env, events, tp, release, arch, arch_basis, allocator, links)
    if attention_tp > 1 and attention_tp != tp:
        cells.append(communicators.torch_group("attention_tp", f"attention-TP group (size {attention_tp})", cfg))
        inherits = release.record.nccl.attention_tp_custom_ar
        if inherits.value is None and inherits.at:
            cells += _custom_ar_cells("attention_tp", cfg, env, [], attention_tp, release, arch, arch_basis, allocator, links)
    if ep > 1 and ep != tp:
        cells.append(communicators.torch_group("moe_ep", "MoE-EP group", cfg))
    if cfg.get("moe_a2a_backend") == "deepep" or cfg.get("enable_deepep_moe") is True:
        cells += _deepep_cells(launch, env, max(ep, tp), release)
    if cfg.get("moe_a2a_backend") == "deepep_v2":
        cells.append(_deepep_v2_cell(release, max(ep, tp)))
    if pp > 1:
        cells.append(communicators.pynccl("pp", "PP group"))
        cells.append(
            _cell(
                "pp",
                "torch_nccl_p2p",
                communicators.further_gib(),
                "lazy",
                f"P2P send/recv transport, created at the first send; {communicators.further_basis()}",
                rule=communicators.rule(),
            )
        )
    if cfg.get("enable_symm_mem") is True:
        gb = float(env.get("SGLANG_SYMM_MEM_PREALLOC_GB_SIZE", 4) or 4)
        prealloc = [e for e in events if e.kind == kinds.SYMM_PREALLOC]
        if prealloc:
            gb = prealloc[0].data["gib"]
        cells.append(
            _cell(
                "tp",
                "symm_mem_pool",
                gb if gb > 0 else 0.0,
                "lazy",
                "symmetric-memory pool preallocated after capture (SGLANG_SYMM_MEM_PREALLOC_GB_SIZE)",
            )
        )
    cells += _pd_cells(cfg, env, events, release, kv_cell_bytes)
    return calibrate_cells(cells, calibration, {"tp": tp, "ep": ep, "pp": pp, "attention_tp": attention_tp}, nccl, gpu_name)


class _Communicators:
    """NCCL communicator cells: the first one a process creates costs more than the ones after it."""

    def __init__(
        self,
        release: ReleaseChoice,
        env: NcclEnv,
        sizes: NcclSizes | None,
        gpu_name: str | None = None,
        constants: NcclChoice | None = None,
    ):
        self.release, self.env, self.sizes, self.gpu_name = release, env, sizes, gpu_name
        self.constants = constants or nccl_constants(None)
        self.first_taken = False

    def rule(self) -> dict[str, Any]:
        return _rule(
            self.release,
            env=self.env.describe(),
            at=[self.release.record.nccl.cumem_set_to.at, self.release.record.nccl.pre_warm_nccl.at]
            + ([self.release.record.nccl.nvls_set_to.at] if self.env.nvls == "1" else []),
        )

    def further_gib(self) -> float | None:
        return None if self.sizes is None else self.sizes.further_mib[1] / 1024

    def further_basis(self) -> str:
        if self.sizes is None:
            on = (
                f" on {self.gpu_name} (rows are measured on NVIDIA H200 only; none is applied to another GPU)"
                if self.gpu_name
                else ""
            )
            return f"no measured row for {self.env.describe()}{on}"
        low, high = self.sizes.further_mib
        size = f"{high:.0f}" if round(low) == round(high) else f"{low:.0f}-{high:.0f}"
        return f"a further communicator {size} MiB ({self.sizes.basis})"

    def pynccl(self, group: str, what: str) -> Cell:
        """pynccl: ncclCommInitRank and a warm-up all-reduce when the group is built (eager)."""
        if self.sizes is None:
            return _cell(
                group,
                "pynccl",
                None,
                "eager",
                f"{what} pynccl communicator (init + warm-up all-reduce); {self.further_basis()}",
                rule=self.rule(),
            )
        if not self.first_taken:
            self.first_taken = True
            mib = self.sizes.first_mib
            how = f"the process's first NCCL communicator {mib:.0f} MiB ({self.sizes.basis})"
        else:
            mib = self.sizes.further_mib[1]
            how = self.further_basis()
        return _cell(
            group,
            "pynccl",
            mib / 1024,
            "eager",
            f"{what} pynccl communicator, created with the group (init + warm-up all-reduce): {how}",
            rule=self.rule(),
        )

    def channels(self, group: str, communicator: str, timing: Timing, env: dict[str, Any], when: str) -> Cell:
        """The ring connection buffers a communicator of two or more ranks sets up at `when` (not in the rows
        measured at world size 1): per channel from NCCL's defaults or the environment, x the channel count."""
        source = self.constants.source
        found = channel_buffers(source, env) if source is not None else None
        mechanism = f"{communicator}_channels"
        if source is None or found is None:
            return _cell(group, mechanism, None, timing, self.constants.said, rule=self.rule())
        per = found.per_channel_bytes
        held = found.allocated_per_channel_bytes or per
        limited = f"; {found.limited}" if found.limited else ""
        count = (
            f"x {found.channels} channels (NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS{limited})"
            if found.channels is not None
            else f"x the channel count NCCL picks for the topology (not in the input; at most {found.max_channels}: "
            f"{found.max_channels * held / GIB:.2f} GiB)"
        )
        allocated = f", allocated {held / MIB:.2f} MiB ({found.allocated_how})" if found.allocated_per_channel_bytes else ""
        basis = (
            f"{communicator} ring connection buffers, set up at {when}: payload {per / MIB:.2f} MiB per channel "
            f"({found.how}; src/init.cc computeBuffSizes defaults; {self.constants.said}){allocated} {count}; "
            "tree/NVLS connections not counted"
        )
        total = found.total_bytes
        return _cell(
            group,
            mechanism,
            None if total is None else total / GIB,
            timing,
            basis,
            rule={**self.rule(), "source": [*self.rule().get("source", []), source.simple_bytes.at or "", source.steps.at or ""]},
            inputs={
                "per_channel_bytes": per,
                "allocated_per_channel_bytes": found.allocated_per_channel_bytes,
                "payload_bytes": found.payload_bytes,
                "channels": found.channels,
                "max_channels": found.max_channels,
                "nccl_constants": source.span,
            },
        )

    def torch_group(self, group: str, what: str, cfg: dict[str, Any]) -> Cell:
        """torch ProcessGroupNCCL made by new_group without a device id: its communicator is created at the first
        collective, unless --pre-warm-nccl runs one at startup (releases that have the flag). The warm-up is one
        all_reduce on the TP group's device group (distributed/bootstrap.py _prewarm_nccl): only TP is warmed."""
        has_flag = self.release.record.nccl.pre_warm_nccl.at is not None
        prewarm = has_flag and cfg.get("pre_warm_nccl") is True and group == "tp"
        timing: Timing = "eager" if prewarm else "lazy"
        when = (
            "created at startup by --pre-warm-nccl"
            if prewarm
            else "created at its first collective (no device id; "
            + ("--pre-warm-nccl not set)" if has_flag else "this release has no --pre-warm-nccl)")
        )
        return _cell(
            group,
            "torch_nccl",
            self.further_gib(),
            timing,
            f"{what} torch NCCL communicator, {when}; {self.further_basis()}",
            rule=self.rule(),
        )


def _custom_ar_cells(
    group: str,
    cfg: dict[str, Any],
    env: dict[str, Any],
    events: list[Event],
    world: int,
    release: ReleaseChoice,
    arch: str | None,
    arch_basis: str,
    allocator: AllocatorChoice,
    links: Interconnect | None = None,
) -> list[Cell]:
    if cfg.get("disable_custom_all_reduce") is True or any(e.kind == kinds.AR_DISABLED for e in events):
        return []
    config = next((e.data for e in events if e.kind == kinds.AR_CONFIG), None)
    if config is not None and "symmetric_memory_mib" in config:
        mib = config["symmetric_memory_mib"] + config.get("local_buffer_mib", 0.0)
        return [
            _cell(
                group,
                "custom_ar_v2",
                mib / 1024,
                "eager",
                "All Reduce config line (symmetric + local buffer)",
                kind="read",
                rule=_rule(release, world=world),
            )
        ]
    ar_group = _ArGroup(
        group,
        env,
        world,
        arch,
        arch_basis,
        allocator,
        nvlink=links.full_nvlink if links is not None else None,
        nvlink_basis=links.basis if links is not None else "",
    )
    cell = _custom_ar_estimate(ar_group, release)
    if cell is None:
        return []
    if not release.known:

        def figure(older: ReleaseChoice) -> Figure | None:
            other = _custom_ar_estimate(ar_group, older)
            return None if other is None else (other.mechanism, other.gib, other.basis)

        cell = _range_figures(cell, release, figure)
    return [cell]


Figure = tuple[str, float | None, str]  # (mechanism, gib, basis) of a cell as another release sizes it


def _range_figures(cell: Cell, release: ReleaseChoice, estimate: Callable[[ReleaseChoice], Figure | None]) -> Cell:
    """Where the input allows several releases (an inferred range, or none stated): the figure each run of allowed
    releases gives, newest first, with the releases it holds for; the other runs go in `alternatives` (the
    nearest also as `alternative`). A release whose size is not read (gib None) joins no run."""
    runs: list[dict[str, Any]] = [{"low": release.version, "high": release.version, "mechanism": cell.mechanism, "gib": cell.gib}]
    older = release.older()
    while older is not None:
        alt = estimate(older)
        if alt is None or alt[1] is not None:
            figure = (alt[0], alt[1]) if alt is not None else (None, 0.0)
            last = runs[-1]
            if (last["mechanism"], last["gib"]) == figure:
                last["low"] = older.version
            else:
                runs.append(
                    {
                        "low": older.version,
                        "high": older.version,
                        "mechanism": figure[0],
                        "gib": figure[1],
                        "basis": alt[2] if alt else "no such buffer at this size in this release",
                    }
                )
        older = older.older()
    if len(runs) == 1:
        return replace(cell, basis=f"{cell.basis}; {release.note} (every release it allows gives the same)")

    def span(run: dict[str, Any]) -> str:
        return f"SGLang {run['low']}" + (f" to {run['high']}" if run["low"] != run["high"] else "")

    others = tuple(CellAlternative(span(r), r["mechanism"], r["gib"], r["basis"]) for r in runs[1:])
    listed = "; ".join(f"{o.sglang}: {o.mechanism or 'none'} {o.gib} GiB" for o in others)
    return replace(cell, alternatives=others, basis=f"{cell.basis}; {release.note}: {span(runs[0])}: {cell.gib} GiB; {listed}")


@dataclass(frozen=True)
class _ArGroup:
    """What sizes a group's custom all-reduce apart from the release: the same for every release of a range."""

    group: str
    env: dict[str, Any]
    world: int
    arch: str | None
    arch_basis: str
    allocator: AllocatorChoice
    nvlink: bool | None = None
    nvlink_basis: str = ""


def _custom_ar_estimate(g: _ArGroup, release: ReleaseChoice) -> Cell | None:
    """The custom all-reduce the release builds for a group of `world` ranks; None where it builds none. Without
    full NVLink v2 is off (can_use_custom_all_reduce_v2 / the first v2's full_nvlink check): releases with
    the fallback gate build the legacy one instead, which itself needs NVLink above two GPUs."""
    group, env, world = g.group, g.env, g.world
    v2 = release.record.custom_ar_v2
    if v2.opt_in_env.value:  # 0.5.10.post1-0.5.11: v2 only when the opt-in variable is set
        v2_on = v2.present and _flag(env.get(v2.opt_in_env.value, "0"))
    else:
        v2_on = v2.present and _flag(env.get("SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2", v2.default_on.value))
    pcie = g.nvlink is False
    if v2_on and not pcie:
        return _custom_ar_v2(g, release)
    if v2_on and pcie and v2.fallback_gate.value is None:
        return None  # the v2 communicator disables itself without full NVLink, and nothing replaces it
    if pcie and world > 2:
        return None  # custom_all_reduce_utils.py: "not supported on more than two PCIe-only GPUs"
    v1 = release.record.custom_ar_v1
    sizes, max_size = v1.world_sizes.value, v1.max_size.value
    if (sizes is None or max_size is None) and v1.from_vllm.value:
        return _cell(
            group,
            "custom_ar",
            None,
            "eager",
            f"custom all-reduce is vLLM's in this release ({v1.from_vllm.at}): not sized from SGLang's source",
            rule=_rule(release, world=world, at=[v1.from_vllm.at]),
        )
    if sizes is None or max_size is None or world not in sizes:
        return None
    if v2_on and pcie:
        why = f"v2 needs full NVLink, so the legacy one serves ({g.nvlink_basis}; two PCIe GPUs also need P2P)"
    elif not v2.present:
        why = "this release has no v2"
    elif "SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2" in env:
        why = "SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2=0 in the input"
    elif v2.opt_in_env.value:
        why = f"v2 only with {v2.opt_in_env.value}=1 in this release ({v2.opt_in_env.at}), not set in the input"
    else:
        why = f"v2 is off by default in this release ({v2.default_on.at})"
    # rank_data is torch.empty(max_size) (custom_all_reduce.py): the PyTorch allocator's; meta and buffer cudaMalloc
    allocated, allocated_text = _torch_segment("rank_data", max_size, 3 * max_size, g.allocator)
    return _cell(
        group,
        "custom_ar",
        3 * max_size / GIB,
        "eager",
        f"v1 ({why}): meta + buffer (IPC) + rank_data, each max_size {max_size / MIB:g} MiB, plus the "
        f"native Signal struct (meta_size(), not counted){allocated_text}",
        rule=_rule(release, world=world, env=why, at=[v1.max_size.at]),
        inputs={"max_size": max_size, "world": world, **allocated},
    )


def _torch_segment(what: str, request: int, payload: int, choice: AllocatorChoice) -> tuple[dict[str, Any], str]:
    """The allocated figure of a cell part that goes through PyTorch's caching allocator: the segment a fresh
    request takes (an upper bound: the allocator carves later requests out of its rest), with the constants of
    the input's torch release."""
    allocator = choice.allocator
    found = allocator.segment(request) if allocator is not None else None
    if allocator is None or found is None:
        return {}, f"; as allocated: not given ({choice.note})" if choice.note else ""
    segment, how = found
    if segment == request:
        return {}, ""
    allocated = payload - request + segment
    return (
        {"payload_bytes": payload, "allocated_max_bytes": allocated},
        f"; as allocated at most {allocated / MIB:.1f} MiB: {what} {request / MIB:g} MiB takes {how} "
        f"{segment / MIB:g} MiB in torch {allocator.version}'s caching allocator when no cached block fits"
        + (f" ({choice.note})" if choice.note else ""),
    )


def _v2_push(row: V2Row, world: int, slot_rule: bool) -> int:
    """Heuristic.max_push_bytes: max(one-shot push threshold, the 2-shot push slot for its threshold)."""
    two = row.two_shot_push
    slot = 32 * -(-two // (16 * world)) if slot_rule and two else 0
    return max(max(row.graph.one_shot_push, slot), max(row.eager.one_shot_push, slot))


def _v2_pull(row: V2Row) -> int:
    return max(max(h.one_shot_pull, h.two_shot_pull, h.mc_high) for h in (row.graph, row.eager))


def _custom_ar_v2(g: _ArGroup, release: ReleaseChoice) -> Cell | None:
    group, env, world, arch, arch_basis = g.group, g.env, g.world, g.arch, g.arch_basis
    v2 = release.record.custom_ar_v2
    table_arch = arch or "sm90"
    assumed = "" if arch else " (arch not in the input: SM90's table assumed)"
    table: V2Table | None = v2.other_arch if table_arch == "other" else v2.arch.get(table_arch)
    rule_at = [v2.default_on.at, v2.max_size_kb.at]
    if table is None and v2.early is not None:
        return _custom_ar_v2_early(group, world, release, table_arch, f"{arch_basis}{assumed}")
    needed = (
        v2.max_size_kb.value,
        v2.align_bytes.value,
        v2.push_slots_per_peer.value,
        v2.semaphore_bytes.value,
        v2.max_graph_inputs.value,
    )
    if table is None or None in needed:
        return _cell(
            group,
            "custom_ar_v2",
            None,
            "eager",
            f"v2 (SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2 default true in this release), size not estimated: "
            f"{v2.absent or 'its tuned tables and buffer constants are not read from this release'}",
            rule=_rule(release, world=world, at=rule_at),
        )
    if table_arch == "other":
        row, blocks = table.default_row, None
    else:
        if world not in table.worlds:
            return None  # get_supported_world_sizes: no v2 communicator at this size
        row, blocks = table.worlds[world], table.num_pull_blocks
    if row is None:
        return None
    max_kb, align, slots_per_peer, semaphore, graph_inputs = (int(x or 0) for x in needed)
    max_size = _int(env.get("SGLANG_CUSTOM_ALL_REDUCE_V2_MAX_SIZE_KB"), max_kb) * 1024
    push = min(_v2_push(row, world, v2.two_shot_push_slot_rule.value is not None), max_size)
    pull = min(_v2_pull(row), max_size)
    forced = []
    for name, which in (
        ("SGLANG_FORCE_CUSTOM_ALL_REDUCE_V2_PUSH_SIZE_KB", "push"),
        ("SGLANG_FORCE_CUSTOM_ALL_REDUCE_V2_PULL_SIZE_KB", "pull"),
    ):
        if env.get(name) not in (None, ""):
            forced.append(f"{name}={env[name]}")
            if which == "push":
                push = _int(env[name], 0) * 1024
            else:
                pull = _int(env[name], 0) * 1024
    push = math.ceil(max(push, align) / align) * align
    pull = math.ceil(max(pull, align) / align) * align if pull > 0 else 0
    slots = slots_per_peer * world
    semaphores = semaphore * blocks if blocks is not None else 0
    graph_params = graph_inputs * world * _UINT64_BYTES
    total = slots * push + pull + semaphores + graph_params
    sem_text = (
        f"{blocks} x {semaphore} B semaphores"
        if blocks is not None
        else f"semaphores ({table.num_pull_blocks_text} blocks x {semaphore} B, not counted)"
    )
    basis = (
        f"v2, estimated{assumed}: {total / MIB:.1f} MiB = {slots} push slots x {push / MIB:g} MiB "
        "(max of graph/eager push sizes, capped "
        f"at max_size {max_size / MIB:g} MiB) + pull {pull / MIB:g} MiB + {sem_text} (symmetric memory) + "
        f"graph_params {graph_inputs} x {world} x 8 B = {graph_params / MIB:g} MiB "
        f"(PyTorch allocator); {table_arch.upper()} table at W={world}, {arch_basis}"
    )
    allocated, allocated_text = _torch_segment("graph_params", graph_params, total, g.allocator)
    basis += allocated_text
    env_text = ", ".join(forced) if forced else "SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2 default true"
    return _cell(
        group,
        "custom_ar_v2",
        total / GIB,
        "eager",
        basis,
        rule=_rule(release, env=env_text, arch=table_arch, world=world, at=[*rule_at, table.at]),
        inputs={
            "push_slots": slots,
            "push_bytes": push,
            "pull_bytes": pull,
            "semaphore_bytes": semaphores,
            "graph_params_bytes": graph_params,
            **allocated,
        },
    )


def _custom_ar_v2_early(group: str, world: int, release: ReleaseChoice, arch: str, arch_basis: str) -> Cell | None:
    """The first v2 (0.5.12.post1-0.5.15.post1): jit_kernel custom_all_reduce.cuh storage_bytes, one cudaMalloc per
    rank shared by IPC: graph params sizeof(AllReduceData) (8 B x kMaxNumGPU) x (1 + graph_input_count) + pull
    buffer + kNumStages x W x push buffer (the world's one-shot push threshold), each aligned to 128 B (the
    signal arrays, a few KiB, not counted)."""
    early = release.record.custom_ar_v2.early
    if early is None:
        return None
    table = "sm100" if arch in ("sm100", "sm107") and "sm100" in early.push_thresholds else "default"
    push = early.push_thresholds.get(table, {}).get(world)
    pull, inputs, stages, gpus = (
        early.max_pull_bytes.value,
        early.graph_input_count.value,
        early.push_stages.value,
        early.max_gpus.value,
    )
    if push is None:
        return None  # THRESHOLD_2_SHOT_MAP has no such world size: no v2 communicator
    if pull is None or inputs is None or stages is None or gpus is None:
        return None

    def aligned(n: int) -> int:
        return -(-n // 128) * 128

    params = aligned(8 * gpus * (1 + inputs))
    pushes = aligned(stages * world * push)
    total = params + pull + pushes
    basis = (
        f"v2 (first form), estimated: {total / MIB:.1f} MiB = graph params 8 B x {gpus} x (1 + {inputs}) = "
        f"{params / MIB:.2f} MiB + pull {pull / MIB:g} MiB + {stages} stages x {world} ranks x push {push / 1024:g} KiB "
        f"(THRESHOLD_2_SHOT_MAP {table}) = {pushes / MIB:.2f} MiB, one IPC-shared cudaMalloc; {arch_basis}"
    )
    return _cell(
        group,
        "custom_ar_v2",
        total / GIB,
        "eager",
        basis,
        rule=_rule(
            release,
            world=world,
            arch=table,
            at=[release.record.custom_ar_v2.default_on.at, early.at, early.max_pull_bytes.at, early.push_stages.at],
        ),
        inputs={"graph_params_bytes": params, "pull_bytes": pull, "push_bytes": push, "push_stages": stages, "world": world},
    )


def deepep_expert_count(launch: Launch, release: ReleaseChoice, ep: int) -> tuple[int, str] | None:
    """The expert count the release's DeepSeek code passes to the dispatcher: n_routed_experts, + ep_size
    per-rank shared slots (releases with them, models with shared experts), + redundant experts."""
    model = launch.model
    routed = model.get("num_experts")
    if routed is None:
        shape = moe_shape(model.get("architecture"), model.get("path"))
        routed = shape["num_experts"] if shape else None
    if routed is None:
        return None
    redundant = _int(launch.config.get("ep_num_redundant_experts"), 0)
    named = str(model.get("architecture", model.get("path", ""))).lower()
    shared = _int(model.get("n_shared_experts"), 1 if "deepseek" in named else 0)
    enforce = launch.config.get("enforce_shared_experts_fusion") is True
    count = deepep.expert_count(release.record, int(routed), shared, ep, redundant, enforce)
    return count.total, count.how


def _deepep_cells(launch: Launch, env: dict[str, Any], group: int, release: ReleaseChoice) -> list[Cell]:
    mode = str(launch.config.get("deepep_mode") or "auto")
    rules = release.record.deepep
    default_tokens = rules.num_max_dispatch_tokens_per_rank.value or 128
    tokens = _int(env.get("SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK"), default_tokens)
    tokens_basis = "" if "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK" in env else " (the default; not set in the input)"
    model = launch.model
    hidden = model.get("hidden_size")
    if hidden is None:
        shape = moe_shape(model.get("architecture"), model.get("path"))
        hidden = shape["hidden_size"] if shape else None
    rule = _rule(
        release,
        world=group,
        at=[
            rules.num_max_dispatch_tokens_per_rank.at,
            rules.per_rank_shared_slots.at,
            rules.shared_fusion_off_under_deepep.at,
        ],
    )
    cells: list[Cell] = []
    if mode in ("low_latency", "auto"):
        count = deepep_expert_count(launch, release, group)
        if hidden is None or count is None:
            cells.append(
                _cell(
                    "moe_ep",
                    "deepep_low_latency",
                    None,
                    "lazy",
                    "cannot estimate: hidden_size and num_experts unknown (pass --model-config config.json)",
                    rule=rule,
                )
            )
        else:
            experts, how = count
            requested = deepep.low_latency_bytes(tokens, hidden, experts)
            source = deepep_source()
            step = source.nvshmem_cumem_granularity.value if source is not None else None
            reserved = deepep.reserved_bytes(requested, step)
            step_text = (
                f"; the NVSHMEM heap grows in NVSHMEM_CUMEM_GRANULARITY steps of {step / MIB:g} MiB "
                f"(DeepEP {source.nvshmem_cumem_granularity.at}): {requested / MIB:.1f} MiB requested, "
                f"{reserved / MIB:g} MiB reserved"
                if step and source is not None
                else ""
            )
            cell = _cell(
                "moe_ep",
                "deepep_low_latency",
                requested / GIB,
                "lazy",
                f"RDMA hint for {tokens} tokens/rank{tokens_basis} x hidden {hidden} x {experts} experts ({how}){step_text}",
                rule=rule,
                inputs={
                    "tokens_per_rank": tokens,
                    "hidden": hidden,
                    "experts": experts,
                    "requested_bytes": requested,
                    "reserved_bytes": reserved,
                },
            )
            if not release.known:

                def figure(older: ReleaseChoice) -> Figure | None:
                    other = deepep_expert_count(launch, older, group)
                    if other is None or hidden is None:
                        return None
                    size = deepep_low_latency_bytes(tokens, hidden, other[0])
                    return "deepep_low_latency", round(size / GIB, 3), f"{other[0]} experts ({other[1]})"

                cell = _range_figures(cell, release, figure)
            cells.append(cell)
    if mode in ("normal", "auto"):
        ll_bytes = next((c.gib * GIB for c in cells if c.gib is not None), 0.0) if mode == "auto" else 0.0
        cells.append(_deepep_normal(hidden, group, release, rule, ll_bytes))
    return cells


def _deepep_v2_cell(release: ReleaseChoice, group: int) -> Cell:
    """--moe-a2a-backend deepep_v2: one ElasticBuffer per process, sized by DeepEP's C++
    ElasticBuffer::calculate_buffer_size from the NCCL topology (physical and logical domains), which the
    input does not show; SGLang logs its num_bytes when it builds it."""
    rules = release.record.deepep
    if rules.v2_dispatcher.value is None:
        basis = f"SGLang {release.version} has no deepep_v2 dispatcher ({rules.v2_dispatcher.absent})"
        return _cell("moe_ep", "deepep_v2", None, "lazy", basis, rule=_rule(release, world=group))
    when = (
        "prebuilt after the CUDA graph setup (model_runner.py prebuild_deepep_v2_buffer), after KV sizing"
        if rules.v2_prebuild.value
        else "built at the first dispatch (inside capture), after KV sizing"
    )
    return _cell(
        "moe_ep",
        "deepep_v2",
        None,
        "lazy",
        f"DeepEP v2 ElasticBuffer, {when}; its size is DeepEP's calculate_buffer_size (csrc/elastic/buffer.hpp) for "
        "the NCCL domains, not estimated here: SGLang's 'Initialized DeepEP v2 ElasticBuffer ... num_bytes=' line states it",
        rule=_rule(release, world=group, at=[rules.v2_dispatcher.at, rules.v2_prebuild.at]),
    )


def _deepep_normal(
    hidden: int | None, ranks: int, release: ReleaseChoice, rule: dict[str, Any], low_latency_bytes: float
) -> Cell:
    """The NVL buffer, plus the normal-mode RDMA size beyond the low-latency one (one RDMA buffer serves both:
    get_deepep_buffer takes the max of the two)."""
    source = deepep_source()
    param = release.record.deepep.param_bytes.value or 2
    if hidden is None or source is None:
        return _cell(
            "moe_ep",
            "deepep_normal",
            None,
            "lazy",
            "cannot estimate: hidden_size unknown (pass --model-config config.json)",
            rule=rule,
        )
    sizes = deepep.normal_bytes(hidden * param, ranks, source)
    if sizes is None:
        return _cell("moe_ep", "deepep_normal", None, "lazy", f"DeepEP has no default config for {ranks} ranks", rule=rule)
    nvl, rdma = sizes
    rdma = max(0, int(rdma - low_latency_bytes))
    rdma_text = (
        f" + RDMA {rdma / MIB:.1f} MiB (internode" + (", beyond the low-latency RDMA buffer)" if low_latency_bytes else ")")
        if rdma
        else ""
    )
    return _cell(
        "moe_ep",
        "deepep_normal",
        (nvl + rdma) / GIB,
        "lazy",
        f"NVL buffer {nvl / MIB:.1f} MiB{rdma_text}: DeepEP's default dispatch/combine configs for {ranks} "
        f"ranks ({source.num_sms.value} SMs) x hidden {hidden} x {param} B (DeepEP "
        f"{source.commit[:10]}, csrc/legacy/config.hpp)",
        rule={**rule, "source": rule.get("source", []) + [source.dispatch_at, source.max_topk.at]},
    )


def _pd_cells(
    cfg: dict[str, Any], env: dict[str, Any], events: list[Event], release: ReleaseChoice, kv_cell_bytes: float | None
) -> list[Cell]:
    """PD buffers are lazy: the KV manager is built after the model and the KV pool."""
    mode = cfg.get("disaggregation_mode")
    if mode not in ("prefill", "decode"):
        return []
    pd = release.record.disaggregation
    rule = _rule(release, at=[pd.queue_size.at, pd.staging_pool_size_mb.at])
    cells = [
        _cell(
            "pd",
            "transfer_registration",
            0.0,
            "lazy",
            "KV pool registered with the NIC by the KV manager (built after the pool): no extra HBM",
            rule=rule,
        )
    ]
    printed = [e for e in events if e.kind in (kinds.STAGING_BUFFER, kinds.STAGING_ALLOCATOR)]
    staging_on = _flag(env.get("SGLANG_DISAGG_STAGING_BUFFER", pd.staging_buffer.value))
    if printed:
        mib = sum(e.data["mib"] for e in printed)
        cells.append(
            _cell("pd", "staging_buffer", mib / 1024, "lazy", "StagingBuffer/StagingAllocator lines", kind="read", rule=rule)
        )
    elif staging_on and pd.staging_pool_size_mb.value is not None:
        if mode == "decode":
            mib = _int(env.get("SGLANG_DISAGG_STAGING_POOL_SIZE_MB"), pd.staging_pool_size_mb.value)
            cells.append(
                _cell(
                    "pd", "staging_buffer", mib / 1024, "lazy", f"decode ring SGLANG_DISAGG_STAGING_POOL_SIZE_MB {mib}", rule=rule
                )
            )
        else:
            queues = _int(env.get("SGLANG_DISAGGREGATION_QUEUE_SIZE"), pd.queue_size.value or 4)
            page = _int(cfg.get("page_size"), 1)
            chunk = cfg.get("chunked_prefill_size")
            if kv_cell_bytes is None or chunk is None:
                cells.append(
                    _cell(
                        "pd",
                        "staging_buffer",
                        None,
                        "lazy",
                        f"prefill: {queues} queues x max(1, chunked_prefill_size // page_size) pages x bytes "
                        "per page; "
                        + ("the KV line is missing" if kv_cell_bytes is None else "chunked_prefill_size not in the input"),
                        rule=rule,
                    )
                )
            else:
                pages = max(1, int(chunk) // page)
                size = queues * pages * kv_cell_bytes * page
                cells.append(
                    _cell(
                        "pd",
                        "staging_buffer",
                        size / GIB,
                        "lazy",
                        f"prefill: {queues} queues (SGLANG_DISAGGREGATION_QUEUE_SIZE) x {pages} pages "
                        f"(chunked_prefill_size {chunk} // page {page}) x {kv_cell_bytes * page:,.0f} B per "
                        "page (KV line)",
                        rule=rule,
                    )
                )
    if env.get("SGLANG_MOONCAKE_CUSTOM_MEM_POOL"):
        cells.append(_cell("pd", "custom_mempool", 0.0, "lazy", "KV pool allocated from the Mooncake NVLink mempool", rule=rule))
    return cells
