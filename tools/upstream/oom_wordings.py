"""The out-of-memory wordings torch's own libraries print, read from the released torch wheels: the device allocators'
(c10/cuda CUDACachingAllocator, CUDAMallocAsyncAllocator), the CPU allocator's and the file-mapped tensors' (MapAllocator),
with the releases that hold each. rules/signatures/memory.yaml and host_memory.yaml cite these; tests/test_oom_wordings.py
checks that every torch wording a signature matches is one of them, in the releases its source names.

The question is the list below (the libraries and the words an OOM message holds); the answer, which strings and in which
releases, comes from the wheels (each library's printable strings, as `strings` lists them)."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

from tools.upstream import sources
from tools.upstream.write import by_release, write_generated

# the releases read (each wheel is about 900 MB: the ones whose wordings the signatures cite)
TORCH_VERSIONS = ("2.5.1", "2.9.1", "2.12.0")
# the libraries whose strings hold the allocators' messages
LIBRARIES = ("torch/lib/libc10.so", "torch/lib/libc10_cuda.so", "torch/lib/libtorch_cpu.so")
# a string is an OOM wording when it holds one of these (case-insensitive)
WORDS = re.compile(
    rb"out of memory|can't allocate memory|unable to mmap|would exceed allowed memory|not enough memory", re.IGNORECASE
)
_STRING = re.compile(rb"[\x20-\x7e]{6,}")


def wordings(wheel: Path) -> dict[str, list[str]]:
    """Each library's printable strings that hold an OOM word."""
    out: dict[str, list[str]] = {}
    with zipfile.ZipFile(wheel) as zf:
        for name in LIBRARIES:
            if name not in zf.namelist():
                continue
            data = zf.read(name)
            found = {m.group(0).decode() for m in _STRING.finditer(data) if WORDS.search(m.group(0))}
            out[name.rsplit("/", 1)[-1]] = sorted(found)
    return out


def extract() -> dict[str, Any]:
    found = {version: wordings(sources.download("torch", version)) for version in TORCH_VERSIONS}
    return {"releases": list(TORCH_VERSIONS), "wordings": by_release(found)}


def write(path: Path) -> None:
    about = (
        "The out-of-memory wordings in torch's libc10.so, libc10_cuda.so and libtorch_cpu.so, per release (each string"
        " that holds an OOM word, with the libraries and releases that hold it), read from the released wheels by"
        " tools/upstream/oom_wordings.py (python -m tools.upstream oom). Generated."
    )
    write_generated(path, about, extract())
