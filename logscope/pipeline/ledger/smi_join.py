"""nvidia-smi dumps joined with the launches: gpus[] (merged by index / bus id, processes attached), the
card total as docs/design.md defines it (Total - Reserved, else the OOM's total capacity), memory outside the
PyTorch allocator from an OOM text, and the assumed rank → GPU mapping."""

from __future__ import annotations

import re
from typing import Any

from logscope.core import kinds
from logscope.core.events import Event
from logscope.core.model import GpuJoin, Launch, RankPlacement, RankTimeline
from logscope.memory_model.releases import launch_release
from logscope.pipeline.assemble.launch_facts import global_versions
from logscope.pipeline.parse.parsers.stated_env import CARD_MEMORY_MIB


def _check_env_gpus(events: list[Event]) -> list[Event]:
    """check_env's "GPU 0,1,2,3: NVIDIA H100 80GB HBM3" and "... Compute Capability: 9.0" as GPU events (and the
    same stated elsewhere: the issue template's "GPUs: NVIDIA H20-3e (x4)")."""
    out: list[Event] = []
    # one card's memory stated by hand ("显存：46,068 MiB"): the total of each GPU stated in the same block (a few lines
    # apart in the same source), when that block states one figure
    stated_memory = [ev for ev in events if ev.kind == kinds.STATED_ENV and CARD_MEMORY_MIB in ev.data]
    for ev in events:
        if ev.kind not in (kinds.CHECK_ENV, kinds.STATED_ENV):
            continue
        capability: dict[int, str] = {}
        names: dict[int, str] = {}
        for key, value in ev.data["values"].items():
            if not key.startswith("GPU "):
                continue
            ids_text = key[4:].replace(" Compute Capability", "")
            ids = [int(i) for i in ids_text.split(",") if i.strip().isdigit()]
            for index in ids:
                if key.endswith("Compute Capability"):
                    capability[index] = value
                else:
                    names[index] = value
        stated = ev.kind == kinds.STATED_ENV  # a field of an issue ("GPU: B200x2"): no dump, and the evidence says so
        for index in sorted(names):
            data: dict[str, Any] = {"index": index, "name": names[index]}
            if index in capability:
                data["compute_capability"] = capability[index]
            if stated:
                data["stated_by"] = ev.data.get("stated_by", kinds.STATED_ENV)
                figures = {m.data[CARD_MEMORY_MIB] for m in stated_memory if _same_block(ev, m)}
                if len(figures) == 1:
                    data["memory_total_mib"] = data[_STATED_TOTAL] = next(iter(figures))
            out.append(
                Event(
                    kinds.SMI_GPU,
                    ev.source,
                    ev.line,
                    ev.text if stated else f"check_env GPU {index}: {names[index]}",
                    None,
                    None,
                    data,
                    ev.grammar,
                )
            )
    return out


_STATED_TOTAL = "_stated_total_mib"  # the GPU's total came from the issue text: its card_total_source says so
_BLOCK_LINES = 8


def _same_block(gpu: Event, memory: Event) -> bool:
    return gpu.source == memory.source and abs(memory.line - gpu.line) <= _BLOCK_LINES


def _same_card(a: str | None, b: str | None) -> bool:
    """Two names of one card: equal, one missing, or one the table's cut of the other ("NVIDIA H100 80G..." of
    "NVIDIA H100 80GB HBM3": nvidia-smi's table cuts a name wider than its column and marks the cut)."""
    if a is None or b is None or a == b:
        return True
    return (a.endswith("...") and b.startswith(a[:-3].rstrip())) or (b.endswith("...") and a.startswith(b[:-3].rstrip()))


def _join_named_by_index(gpus: dict[Any, dict[str, Any]]) -> None:
    """A GPU that check_env or `nvidia-smi -L` names by its index alone and a dump (table, -q, CSV) gives with its bus
    id is one GPU when the dump gives that index once, under the same name: one record, the dump's fields and the
    whole name."""
    with_bus: dict[Any, list[Any]] = {}
    for key, gpu in gpus.items():
        if gpu.get("bus_id"):
            with_bus.setdefault(gpu["index"], []).append(key)
    for key in [k for k, g in gpus.items() if not g.get("bus_id") and not isinstance(k, tuple)]:
        named, found = gpus[key], with_bus.get(gpus[key]["index"], [])
        if "stated_by" in named or len(found) != 1 or not _same_card(gpus[found[0]].get("name"), named.get("name")):
            continue
        card = gpus[found[0]]
        if str(card.get("name") or "").endswith("...") and named.get("name"):
            card["name"] = named["name"]
        for proc in named.get("processes", []):
            if proc not in card["processes"]:
                card["processes"].append(proc)
        for field, value in named.items():
            card.setdefault(field, value)
        del gpus[key]


