"""The device's figures beside SGLang's: a rank's phase readings joined with the NVML samples `logscope run`
took when each phase line was printed (logscope/core/samples.py), and the memory outside the PyTorch
allocator that they measure.

At a phase, the launch's processes on the rank's GPU hold `process_gib` (NVML per process). SGLang has by
then stated what its allocations took: the weights (Load weight end's mem usage), the KV pools (K + V size),
the CUDA graphs (each capture end's mem usage). What the process holds beyond that is outside the allocator
as SGLang accounts it: the CUDA context, NCCL communicators, custom all-reduce and other raw allocations.
measured: NVML (exact bytes) minus SGLang's printed figures (+-0.01 GiB each)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from logscope.core import kinds
from logscope.core.model import GpuJoin, Launch, RankLedger, RankPlacement, RankTimeline
from logscope.core.samples import SamplesFile

MIB_PER_GIB = 1024.0
MEASURED = "measured (NVML)"
# the allocations SGLang states at a phase line: (phase, the reading's key)
_STATED = ((kinds.LOAD_WEIGHT_END, "usage_gib"), (kinds.KV_CACHE_ALLOCATED, "kv_gib"), (kinds.CAPTURE_END, "usage_gib"))


@dataclass(frozen=True, slots=True)
class PhaseDevice:
    """The device at one phase reading of a rank (reading index into its timeline)."""

    reading: int
    t: float
    device_used_gib: float
    process_gib: float | None  # the launch's processes on this GPU; None where NVML listed none of them
    stated_gib: float  # what SGLang stated its allocations took by this line
    outside_allocator_gib: float | None
    basis: str

    def document(self) -> dict[str, Any]:
        return {
            "t": round(self.t, 3),
            "device_used_gib": round(self.device_used_gib, 3),
            "process_gib": None if self.process_gib is None else round(self.process_gib, 3),
            "sglang_stated_gib": round(self.stated_gib, 2),
            "outside_allocator_gib": None if self.outside_allocator_gib is None else round(self.outside_allocator_gib, 2),
            "kind": MEASURED,
            "basis": self.basis,
        }


@dataclass(frozen=True, slots=True)
class RankDevice:
    samples: str
    gpu: int
    gpu_basis: str
    card_total_gib: float | None
    others_gib: float  # other processes on the GPU at the first phase sample
    phases: tuple[PhaseDevice, ...]

    def at(self, phase: str, timeline: RankTimeline) -> PhaseDevice | None:
        return next((p for p in self.phases if timeline.phases[p.reading].phase == phase), None)


def _gpu_for(samples: SamplesFile, placement: RankPlacement) -> tuple[int | None, str]:
    """The GPU of a rank: where the launch's processes hold memory, the assumed placement deciding between several."""
    held = sorted({g.index for s in samples.samples for g in s.gpus if g.tree_mib and g.tree_total_mib > 0})
    if placement.gpu is not None and placement.gpu in held:
        return placement.gpu, "the launch's processes hold memory there; rank placed by its local rank (assumed)"
    if len(held) == 1:
        return held[0], "the only GPU where the launch's processes hold memory"
    known = [g.index for g in samples.header.gpus]
    if placement.gpu is not None and placement.gpu in known:
        return placement.gpu, "rank placed by its local rank (assumed); NVML listed none of the launch's processes"
    if len(known) == 1:
        return known[0], "the only GPU NVML sees"
    return None, "no GPU of the samples can be tied to this rank"


def rank_device(timeline: RankTimeline, placement: RankPlacement, samples: SamplesFile) -> RankDevice | None:
    if not samples.header.nvml or not samples.samples:
        return None
    gpu, basis = _gpu_for(samples, placement)
    if gpu is None:
        return None
    start = samples.first()
    start_used = None if start is None or start.gpu(gpu) is None else start.gpu(gpu).used_mib  # type: ignore[union-attr]
    out: list[PhaseDevice] = []
    stated = 0.0
    others: float | None = None
    for index, reading in enumerate(timeline.phases):
        for phase, key in _STATED:
            if reading.phase == phase and isinstance(reading.values.get(key), (int, float)):
                stated += reading.values[key]
        sample = samples.at_line(reading.line) if reading.source else None
        on_gpu = None if sample is None else sample.gpu(gpu)
        if on_gpu is None:
            continue
        if others is None:
            others = on_gpu.others_mib / MIB_PER_GIB
        if on_gpu.tree_mib:
            process = on_gpu.tree_total_mib / MIB_PER_GIB
            why = "NVML per-process memory of the launch's processes minus SGLang's stated weights, KV pools and graphs"
        elif start_used is not None:
            process = (on_gpu.used_mib - start_used) / MIB_PER_GIB
            why = (
                "NVML device used since the run started (it listed none of the launch's processes) minus SGLang's stated figures"
            )
        else:
            process = None
            why = "NVML listed none of the launch's processes"
        out.append(
            PhaseDevice(
                index,
                sample.t,  # type: ignore[union-attr]
                on_gpu.used_mib / MIB_PER_GIB,
                process if on_gpu.tree_mib else None,
                stated,
                None if process is None else process - stated,
                why,
            )
        )
    info = samples.header.gpu(gpu)
    card = None if info is None else info.card_total_gib
    return RankDevice(samples.path, gpu, basis, card, others or 0.0, tuple(out))


