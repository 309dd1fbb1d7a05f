"""A communication cell: one group x mechanism region of a rank's memory, with what its size rests on.

Cells travel typed from sizing through the ledger, the rules, compare and the report's view-model; the analyzed
document carries them as JSON objects (`group`, `mechanism`, `gib`, `kind`, `timing`, `basis`, `rule`, ...),
written only by `Cell.as_json` (which adds `bytes`, `inputs`, `source`, `release_range` and the alternatives) and
read back by `Cell.from_json`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast

GIB = 1 << 30
Basis = Literal["read", "measured", "measured (probe)", "estimated"]
Timing = Literal["eager", "lazy", "at-capture"]


@dataclass(frozen=True)
class CellAlternative:
    """The figure another run of releases the input allows gives for the same cell."""

    sglang: str  # the releases it holds for ("SGLang 0.5.9 to 0.5.20")
    mechanism: str | None  # None: that release builds no such buffer
    gib: float | None
    basis: str

    def as_json(self) -> dict[str, Any]:
        return {"sglang": self.sglang, "mechanism": self.mechanism, "gib": self.gib, "basis": self.basis}

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> CellAlternative:
        return cls(str(doc["sglang"]), doc.get("mechanism"), doc.get("gib"), str(doc.get("basis", "")))


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
    # the figure a probe calibration measured (kind "measured (probe)"), which `gib` gives; `bytes` keeps the
    # estimate it replaces
    measured_gib: float | None = None
    # where the input allows several releases: the other runs' figures, nearest first
    alternatives: tuple[CellAlternative, ...] = ()

    @property
    def gib(self) -> float | None:
        if self.measured_gib is not None:
            return self.measured_gib
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
        if self.alternatives:
            out["alternative"] = self.alternatives[0].as_json()
            out["alternatives"] = [a.as_json() for a in self.alternatives]
        return out

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> Cell:
        """The cell a logscope/1 document carries (the inverse of `as_json`)."""
        kind = str(doc.get("kind", "estimated"))
        gib = doc.get("gib")
        raw = doc.get("bytes")
        # a figure that is not `bytes` rounded (a probe's measurement) overrides it, so the cell reads back as written
        measured = gib if gib is not None and (raw is None or round(int(raw) / GIB, 3) != gib) else None
        return cls(
            group=str(doc["group"]),
            mechanism=str(doc["mechanism"]),
            bytes=None if raw is None else int(raw),
            kind=cast(Basis, kind),
            timing=cast(Timing, str(doc.get("timing", "eager"))),
            basis=str(doc.get("basis", "")),
            inputs=dict(doc.get("inputs") or {}),
            source=tuple(str(s) for s in doc.get("source") or ()),
            release_range=doc.get("release_range"),
            rule=doc.get("rule"),
            measured_gib=measured,
            alternatives=tuple(CellAlternative.from_json(a) for a in doc.get("alternatives") or ()),
        )
