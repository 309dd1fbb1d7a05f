"""Every parser logscope has, in the order they are tried: the line grammars (literals, shape test, parse)
and the block readers. The prefilter is built from the literals declared here, and the classifier loops
over these tables: a new grammar or dump layout is one entry here plus its own module and .lark file."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from logscope.parsers import other_lines, sglang_line
from logscope.parsers.base import BlockReader, Parsed, prefix_of, strip_prefix
from logscope.parsers.blocks import CheckEnvReader, NativeBacktraceReader, TracebackReader
from logscope.parsers.nvidia_smi import NvitopReader, SmiQueryReader, SmiTableReader
from logscope.parsers.nvidia_topo import TopoReader
from logscope.parsers.shell import ContinuedCommandReader, parse_command
from logscope.parsers.smi_csv import SmiCsvReader, SmiHeaderlessReader, parse_gpustat_row


@dataclass(frozen=True, slots=True)
class LineGrammar:
    """A one-line grammar: a line holding one of `literals` and passing `fits` is parsed by `parse`."""

    name: str
    literals: tuple[str, ...]
    parse: Callable[[str], Parsed | None]
    fits: Callable[[str], bool] = lambda text: True


_EXC_LINE = re.compile(r"^\s*(?:[A-Za-z_]\w*\.)*[A-Za-z_]*(?:Error|Exception|Interrupt): ")
_OOM_EXC = re.compile(r"^\s*((?:[A-Za-z_]\w*\.)*[A-Za-z_]*(?:Error|Exception)):")
_LAUNCH_SHAPE = re.compile(
    r"^\s*(?:\S*[$#]\s+)?(?:(?:sudo|nohup|env)\s+)*(?:export\s|[A-Z_][A-Z0-9_]*=\S*\s|\S*python3?(?:\.\d+)?\s+-m\s+sglang"
    r"|sglang\s+serve|(?:docker|podman)\s+run\s|torchrun\s)"
)
_NATIVE_SHAPE = re.compile(r"^\s*(?:[IWEF]\d{4} \d{2}:\d{2}:[\d.]+ +\d+ |[\w.-]+:\d+:\d+ \[\d+\])")


def _torch_oom(text: str) -> Parsed | None:
    data = other_lines.parse_oom(text)
    if data is None:
        return None
    m = _OOM_EXC.match(strip_prefix(text))
    if m:
        data["exception"] = m.group(1)
    if "Capture cuda graph failed" in text:
        data["context"] = "capture_failed"
    return Parsed("oom", data, prefix_of(text))


def _server_args(text: str) -> Parsed | None:
    parsed = other_lines.parse_server_args(text)
    if parsed is None:
        return None
    fields, truncated = parsed
    return Parsed("server_args", {"fields": fields, "truncated": truncated}, prefix_of(text))


def _sglang(text: str) -> Parsed | None:
    result = sglang_line.parse_line(text)
    if result is None:
        return None
    prefix, kind, data = result
    return Parsed(sglang_line.KINDS.get(kind, kind), data, prefix)


def _launch_command(text: str) -> Parsed | None:
    line = strip_prefix(text)
    data = other_lines.parse_launch_command(line) if line.lstrip().startswith("export ") else parse_command(line)
    if data is None:
        return None
    return Parsed("launch_command" if data["kind"] != "export" else "env_export", data)


# PyTorch's / vLLM's collect_env (pasted in SGLang issues too): "[pip3] torch==2.6.0", "vLLM Version: 0.8.3"
_COLLECT_PIP = re.compile(r"^\s*\[(?:pip3?|conda)\]\s+([A-Za-z0-9_.-]+)(?:==|\s+)([0-9][\w.+-]*)\s*$")
_NO_PACKAGES = re.compile(r"^\s*\[(?:pip3?|conda)\]\s+No relevant packages\s*$")
_COLLECT_KEY = re.compile(r"^\s*(vLLM Version|PyTorch version|Nvidia driver version|CUDA used to build PyTorch|"
                          r"CUDA runtime version|Python version|ROCM used to build PyTorch)\s*:\s*(\S.*?)\s*$")


def _collect_env(text: str) -> Parsed | None:
    if _NO_PACKAGES.match(text):
        return Parsed("check_env", {"values": {}})
    m = _COLLECT_PIP.match(text)
    if m:
        return Parsed("check_env", {"values": {m.group(1): m.group(2)}})
    m = _COLLECT_KEY.match(text)
    if m and not m.group(2).lower().startswith(("could not collect", "n/a")):
        return Parsed("check_env", {"values": {m.group(1): m.group(2)}})
    return None


# tqdm's weight-loading bar: how far loading got (where a hang or a crash stopped it)
_SHARDS = re.compile(r"^\s*Loading (\w+) checkpoint shards:\s+(\d+)% Completed \|\s*(\d+)/(\d+)\b")


def _shards(text: str) -> Parsed | None:
    m = _SHARDS.match(text)
    if m is None:
        return None
    return Parsed("shard_progress", {"format": m.group(1), "pct": int(m.group(2)), "done": int(m.group(3)),
                                     "total": int(m.group(4))})


_GPUSTAT_SHAPE = re.compile(r"^\s*\[\d+\]\s")

# a line that names an amount of memory ("avail mem=13.20 GB", "KV size: 45.78 GB", "reserved 512 MiB"): no grammar
# reads it unless another grammar above did, so a new wording of a new release is listed as unrecognised
# instead of vanishing before any grammar sees it
_MEMORY_AMOUNT = re.compile(r"\d(?:\.\d+)?\s*(?:GB|GiB|MiB|MB|TiB|TB)\b")
_MEMORY_WORD = re.compile(r"(?i)avail|usage|size|free|total|mem|reserv|alloc|budget|capacity|pool|buffer")


def _names_memory(text: str) -> bool:
    return bool(_MEMORY_AMOUNT.search(text) and _MEMORY_WORD.search(text))


def _gpustat(text: str) -> Parsed | None:
    row = parse_gpustat_row(text)
    return None if row is None else Parsed("smi_gpu", row)


def _kind_and_data(parse: Callable[[str], tuple[str, dict] | None]) -> Callable[[str], Parsed | None]:
    def parse_line(text: str) -> Parsed | None:
        result = parse(text)
        return None if result is None else Parsed(result[0], result[1])

    return parse_line


LINE_GRAMMARS: tuple[LineGrammar, ...] = (
    LineGrammar("torch_oom", other_lines.OOM_HEADS, _torch_oom),
    LineGrammar("server_args", ("server_args=",), _server_args),
    LineGrammar("sglang", (
        "Init torch distributed", "Init nccl begin", "warmup completed", "Load weight begin", "Load weight end",
        "Cache is allocated", "Using KV cache dtype", "sliding window memory pool", "Memory pool end",
        "Capture ", "Capturing batches", "max_total_num_tokens=", "fired up and ready", "Engine startup timings",
        "sglang is using nccl", "NCCL version", "All Reduce config", "llreduce", "AllReduceV2",
        "cuda graph addresses", "Failed: Cuda error", "memory capacity is unbalanced", "Not enough memory",
        "Loaded weights leave no GPU memory", "Pre-allocating symmetric memory", "StagingBuffer",
        "StagingAllocator", "memory registration failed", "DeepEP", "hit an exception", "Received sigquit",
        "scheduler died", "Initialization failed", "Reserving ", "symmetric memory", "Symmetric memory",
        "is larger than the profiled", "Mooncake memory", "DeepGEMM masked layout", "Required memory for warmup",
        "host memory for hierarchical", "SWAKVPool mem usage", "KV Cache VA upper bound", "Attention backend not",
        "MLA optimization is turned on", "Automatically detected platform", "Init parallel", "Memory baseline taken",
        "DSV4 memory calculation:", "Post-capture KV sizing",
    ), _sglang),
    LineGrammar("exception", ("Error: ", "Exception: ", "Error:", "Interrupt: "), _sglang,
                lambda text: bool(_EXC_LINE.match(strip_prefix(text)))),
    LineGrammar("launch_command", ("sglang.launch_server", "sglang serve", "sglang.bench_one_batch", "export ",
                                   "docker run", "torchrun"),
                _launch_command, lambda text: bool(_LAUNCH_SHAPE.match(text))),
    LineGrammar("traceback", (
        'File "', "Traceback (most recent", "Fatal Python error", "(most recent call first)",
        "During handling of the above", "The above exception",
    ), _kind_and_data(other_lines.parse_traceback_line)),
    LineGrammar("collect_env", ("[pip3] ", "[pip] ", "[conda] ", "vLLM Version:", "PyTorch version:",
                                "Nvidia driver version:", "CUDA used to build PyTorch:", "CUDA runtime version:",
                                "Python version:"), _collect_env),
    LineGrammar("progress", ("checkpoint shards:",), _shards),
    LineGrammar("gpustat", (" MB |",), _gpustat, lambda text: bool(_GPUSTAT_SHAPE.match(text))),
    LineGrammar("native_log", ("NCCL WARN", ".cpp:", ".cc:"), _kind_and_data(other_lines.parse_native_line),
                lambda text: bool(_NATIVE_SHAPE.match(text))),
    # reads nothing: a line naming memory that no grammar above read is counted as unrecognised
    LineGrammar("memory_line", ("GB", "GiB", "MiB", "MB"), lambda text: None, _names_memory),
)

BLOCK_READERS: tuple[type[BlockReader], ...] = (
    ContinuedCommandReader, CheckEnvReader, NativeBacktraceReader, TracebackReader,
    SmiTableReader, NvitopReader, SmiQueryReader, SmiCsvReader, SmiHeaderlessReader, TopoReader,
)


def block_readers(source: str) -> list[BlockReader]:
    """A fresh reader of each kind for one source, in the order they are tried."""
    return [reader(source) for reader in BLOCK_READERS]
