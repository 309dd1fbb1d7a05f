"""nvidia-smi dumps joined with the launches: gpus[] (merged by index / bus id, processes attached), the
card total as DESIGN.md defines it (Total - Reserved, else the OOM's total capacity), memory outside the
PyTorch allocator from an OOM text, and the assumed rank → GPU mapping."""

from __future__ import annotations

from typing import Any

from logscope.assemble import Launch
from logscope.events import Event


def _merge_gpus(events: list[Event]) -> list[dict[str, Any]]:
    gpus: dict[Any, dict[str, Any]] = {}
    snapshots: dict[Any, str] = {}
    for ev in events:
        if ev.kind != "smi_gpu":
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
        snapshots[key] = ev.source
    ordered = sorted(gpus.values(), key=lambda g: (g["index"] is None, g["index"] or 0, g.get("bus_id") or ""))
    for ev in events:
        if ev.kind != "smi_process":
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


def join_gpus(report: dict[str, Any], launches: list[Launch], global_events: list[Event]) -> None:
    all_events = list(global_events)
    for launch in launches:
        all_events += launch.events + [e for r in launch.ranks.values() for e in r.events]
    gpus = _merge_gpus(all_events)
    ooms = [e for e in all_events if e.kind == "oom" and e.data.get("gpu") is not None]
    for gpu in gpus:
        gpu["index_text"] = str(gpu["index"])
        if gpu.get("driver_reserved_mib") is not None and gpu.get("memory_total_mib") is not None:
            gpu["card_total_gib"] = round((gpu["memory_total_mib"] - gpu["driver_reserved_mib"]) / 1024, 2)
            gpu["card_total_source"] = "nvidia-smi Total - Reserved"
        oom = next((e for e in ooms if e.data["gpu"] == gpu["index"]), None)
        if oom is not None:
            _oom_join(gpu, oom)
        if "card_total_gib" not in gpu and gpu.get("memory_total_mib") is not None:
            gpu["card_total_source"] = "nvidia-smi table Total only (no Reserved: add nvidia-smi -q -d MEMORY)"
    known = {g["index"] for g in gpus}
    for oom in ooms:
        if oom.data["gpu"] not in known and oom.data.get("total_mib"):
            gpu = {"index": oom.data["gpu"], "index_text": str(oom.data["gpu"]), "snapshot": oom.source, "processes": []}
            _oom_join(gpu, oom)
            gpus.append(gpu)
    report["gpus"] = gpus
    for ev in all_events:
        if ev.kind == "smi_versions":
            for entry in report["launches"]:
                for key in ("driver", "cuda_driver_api"):
                    if ev.data.get(key):
                        entry["versions"].setdefault(key, ev.data[key])
    _map_ranks(report, gpus)


def _oom_join(gpu: dict[str, Any], oom: Event) -> None:
    data = oom.data
    if "card_total_gib" not in gpu and data.get("total_mib"):
        gpu["card_total_gib"] = round(data["total_mib"] / 1024, 2)
        gpu["card_total_source"] = "torch OOM total capacity"
    if data.get("process_in_use_mib") is not None and data.get("allocated_mib") is not None:
        outside = data["process_in_use_mib"] - data["allocated_mib"] - data.get("reserved_unallocated_mib", 0.0)
        gpu["outside_allocator_mib"] = round(outside, 2)
        gpu["oom"] = {k: data[k] for k in ("requested_mib", "free_mib", "process_in_use_mib", "allocated_mib",
                                           "reserved_unallocated_mib", "private_pools_mib") if k in data}


def _map_ranks(report: dict[str, Any], gpus: list[dict[str, Any]]) -> None:
    """Local rank → GPU: (pp * tp_size + tp) modulo the GPUs per node, offset by base_gpu_id; assumed."""
    per_node = len(gpus) or 8
    for entry in report["launches"]:
        tp_size = entry["config"].get("tp_size") or 1
        base = entry["config"].get("base_gpu_id") or 0
        for rank in entry["ranks"]:
            tp = rank["tp"] if rank["tp"] is not None else (0 if rank["rank"] == "TP0" else None)
            if tp is None:
                continue
            rank["gpu"] = base + ((rank["pp"] or 0) * tp_size + tp) % per_node
            rank["gpu_assumed"] = True
            gpu = next((g for g in gpus if g["index"] == rank["gpu"]), None)
            if gpu is not None:
                if "card_total_gib" in gpu:
                    rank["card_total_gib"] = gpu["card_total_gib"]
                own = [p for p in gpu["processes"]]
                rank["other_process_mib"] = sum(p.get("used_mib", 0) for p in own[1:]) if len(own) > 1 else 0
