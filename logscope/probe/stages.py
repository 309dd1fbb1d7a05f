"""The probe's stages, in the order a worker runs them, and the arithmetic that turns its readings into
per-mechanism sizes. Each mechanism is the difference of device memory around its stage; the part the
PyTorch allocator reserved in that stage is told apart (what is left is outside the allocator)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MIB = 1 << 20
# NVLink SHARP / multicast off in this process and every child: it can take shared GPUs out of service
NVLS_OFF = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}
# The NCCL environments the probe measures under (`--env-matrix` runs all; the default is "sglang"). SGLang sets
# NCCL_CUMEM_ENABLE to int(enable_symm_mem) unless the user set it (engine._set_envs_and_config; the catalogue's
# nccl.cumem_set_to): 0 without symmetric memory. Each calibration row records the one it ran under.
NCCL_ENVIRONMENTS: dict[str, dict[str, str]] = {
    "sglang": {"NCCL_CUMEM_ENABLE": "0"},
    "nccl-default": {"NCCL_CUMEM_ENABLE": "1"},
    "sglang-buffsize-1mib": {"NCCL_CUMEM_ENABLE": "0", "NCCL_BUFFSIZE": str(1 << 20)},
}
NCCL_ENV_KEYS = ("NCCL_CUMEM_ENABLE", "NCCL_BUFFSIZE")
# SGLang's custom all-reduce v1 buffers per rank (catalog: 3 x max_size 8 MiB, plus the Signal struct)
CUSTOM_AR_V1_BYTES = (8 * MIB, 8 * MIB, 8 * MIB, 8448)


@dataclass(frozen=True, slots=True)
class Stage:
    id: str
    mechanism: str  # the cell or ledger item it calibrates
    timing: str  # eager (at group creation) or lazy (at first use)
    what: str = ""


STAGES: tuple[Stage, ...] = (
    Stage("cuda_context", "cuda_context", "eager", what="torch.cuda.init on the rank's GPU (the CUDA context)"),
    Stage(
        "nccl_eager_init",
        "nccl_communicator",
        "eager",
        what="init_process_group('nccl', device_id=...): ncclCommInitRank at once",
    ),
    Stage(
        "nccl_first_collective",
        "nccl_first_collective",
        "lazy",
        what="first all_reduce on the default group (NCCL connects lazily)",
    ),
    Stage(
        "nccl_split", "nccl_split_communicator", "lazy", what="new_group over the ranks (ncclCommSplit) and its first all_reduce"
    ),
    Stage("p2p_transport", "nccl_p2p", "lazy", what="first send/recv between rank pairs"),
    Stage(
        "custom_ar_ipc_buffers",
        "custom_ar_ipc",
        "eager",
        what="raw cudaMalloc of SGLang's custom all-reduce v1 buffers (3 x 8 MiB + 8448 B), IPC-shared",
    ),
    Stage("symmetric_memory", "symm_mem", "lazy", what="torch symmetric memory: empty() + rendezvous()"),
    Stage(
        "graph_capture_collective",
        "graph_capture_collective",
        "lazy",
        what="CUDA graph capture of an all_reduce on the default group",
    ),
    Stage("deepep_buffer", "deepep_buffer", "lazy", what="deep_ep.Buffer on the world group (when deep_ep imports)"),
)
BY_ID = {stage.id: stage for stage in STAGES}


@dataclass(slots=True)
class Reading:
    """Device memory after a stage, as torch and NVML see it."""

    stage: str
    free_bytes: int
    total_bytes: int
    allocated_bytes: int
    reserved_bytes: int
    nvml_used_mib: float | None = None  # the whole device
    nvml_process_mib: float | None = None  # this process, where NVML shows it
    seconds: float = 0.0
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def used_bytes(self) -> int:
        return self.total_bytes - self.free_bytes

    def as_dict(self) -> dict[str, Any]:
        out = {
            "stage": self.stage,
            "free_bytes": self.free_bytes,
            "total_bytes": self.total_bytes,
            "allocated_bytes": self.allocated_bytes,
            "reserved_bytes": self.reserved_bytes,
            "nvml_used_mib": self.nvml_used_mib,
            "nvml_process_mib": self.nvml_process_mib,
            "seconds": round(self.seconds, 3),
        }
        if self.detail:
            out["detail"] = self.detail
        return out

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Reading:
        return Reading(
            data["stage"],
            int(data["free_bytes"]),
            int(data["total_bytes"]),
            int(data["allocated_bytes"]),
            int(data["reserved_bytes"]),
            data.get("nvml_used_mib"),
            data.get("nvml_process_mib"),
            float(data.get("seconds", 0.0)),
            dict(data.get("detail") or {}),
        )


@dataclass(frozen=True, slots=True)
class StageSize:
    """One stage's measured size on one rank."""

    stage: str
    device_mib: float  # device memory the stage took (delta of total - free)
    reserved_mib: float  # of which the PyTorch allocator reserved
    outside_mib: float  # the rest: outside the allocator


def stage_sizes(readings: list[Reading]) -> list[StageSize]:
    """Each reading against the one before it (the first reading has nothing to compare with)."""
    out: list[StageSize] = []
    for previous, reading in zip(readings, readings[1:]):
        device = (reading.used_bytes - previous.used_bytes) / MIB
        reserved = (reading.reserved_bytes - previous.reserved_bytes) / MIB
        out.append(StageSize(reading.stage, round(device, 2), round(reserved, 2), round(device - reserved, 2)))
    return out
