"""The memory-relevant areas of SGLang's source: every message printed there must be read by a grammar or a
signature, or be explained (catalog/explained.yaml). A message's area is the first row whose module prefix
(and function pattern, where given) fits it."""

from __future__ import annotations

import re

# (area, module prefix, function pattern or None)
AREAS: tuple[tuple[str, str, str | None], ...] = (
    ("distributed", "sglang.srt.distributed", None),
    ("model_runner", "sglang.srt.model_executor", None),
    ("memory_pool", "sglang.srt.mem_cache", None),
    ("moe_dispatcher", "sglang.srt.layers.moe.token_dispatcher", None),
    ("moe_dispatcher", "sglang.srt.layers.moe.ep_moe.token_dispatcher", None),
    ("disaggregation", "sglang.srt.disaggregation", None),
    ("speculative", "sglang.srt.speculative", None),
    ("server_args_memory", "sglang.srt.arg_groups.memory_hook", None),  # 0.5.2x: server args' memory settings
    (
        "server_args_memory",
        "sglang.srt.server_args",
        r"(?i)mem|memory|kv_cache|cuda_graph|chunked_prefill|max_total|deepep|disaggregation|_handle_gpu",
    ),
)
_COMPILED = tuple((area, prefix, re.compile(pattern) if pattern else None) for area, prefix, pattern in AREAS)


def area_of(module: str, function: str) -> str | None:
    for area, prefix, pattern in _COMPILED:
        if (module == prefix or module.startswith(prefix + ".")) and (pattern is None or pattern.search(function)):
            return area
    return None
