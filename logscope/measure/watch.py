"""`logscope watch URL`: the live memory ledger of a running SGLang server, per rank: SGLang's own figures
(internal_states[].memory_usage of /server_info, the memory gauges of /metrics; logscope/measure/server_schema.py
says which release has which), the device's used memory (NVML when the server runs on this host, or an
nvidia-smi dump given with --smi), and the residual (device used - SGLang's weights, KV cache and graphs)
beside the communication cells of the server's configuration (logscope/measure/cells.py).
Nothing is written to disk."""

from __future__ import annotations

import math
import re
import socket
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from logscope.core.printable import terminal_safe
from logscope.measure import server_schema as schema
from logscope.measure.cells import communication_cells
from logscope.measure.endpoints import MAX_BYTES, Client, Gauge, WatchError, check_url, parse_metrics
from logscope.measure.sampler import open_nvml
from logscope.measure.watch_document import DeviceUse, SglangFigures, WatchDocument, WatchRank

METRICS_CAP = MAX_BYTES  # bytes of /metrics read; a larger page is read to its last whole line there, and said
MIB_PER_GIB = 1024.0
_LOCAL = ("localhost", "127.0.0.1", "::1", "0.0.0.0")


@dataclass
class Options:
    url: str
    headers: tuple[tuple[str, str], ...] = ()
    timeout_s: float = 5.0
    nvml: bool = True  # read NVML when the server is on this host
    nvml_module: Any = None
    smi: str | None = None


@dataclass
class Device:
    used_gib: float
    card_total_gib: float | None
    source: str


@dataclass
class RankMemory:
    dp: int | None
    tp: int
    pp: int
    figures: dict[str, Any] = field(default_factory=dict)  # SGLang's: weight_gib, kv_cache_gib, graph_gib, ...
    sources: set[str] = field(default_factory=set)

    @property
    def label(self) -> str:
        return " ".join(
            p for p in (f"DP{self.dp}" if self.dp is not None else "", f"PP{self.pp}" if self.pp else "", f"TP{self.tp}") if p
        )


def _version_key(version: str) -> tuple[int, ...]:
    parts = []
    for piece in version.replace("post", ".").split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def _server_info(client: Client) -> tuple[dict[str, Any], str]:
    info = client.json("/server_info")
    endpoint = "/server_info"
    if info is None:
        info, endpoint = client.json("/get_server_info"), "/get_server_info"
    if info is None:
        raise WatchError(f"{client.base}: not an SGLang server (neither /server_info nor /get_server_info)")
    if not isinstance(info, dict) or "version" not in info or not isinstance(info.get("internal_states"), list):
        raise WatchError(f"{client.base}{endpoint}: not an SGLang server_info (no version or internal_states)")
    check_server_info(info, f"{client.base}{endpoint}")
    return info, endpoint


_VERSION = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}")
_COUNTS = ("tp_size", "dp_size", "ep_size", "pp_size", "base_gpu_id", "gpu_id_step", "max_total_num_tokens")
_TEXTS = ("model_path", "moe_a2a_backend", "deepep_mode", "disaggregation_mode", "disaggregation_transfer_backend")


def _shown(value: Any) -> str:
    return terminal_safe(repr(value)[:40])


def check_server_info(info: dict[str, Any], where: str) -> None:
    """The fields watch reads, of the types SGLang gives them (JSON numbers are finite: endpoints.parse_json);
    anything else is a one-line WatchError naming the field, never a crash further on."""
    version = info["version"]
    if not isinstance(version, str) or not _VERSION.fullmatch(version):
        raise WatchError(f"{where}: version {_shown(version)} is no release number: not an SGLang server")
    for key in _COUNTS:
        value = info.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << 40):
            raise WatchError(f"{where}: {key} is {_shown(value)}, not a count: not an SGLang server")
    fraction = info.get("mem_fraction_static")
    if fraction is not None and (isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0 <= fraction <= 1):
        raise WatchError(f"{where}: mem_fraction_static is {_shown(fraction)}, not a fraction: not an SGLang server")
    for key in _TEXTS:
        if info.get(key) is not None and not isinstance(info[key], str):
            raise WatchError(f"{where}: {key} is {_shown(info[key])}, not text: not an SGLang server")
    if len(info["internal_states"]) > 4096:
        raise WatchError(f"{where}: more than 4096 internal_states: not an SGLang server")


