"""NCCL's connection-buffer constants per release, read from the NVIDIA/nccl git history (one release tag at a
time, `git show <tag>:<path>`; nothing is built), and grouped into ranges of consecutive releases whose values are
equal. Each range keeps the file:line of its first release.

What a ring connection allocates per channel (src/init.cc computeBuffSizes: DEFAULT_LL_BUFFSIZE,
DEFAULT_LL128_BUFFSIZE, DEFAULT_BUFFSIZE, and up to 2.18 DEFAULT_BUFFSIZE_ARM on an ARM CPU; the defines they are
built of in src/include/device.h, src/include/devcomm.h up to 2.18) and how src/transport/p2p.cc rounds it
(CUDA_IPC_MIN, MEM_ALIGN in src/include/comm.h), with the channel limit MAXCHANNELS."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path
from typing import Any

_P2P_ALIGN = r"ALIGN_SIZE\(({}), CUDA_IPC_MIN\)"
_TAG = re.compile(r"^v(\d+)\.(\d+)\.(\d+)-1$")
# the defines of the device code moved from devcomm.h to device.h in 2.19
_DEVICE_HEADERS = ("src/include/device.h", "src/include/devcomm.h")
_ARM_ABSENT = "no DEFAULT_BUFFSIZE_ARM in src/init.cc: computeBuffSizes takes DEFAULT_BUFFSIZE on every CPU"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(repo), *args], capture_output=True, text=True, check=True).stdout


def _show(repo: Path, ref: str, path: str) -> str | None:
    done = subprocess.run(["git", "--git-dir", str(repo), "show", f"{ref}:{path}"], capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else None


def _line_of(text: str, pattern: str, what: str) -> tuple[str, int]:
    for lineno, line in enumerate(text.splitlines(), 1):
        m = re.search(pattern, line)
        if m:
            return m.group(1), lineno
    raise SystemExit(f"NCCL source ({what}): no line matching /{pattern}/")


def release_tags(repo: Path, first: tuple[int, int], last: tuple[int, int] | None = None) -> list[str]:
    """The release tags (vX.Y.Z-1) from minor `first` to `last` (inclusive; None: the newest), oldest first."""
    found = []
    for tag in _git(repo, "tag").split():
        m = _TAG.match(tag)
        if m and (int(m[1]), int(m[2])) >= first and (last is None or (int(m[1]), int(m[2])) <= last):
            found.append(((int(m[1]), int(m[2]), int(m[3])), tag))
    return [tag for _, tag in sorted(found)]


def release(repo: Path, ref: str) -> dict[str, Any]:
    """The constants of one release tag (or commit), each with the file:line it was read from."""
    device_h = next(p for p in _DEVICE_HEADERS if _show(repo, ref, p) is not None)
    init_cc, comm_h, p2p_cc = "src/init.cc", "src/include/comm.h", "src/transport/p2p.cc"
    device, init = _show(repo, ref, device_h) or "", _show(repo, ref, init_cc) or ""
    comm, p2p = _show(repo, ref, comm_h) or "", _show(repo, ref, p2p_cc) or ""
    version_mk = _show(repo, ref, "makefiles/version.mk") or ""

    def define(text: str, path: str, name: str) -> dict[str, Any]:
        value, line = _line_of(text, rf"^#define {name} \(?([\d<\s]+)\)?", f"{ref} {path}")
        text = value.strip()
        number = 1 << int(text.split("<<")[1]) if "<<" in text else int(ast.literal_eval(text))
        return {"value": number, "at": f"{path}:{line}"}

    def version_part(name: str) -> str:
        return _line_of(version_mk, rf"^{name}\s+:= (\d+)", f"{ref} makefiles/version.mk")[0]

    _, fifo_line = _line_of(device, r"^union (ncclLLFifoLine) \{", f"{ref} {device_h}")
    arm = define(init, init_cc, "DEFAULT_BUFFSIZE_ARM") if "#define DEFAULT_BUFFSIZE_ARM" in init else None
    return {
        "version": ".".join(version_part(n) for n in ("NCCL_MAJOR", "NCCL_MINOR", "NCCL_PATCH")),
        "tag": ref,
        "commit": _git(repo, "rev-list", "-n", "1", ref).strip(),
        "steps": define(device, device_h, "NCCL_STEPS"),
        "ll_max_nthreads": define(device, device_h, "NCCL_LL_MAX_NTHREADS"),
        "ll_lines_per_thread": define(device, device_h, "NCCL_LL_LINES_PER_THREAD"),
        # union ncclLLFifoLine's `uint64_t v[N]` member: 8 x N bytes
        "ll_line_bytes": {
            "value": 8 * int(_line_of(device, r"^\s+uint64_t v\[(\d+)\];", f"{ref} {device_h}")[0]),
            "at": f"{device_h}:{fifo_line}",
        },
        "ll128_max_nthreads": define(device, device_h, "NCCL_LL128_MAX_NTHREADS"),
        "ll128_elems_per_thread": define(device, device_h, "NCCL_LL128_ELEMS_PER_THREAD"),
        "simple_bytes": define(init, init_cc, "DEFAULT_BUFFSIZE"),
        "simple_bytes_arm": arm or {"value": None, "absent": _ARM_ABSENT},
        "max_channels": define(device, device_h, "MAXCHANNELS"),
        # p2p.cc: each ring connection's send and receive memory (ncclSendMem / ncclRecvMem, unions padded to
        # MEM_ALIGN, + the protocol buffers they carry) is rounded up to CUDA_IPC_MIN before it is allocated
        "cuda_ipc_min": define(comm, comm_h, "CUDA_IPC_MIN"),
        "mem_align": define(comm, comm_h, "MEM_ALIGN"),
        "p2p_send_align": {"value": "sendSize", "at": f"{p2p_cc}:{_line_of(p2p, _P2P_ALIGN.format('sendSize'), p2p_cc)[1]}"},
        "p2p_recv_align": {"value": "recvSize", "at": f"{p2p_cc}:{_line_of(p2p, _P2P_ALIGN.format('recvSize'), p2p_cc)[1]}"},
    }


_IDENTITY = ("version", "tag", "commit", "first", "last", "versions", "repository")


def _values(record: dict[str, Any]) -> list[Any]:
    return [entry.get("value") for name, entry in record.items() if name not in _IDENTITY]


def ranges(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Consecutive releases with equal values, each range with its releases and its first release's file:lines."""
    grouped: list[dict[str, Any]] = []
    for record in records:
        if grouped and _values(grouped[-1]) == _values(record):
            grouped[-1]["last"] = record["version"]
            grouped[-1]["versions"].append(record["version"])
            continue
        head = {"first": record["version"], "last": record["version"], "versions": [record["version"]]}
        grouped.append({**head, "repository": "github.com/NVIDIA/nccl", **record})
    return [{k: v for k, v in g.items() if k != "version"} for g in grouped]


def nccl_sources(repo: Path, first: tuple[int, int] = (2, 18), last: tuple[int, int] | None = None) -> list[dict[str, Any]]:
    """Every release tag from `first` to `last`, read and grouped into ranges of equal constants."""
    return ranges([release(repo, tag) for tag in release_tags(repo, first, last)])
