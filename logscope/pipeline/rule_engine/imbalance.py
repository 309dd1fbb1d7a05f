"""The `imbalance` fact: free memory before the weights across a launch's ranks, SGLang's own imbalance check,
and the cause the inputs point to. rules/memory-imbalance.yaml states its conditions and messages over it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from logscope.core import kinds

FINDING = "memory-imbalance"

# the causes, in the order they are tried: the first the inputs show is the one named
DRAFT_WORKER = "draft_worker"  # SGLang's check ran in the draft (speculative) worker's initialisation
OTHER_PROCESS = "other_process"  # nvidia-smi shows another process on the low rank's GPU
MIXED_GPUS = "mixed_gpus"  # the GPUs are of different models
BEFORE_START = "before_start"  # free memory differed before the weights, init-distributed used the same
DRAFT_MODEL = "draft_model"  # the low rank also holds a draft model
DP_ATTENTION = "dp_attention"  # DP attention gives ranks extra groups
NOT_SHOWN = "not_shown"


@dataclass(frozen=True, slots=True)
class Imbalance:
    raised: list[dict[str, Any]] = field(default_factory=list)  # SGLang's check: its events, else its failures
    ranks_read: int = 0  # ranks with a "Load weight begin" reading
    low_rank: str | None = None
    high_rank: str | None = None
    low_gib: float | None = None
    high_gib: float | None = None
    spread_gib: float | None = None
    spread_pct: float | None = None
    readings: list[dict[str, Any]] = field(default_factory=list)  # the low and the high reading
    cause: str = NOT_SHOWN

    def to_fact(self) -> dict[str, Any]:
        return asdict(self)


def _is_check(event: dict[str, Any]) -> bool:
    return kinds.IMBALANCE in (event.get("kind"), event.get("body_kind"))


def _in_draft_worker(raised: list[dict[str, Any]]) -> bool:
    return any("eagle" in e.get("frames_text", "").lower() or "draft" in e.get("frames_text", "").lower() for e in raised)


def _before_weights(rank: dict[str, Any]) -> float | None:
    reading = rank["phase"].get(kinds.LOAD_WEIGHT_BEGIN)
    return reading.get("avail_gib") if reading else None


def imbalance_fact(
    events: list[dict[str, Any]],
    failures: list[dict[str, Any]],
    ranks: list[dict[str, Any]],
    gpus: list[dict[str, Any]],
    config: dict[str, Any],
) -> Imbalance:
    raised = [e for e in events if _is_check(e)] or [f for f in failures if f.get("finding") == FINDING]
    read = [(gib, rank) for rank in ranks if (gib := _before_weights(rank)) is not None]
    if not read:
        return Imbalance(raised=raised, cause=_cause(raised, None, None, gpus, config))
    low_gib, low = min(read, key=lambda pair: pair[0])
    high_gib, high = max(read, key=lambda pair: pair[0])
    spread = round(high_gib - low_gib, 6)
    usages = [u for _gib, r in read if (u := (r["phase"].get(kinds.INIT_DISTRIBUTED_END) or {}).get("usage_gib")) is not None]
    init_spread = round(max(usages) - min(usages), 6) if usages else None
    settled_before = len(read) >= 2 and init_spread is not None and init_spread < 0.5 and spread > 1
    return Imbalance(
        raised=raised,
        ranks_read=len(read),
        low_rank=low["rank"],
        high_rank=high["rank"],
        low_gib=low_gib,
        high_gib=high_gib,
        spread_gib=spread,
        spread_pct=round(100 * spread / high_gib, 1) if high_gib else None,
        readings=[low["phase"][kinds.LOAD_WEIGHT_BEGIN], high["phase"][kinds.LOAD_WEIGHT_BEGIN]],
        cause=_cause(raised, low, settled_before, gpus, config),
    )


def _cause(
    raised: list[dict[str, Any]],
    low: dict[str, Any] | None,
    settled_before: bool | None,
    gpus: list[dict[str, Any]],
    config: dict[str, Any],
) -> str:
    low_gpu = next((g for g in gpus if low is not None and g.get("index") == low.get("gpu")), None)
    if _in_draft_worker(raised):
        return DRAFT_WORKER
    if low_gpu is not None and len(low_gpu.get("processes") or []) > 1:
        return OTHER_PROCESS
    if len({g.get("name") for g in gpus}) > 1:
        return MIXED_GPUS
    if settled_before:
        return BEFORE_START
    if low is not None and kinds.LOAD_WEIGHT_BEGIN in low["draft"]:
        return DRAFT_MODEL
    if config.get("enable_dp_attention") is True:
        return DP_ATTENTION
    return NOT_SHOWN