def _merge_gpus(events: list[Event]) -> list[dict[str, Any]]:
    events = [e for e in events if e.kind not in (kinds.CHECK_ENV, kinds.STATED_ENV)] + _check_env_gpus(events)
    gpus: dict[Any, dict[str, Any]] = {}
    for ev in events:
        if ev.kind != kinds.SMI_GPU:
            continue
        data = dict(ev.data)
        key = data.get("bus_id") or data.get("index")
        gpu = gpus.setdefault(key, {"index": data.get("index"), "snapshot": ev.source, "processes": []})
        for proc in data.pop("processes", []):
            if proc not in gpu["processes"]:
                gpu["processes"].append(proc)
        for field, value in data.items():
            gpu.setdefault(field, value)
        gpu.setdefault("evidence", {"source": ev.source, "line": ev.line, "text": ev.text})
    _join_named_by_index(gpus)
    for ev in events:
        if ev.kind == kinds.SMI_MIG:
            card = next((g for g in gpus.values() if g["index"] == ev.data["gpu"]), None)
            if card is None:
                card = gpus.setdefault(("mig", ev.data["gpu"]), {"index": ev.data["gpu"], "snapshot": ev.source, "processes": []})
                card.setdefault("evidence", {"source": ev.source, "line": ev.line, "text": ev.text})
            entry = {k: v for k, v in ev.data.items() if k != "gpu"}
            if entry not in card.setdefault("mig", []):
                card["mig"].append(entry)
    ordered = sorted(gpus.values(), key=lambda g: (g["index"] is None, g["index"] or 0, g.get("bus_id") or ""))
    for ev in events:
        if ev.kind != kinds.SMI_PROCESS:
            continue
        proc = {k: ev.data[k] for k in ("pid", "type", "name", "used_mib") if k in ev.data}
        target = None
        if "gpu" in ev.data:
            target = next((g for g in ordered if g["index"] == ev.data["gpu"]), None)
        elif ev.data.get("gpu_bus_id"):
            target = next((g for g in ordered if g.get("bus_id") == ev.data["gpu_bus_id"]), None)
        elif len(ordered) == 1:
            target = ordered[0]
        if target is not None and not any(p.get("pid") == proc.get("pid") for p in target["processes"]):
            target["processes"].append(proc)
    return ordered


