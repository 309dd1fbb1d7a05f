"""The watch document (schema logscope-watch/1) as typed values, from `read_watch` to its views; `to_json()` writes
the document's JSON (the keys documented in docs/, in their order, null where unknown)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from logscope.core.cell import Cell

SCHEMA = "logscope-watch/1"


@dataclass(frozen=True)
class SglangFigures:
    """What SGLang states of one rank's memory (GiB; None: not stated), and where it said it."""

    sources: tuple[str, ...]
    weight_gib: float | None = None
    kv_cache_gib: float | None = None
    graph_gib: float | None = None
    graph_phases: dict[str, float] | None = None
    startup_available_gib: float | None = None
    token_capacity: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "read",
            "sources": list(self.sources),
            "weight_gib": self.weight_gib,
            "kv_cache_gib": self.kv_cache_gib,
            "graph_gib": self.graph_gib,
            "graph_phases": self.graph_phases,
            "startup_available_gib": self.startup_available_gib,
            "token_capacity": self.token_capacity,
        }


@dataclass(frozen=True)
class DeviceUse:
    """The device's use of the rank's GPU (measured: NVML or an nvidia-smi dump)."""

    used_gib: float
    card_total_gib: float | None
    source: str

    def to_json(self) -> dict[str, Any]:
        return {"used_gib": self.used_gib, "card_total_gib": self.card_total_gib, "kind": "measured", "source": self.source}


@dataclass(frozen=True)
class WatchRank:
    rank: str
    dp: int | None
    tp: int
    pp: int
    gpu: int  # assumed from the rank (base_gpu_id, gpu_id_step)
    sglang: SglangFigures
    device: DeviceUse | None = None
    residual_gib: float | None = None  # the device's use less SGLang's figures
    residual_after_cells_gib: float | None = None  # and less the communication cells

    def to_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "dp": self.dp,
            "tp": self.tp,
            "pp": self.pp,
            "gpu": self.gpu,
            "gpu_assumed": True,
            "sglang": self.sglang.to_json(),
            "device": None if self.device is None else self.device.to_json(),
            "residual_gib": self.residual_gib,
            "residual_after_cells_gib": self.residual_after_cells_gib,
        }


@dataclass(frozen=True)
class WatchDocument:
    url: str
    endpoint: str
    version: str
    config: dict[str, Any]  # the server's arguments as it states them (tp_size, ..., model_path)
    max_total_num_tokens: Any
    missing: tuple[str, ...]
    device_note: str | None
    cells: tuple[Cell, ...]
    ranks: tuple[WatchRank, ...] = field(default_factory=tuple)

    @property
    def cells_gib(self) -> float:
        """The sized cells' sum per rank (a cell of unknown size counts nothing)."""
        return round(sum(c.gib or 0 for c in self.cells), 3)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "url": self.url,
            "endpoint": self.endpoint,
            "version": self.version,
            "config": self.config,
            "max_total_num_tokens": self.max_total_num_tokens,
            "missing": list(self.missing),
            "device_note": self.device_note,
            "cells": [c.as_json() for c in self.cells],
            "cells_gib": self.cells_gib,
            "ranks": [r.to_json() for r in self.ranks],
        }
