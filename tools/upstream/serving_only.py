"""Where each release raises or logs the messages that only a running server prints: every site (file, line,
enclosing function) of each catalogued SGLang release, read from the released wheels.

The question is the list below (a message and why only the scheduler's batch path reaches it); the answer, which
releases print it and where, comes from the source. catalog/serving_only.json is what
rules/signatures/serving.yaml cites; tests/test_signatures.py checks that every serving signature has sites here
and that each site's function is one the reason names."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tools.upstream import sources
from tools.upstream.write import write_generated

# (the literal text every release's wording holds, the functions it may be raised in, why only serving reaches them)
MESSAGES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (
        "Prefill out of memory. Try to lower your batch size.",
        ("alloc_token_slots", "alloc_paged_token_slots_extend", "alloc_for_extend", "alloc_extend"),
        "the token-slot allocation of a prefill batch the scheduler is building for requests",
    ),
    (
        "Decode out of memory. Try to lower your batch size.",
        ("alloc_token_slots", "alloc_paged_token_slots_decode", "alloc_for_decode", "alloc_decode"),
        "the token-slot allocation of a decode batch (requests already running)",
    ),
    (
        # the request-slot allocation of the same prefill batch (0.5.3.post3 on: mem_cache/common.py, later allocation.py),
        # called by alloc_for_extend only, which ScheduleBatch.prepare_for_extend calls for a batch of requests
        "alloc_req_slots runs out of memory.",
        ("alloc_req_slots",),
        "the request-slot allocation of a prefill batch the scheduler is building for requests (alloc_for_extend)",
    ),
    (
        "memory leak detected!",
        ("check_memory", "_check_req_pool", "_report_leak", "self_check_during_idle", "check_tree_cache"),
        "the scheduler's self-check when its event loop is idle between batches",
    ),
    (
        "Watchdog timeout ({self.watchdog_timeout",
        ("watchdog_thread",),
        "the scheduler's watchdog thread, which fires when a batch it is running makes no progress",
    ),
    (
        "{self.cur_batch.batch_size()=}",  # the watchdog's first line, before its py-spy dump and its timeout line
        ("watchdog_thread",),
        "the scheduler's watchdog thread, which fires when a batch it is running makes no progress",
    ),
    (
        'watchdog timeout "',  # 0.5.7 on: f"{self.debug_name} watchdog timeout " f"({self.watchdog_timeout=}, ...)"
        ("_watchdog_once",),
        "the watchdog of a running component (the scheduler's: a batch it is running makes no progress)",
    ),
    (
        "raise KVTransferError(",  # 0.4.7.post1 on; its __str__: f"KVTransferError(bootstrap_room={...}): {...}"
        ("failure_exception",),
        "a request's KV sender or receiver whose transfer failed, asked by the PD queues (prefill.py / decode.py) for"
        " that request; the PD warmup's transfer is the FAKE backend's (bootstrap host FAKE_BOOTSTRAP_HOST), which raises"
        " none",
    ),
)
_DEF = re.compile(r"^(\s*)(?:async\s+)?def (\w+)|^(\s*)class (\w+)")


def _enclosing(lines: list[str], index: int) -> str:
    """Class.function of the def around line `index` (nearest def above, and the class above that def)."""
    func, func_indent = "", None
    for j in range(index, -1, -1):
        m = _DEF.match(lines[j])
        if not m:
            continue
        if m.group(2) and func_indent is None:
            func, func_indent = m.group(2), len(m.group(1))
        elif m.group(4) and func_indent is not None and len(m.group(3)) < func_indent:
            return f"{m.group(4)}.{func}"
    return func


def extract() -> dict[str, Any]:
    out: dict[str, Any] = {anchor: {"functions": list(funcs), "why": why, "sites": []} for anchor, funcs, why in MESSAGES}
    for version in sources.sglang_versions():
        wheel = sources.download("sglang", version)
        for path, text in sources.python_files(wheel, "sglang/srt/"):
            if not any(anchor in text for anchor, _, _ in MESSAGES):
                continue
            lines = text.splitlines()
            for i, line in enumerate(lines):
                for anchor, _, _ in MESSAGES:
                    if anchor in line and not line.lstrip().startswith("#"):
                        site = {"release": version, "file": path, "line": i + 1, "function": _enclosing(lines, i)}
                        out[anchor]["sites"].append(site)
    return out


def write(path: Path) -> None:
    about = (
        "Where each SGLang release raises or logs a message only a running server prints, read from the "
        "released wheels by tools/upstream/serving_only.py (python -m tools.upstream serving). Generated."
    )
    write_generated(path, about, {"messages": extract()})