def device_readings(launches: list[Launch], join: GpuJoin, samples: dict[str, SamplesFile]) -> dict[tuple[int, str], RankDevice]:
    """Each rank whose log has samples: the device at its phase readings."""
    out: dict[tuple[int, str], RankDevice] = {}
    if not samples:
        return out
    for launch in launches:
        for label, timeline in launch.ranks.items():
            found = samples.get(timeline.source)
            if found is None:
                continue
            device = rank_device(timeline, join.placements.get((launch.id, label), RankPlacement()), found)
            if device is not None:
                out[(launch.id, label)] = device
    return out


def _gpu_record(samples: SamplesFile, index: int) -> dict[str, Any] | None:
    """A gpus[] record of the GPU as NVML described it in the samples header (what no dump gave)."""
    info = samples.header.gpu(index)
    if info is None:
        return None
    record: dict[str, Any] = {"index": index, "snapshot": samples.path, "name": info.name, "processes": []}
    if info.total_mib is not None:
        record["memory_total_mib"] = info.total_mib
    if info.reserved_mib is not None:
        record["driver_reserved_mib"] = info.reserved_mib
    if info.card_total_gib is not None:
        record["card_total_gib"] = info.card_total_gib
        record["card_total_source"] = "NVML Total - Reserved (logscope run samples)"
    last = samples.samples[-1].gpu(index) if samples.samples else None
    if last is not None:
        record["memory_used_mib"] = round(last.used_mib, 2)
        record["processes"] = [{"pid": pid, "used_mib": round(mib, 2)} for pid, mib in sorted(last.tree_mib.items())]
    return record


def with_device_totals(join: GpuJoin, devices: dict[tuple[int, str], RankDevice], samples: dict[str, SamplesFile]) -> GpuJoin:
    """The GPUs and placements completed from NVML where the dumps said nothing: the GPU's record, the card
    total (Total - Reserved) and the other processes on the GPU."""
    gpus = list(join.gpus)
    by_path = {s.path: s for s in samples.values()}
    for device in devices.values():
        if not any(g.get("index") == device.gpu for g in gpus):
            record = _gpu_record(by_path[device.samples], device.gpu)
            if record is not None:
                gpus.append(record)
    placements = dict(join.placements)
    for key, device in devices.items():
        placement = placements.get(key, RankPlacement())
        placements[key] = replace(
            placement,
            gpu=device.gpu,
            card_total_gib=placement.card_total_gib if placement.card_total_gib is not None else device.card_total_gib,
            other_process_mib=placement.other_process_mib
            if placement.other_process_mib is not None
            else (device.others_gib * MIB_PER_GIB or None),
        )
    return replace(join, gpus=gpus, placements=placements)


# the ledger's items that estimate what is outside the allocator before the weights
_ESTIMATED_OUTSIDE = ("cuda_context", "comm_eager")


def measured_ledger(ledger: RankLedger, device: RankDevice, timeline: RankTimeline) -> RankLedger:
    """The ledger with its estimated rows of memory outside the allocator (CUDA context, eager communication)
    replaced by what NVML measured at the first phase before the weights, and the residual closed again."""
    first = device.at(kinds.LOAD_WEIGHT_BEGIN, timeline) or device.at(kinds.INIT_DISTRIBUTED_END, timeline)
    if first is None or first.outside_allocator_gib is None or not ledger.items:
        return ledger
    phase = timeline.phases[first.reading].phase
    kept = [i for i in ledger.items if i["item"] not in (*_ESTIMATED_OUTSIDE, "unexplained")]
    replaced = [i for i in ledger.items if i["item"] in _ESTIMATED_OUTSIDE]
    measured = {
        "item": "outside_allocator",
        "gib": round(first.outside_allocator_gib, 2),
        "kind": MEASURED,
        "basis": f"NVML: the launch's processes on GPU {device.gpu} at {phase} (before any allocation SGLang states)",
        "replaces": {i["item"]: i["gib"] for i in replaced},
    }
    position = next((n for n, i in enumerate(ledger.items) if i["item"] in _ESTIMATED_OUTSIDE), 0)
    position = min(position, len(kept))
    items = [*kept[:position], measured, *kept[position:]]
    if ledger.card_total_gib is not None:
        residual = ledger.card_total_gib - sum(i["gib"] for i in items)
        items.append(
            {"item": "unexplained", "gib": round(residual, 2), "kind": "measured", "basis": "card total minus every other item"}
        )
    else:
        items += [i for i in ledger.items if i["item"] == "unexplained"]
    return replace(ledger, items=items)
