"""PyTorch's caching allocator, as far as a cell's size needs it: the segment a request gets when no cached block
fits (c10/cuda/CUDACachingAllocator.cpp get_allocation_size, with the constants torch's header ships,
c10/core/AllocatorConfig.h, read from the wheel by tools/upstream):

    request <= kSmallSize (1 MiB)       -> a kSmallBuffer segment (2 MiB)
    request <  kMinLargeAlloc (10 MiB)  -> a large segment (20 MiB, PYTORCH_CUDA_ALLOC_CONF large_segment_size_mb)
    otherwise                            -> the request rounded up to kRoundLarge (2 MiB)

The segment is an upper bound on what the request adds to the device: the allocator carves later requests out of
the rest of it, and places a request inside a segment it already holds when one has room."""

from __future__ import annotations

from collections.abc import Mapping
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


def torch_allocator(raw: Mapping[str, Any] | None) -> TorchAllocator | None:
    if not raw:
        return None
    fields = {name: sourced(raw.get(name)) for name in TorchAllocator.__dataclass_fields__ if name != "version"}
    return TorchAllocator(version=str(raw.get("version")), **fields)
