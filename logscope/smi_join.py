"""nvidia-smi dumps joined with the launches: gpus[], topology, rank → GPU (the nvidia-smi issue)."""

from __future__ import annotations

from typing import Any

from logscope.assemble import Launch
from logscope.events import Event


def join_gpus(report: dict[str, Any], launches: list[Launch], global_events: list[Event]) -> None:
    for launch_entry in report["launches"]:
        for rank in launch_entry["ranks"]:
            tp = rank["tp"] if rank["tp"] is not None else (0 if rank["rank"] == "TP0" else None)
            pp = rank["pp"] or 0
            tp_size = launch_entry["config"].get("tp_size") or 1
            if tp is not None:
                rank["gpu"] = (launch_entry["config"].get("base_gpu_id") or 0) + (pp * tp_size + tp) % 8
                rank["gpu_assumed"] = True