def _gib(value: Any) -> float | None:
    """A figure in GiB as SGLang states it: a number, finite and of a card's order, else None (not used)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value) if abs(value) < 1e12 else math.inf
    return number if math.isfinite(number) and abs(number) <= 1e6 else None


def _from_memory_usage(rank: RankMemory, usage: dict[str, Any]) -> None:
    figures = rank.figures
    for key, name in (("weight", "weight_gib"), ("kvcache", "kv_cache_gib"), ("startup_available", "startup_available_gib")):
        value = _gib(usage.get(key))
        if value is not None:
            figures[name] = value
    capacity = usage.get("token_capacity")
    if isinstance(capacity, int) and not isinstance(capacity, bool) and 0 <= capacity < 1 << 40:
        figures["token_capacity"] = capacity
    graph = usage.get("graph")
    if isinstance(graph, dict):
        phases = {str(k): v for k, v in ((k, _gib(v)) for k, v in graph.items()) if v is not None}
        figures["graph_phases"] = phases
        figures["graph_gib"] = round(sum(phases.values()), 3)
    elif _gib(graph) is not None:
        figures["graph_gib"] = _gib(graph)
    rank.sources.add("server_info")


def _from_gauges(ranks: dict[tuple[int | None, int, int], RankMemory], gauges: list[Gauge]) -> None:
    names = {
        schema.GAUGE_WEIGHT: "weight_gib",
        schema.GAUGE_KV: "kv_cache_gib",
        schema.GAUGE_STARTUP: "startup_available_gib",
    }
    for gauge in gauges:
        try:
            tp, pp = int(gauge.labels.get("tp_rank", 0)), int(gauge.labels.get("pp_rank", 0))
            dp = int(gauge.labels["dp_rank"]) if "dp_rank" in gauge.labels else None
        except ValueError:
            continue
        if not all(0 <= n < 1 << 16 for n in (tp, pp, dp or 0)) or _gib(gauge.value) is None:
            continue
        rank = ranks.setdefault((dp, tp, pp), RankMemory(dp, tp, pp))
        if gauge.name == schema.GAUGE_GRAPH:
            phases = rank.figures.setdefault("graph_phases", {})
            phases[gauge.labels.get("phase", "?")] = gauge.value
            rank.figures["graph_gib"] = round(sum(phases.values()), 3)
        else:
            rank.figures.setdefault(names[gauge.name], gauge.value)
        rank.sources.add("metrics")


def _missing(
    version: str, info_ranks: list[dict[str, Any]], gauges: list[Gauge], metrics_served: bool, metrics_cut: bool = False
) -> list[str]:
    """One line per figure this server does not give, with the release it exists from (a /metrics page larger
    than the cap says so: a gauge past the cut is not known missing)."""
    out = []
    if metrics_cut:
        out.append(
            f"/metrics: the page is larger than {_size(METRICS_CAP)}; only its first {_size(METRICS_CAP)} were read, "
            "so a gauge not found there is unknown, not missing"
        )
    usages = [s.get("memory_usage") for s in info_ranks]
    if not any(isinstance(u, dict) for u in usages):
        out.append(f"{schema.MEMORY_USAGE.what}: from SGLang {schema.MEMORY_USAGE.since} (this server: {version})")
    elif not any(isinstance(u, dict) and isinstance(u.get("graph"), dict) for u in usages):
        out.append(f"{schema.MEMORY_USAGE_PHASES.what}: from SGLang {schema.MEMORY_USAGE_PHASES.since} (this server: {version})")
    names = {g.name for g in gauges}
    if not metrics_served:
        out.append("/metrics: not served (start the server with --enable-metrics for the memory gauges)")
    elif not metrics_cut:
        if schema.GAUGE_WEIGHT not in names:
            out.append(f"{schema.MEMORY_GAUGES.what}: from SGLang {schema.MEMORY_GAUGES.since} (this server: {version})")
        if schema.GAUGE_STARTUP not in names:
            out.append(f"{schema.STARTUP_GAUGE.what}: from SGLang {schema.STARTUP_GAUGE.since} (this server: {version})")
    return out


def _on_this_host(url: str) -> bool:
    host = urlparse(url).hostname or ""
    return host in _LOCAL or host in {socket.gethostname(), socket.getfqdn()}


def _devices(options: Options) -> tuple[dict[int, Device], str | None, str | None]:
    """GPU index → its used memory; the GPU's name; a note when the device is not read."""
    if options.smi:
        from logscope.pipeline.analyze import analyze_sources
        from logscope.pipeline.ingest.ingest import expand_inputs

        document = analyze_sources(expand_inputs([options.smi]))
        found: dict[int, Device] = {}
        name = None
        for gpu in document["gpus"]:
            if gpu.get("memory_used_mib") is not None and gpu.get("index") is not None:
                found[gpu["index"]] = Device(
                    gpu["memory_used_mib"] / MIB_PER_GIB, gpu.get("card_total_gib"), f"nvidia-smi dump {options.smi}"
                )
                name = name or gpu.get("name")
        return found, name, None if found else f"{options.smi}: no GPU memory use read from this dump"
    if not options.nvml:
        return {}, None, "device not read (--no-nvml)"
    if not _on_this_host(options.url):
        return {}, None, "the server is on another host: the device is not read (give an nvidia-smi dump of it with --smi)"
    nvml = open_nvml(options.nvml_module)
    if not nvml.available:
        return {}, None, f"device not read: {nvml.reason}"
    out = {}
    for gpu in nvml.gpus:
        handle = nvml.module.nvmlDeviceGetHandleByIndex(gpu.index)
        used = nvml.module.nvmlDeviceGetMemoryInfo(handle).used / (1 << 20)
        out[gpu.index] = Device(used / MIB_PER_GIB, gpu.card_total_gib, "NVML (this host)")
    return out, nvml.gpus[0].name if nvml.gpus else None, None