def join_gpus(launches: list[Launch], global_events: list[Event]) -> GpuJoin:
    all_events = list(global_events)
    for launch in launches:
        all_events += launch.all_events()
    gpus = _merge_gpus(all_events)
    ooms = [e for e in all_events if e.kind == kinds.OOM and e.data.get("gpu") is not None]
    for gpu in gpus:
        gpu["index_text"] = str(gpu["index"])
        stated_total = gpu.pop(_STATED_TOTAL, None)
        if gpu.get("driver_reserved_mib") is not None and gpu.get("memory_total_mib") is not None:
            gpu["card_total_gib"] = round((gpu["memory_total_mib"] - gpu["driver_reserved_mib"]) / 1024, 2)
            gpu["card_total_source"] = "nvidia-smi Total - Reserved"
        oom = next((e for e in ooms if e.data["gpu"] == gpu["index"]), None)
        if oom is not None:
            _oom_join(gpu, oom)
        _rank_evidence(gpu, ooms)
        if "card_total_gib" not in gpu and gpu.get("memory_total_mib") is not None and gpu.get("device") == "npu":
            gpu["card_total_source"] = "npu-smi table total only (no reserved figure)"
        elif "card_total_gib" not in gpu and stated_total is not None and stated_total == gpu.get("memory_total_mib"):
            gpu["card_total_source"] = "stated in the issue text (a card's total, no Reserved figure)"
        elif "card_total_gib" not in gpu and gpu.get("memory_total_mib") is not None:
            gpu["card_total_source"] = "nvidia-smi table Total only (no Reserved: add nvidia-smi -q -d MEMORY)"
    known = {g["index"] for g in gpus}
    made: set[tuple[str, int]] = set()  # one record per GPU an input's OOM texts name (a paste repeats them)
    for oom in ooms:
        if oom.data["gpu"] not in known and oom.data.get("total_mib") and (oom.source, oom.data["gpu"]) not in made:
            made.add((oom.source, oom.data["gpu"]))
            gpu = {"index": oom.data["gpu"], "index_text": str(oom.data["gpu"]), "snapshot": oom.source, "processes": []}
            _oom_join(gpu, oom)
            _rank_evidence(gpu, ooms)
            gpus.append(gpu)
    topology = _merge_topology(all_events, gpus)
    # a launch's own versions (smi dumps included) are filled by launch_facts; these are the ones of the inputs
    smi = global_versions([e for e in all_events if e.kind == kinds.SMI_VERSIONS])
    versions = {**smi, **{k: v for k, v in global_versions(global_events).items() if k not in smi}}
    placements = {(launch.id, label): placement for launch in launches for label, placement in _place_ranks(launch, gpus).items()}
    tp_groups = {launch.id: _tp_groups(launch, placements, topology) for launch in launches}
    return GpuJoin(gpus, topology, versions, placements, tp_groups)


# SGLang names its scheduler processes after the rank: "sglang::scheduler_TP1", "sglang::scheduler_DP0_TP3_EP3"
_SCHEDULER_RANK = re.compile(r"scheduler_((?:(?:DP|PP|TP|EP|CP)\d+_?)+)")


def _rank_evidence(gpu: dict[str, Any], ooms: list[Event]) -> None:
    """The ranks the inputs themselves put on this GPU (not the assumed placement): a scheduler process named
    after its rank in the process list, or a rank's OOM message naming the GPU. OOMs count only within one
    file, since ranks on other hosts also have a GPU of that index."""
    evidence = []
    for proc in gpu["processes"]:
        m = _SCHEDULER_RANK.search(str(proc.get("name", "")))
        if m:
            evidence.append({"rank": " ".join(m.group(1).strip("_").split("_")), "basis": "process name", "pid": proc.get("pid")})
    by_source: dict[str, list[Event]] = {}
    for oom in ooms:
        if oom.data["gpu"] == gpu["index"] and oom.rank is not None:
            by_source.setdefault(oom.source, []).append(oom)
    for source, events in by_source.items():
        if len({e.rank.label for e in events if e.rank}) > 1:
            evidence += [
                {"rank": e.rank.label, "basis": "OOM message names this GPU", "source": source, "line": e.line}
                for e in events
                if e.rank
            ]
    if evidence:
        gpu["rank_evidence"] = evidence


def _oom_join(gpu: dict[str, Any], oom: Event) -> None:
    data = oom.data
    if "card_total_gib" not in gpu and data.get("total_mib"):
        gpu["card_total_gib"] = round(data["total_mib"] / 1024, 2)
        gpu["card_total_source"] = "torch OOM total capacity"
    figures = {
        k: data[k]
        for k in (
            "requested_mib",
            "free_mib",
            "process_in_use_mib",
            "allocated_mib",
            "reserved_unallocated_mib",
            "private_pools_mib",
            "processes",
        )
        if k in data
    }
    if data.get("process_in_use_mib") is not None and data.get("allocated_mib") is not None:
        outside = data["process_in_use_mib"] - data["allocated_mib"] - data.get("reserved_unallocated_mib", 0.0)
        gpu["outside_allocator_mib"] = round(outside, 2)
    if figures:
        gpu["oom"] = figures


