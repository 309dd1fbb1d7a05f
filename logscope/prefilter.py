"""The cheap literal prefilter: only lines holding one of these literals reach a lark grammar.

`logscope literals` prints the list so the benchmark can run `grep -F -f` with exactly the same set.
"""

from __future__ import annotations

import re
from functools import cache

from logscope.signatures.loader import bundled_signatures

_SIGNATURE_LITERALS = bundled_signatures().line_literals()

# grammar → literals whose presence makes a line a candidate for it
LITERALS: dict[str, tuple[str, ...]] = {
    "torch_oom": ("CUDA out of memory",),
    "server_args": ("server_args=",),
    "sglang": (
        "Init torch distributed", "Init nccl begin", "warmup completed", "Load weight begin", "Load weight end",
        "Cache is allocated", "Using KV cache dtype", "sliding window memory pool", "Memory pool end",
        "Capture ", "Capturing batches", "max_total_num_tokens=", "fired up and ready", "Engine startup timings",
        "sglang is using nccl", "NCCL version", "All Reduce config", "llreduce", "AllReduceV2",
        "cuda graph addresses", "Failed: Cuda error", "memory capacity is unbalanced", "Not enough memory",
        "Loaded weights leave no GPU memory", "Pre-allocating symmetric memory", "StagingBuffer",
        "StagingAllocator", "memory registration failed", "DeepEP", "hit an exception", "Received sigquit",
        "scheduler died", "Initialization failed", "Reserving ", "symmetric memory", "Symmetric memory",
        "is larger than the profiled", "Mooncake memory",
    ),
    "exception": ("Error: ", "Exception: ", "Error:", "Interrupt: "),
    "launch_command": ("sglang.launch_server", "sglang serve", "sglang.bench_one_batch", "export "),
    "check_env": ("Python: ", "CUDA available: ", "ROCM available: "),
    "traceback": (
        'File "', "Traceback (most recent", "Fatal Python error", "(most recent call first)",
        "During handling of the above", "The above exception",
    ),
    "native_log": ("NCCL WARN", ".cpp:", ".cc:"),
    # native backtraces (torch c10 "frame #N:", gdb "#N  0x... in", UCX "==== backtrace"): a block reader
    "native_backtrace": ("frame #", "==== backtrace", "Exception raised from", "#0  0x", "#1  0x"),
    # failure wording of the signatures (rules/signatures/*.yaml), and words that make a line look like a failure
    "signature": (*_SIGNATURE_LITERALS, "failed", "Failed", "FAILED", "Fatal", "WARN", "Error", "ERROR"),
    # lines that open an nvidia-smi dump (table, -q, CSV with or without header, topo -m)
    "nvidia_smi": (
        "NVIDIA-SMI", "MIG devices", "NVSMI LOG", "GPU0", "--query-", "memory.total", "memory.used", "memory.free",
        "pci.bus_id", "process_name", "used_gpu_memory", "used_memory", "gpu_uuid", "gpu_bus_id", "index, name",
        "NVIDIA ", "Tesla ", "GeForce", "Quadro", "Instinct",
    ),
}


@cache
def all_literals() -> tuple[str, ...]:
    """Every literal once, in registry order (also the set `logscope literals` prints for grep -F -f)."""
    return tuple(dict.fromkeys(literal for literals in LITERALS.values() for literal in literals))


# nvidia_smi literals open block readers; they are not a line grammar of their own
_LINE_GRAMMARS = {name: lits for name, lits in LITERALS.items() if name not in ("nvidia_smi", "native_backtrace")}
# the same literals as one alternation for polars' regex engine (SIMD literal search)
PATTERN = "|".join(re.escape(lit) for lit in all_literals())
_BY_GRAMMAR = {name: re.compile("|".join(re.escape(x) for x in lits)) for name, lits in _LINE_GRAMMARS.items()}


def grammars_for(text: str) -> list[str]:
    """The grammars whose literals the line holds, in the order they should be tried."""
    return [name for name, rx in _BY_GRAMMAR.items() if rx.search(text)]