def _size(count: int) -> str:
    return f"{count >> 20} MiB" if count >= 1 << 20 else f"{count:,} bytes"


# the documented figures of a rank's `sglang` object (docs/run-and-watch.md), null when the server does not give one
_SGLANG_KEYS = ("weight_gib", "kv_cache_gib", "graph_gib", "graph_phases", "startup_available_gib", "token_capacity")
_STATED_SLACK_GIB = 0.25  # SGLang's figures are printed to 0.01 GB each; a GPU holding less than them is not its


def _devices_of_this_server(
    devices: dict[int, Device], ranks: dict[tuple[int | None, int, int], RankMemory], info: dict[str, Any]
) -> tuple[dict[int, Device], str | None]:
    """The device figures, checked against the server's own: a GPU using less than SGLang says its rank holds
    there (weights + KV cache + graphs) is not this server's (a dump of another machine, or one taken before the
    server started). Then no device figure is used, and the note says why."""
    for rank in ranks.values():
        device = devices.get(_gpu_of(rank, info))
        stated = sum(rank.figures.get(k, 0.0) for k in ("weight_gib", "kv_cache_gib", "graph_gib"))
        if device is not None and device.used_gib + _STATED_SLACK_GIB < stated:
            return {}, (
                f"{device.source}: GPU {_gpu_of(rank, info)} uses {device.used_gib:.2f} GiB, less than the "
                f"{stated:.2f} GiB that {rank.label} of this server holds on it (weights, KV cache, graphs): not this "
                "server's GPUs (another machine, or read before the server started); no residual is computed"
            )
    return devices, None


def _gpu_of(rank: RankMemory, info: dict[str, Any]) -> int:
    """SGLang's placement: base_gpu_id + (the rank's local index) * gpu_id_step (assumed: a server never states it)."""
    tp_size = int(info.get("tp_size") or 1)
    pp_size = int(info.get("pp_size") or 1)
    replica = rank.dp if rank.dp is not None and not info.get("enable_dp_attention") else 0
    local = (replica * pp_size + rank.pp) * tp_size + rank.tp
    return int(info.get("base_gpu_id") or 0) + local * int(info.get("gpu_id_step") or 1)


def read_watch(options: Options) -> WatchDocument:
    """One reading of the server and the device: the watch document (schema logscope-watch/1)."""
    client = Client(check_url(options.url), options.headers, options.timeout_s)
    info, endpoint = _server_info(client)
    version = str(info["version"])
    states = [s for s in info["internal_states"] if isinstance(s, dict)]
    ranks: dict[tuple[int | None, int, int], RankMemory] = {}
    for index, state in enumerate(states):
        usage = state.get("memory_usage")
        if isinstance(usage, dict):
            dp = index if len(states) > 1 or info.get("dp_size", 1) not in (1, None) else None
            rank = ranks.setdefault((dp, 0, 0), RankMemory(dp, 0, 0))
            _from_memory_usage(rank, usage)
    status, body = client.get("/metrics", METRICS_CAP)
    metrics_cut = len(body) > METRICS_CAP
    if metrics_cut:  # read what came whole: the page up to its last complete line within the cap
        body = body[: body.rfind(b"\n", 0, METRICS_CAP) + 1]
    gauges = parse_metrics(body.decode("utf-8", "replace"), schema.GAUGES) if status != 404 else []
    _from_gauges(ranks, gauges)
    devices, gpu_name, device_note = _devices(options)
    devices, mismatch = _devices_of_this_server(devices, ranks, info)
    device_note = mismatch or device_note
    cells = communication_cells(info, version, gpu_name)
    cells_gib = round(sum(c.gib or 0 for c in cells), 3)
    out_ranks = []
    for key in sorted(ranks, key=lambda k: (k[0] if k[0] is not None else -1, k[2], k[1])):
        rank = ranks[key]
        gpu = _gpu_of(rank, info)
        figures = SglangFigures(tuple(sorted(rank.sources)), **rank.figures)
        device = devices.get(gpu)
        if device is None:  # the documented keys, null when unknown
            out_ranks.append(WatchRank(rank.label, rank.dp, rank.tp, rank.pp, gpu, figures))
            continue
        stated = sum(rank.figures.get(k, 0.0) for k in ("weight_gib", "kv_cache_gib", "graph_gib"))
        residual = device.used_gib - stated
        use = DeviceUse(round(device.used_gib, 3), device.card_total_gib, device.source)
        residuals = (round(residual, 2), round(residual - cells_gib, 2))
        out_ranks.append(WatchRank(rank.label, rank.dp, rank.tp, rank.pp, gpu, figures, use, *residuals))
    config: dict[str, Any] = {
        k: info[k] for k in ("tp_size", "dp_size", "ep_size", "pp_size", "mem_fraction_static", "model_path") if k in info
    }
    return WatchDocument(
        url=options.url,
        endpoint=endpoint,
        version=version,
        config=config,
        max_total_num_tokens=info.get("max_total_num_tokens"),
        missing=tuple(_missing(version, states, gauges, status != 404, metrics_cut)),
        device_note=device_note,
        cells=cells,
        ranks=tuple(out_ranks),
    )