def _merge_topology(events: list[Event], gpus: list[dict[str, Any]]) -> dict[str, Any]:
    links: list[list[Any]] = []
    p2p: list[list[Any]] = []
    nics: list[dict[str, Any]] = []
    affinity: dict[str, dict[str, Any]] = {}
    for ev in events:
        if ev.kind != kinds.TOPOLOGY:
            continue
        for link in ev.data["links"]:
            if link not in links:
                links.append(link)
        for link in ev.data["p2p"]:
            if link not in p2p:
                p2p.append(link)
        for nic in ev.data.get("nics", []):
            if nic not in nics:
                nics.append(nic)
        affinity.update(ev.data["affinity"])
    for gpu in gpus:
        aff = affinity.get(f"GPU{gpu['index']}")
        if aff:
            gpu["cpu_affinity"] = aff["cpu"]
            if "numa" in aff:
                gpu["numa_affinity"] = aff["numa"]
    topology: dict[str, Any] = {"links": sorted(links)}
    if p2p:
        topology["p2p"] = sorted(p2p)
    if nics:
        topology["nics"] = sorted(nics, key=lambda n: (n["gpu"], n["nic"]))
    if affinity:
        topology["affinity"] = affinity
    return topology


def _visible_devices(launch: Launch) -> list[int] | None:
    value = str(launch.environment.get("CUDA_VISIBLE_DEVICES", ""))
    parts = [p.strip() for p in value.split(",") if p.strip()]
    if parts and all(p.isdigit() for p in parts):
        return [int(p) for p in parts]
    return None


