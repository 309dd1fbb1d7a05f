"""Start one probe worker per GPU, bound them in time, and turn their readings into a calibration file.

The pure parts (the refusal checks over an NVML-like object, the child command and environment, the
calibration built from recorded readings) are tested on the CPU; only `probe()` needs the GPUs."""

from __future__ import annotations

import datetime as _dt
import os
import platform
import shlex
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from logscope.core.errors import LogscopeError
from logscope.pipeline.sizing.calibration import FORMAT
from logscope.probe.stages import BY_ID, MIB, NCCL_ENV_KEYS, NCCL_ENVIRONMENTS, NVLS_OFF, Reading, StageSize, stage_sizes

BUSY_MIB = 1024  # a GPU with more than this in use is taken to be someone else's


class ProbeError(LogscopeError):
    """The probe refused or could not run; the message says why."""


def preflight(nvml: Any, world: int) -> list[str]:
    """Why the probe must not run on GPUs 0..world-1 (empty: it may). `nvml` is pynvml or a stand-in."""
    nvml.nvmlInit()
    count = nvml.nvmlDeviceGetCount()
    if world > count:
        return [f"--world-size {world} needs {world} GPUs; {count} visible"]
    problems = []
    for index in range(world):
        handle = nvml.nvmlDeviceGetHandleByIndex(index)
        pids = sorted(
            {p.pid for p in nvml.nvmlDeviceGetComputeRunningProcesses(handle)}
            | {p.pid for p in nvml.nvmlDeviceGetGraphicsRunningProcesses(handle)}
        )
        used = nvml.nvmlDeviceGetMemoryInfo(handle).used / MIB
        if pids:
            problems.append(f"GPU {index} is in use by process {', '.join(map(str, pids))}")
        elif used > BUSY_MIB:
            problems.append(f"GPU {index} has {used:.0f} MiB in use by a process NVML does not show")
    return problems


def child_command(
    rank: int,
    world: int,
    port: int,
    out: Path,
    stage_timeout: float,
    groups: list[str],
    symm_mib: int,
    oom_text: Path | None,
    hold: Path | None,
    nccl_env: dict[str, str] | None = None,
) -> tuple[list[str], dict[str, str]]:
    """The worker's argv and environment: NVLink multicast off, and exactly the NCCL variables of `nccl_env`
    (SGLang's by default; inherited NCCL_CUMEM_ENABLE / NCCL_BUFFSIZE are dropped so a row means what it says)."""
    argv = [
        sys.executable,
        "-m",
        "logscope.probe.worker",
        "--rank",
        str(rank),
        "--world-size",
        str(world),
        "--port",
        str(port),
        "--out",
        str(out),
        "--stage-timeout",
        str(stage_timeout),
        "--groups",
        ",".join(groups),
        "--symm-mib",
        str(symm_mib),
    ]
    if oom_text is not None:
        argv += ["--oom-text", str(oom_text)]
    inherited = {k: v for k, v in os.environ.items() if k not in NCCL_ENV_KEYS}
    chosen = NCCL_ENVIRONMENTS["sglang"] if nccl_env is None else nccl_env
    env = {**inherited, **NVLS_OFF, **chosen, "PYTHONUNBUFFERED": "1"}
    if hold is not None:
        env["LOGSCOPE_PROBE_HOLD"] = str(hold)
    return argv, env


def _group_of(stage: str, record: dict[str, Any], world: int) -> tuple[str, int]:
    if stage == "cuda_context":
        return "device", 1
    if stage == "custom_ar_ipc_buffers":
        return "rank", 1  # a rank's own buffers; peers' buffers are mapped, not allocated
    if stage == "nccl_split":
        return str(record.get("detail", {}).get("group", "split")), int(record.get("detail", {}).get("group_size", world))
    return "world", world