# ---- views


def render_markdown(document: WatchDocument) -> str:
    safe = terminal_safe  # the server's strings (version, model path) may hold escapes
    lines = [
        f"### logscope watch: SGLang {safe(document.version)} at {safe(document.url)} ({safe(document.endpoint)})",
        "",
        "| rank | GPU | weights GiB | KV GiB | graphs GiB | device used GiB | residual GiB | after cells GiB |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for rank in document.ranks:
        lines.append("| " + " | ".join(_rank_row(rank)) + " |")
    lines.append("")
    lines.append(f"Communication cells ({document.cells_gib:.2f} GiB, estimated per rank):")
    lines += [f"- {safe(c.group)} {safe(c.mechanism)}: {_num(c.gib)} GiB ({c.kind}, {c.timing})" for c in document.cells]
    lines += [f"- missing: {safe(m)}" for m in document.missing]
    if document.device_note:
        lines.append(f"- {safe(document.device_note)}")
    return "\n".join(lines) + "\n"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _rank_row(rank: WatchRank) -> list[str]:
    """A rank's row of the Markdown and terminal tables: SGLang's figures, the device's, the residuals."""
    s = rank.sglang
    figures = (s.weight_gib, s.kv_cache_gib, s.graph_gib, rank.device.used_gib if rank.device else None)
    residuals = (rank.residual_gib, rank.residual_after_cells_gib)
    return [terminal_safe(rank.rank), f"{rank.gpu}?", *(_num(v) for v in (*figures, *residuals))]


def rich_view(document: WatchDocument) -> Any:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    safe = terminal_safe  # the server's strings (version, model path) may hold escapes
    title = f"SGLang {safe(document.version)} at {safe(document.url)}: memory per rank (GiB)"
    table = Table(title=title, title_justify="left")
    for head in ("rank", "GPU", "weights", "KV cache", "graphs", "device used", "residual", "after cells"):
        table.add_column(head, justify="left" if head == "rank" else "right")
    for rank in document.ranks:
        table.add_row(*_rank_row(rank))
    notes = [
        Text(f"cells ({document.cells_gib:.2f} GiB per rank, estimated): ")
        + Text(", ".join(f"{safe(c.group)} {safe(c.mechanism)} {_num(c.gib)}" for c in document.cells) or "none")
    ]
    notes += [Text(f"missing: {safe(m)}", style="yellow") for m in document.missing]
    if document.device_note:
        notes.append(Text(safe(document.device_note), style="yellow"))
    notes.append(Text(f"read {time.strftime('%H:%M:%S')}; GPU? = assumed from the rank (base_gpu_id, gpu_id_step)", style="dim"))
    return Group(table, *notes)


def watch_live(options: Options, interval_s: float) -> None:
    """The terminal view, read again every interval until Ctrl-C; a failed read shows its line and retries."""
    from rich.live import Live
    from rich.text import Text

    document = read_watch(options)  # the first read fails as a one-line error
    with Live(rich_view(document), auto_refresh=False) as live:
        try:
            while True:
                time.sleep(interval_s)
                try:
                    live.update(rich_view(read_watch(options)), refresh=True)
                except WatchError as exc:
                    live.update(Text(f"{exc} (retrying every {interval_s:g} s)", style="red"), refresh=True)
        except KeyboardInterrupt:
            return
