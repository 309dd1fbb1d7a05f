"""Whether a launch's GPUs are joined by NVLink, from what the input shows: the topology matrix (`nvidia-smi topo
-m`: NV# between GPUs, or PIX/PXB/PHB/NODE/SYS only), else the GPU model's name (cards sold without NVLink).
Custom all-reduce depends on it: v2 needs full NVLink (custom_all_reduce_v2.py can_use_custom_all_reduce_v2),
the legacy one turns itself off on more than two PCIe-only GPUs (custom_all_reduce_utils.py
can_use_custom_all_reduce_with_nvlink)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# GPU models sold without NVLink (PCIe or SXM-less cards); a name matching is taken as PCIe-only, and said
_PCIE_ONLY = re.compile(r"PCIe|\bL40S?\b|\bL4\b|\bL20\b|\bA10G?\b|\bA16\b|\bA2\b|\bT4\b|\bRTX\b|GeForce", re.IGNORECASE)


@dataclass(frozen=True)
class Interconnect:
    full_nvlink: bool | None  # None: the input does not show it
    basis: str


def interconnect(links: list[Any], gpu_names: list[str]) -> Interconnect:
    """`links`: [gpu_a, gpu_b, kind] from the topology matrix; `gpu_names`: the names the dumps show."""
    pairs = [(a, b, str(kind)) for a, b, kind in (link for link in links if len(link) == 3) if a != b]
    if pairs:
        nvlink = [kind for _, _, kind in pairs if kind.upper().startswith("NV")]
        if len(nvlink) == len(pairs):
            return Interconnect(True, "nvidia-smi topo -m: NVLink between every GPU pair")
        return Interconnect(False, f"nvidia-smi topo -m: {len(pairs) - len(nvlink)} GPU pair(s) without NVLink")
    named = [name for name in gpu_names if name]
    if named and all(_PCIE_ONLY.search(name) for name in named):
        return Interconnect(False, f"{named[0]}: a card without NVLink (assumed from the model name)")
    return Interconnect(None, "interconnect not in the input")
