"""Format strings of the native libraries whose messages reach SGLang's logs, read from their shared
libraries like `strings` does (runs of printable bytes), in Python: NCCL, NVSHMEM, Mooncake's transfer
engine, NIXL, and PyTorch's CUDA caching allocator (its OOM texts live in libc10_cuda.so).

Only strings that read as messages about memory or failures are kept (a format conversion or a failure /
memory word), so the catalogue stays small; each with the library file it came from."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

from tools.upstream import sources

# (package, version or None for the newest, the library files to read (a substring of the member name))
PACKAGES: tuple[tuple[str, str | None, tuple[str, ...]], ...] = (
    ("mooncake-transfer-engine", None, ("engine.so", "store.so", "_ep.", "nvlink_allocator.so")),
    # "nixl" itself is a meta package naming nixl-cu12 / nixl-cu13
    ("nixl-cu12", None, ("libnixl", "libplugin_UCX", "libplugin_LIBFABRIC", "nixl_ep_cpp")),
    ("nvidia-nccl-cu12", None, ("libnccl.so",)),
    ("nvidia-nccl-cu13", None, ("libnccl.so",)),
    ("nvidia-nvshmem-cu12", None, ("libnvshmem_host.so",)),
    ("nvidia-nvshmem-cu13", None, ("libnvshmem_host.so",)),
)
# PyTorch: the CUDA build's wheel already on this machine (a CPU build has no CUDA allocator); see docs/probe.md
TORCH_WHEELS = ("/opt/pypi-more/files/torch-2.14.1-cp311-cp311-manylinux_2_28_x86_64.whl",)
TORCH_LIBS = ("libc10_cuda.so",)

_RUN = re.compile(rb"[\x20-\x7e\t]{8,}")
_FORMAT = re.compile(r"%[-+ #0]*\d*(?:\.\d+)?(?:l|ll|z|h)?[sdiufxXpgeEc]|\{\}")
_WORDS = re.compile(
    r"(?i)out of memory|memory|alloc|register|\bOOM\b|failed|failure|error|insufficient|exceed|"
    r"buffer|heap|symmetric|NCCL WARN|not enough|cudaMalloc|cuMem|Tried to"
)
_MEMORY = re.compile(
    r"(?i)out of memory|memory|alloc|regist|\bOOM\b|insufficient|exceed|buffer|heap|symmetric|"
    r"not enough|cudaMalloc|cuMem|Tried to|bytes|size"
)
# libraries a wheel vendors (auditwheel renames them "libfoo-<hash>.so"): not the package's own messages
_VENDORED = re.compile(r"-[0-9a-f]{8}\.so")
_NOISE = re.compile(r"^[_A-Za-z][\w:<>,*&\s]*\(|^_Z|\.(?:cpp|cu|h|hpp|cc)$|^[\w./-]+$")
_KEEP_MAX = 150  # per library, in sorted order (the figure is kept: `kept`, `found`)


def strings_of(data: bytes) -> list[str]:
    out = []
    for m in _RUN.finditer(data):
        text = m.group(0).decode("ascii").strip()
        if len(text) < 12 or _NOISE.search(text):
            continue
        if _WORDS.search(text) and _MEMORY.search(text) and (_FORMAT.search(text) or " " in text):
            out.append(text)
    return out


def _scan(wheel: Path, libs: tuple[str, ...]) -> dict[str, Any]:
    found: dict[str, list[str]] = {}
    counts: dict[str, int] = {}
    with zipfile.ZipFile(wheel) as zf:
        for name in zf.namelist():
            base = name.rsplit("/", 1)[-1]
            if any(lib in base for lib in libs) and ".so" in base and not _VENDORED.search(base):
                texts = sorted(set(strings_of(zf.read(name))))
                if texts:
                    found[base] = texts[:_KEEP_MAX]
                    counts[base] = len(texts)
    return {"wheel": wheel.name, "libraries": found, "found": counts}


def extract() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for package, version, libs in PACKAGES:
        try:
            wheel = sources.download(package, version)
        except Exception as exc:  # noqa: BLE001 - one missing package must not stop the refresh
            out[package] = {"error": f"not downloaded: {exc}"}
            continue
        out[package] = _scan(wheel, libs)
    for path in TORCH_WHEELS:
        wheel = Path(path)
        if wheel.is_file():
            scanned = _scan(wheel, TORCH_LIBS)
            scanned["libraries"] = {
                lib: [t for t in texts if "memory" in t.lower() or "allocate" in t.lower()]
                for lib, texts in scanned["libraries"].items()
            }
            out["torch"] = scanned
    return out
