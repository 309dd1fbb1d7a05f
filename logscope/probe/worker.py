"""One probe rank: runs on its GPU through the stages of stages.py and appends one JSON line per stage to its
result file (so a stage that hangs or kills the process still leaves the ones before it). Started by
launcher.py as `python -m logscope.probe.worker ...` with NVLink multicast off in its environment.

Every stage is bounded in time: a watchdog ends the process when one outlasts --stage-timeout."""

from __future__ import annotations

import argparse
import ctypes
import glob
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from logscope.probe.stages import CUSTOM_AR_V1_BYTES, MIB, NVLS_OFF, Reading


class _Results:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.path.write_text("", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")
            handle.flush()
            os.fsync(handle.fileno())


class _Watchdog:
    """Ends the process (exit 3) when the current stage runs past its deadline, after writing why."""

    def __init__(self, results: _Results, timeout: float) -> None:
        self.results = results
        self.timeout = timeout
        self.stage: str | None = None
        self.deadline = float("inf")
        threading.Thread(target=self._watch, daemon=True).start()

    def begin(self, stage: str) -> None:
        self.stage, self.deadline = stage, time.monotonic() + self.timeout

    def end(self) -> None:
        self.stage, self.deadline = None, float("inf")

    def _watch(self) -> None:
        while True:
            time.sleep(0.5)
            if time.monotonic() > self.deadline:
                self.results.write({"stage": self.stage, "error": f"timed out after {self.timeout:.0f} s"})
                os._exit(3)


def _nvml(index: int) -> tuple[float | None, float | None]:
    """(device used MiB, this process's MiB) from NVML; None where NVML cannot say."""
    try:
        import pynvml

        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(index)
        used = pynvml.nvmlDeviceGetMemoryInfo(handle).used / MIB
        mine = None
        for proc in pynvml.nvmlDeviceGetComputeRunningProcesses(handle):
            if proc.pid == os.getpid() and proc.usedGpuMemory is not None:
                mine = proc.usedGpuMemory / MIB
        return used, mine
    except Exception:  # noqa: BLE001 - NVML is optional evidence; its absence is recorded as None
        return None, None


class _RawCuda:
    """cudaMalloc / cudaIpcGetMemHandle outside PyTorch's allocator, as SGLang's custom all-reduce does."""

    def __init__(self) -> None:
        self.lib = self._load()

    @staticmethod
    def _load() -> ctypes.CDLL:
        import torch

        candidates = [
            p for root in sys.path for p in glob.glob(os.path.join(root, "nvidia", "**", "libcudart.so*"), recursive=True)
        ]
        candidates += glob.glob(os.path.join(os.path.dirname(torch.__file__), "lib", "libcudart*.so*"))
        candidates += ["libcudart.so", "libcudart.so.13", "libcudart.so.12"]
        for name in candidates:
            try:
                return ctypes.CDLL(name)
            except OSError:
                continue
        raise RuntimeError("libcudart not found (looked beside torch and in nvidia/*/lib)")

    def malloc(self, size: int) -> int:
        pointer = ctypes.c_void_p()
        status = self.lib.cudaMalloc(ctypes.byref(pointer), ctypes.c_size_t(size))
        if status != 0:
            raise RuntimeError(f"cudaMalloc({size}) returned {status}")
        return int(pointer.value or 0)

    def ipc_handle(self, pointer: int) -> bytes:
        handle = (ctypes.c_char * 64)()
        status = self.lib.cudaIpcGetMemHandle(handle, ctypes.c_void_p(pointer))
        if status != 0:
            raise RuntimeError(f"cudaIpcGetMemHandle returned {status}")
        return bytes(handle)


def run(
    rank: int, world: int, port: int, out: Path, stage_timeout: float, groups: list[str], symm_mib: int, oom_text: Path | None
) -> int:
    os.environ.update(NVLS_OFF)
    results = _Results(out)
    watchdog = _Watchdog(results, stage_timeout)
    gpu = rank  # one process a GPU, in CUDA_VISIBLE_DEVICES order
    used, mine = _nvml(gpu)
    results.write({"stage": "before_context", "pid": os.getpid(), "nvml_used_mib": used, "nvml_process_mib": mine})

    import torch
    import torch.distributed as dist

    def reading(stage: str, started: float, **detail: Any) -> None:
        torch.cuda.synchronize()
        free, total = torch.cuda.mem_get_info()
        device_used, process = _nvml(gpu)
        results.write(
            Reading(
                stage,
                free,
                total,
                torch.cuda.memory_allocated(),
                torch.cuda.memory_reserved(),
                device_used,
                process,
                time.monotonic() - started,
                detail,
            ).as_dict()
        )
        watchdog.end()

    def stage(name: str, body: Any) -> None:
        watchdog.begin(name)
        started = time.monotonic()
        try:
            detail = body() or {}
        except Exception as exc:  # noqa: BLE001 - a stage that fails is recorded, the next ones still run
            watchdog.end()
            results.write({"stage": name, "error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"})
            return
        reading(name, started, **detail)

    def context() -> dict[str, Any]:
        torch.cuda.set_device(gpu)
        torch.cuda.init()
        torch.empty(0, device="cuda")
        return {"torch": torch.__version__, "cuda": torch.version.cuda, "gpu": torch.cuda.get_device_name(gpu)}

    stage("cuda_context", context)
    device = torch.device("cuda", gpu)

    def eager_init() -> dict[str, Any]:
        dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world, device_id=device)
        version = torch.cuda.nccl.version()
        return {"nccl": ".".join(map(str, version)) if isinstance(version, tuple) else str(version)}

    stage("nccl_eager_init", eager_init)
    if not dist.is_initialized():
        return 1

    def first_collective() -> None:
        tensor = torch.ones(1, device=device)
        dist.all_reduce(tensor)
        assert int(tensor.item()) == world

    stage("nccl_first_collective", first_collective)
    for name in groups:

        def split(name: str = name) -> dict[str, Any]:
            group = dist.new_group(list(range(world)))
            tensor = torch.ones(1, device=device)
            dist.all_reduce(tensor, group=group)
            return {"group": name, "group_size": world}

        stage("nccl_split", split)
    if world >= 2:

        def p2p() -> None:
            tensor = torch.ones(1024, device=device)
            peer = rank ^ 1
            if peer < world:
                if rank % 2 == 0:
                    dist.send(tensor, peer)
                else:
                    dist.recv(tensor, peer)
            dist.barrier()

        stage("p2p_transport", p2p)
    else:
        results.write({"stage": "p2p_transport", "skipped": "needs world size >= 2 (a peer to send to)"})
    raw = _RawCuda()
    kept: list[Any] = []

    def ipc_buffers() -> dict[str, Any]:
        pointers = [raw.malloc(size) for size in CUSTOM_AR_V1_BYTES]
        kept.extend(raw.ipc_handle(p) for p in pointers)
        return {"requested_bytes": sum(CUSTOM_AR_V1_BYTES), "buffers": len(pointers)}

    stage("custom_ar_ipc_buffers", ipc_buffers)

    def symmetric() -> dict[str, Any]:
        import torch.distributed._symmetric_memory as symm_mem

        tensor = symm_mem.empty(symm_mib * MIB // 4, dtype=torch.float32, device=device)
        kept.append(symm_mem.rendezvous(tensor, group=dist.group.WORLD.group_name))
        kept.append(tensor)
        return {"requested_bytes": symm_mib * MIB}

    stage("symmetric_memory", symmetric)

    def graph() -> None:
        tensor = torch.ones(1 << 20, device=device)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            dist.all_reduce(tensor)  # warm-up outside the capture
        torch.cuda.current_stream().wait_stream(side)
        captured = torch.cuda.CUDAGraph()
        with torch.cuda.graph(captured):
            tensor.mul_(1.0)  # a kernel of its own: at world size 1 NCCL's all_reduce captures nothing
            dist.all_reduce(tensor)
        captured.replay()
        kept.extend([captured, tensor])

    stage("graph_capture_collective", graph)
    try:
        import deep_ep  # noqa: F401
    except ImportError:
        results.write({"stage": "deepep_buffer", "skipped": "deep_ep is not importable here"})
    else:

        def deepep() -> dict[str, Any]:

            buffer = deep_ep.Buffer(dist.group.WORLD, int(1e9), 0)
            kept.append(buffer)
            return {"num_nvl_bytes": int(1e9)}

        stage("deepep_buffer", deepep)
    if oom_text is not None and rank == 0:
        try:
            torch.empty(int(torch.cuda.mem_get_info()[1] * 4), dtype=torch.uint8, device=device)
        except torch.OutOfMemoryError as exc:  # the real message, with this process's memory split
            oom_text.write_text(str(exc) + "\n", encoding="utf-8")
    results.write({"stage": "done", "pid": os.getpid()})
    dist.barrier()
    if os.environ.get("LOGSCOPE_PROBE_HOLD"):  # the launcher dumps nvidia-smi while every rank holds its memory
        Path(os.environ["LOGSCOPE_PROBE_HOLD"] + f".{rank}").write_text("holding", encoding="utf-8")
        deadline = time.monotonic() + stage_timeout
        release = Path(os.environ["LOGSCOPE_PROBE_HOLD"] + ".release")
        while not release.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
    dist.destroy_process_group()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="one logscope probe rank (started by `logscope probe`)")
    parser.add_argument("--rank", type=int, required=True)
    parser.add_argument("--world-size", type=int, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--stage-timeout", type=float, default=120.0)
    parser.add_argument("--groups", default="tp")
    parser.add_argument("--symm-mib", type=int, default=64)
    parser.add_argument("--oom-text", type=Path)
    args = parser.parse_args(argv)
    groups = [g for g in args.groups.split(",") if g]
    return run(args.rank, args.world_size, args.port, args.out, args.stage_timeout, groups, args.symm_mib, args.oom_text)


if __name__ == "__main__":
    sys.exit(main())
