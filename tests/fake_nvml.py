"""A stand-in for pynvml (nvidia-ml-py) that reports the memory a test's child says it holds: the child writes
{"pid": ..., "mib": ...} records to a state file before it prints each phase line, and this NVML reports those
processes on GPU 0 (with one other process and the device total), so a test can assert the figures end to end."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

MIB = 1 << 20
OTHER_PID = 4_000_000  # a process outside the launched tree (no real pid is this large)


class NVMLError(Exception):
    pass


@dataclass
class _Memory:
    total: int
    used: int
    free: int
    reserved: int = 0


@dataclass
class _Process:
    pid: int
    usedGpuMemory: int | None  # noqa: N815 - pynvml's field name


class FakeNvml:
    nvmlMemory_v2 = 2  # noqa: N815

    def __init__(
        self, state: Path, total_mib: float = 143771.0, reserved_mib: float = 616.0, other_mib: float = 1000.0, count: int = 1
    ) -> None:
        self.state, self.total_mib, self.reserved_mib, self.other_mib = state, total_mib, reserved_mib, other_mib
        self.count = count
        self.NVMLError = NVMLError
        self.calls = 0

    def _held(self, gpu: int) -> dict[int, float]:
        """pid → MiB on `gpu`: each pid's last record (records without "gpu" are on GPU 0)."""
        if not self.state.exists():
            return {}
        held: dict[int, float] = {}
        for line in self.state.read_text().splitlines():
            if line.strip():
                record = json.loads(line)
                if int(record.get("gpu", 0)) == gpu:
                    held[int(record["pid"])] = float(record["mib"])
        return held

    def nvmlInit(self) -> None:  # noqa: N802
        pass

    def nvmlShutdown(self) -> None:  # noqa: N802
        pass

    def nvmlDeviceGetCount(self) -> int:  # noqa: N802
        return self.count

    def nvmlDeviceGetHandleByIndex(self, index: int) -> int:  # noqa: N802
        if not 0 <= index < self.count:
            raise NVMLError("Invalid Argument")
        return index

    def nvmlDeviceGetName(self, handle: int) -> str:  # noqa: N802
        return "NVIDIA H200"

    def nvmlSystemGetDriverVersion(self) -> str:  # noqa: N802
        return "580.95.05"

    def nvmlDeviceGetMemoryInfo(self, handle: int, version: int | None = None) -> _Memory:  # noqa: N802
        self.calls += 1
        used = int((sum(self._held(handle).values()) + (self.other_mib if handle == 0 else 0)) * MIB)
        total = int(self.total_mib * MIB)
        reserved = int(self.reserved_mib * MIB) if version == self.nvmlMemory_v2 else 0
        return _Memory(total, used, total - used - reserved, reserved)

    def nvmlDeviceGetComputeRunningProcesses(self, handle: int) -> list[_Process]:  # noqa: N802
        procs = [_Process(pid, int(mib * MIB)) for pid, mib in self._held(handle).items()]
        return [*procs, _Process(OTHER_PID, int(self.other_mib * MIB))] if handle == 0 else procs


class BrokenNvml:
    """NVML whose library is missing (a machine without the driver)."""

    NVMLError = NVMLError

    def nvmlInit(self) -> None:  # noqa: N802
        raise NVMLError("NVML Shared Library Not Found")
