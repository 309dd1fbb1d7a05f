"""PyTorch's caching allocator, as far as a cell's size needs it: the segment a request gets when no cached block
fits (c10/cuda/CUDACachingAllocator.cpp get_allocation_size, with the constants torch's header ships,
c10/core/AllocatorConfig.h, read from each torch wheel by tools/upstream; 2.5-2.8 ship none of them, 2.9 only
kLargeBuffer, 2.10+ all five):

    request <= kSmallSize (1 MiB)       -> a kSmallBuffer segment (2 MiB)
    request <  kMinLargeAlloc (10 MiB)  -> a large segment (20 MiB, PYTORCH_CUDA_ALLOC_CONF large_segment_size_mb)
    otherwise                            -> the request rounded up to kRoundLarge (2 MiB)

The segment is an upper bound on what the request adds to the device: the allocator carves later requests out of
the rest of it, and places a request inside a segment it already holds when one has room."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from logscope.memory_model.record import Sourced, sourced


@dataclass(frozen=True)
class TorchAllocator:
    version: str
    small_size: Sourced[int]
    small_buffer: Sourced[int]
    min_large_alloc: Sourced[int]
    round_large: Sourced[int]
    large_segment_size: Sourced[int]

    def segment(self, request: int) -> tuple[int, str] | None:
        """The segment a fresh request of `request` bytes takes, and the constant that says so."""
        consts = (self.small_size, self.small_buffer, self.min_large_alloc, self.round_large, self.large_segment_size)
        if any(c.value is None for c in consts):
            return None
        if request <= int(self.small_size.value or 0):
            return int(self.small_buffer.value or 0), f"kSmallBuffer ({self.small_buffer.at})"
        if request < int(self.min_large_alloc.value or 0):
            return int(self.large_segment_size.value or 0), f"a large segment ({self.large_segment_size.at})"
        step = int(self.round_large.value or 1)
        return -(-request // step) * step, f"rounded up to kRoundLarge ({self.round_large.at})"

    @property
    def complete(self) -> bool:
        return all(c.value is not None for c in self._constants())

    def same_constants(self, other: TorchAllocator) -> bool:
        return [c.value for c in self._constants()] == [c.value for c in other._constants()]

    def missing(self) -> str:
        """Why the wheel does not give the segment: the constants it lacks and where they live."""
        names = ("kSmallSize", "kSmallBuffer", "kMinLargeAlloc", "kRoundLarge", "the large segment size")
        lacking = [(name, c.absent) for name, c in zip(names, self._constants()) if c.value is None]
        return f"{', '.join(n for n, _ in lacking)} {lacking[0][1] or 'not extracted'}" if lacking else ""

    def _constants(self) -> tuple[Sourced[int], ...]:
        return (self.small_size, self.small_buffer, self.min_large_alloc, self.round_large, self.large_segment_size)


@dataclass(frozen=True)
class AllocatorChoice:
    """The caching allocator a launch's torch uses, as far as its wheel states it; `note` says how it was chosen
    ("" where the input states the torch version and its wheel gives every constant)."""

    allocator: TorchAllocator | None
    note: str


def _minor(version: str) -> tuple[int, int] | None:
    found = re.match(r"\s*(\d+)\.(\d+)", version)
    return (int(found.group(1)), int(found.group(2))) if found else None


def allocator_for(read: Sequence[TorchAllocator], torch_version: str | None) -> AllocatorChoice:
    """The record of the torch release the input states (same major.minor); with none stated, the newest complete
    one, said to be assumed, with the releases that ship the same constants."""
    if torch_version:
        minor = _minor(torch_version)
        found = next((a for a in reversed(read) if minor is not None and _minor(a.version) == minor), None)
        if found is None:
            return AllocatorChoice(None, f"torch {torch_version}: no wheel of that release read")
        if not found.complete:
            return AllocatorChoice(None, f"torch {torch_version}'s wheel: {found.missing()}")
        return AllocatorChoice(found, "")
    complete = [a for a in read if a.complete]
    if not complete:
        return AllocatorChoice(None, "no torch wheel read")
    newest = complete[-1]
    same = [a for a in complete if a.same_constants(newest)]
    span = f"torch {same[0].version} to {newest.version} ship the same" if len(same) > 1 else ""
    return AllocatorChoice(newest, f"the input states no torch version: assumed{'; ' + span if span else ''}")


def torch_allocator(raw: Mapping[str, Any] | None) -> TorchAllocator | None:
    if not raw:
        return None
    fields = {name: sourced(raw.get(name)) for name in TorchAllocator.__dataclass_fields__ if name != "version"}
    return TorchAllocator(version=str(raw.get("version")), **fields)
