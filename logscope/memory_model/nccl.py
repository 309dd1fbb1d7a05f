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
(2 MiB): the 9.19 MiB payload of the defaults takes 12 MiB a channel.

The constants are read per NCCL release tag (tools/upstream/nccl_constants.py) and kept as ranges of releases with
equal values; `nccl_for` picks the range of the NCCL version the input states, or assumes the newest and says so."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from logscope.memory_model.record import Sourced, sourced


@dataclass(frozen=True)
class NcclSource:
    """The constants of a range of NCCL releases whose values are equal; each `at` is the first release's line."""

    commit: str  # of the first release's tag
    first: str
    last: str
    versions: tuple[str, ...]  # every release tag of the range read
    steps: Sourced[int]
    ll_max_nthreads: Sourced[int]
    ll_lines_per_thread: Sourced[int]
    ll_line_bytes: Sourced[int]
    ll128_max_nthreads: Sourced[int]
    ll128_elems_per_thread: Sourced[int]
    simple_bytes: Sourced[int]
    simple_bytes_arm: Sourced[int]  # computeBuffSizes' Simple default on an ARM CPU (up to 2.18), else absent
    max_channels: Sourced[int]
    cuda_ipc_min: Sourced[int]  # comm.h: each ring connection's memory is rounded up to this (p2p.cc)
    mem_align: Sourced[int]  # comm.h: ncclSendMem / ncclRecvMem are unions padded to this
    p2p_send_align: Sourced[str]
    p2p_recv_align: Sourced[str]

    @property
    def span(self) -> str:
        return self.first if self.first == self.last else f"{self.first}-{self.last}"


_IDENTITY = ("commit", "first", "last", "versions")


def nccl_source(raw: Mapping[str, Any] | None) -> NcclSource | None:
    if not raw:
        return None
    fields = {name: sourced(raw.get(name)) for name in NcclSource.__dataclass_fields__ if name not in _IDENTITY}
    versions = tuple(str(v) for v in raw.get("versions") or ())
    return NcclSource(commit=str(raw["commit"]), first=str(raw["first"]), last=str(raw["last"]), versions=versions, **fields)


@dataclass(frozen=True)
class NcclChoice:
    """The constants a launch's NCCL uses and, in words, for which version: `said` goes into the cell's basis."""

    source: NcclSource | None
    said: str


def _release(version: str) -> tuple[int, int, int] | None:
    found = re.match(r"\s*v?(\d+)\.(\d+)\.(\d+)", version)
    return (int(found[1]), int(found[2]), int(found[3])) if found else None


def nccl_for(ranges: Sequence[NcclSource], version: str | None) -> NcclChoice:
    """The range holding the NCCL version the input states (a version between two releases read takes the range
    around it); newer or older than every release read, or not stated, the nearest range, said to be assumed."""
    if not ranges:
        return NcclChoice(None, "NCCL's buffer constants are not in the catalogue")
    newest = ranges[-1]
    stated = _release(version) if version else None
    if stated is None:
        shown = f"NCCL {version}: not a version" if version else "not in the input"
        return NcclChoice(newest, f"assumed NCCL {newest.last} ({shown}; {newest.span} have the same constants)")
    below = [source for source in ranges if (_release(source.first) or stated) <= stated]
    if not below:
        oldest = ranges[0]
        return NcclChoice(oldest, f"NCCL {version} in the input, older than every release read: assumed {oldest.span}'s")
    source = below[-1]
    if stated <= (_release(source.last) or stated):
        return NcclChoice(source, f"NCCL {version} in the input: {source.span}'s constants")
    if source is newest:
        return NcclChoice(newest, f"NCCL {version} in the input, newer than every release read: assumed {newest.span}'s")
    return NcclChoice(source, f"NCCL {version} in the input (no release tag read): {source.span}'s, the range below it")


@dataclass(frozen=True)
class ChannelBuffers:
    per_channel_bytes: int  # the payload: the protocols' buffers
    channels: int | None  # None: NCCL picks it for the topology and the input does not pin it
    max_channels: int
    how: str  # the protocols' sizes, each from the default or the environment
    allocated_per_channel_bytes: int | None = None  # as allocated: send + receive memory, each rounded (p2p.cc)
    allocated_how: str = ""
    limited: str = ""  # a pinned channel count above the release's MAXCHANNELS, as NCCL limits it

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
    arm = source.simple_bytes_arm
    if arm.value is not None and sizes["Simple"][0] is None:
        how += f" (Simple {int(arm.value) / 1024:g} KiB on an ARM CPU: DEFAULT_BUFFSIZE_ARM {arm.at})"
    low, high = _env_int(environment, "NCCL_MIN_NCHANNELS"), _env_int(environment, "NCCL_MAX_NCHANNELS")
    pinned = low if low is not None and low == high else None
    channels = None if pinned is None else min(pinned, max_channels)
    limited = (
        f"NCCL_MIN_NCHANNELS {pinned} limited to MAXCHANNELS {max_channels} ({source.max_channels.at})"
        if pinned is not None and pinned > max_channels
        else ""
    )
    limit = min(high or max_channels, max_channels)
    return ChannelBuffers(per_channel, channels, limit, how, allocated, allocated_how, limited)
