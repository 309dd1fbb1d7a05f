"""Parsed events: the single currency between the parsers and the assembler."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from logscope.core import kinds

RANK_DIMS = ("dp", "pp", "attn_cp", "moe_dp", "tp", "ep", "cp", "dcp")
# event kinds that mean a rank failed (its startup stops there)
FAILURE_KINDS = kinds.of_role(kinds.FAILURE)


@dataclass(frozen=True, slots=True)
class RankId:
    """A rank as printed in the log prefix ("DP0 TP3 EP3"), with its numeric dimensions."""

    label: str
    dims: tuple[tuple[str, int], ...] = ()

    def get(self, dim: str) -> int | None:
        for key, value in self.dims:
            if key == dim:
                return value
        return None

    @staticmethod
    def from_tags(tags: list[str]) -> RankId:
        dims: list[tuple[str, int]] = []
        for tag in tags:
            head = tag.rstrip("0123456789")
            dims.append((head.lower(), int(tag[len(head) :])))
        return RankId(label=" ".join(tags), dims=tuple(dims))

    def sort_key(self) -> tuple[Any, ...]:
        order = {d: i for i, d in enumerate(("node", "pid", *RANK_DIMS))}
        return tuple(sorted((order.get(k, 99), v) for k, v in self.dims)) + (self.label,)


@dataclass(slots=True)
class Event:
    """One recognised line (or block): what it is, where it came from, and its numbers."""

    kind: str
    source: str
    line: int
    text: str
    rank: RankId | None = None
    time: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    grammar: str = kinds.SGLANG


@dataclass
class SourceEvents:
    """One source's events as the classifier hands them to the assembler, in reading order. A source of more than
    classify.STREAM_AFTER events is an iterator that classifies as it is read, so the assembler folds a crash
    loop's launches as they end and its events are never all held. `tagged` (some event carries a rank tag) is
    decided over the events held before streaming; `grammars` (the grammars that read the events) is complete once
    `events` has been read."""

    name: str
    events: Iterable[Event]
    tagged: bool
    grammars: set[str] = field(default_factory=set)
    streamed: bool = False
