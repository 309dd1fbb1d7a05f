"""NCCL connection buffers: what a communicator of two or more ranks allocates per channel when its first
collective connects the ring, from NCCL's defaults (src/init.cc computeBuffSizes) or the environment.

Per channel and protocol, a rank holds the buffers of one ring connection (its receive side for LL / LL128 and,
with P2P read, the send side of Simple: one of each either way):
    LL     NCCL_LL_LINES_PER_THREAD x NCCL_LL_MAX_NTHREADS x NCCL_STEPS x sizeof(ncclLLFifoLine)
    LL128  NCCL_LL128_ELEMS_PER_THREAD x NCCL_LL128_MAX_NTHREADS x NCCL_STEPS x 8
    Simple DEFAULT_BUFFSIZE (4 MiB)
NCCL_LL_BUFFSIZE, NCCL_LL128_BUFFSIZE and NCCL_BUFFSIZE replace them. The channel count is NCCL's choice for the
topology (between NCCL_MIN_NCHANNELS and NCCL_MAX_NCHANNELS, at most MAXCHANNELS): known only when the
environment pins it. Tree and NVLS connections, set up when those algorithms first run, are not counted.
As allocated (src/transport/p2p.cc), a connection's send and receive memory are each rounded up to CUDA_IPC_MIN
(2 MiB): the 9.19 MiB payload of the defaults takes 12 MiB a channel."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from logscope.memory_model.record import Sourced, sourced


@dataclass(frozen=True)
class NcclSource:
    commit: str
    version: str
    steps: Sourced[int]
    ll_max_nthreads: Sourced[int]
    ll_lines_per_thread: Sourced[int]
    ll_line_bytes: Sourced[int]
    ll128_max_nthreads: Sourced[int]
    ll128_elems_per_thread: Sourced[int]
    simple_bytes: Sourced[int]
    max_channels: Sourced[int]
    cuda_ipc_min: Sourced[int]  # comm.h: each ring connection's memory is rounded up to this (p2p.cc)
    mem_align: Sourced[int]  # comm.h: ncclSendMem / ncclRecvMem are unions padded to this
    p2p_send_align: Sourced[str]
    p2p_recv_align: Sourced[str]


def nccl_source(raw: Mapping[str, Any] | None) -> NcclSource | None:
    if not raw:
        return None
    fields = {name: sourced(raw.get(name)) for name in NcclSource.__dataclass_fields__ if name not in ("commit", "version")}
    return NcclSource(commit=str(raw["commit"]), version=str(raw["version"]), **fields)


@dataclass(frozen=True)
class ChannelBuffers:
    per_channel_bytes: int  # the payload: the protocols' buffers
    channels: int | None  # None: NCCL picks it for the topology and the input does not pin it
    max_channels: int
    how: str  # the protocols' sizes, each from the default or the environment
    allocated_per_channel_bytes: int | None = None  # as allocated: send + receive memory, each rounded (p2p.cc)
    allocated_how: str = ""

    @property
    def total_bytes(self) -> int | None:
        """As allocated when the rounding is known, else the payload."""
        per = self.allocated_per_channel_bytes or self.per_channel_bytes
        return None if self.channels is None else self.channels * per

    @property
    def payload_bytes(self) -> int | None:
        return None if self.channels is None else self.channels * self.per_channel_bytes


def _round_up(size: int, to: int) -> int:
    return -(-size // to) * to


def _allocated(source: NcclSource, ll: int, ll128: int, simple: int, read_on: bool = True) -> tuple[int | None, str]:
    """p2p.cc p2pSendSetup / p2pRecvSetup: a ring connection's send memory is ncclSendMem (+ the Simple buffer
    with P2P read, NVLink on SM80+) and its receive memory ncclRecvMem + the other protocols' buffers, each
    rounded up to CUDA_IPC_MIN before it is allocated."""
    ipc, header = source.cuda_ipc_min.value, source.mem_align.value
    if ipc is None or header is None:
        return None, ""
    ipc, header = int(ipc), int(header)
    read = (_round_up(header + simple, ipc), _round_up(header + ll + ll128, ipc))
    write = (_round_up(header, ipc), _round_up(header + ll + ll128 + simple, ipc))
    where = f"{source.p2p_send_align.at} / {source.p2p_recv_align.at}, CUDA_IPC_MIN {ipc / 2**20:g} MiB"
    where += f" ({source.cuda_ipc_min.at})"
    used, other = (read, write) if read_on else (write, read)
    mode = "with P2P read (NVLink, SM80+: p2p.cc p2pGetInfo)" if read_on else "without P2P read (NCCL_P2P_READ_ENABLE=0)"
    how = f"send {used[0] / 2**20:g} + receive {used[1] / 2**20:g} MiB {mode}"
    if sum(used) != sum(other):
        how += f"; send {other[0] / 2**20:g} + receive {other[1] / 2**20:g} MiB " + ("without" if read_on else "with")
    return sum(used), f"{how}; each rounded up: {where}"


def _env_int(environment: Mapping[str, Any], name: str) -> int | None:
    try:
        value = int(str(environment[name]))
    except (KeyError, TypeError, ValueError):
        return None
    return value if value > 0 else None


def channel_buffers(source: NcclSource, environment: Mapping[str, Any]) -> ChannelBuffers | None:
    parts = (source.steps, source.ll_max_nthreads, source.ll_lines_per_thread, source.ll_line_bytes)
    parts128 = (source.ll128_max_nthreads, source.ll128_elems_per_thread, source.simple_bytes, source.max_channels)
    values = [p.value for p in parts + parts128]
    if any(v is None for v in values):
        return None
    steps, ll_threads, ll_lines, ll_line, ll128_threads, ll128_elems, simple, max_channels = (int(v or 0) for v in values)
    sizes = {
        "LL": (_env_int(environment, "NCCL_LL_BUFFSIZE"), ll_lines * ll_threads * steps * ll_line, "NCCL_LL_BUFFSIZE"),
        "LL128": (_env_int(environment, "NCCL_LL128_BUFFSIZE"), ll128_elems * ll128_threads * steps * 8, "NCCL_LL128_BUFFSIZE"),
        "Simple": (_env_int(environment, "NCCL_BUFFSIZE"), simple, "NCCL_BUFFSIZE"),
    }
    chosen = [given if given is not None else default for given, default, _ in sizes.values()]
    per_channel = sum(chosen)
    read_on = str(environment.get("NCCL_P2P_READ_ENABLE", "")).strip() != "0"
    ll, ll128, simple_given = chosen
    allocated, allocated_how = _allocated(source, ll, ll128, simple_given, read_on=read_on)
    how = " + ".join(
        f"{proto} {(given if given is not None else default) / 1024:g} KiB" + (f" ({name})" if given is not None else "")
        for proto, (given, default, name) in sizes.items()
    )
    low, high = _env_int(environment, "NCCL_MIN_NCHANNELS"), _env_int(environment, "NCCL_MAX_NCHANNELS")
    channels = low if low is not None and low == high else None
    return ChannelBuffers(per_channel, channels, min(high or max_channels, max_channels), how, allocated, allocated_how)
