"""A communication cell: one group x mechanism region of a rank's memory, with what its size rests on.

The analyzed document carries cells as JSON objects (`group`, `mechanism`, `gib`, `kind`, `timing`, `basis`,
`rule`, ...); `Cell.as_json` writes that contract and adds `bytes`, `inputs`, `source` and `release_range`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

GIB = 1 << 30
Basis = Literal["read", "measured", "measured (probe)", "estimated"]
Timing = Literal["eager", "lazy", "at-capture"]


@dataclass(frozen=True)
class Cell:
    group: str  # tp, attention_tp, moe_ep, pp, pd
    mechanism: str  # pynccl, torch_nccl, custom_ar, custom_ar_v2, deepep_low_latency, ...
    bytes: int | None  # None: the input lacks what the formula needs (said in `basis`)
    kind: Basis
    timing: Timing
    basis: str  # the formula and its inputs, in words
    inputs: Mapping[str, Any] = field(default_factory=dict)  # the formula's inputs, by name
    source: tuple[str, ...] = ()  # the release's file:line (or file:function) each constant came from
    release_range: str | None = None  # the releases the figure holds for
    rule: Mapping[str, Any] | None = None

    @property
    def gib(self) -> float | None:
        return None if self.bytes is None else round(self.bytes / GIB, 3)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "group": self.group,
            "mechanism": self.mechanism,
            "gib": self.gib,
            "kind": self.kind,
            "timing": self.timing,
            "basis": self.basis,
        }
        if self.rule is not None:
            out["rule"] = dict(self.rule)
        if self.bytes is not None:
            out["bytes"] = self.bytes
        if self.inputs:
            out["inputs"] = dict(self.inputs)
        if self.source:
            out["source"] = list(self.source)
        if self.release_range:
            out["release_range"] = self.release_range
        return out
