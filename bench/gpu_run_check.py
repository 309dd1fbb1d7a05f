"""The GPU acceptance check of `logscope run` (run by hand on one GPU, through bench/gpu_run_check.sh).

python bench/gpu_run_check.py launch --known K.json [--weights-gib 8 --kv-gib 16]
    a launch-like program: prints SGLang 0.5.23's phase lines (the wordings of
    fixtures/upstream/sglang-0.5.23-tp2.log, which tools/upstream writes from the 0.5.23 catalogue) with the
    numbers SGLang would print (torch.cuda.mem_get_info, as get_available_gpu_memory reads it) while it really
    allocates: the CUDA context, an NCCL communicator at world size 1 (init_process_group('nccl') and one
    all_reduce), a weights tensor, the K and V tensors. It writes what it knows to K.json: the context's and
    the communicator's device memory measured by NVML before/after each (as `logscope probe` measures them,
    torch's reserved growth taken out) and torch.cuda.memory_reserved() at each phase line.
python bench/gpu_run_check.py compare --known K.json --document analysis.json
    the memory outside the allocator that `logscope run` measured at each phase (the document's
    phases[].device.outside_allocator_gib) against what the program knows is outside it (context +
    communicator); prints a table and PASS when every phase agrees within 5%, else FAIL (exit 1).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WORDINGS = ROOT / "fixtures" / "upstream" / "sglang-0.5.23-tp2.log"
TOLERANCE = 0.05
GIB = float(1 << 30)
MIB = float(1 << 20)


def wordings() -> dict[str, str]:
    """0.5.23's phase lines of TP0, keyed by their head, from the fixture tools/upstream wrote."""
    out = {}
    for line in WORDINGS.read_text().splitlines():
        m = re.match(r"\[[^\]]* TP0\] (.*)$", line) or re.match(r"\[[^\]]*\] (The server is fired up.*)$", line)
        if m:
            out[m.group(1).split(".")[0].split(" dtype")[0].split("=")[0]] = m.group(1)
    return out


def fill(text: str, values: dict[str, str]) -> str:
    """The wording with its numbers replaced: each `key` followed by a number gets values[key]."""
    for key, value in values.items():
        literal = (key + value).replace("\\", "\\\\")  # a replacement string reads backslashes as escapes
        text = re.sub(re.escape(key) + r"[0-9.]+", literal, text, count=1)
    return text