def build_calibration(records: dict[int, list[dict[str, Any]]], meta: dict[str, Any]) -> dict[str, Any]:
    """The calibration document from each rank's result lines (the worker's JSON lines) and the run's facts."""
    world = len(records)
    per_mechanism: dict[tuple[str, str], dict[str, Any]] = {}
    skipped: dict[str, str] = {}
    software: dict[str, Any] = {"python": platform.python_version(), "deep_ep": meta.get("deep_ep")}
    gpu = None
    total_mib = None
    for rank, lines in sorted(records.items()):
        readings = [Reading.from_dict(r) for r in lines if "free_bytes" in r]
        by_stage = {r["stage"]: r for r in lines if "free_bytes" in r}
        for record in lines:
            for key in ("skipped", "error"):
                if key in record and record.get("stage"):
                    skipped.setdefault(record["stage"], f"rank {rank}: {record[key]}")
        if not readings:
            continue
        context = by_stage.get("cuda_context", {}).get("detail", {})
        gpu = gpu or context.get("gpu")
        software.setdefault("torch", context.get("torch"))
        software.setdefault("cuda_runtime", context.get("cuda"))
        nccl = by_stage.get("nccl_eager_init", {}).get("detail", {}).get("nccl")
        if nccl:
            software.setdefault("nccl", nccl)
        total_mib = readings[0].total_bytes / MIB
        before = next((r for r in lines if r.get("stage") == "before_context"), {})
        records_by_order = [r for r in lines if "free_bytes" in r]
        sizes = stage_sizes(readings)  # each stage after the first, from torch's readings
        first = records_by_order[0]
        if first["stage"] == "cuda_context" and before.get("nvml_used_mib") is not None and first.get("nvml_used_mib"):
            # torch cannot read memory before it creates the context: NVML's device use, before and after, can
            context_mib = round(first["nvml_used_mib"] - before["nvml_used_mib"], 2)
            sizes.insert(0, StageSize("cuda_context", context_mib, 0.0, context_mib))
        else:
            records_by_order = records_by_order[1:]
            skipped.setdefault("cuda_context", f"rank {rank}: NVML did not show the device before the context")
        for size, record in zip(sizes, records_by_order):
            group, group_size = _group_of(size.stage, record, world)
            stage_group = (size.stage, group)
            stage = BY_ID.get(size.stage)
            entry = per_mechanism.setdefault(
                stage_group,
                {
                    "mechanism": stage.mechanism if stage else size.stage,
                    "stage": size.stage,
                    "group": group,
                    "group_size": group_size,
                    "mib": size.device_mib,
                    "outside_allocator_mib": size.outside_mib,
                    "reserved_mib": size.reserved_mib,
                    "timing": stage.timing if stage else "eager",
                    "per_rank_mib": [],
                    "what": stage.what if stage else "",
                },
            )
            requested = record.get("detail", {}).get("requested_bytes")
            if requested is not None:
                entry["requested_mib"] = round(requested / MIB, 3)
            entry["per_rank_mib"].append(size.device_mib)
            entry["mib"] = max(entry["mib"], size.device_mib)
            entry["outside_allocator_mib"] = max(entry["outside_allocator_mib"], size.outside_mib)
    for stage_id in skipped:
        if any(e["stage"] == stage_id for e in per_mechanism.values()):
            skipped[stage_id] += " (other ranks measured it)"
    return {
        "logscope_calibration": FORMAT,
        "command": meta.get("command", ""),
        "measured_at": meta.get("measured_at", ""),
        "hardware": {
            "gpu": gpu,
            "memory_total_mib": None if total_mib is None else round(total_mib),
            "gpus": world,
            "driver": meta.get("driver"),
        },
        "software": software,
        "environment": {**NVLS_OFF, **meta.get("environment", {})},
        "world_size": world,
        "mechanisms": list(per_mechanism.values()),
        "skipped": [{"stage": s, "reason": r} for s, r in skipped.items()],
        "processes": [
            {"rank": rank, "pid": next((r["pid"] for r in lines if "pid" in r), None)} for rank, lines in sorted(records.items())
        ],
        "readings": {f"rank{rank}": lines for rank, lines in sorted(records.items())},
    }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def merge_calibrations(documents: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """One calibration from runs under several NCCL environments: every mechanism row carries its run's
    environment (rows are looked up by it); readings, skips and processes are kept per run."""
    first = next(iter(documents.values()))
    merged = {**first, "environment": dict(NVLS_OFF), "mechanisms": [], "skipped": [], "processes": [], "readings": {}}
    for name, doc in documents.items():
        merged["mechanisms"] += [{**m, "environment": dict(doc["environment"])} for m in doc["mechanisms"]]
        merged["skipped"] += [{**s, "reason": f"{name}: {s['reason']}"} for s in doc["skipped"]]
        merged["processes"] += doc["processes"]
        merged["readings"].update({f"{name}/{rank}": lines for rank, lines in doc["readings"].items()})
    return merged


def probe(
    world: int,
    groups: list[str],
    stage_timeout: float,
    symm_mib: int,
    dumps: Path | None,
    command: str,
    nccl_env: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Run the probe on GPUs 0..world-1 under `nccl_env` (SGLang's by default) and return the calibration."""
    chosen = NCCL_ENVIRONMENTS["sglang"] if nccl_env is None else nccl_env
    try:
        import pynvml
    except ImportError:
        raise ProbeError(
            "needs nvidia-ml-py to check that the GPUs are free: from a logscope clone, pip install '.[probe]'"
        ) from None
    try:
        import torch
    except ImportError:
        raise ProbeError("needs PyTorch with CUDA: from a logscope clone, pip install '.[probe]'") from None
    if not torch.cuda.is_available():
        raise ProbeError("PyTorch sees no CUDA GPU")
    try:
        problems = preflight(pynvml, world)
    except pynvml.NVMLError as exc:
        raise ProbeError(f"NVML failed: {exc}") from None
    if problems:
        raise ProbeError("refusing to run: " + "; ".join(problems))
    driver = pynvml.nvmlSystemGetDriverVersion()
    try:
        import deep_ep

        deep_ep_version = getattr(deep_ep, "__version__", "installed")
    except ImportError:
        deep_ep_version = None
    work = Path(tempfile.mkdtemp(prefix="logscope-probe-"))
    hold = work / "hold" if dumps is not None else None
    oom_text = dumps / "torch-oom.txt" if dumps is not None else None
    port = _free_port()
    children = []
    for rank in range(world):
        argv, env = child_command(
            rank, world, port, work / f"rank{rank}.jsonl", stage_timeout, groups, symm_mib, oom_text, hold, chosen
        )
        children.append(subprocess.Popen(argv, env=env))
    limit = time.monotonic() + stage_timeout * (len(BY_ID) + 3)
    if hold is not None and dumps is not None:
        _dump_while_held(hold, world, dumps, limit, children)
    for child in children:
        try:
            child.wait(timeout=max(1.0, limit - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
    records = {rank: _read_lines(work / f"rank{rank}.jsonl") for rank in range(world)}
    meta = {
        "command": command,
        "driver": driver,
        "deep_ep": deep_ep_version,
        "environment": dict(chosen),
        "measured_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }
    return build_calibration(records, meta)


def _dump_while_held(hold: Path, world: int, dumps: Path, limit: float, children: list[subprocess.Popen]) -> None:
    """nvidia-smi while every rank still holds all it allocated: real dumps that the calibration explains."""
    dumps.mkdir(parents=True, exist_ok=True)
    while time.monotonic() < limit and not all(Path(f"{hold}.{r}").exists() for r in range(world)):
        if any(c.poll() is not None for c in children):
            break
        time.sleep(0.2)
    for name, args in (("nvidia-smi-q.txt", ["nvidia-smi", "-q"]), ("nvidia-smi.txt", ["nvidia-smi"])):
        try:
            out = subprocess.run(args, capture_output=True, text=True, timeout=60).stdout
        except (OSError, subprocess.TimeoutExpired) as exc:
            out = f"{shlex.join(args)} failed: {exc}\n"
        (dumps / name).write_text(out, encoding="utf-8")
    Path(f"{hold}.release").write_text("", encoding="utf-8")


def _read_lines(path: Path) -> list[dict[str, Any]]:
    import json

    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue  # a line cut by a killed process
    return out