def _place_ranks(launch: Launch, gpus: list[dict[str, Any]]) -> dict[str, RankPlacement]:
    """Rank → GPU: the local rank (DP replica, PP stage and TP rank, modulo the GPUs of a node), through
    CUDA_VISIBLE_DEVICES or base_gpu_id / gpu_id_step when the inputs show them, marked assumed; or the device
    the rank's own OOM text names, not assumed. Each GPU record lists the ranks placed on it."""
    cfg = launch.config
    # a size the input does not state: its lower bound from the rank tags (PP1 TP0 beside PP0 TP1: tp >= 2)
    tp_size = int(cfg.get("tp_size") or launch.config_lower_bounds.get("tp_size", {}).get("at_least") or 1)
    pp_size = int(cfg.get("pp_size") or launch.config_lower_bounds.get("pp_size", {}).get("at_least") or 1)
    nnodes = int(cfg.get("nnodes") or 1)
    visible = _visible_devices(launch)
    # the GPUs of the node: those visible, else those a dump lists (a record made from an OOM text alone is one
    # GPU the text names, not the node's count)
    dumped = [g for g in gpus if g.get("name") or g.get("memory_total_mib") is not None]
    per_node = max(1, (tp_size * pp_size) // nnodes) if cfg.get("nnodes") else (len(visible or dumped) or 8)
    base = int(cfg.get("base_gpu_id") or 0)
    step = int(cfg.get("gpu_id_step") or 1)
    # engine.py (every release from 0.4.9): base_gpu_id + (pp_rank % pp_size_per_node) x tp_size_per_node +
    # (tp_rank % tp_size_per_node) x gpu_id_step; DP's controller moves a replica's base by tp x pp x step (tp x
    # step up to 0.5.2): the release record's placement lines
    dp_step = launch_release(launch.versions, launch.sglang_version).record.placement.dp_base_step.value or "pp_size"
    replica_gpus = tp_size * (pp_size if "pp_size" in dp_step else 1) * step
    if not cfg.get("nnodes"):  # unstated: the nodes the world needs at `per_node` GPUs each
        nnodes = max(1, (tp_size * pp_size) // per_node)
    pp_per_node = max(pp_size // nnodes, 1)
    tp_per_node = max(tp_size // max(nnodes // pp_size, 1), 1)
    placements: dict[str, RankPlacement] = {}
    for label, timeline in launch.ranks.items():
        rank = timeline.rank
        stated = _stated_device(timeline)
        tp = rank.get("tp") if rank.get("tp") is not None else rank.get("rank")  # rankN.log: its local rank
        if tp is None and label == "TP0":
            tp = 0
        if tp is None and stated is None:
            continue
        if stated is not None:
            index = stated
        else:
            dp = rank.get("dp")
            # a DP replica occupies its own TP group's GPUs only when the TP size is stated (with DP attention, or
            # tags like "DP2 TP2 EP2", the TP index is already global)
            replica = dp if dp is not None and not cfg.get("enable_dp_attention") and cfg.get("tp_size") else 0
            local = ((rank.get("pp") or 0) % pp_per_node) * tp_per_node + ((tp or 0) % tp_per_node) * step
            index = base + replica * replica_gpus + local
        gpu_index = visible[index] if visible and index < len(visible) else index
        assumed = stated is None
        gpu = next((g for g in gpus if g["index"] == gpu_index), None)
        if gpu is None:
            placements[label] = RankPlacement(gpu=gpu_index, gpu_assumed=assumed)
            continue
        gpu.setdefault("ranks", []).append(label)
        others = _other_processes(gpu["processes"])
        other_mib = sum(p.get("used_mib") or 0 for p in others) if others else None
        source = "nvidia-smi: other processes on this GPU"
        if other_mib is None and (oom_others := _oom_other_processes(gpu.get("oom"))):
            other_mib = sum(p["in_use_mib"] for p in oom_others)
            source = "torch OOM text: the other processes on this GPU when it ran out"
        placements[label] = RankPlacement(
            gpu=gpu_index,
            gpu_assumed=assumed,
            card_total_gib=gpu.get("card_total_gib"),
            gpu_processes=len(gpu["processes"]),
            other_process_mib=other_mib,
            other_process_source=source,
            outside_allocator_mib=gpu.get("outside_allocator_mib"),
        )
    return placements


def _stated_device(timeline: RankTimeline) -> int | None:
    """The device the rank's own messages name (its OOM text: "GPU 1 has a total capacity ..."): the index torch
    sees, so CUDA_VISIBLE_DEVICES still maps it. None when they name none, or more than one."""
    named = {e.data["gpu"] for e in timeline.events if e.kind == kinds.OOM and e.data.get("gpu") is not None}
    return named.pop() if len(named) == 1 else None


def _oom_other_processes(oom: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The processes a torch OOM text lists, when they are others: torch (2.8.0 libc10_cuda.so, CUDACachingAllocator
    reportProcessMemoryInfo) prints "Process N has X memory in use" for every process NVML lists but its own,
    which it prints as "this process has X"; without that sentence (another PID namespace) the list may hold
    the rank itself, so nothing is counted."""
    if not oom or oom.get("process_in_use_mib") is None:
        return []
    return [p for p in oom.get("processes") or [] if p.get("in_use_mib") is not None]


def _other_processes(processes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Processes on a GPU that are not this SGLang rank: those not named sglang when one is, else all but
    the largest (the rank's own scheduler usually holds most of the card)."""
    if len(processes) < 2:
        return []
    named = [p for p in processes if "sglang" in str(p.get("name", "")).lower()]
    if named:
        return [p for p in processes if p not in named]
    largest = max(processes, key=lambda p: p.get("used_mib") or 0)
    return [p for p in processes if p is not largest]


def _tp_groups(
    launch: Launch, placements: dict[tuple[int, str], RankPlacement], topology: dict[str, Any]
) -> list[dict[str, Any]]:
    """The links between the GPUs of each TP group (NVLink or PCIe / cross-socket)."""
    link_of: dict[tuple[int, int], str] = {(a, b): k for a, b, k in topology["links"]}
    groups: dict[tuple[Any, ...], list[tuple[str, int]]] = {}
    for label, timeline in launch.ranks.items():
        placement = placements.get((launch.id, label))
        rank = timeline.rank
        if placement is None or placement.gpu is None or rank.get("tp") is None:
            continue
        key = (rank.get("dp") if not launch.config.get("enable_dp_attention") else None, rank.get("pp"))
        groups.setdefault(key, []).append((label, placement.gpu))
    out = []
    for members in groups.values():
        gpus = sorted({gpu for _, gpu in members})
        seen = [k for i, a in enumerate(gpus) for b in gpus[i + 1 :] if (k := link_of.get((a, b)))]
        if len(gpus) < 2 or not seen:
            continue
        counts: dict[str, int] = {}
        for k in seen:
            counts[k] = counts.get(k, 0) + 1
        nvlink = all(k.startswith("NV") for k in seen)
        path = "nvlink" if nvlink else ("cross-socket" if "SYS" in counts else "pcie")
        out.append({"ranks": [label for label, _ in members], "gpus": gpus, "links": counts, "path": path})
    return out