def compare(document: dict[str, Any], known: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
    """One row per phase that logscope measured and the program knows: both figures, the difference, the verdict."""
    rows = []
    rank = document["launches"][0]["ranks"][0]
    for phase in rank["phases"]:
        device = phase.get("device")
        if not device or device.get("outside_allocator_gib") is None or phase["phase"] not in known["phases"]:
            continue
        expected = known["phases"][phase["phase"]]["outside_mib"] / 1024
        measured = device["outside_allocator_gib"]
        error = abs(measured - expected) / expected if expected else float("inf")
        rows.append(
            {
                "phase": phase["phase"],
                "measured_gib": measured,
                "known_gib": round(expected, 3),
                "process_gib": device["process_gib"],
                "torch_reserved_gib": known["phases"][phase["phase"]]["torch_reserved_gib"],
                "error": error,
                "ok": error <= TOLERANCE,
            }
        )
    return rows, bool(rows) and all(r["ok"] for r in rows)


def _table(rows: list[dict[str, Any]], ok: bool) -> str:
    heads = ("logscope measured", "program knows", "process (NVML)", "torch reserved")
    lines = [f"{'phase':<22} {heads[0]:>18} {heads[1]:>14} {heads[2]:>15} {heads[3]:>15} {'error':>7}"]
    for r in rows:
        lines.append(
            f"{r['phase']:<22} {r['measured_gib']:>14.3f} GiB {r['known_gib']:>10.3f} GiB {r['process_gib']:>11.3f} GiB "
            f"{r['torch_reserved_gib']:>11.3f} GiB {100 * r['error']:>6.2f}%"
        )
    lines.append(("PASS" if ok else "FAIL") + f": {len(rows)} phases, tolerance {100 * TOLERANCE:.0f}%")
    return "\n".join(lines)


def launch(args: argparse.Namespace) -> None:
    import pynvml
    import torch
    import torch.distributed as dist

    lines = wordings()
    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(0)  # the launch runs on GPU 0

    def used_mib() -> float:
        return float(pynvml.nvmlDeviceGetMemoryInfo(handle).used) / MIB

    def avail_gib() -> float:
        return torch.cuda.mem_get_info(0)[0] / GIB

    known: dict[str, Any] = {"phases": {}}

    def say(key: str, phase: str, values: dict[str, str] | None = None) -> None:
        torch.cuda.synchronize()
        known["phases"][phase] = {
            "torch_reserved_gib": torch.cuda.memory_reserved(0) / GIB,
            "device_used_mib": used_mib(),
            # outside the allocator by now: the context, and the communicator once it exists
            "outside_mib": known["context_mib"] + known.get("communicator_mib", 0.0),
        }
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        tag = "" if phase == "server_ready" else " TP0"
        print(f"[{stamp}{tag}] {fill(lines[key], values or {})}", flush=True)
        time.sleep(args.pause)  # the sample at the line is taken while nothing else changes

    before = used_mib()
    torch.cuda.set_device(0)
    torch.cuda.init()
    torch.zeros(1, device="cuda")  # the context exists once a kernel's memory does
    torch.cuda.synchronize()
    known["context_mib"] = used_mib() - before - torch.cuda.memory_reserved(0) / MIB
    say("Init parallel begin", "init_distributed_begin")
    tic = time.perf_counter()
    before, reserved = used_mib(), torch.cuda.memory_reserved(0)
    dist.init_process_group(
        "nccl", init_method=f"tcp://127.0.0.1:{args.port}", rank=0, world_size=1, device_id=torch.device("cuda:0")
    )
    probe = torch.ones(1, device="cuda")
    dist.all_reduce(probe)
    torch.cuda.synchronize()
    known["communicator_mib"] = used_mib() - before - (torch.cuda.memory_reserved(0) - reserved) / MIB
    say("Init parallel ends", "init_parallel_end", {"elapsed=": f"{time.perf_counter() - tic:.2f}"})
    first, second = avail_gib(), avail_gib()
    say("Memory baseline taken", "init_distributed_end", {"mem usage=": f"{first - second:.2f}"})
    start = avail_gib()
    say("Load weight begin", "load_weight_begin", {"avail mem=": f"{start:.2f}"})
    weights = torch.empty(int(args.weights_gib * GIB), dtype=torch.uint8, device="cuda").fill_(1)
    torch.cuda.synchronize()
    after = avail_gib()
    say(
        "Load weight end",
        "load_weight_end",
        {"elapsed=": "1.00", "avail mem=": f"{after:.2f}", "mem usage=": f"{start - after:.2f}"},
    )
    half = int(args.kv_gib * GIB / 2)
    k_cache = torch.zeros(half, dtype=torch.uint8, device="cuda")
    v_cache = torch.zeros(half, dtype=torch.uint8, device="cuda")
    tokens = int(args.kv_gib * GIB / 4096)
    say(
        "KV Cache is allocated",
        "kv_cache_allocated",
        {"#tokens: ": str(tokens), "K size: ": f"{k_cache.numel() / GIB:.2f}", "V size: ": f"{v_cache.numel() / GIB:.2f}"},
    )
    free = avail_gib()
    say("Memory pool end", "memory_pool_end", {"avail mem=": f"{free:.2f}"})
    say("max_total_num_tokens", "scheduler_summary", {"max_total_num_tokens=": str(tokens), "available_gpu_mem=": f"{free:.2f}"})
    say("The server is fired up and ready to roll!", "server_ready")
    Path(args.known).write_text(json.dumps(known, indent=2))
    del weights, k_cache, v_cache
    dist.destroy_process_group()


def main() -> int:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="what", required=True)
    run = sub.add_parser("launch")
    run.add_argument("--known", required=True)
    run.add_argument("--weights-gib", type=float, default=8.0)
    run.add_argument("--kv-gib", type=float, default=16.0)
    run.add_argument("--pause", type=float, default=1.0)
    run.add_argument("--port", type=int, default=29517)
    check = sub.add_parser("compare")
    check.add_argument("--known", required=True)
    check.add_argument("--document", required=True)
    args = parser.parse_args()
    if args.what == "launch":
        launch(args)
        return 0
    rows, ok = compare(json.loads(Path(args.document).read_text()), json.loads(Path(args.known).read_text()))
    print(_table(rows, ok))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
