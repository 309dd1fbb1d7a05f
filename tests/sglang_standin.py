"""A stand-in SGLang server on 127.0.0.1 for `logscope watch`'s tests, answering /server_info, /get_server_info and
/metrics in the shapes of three releases, as their source builds them (read from the wheels):

- 0.5.9: server_info = {**dataclasses.asdict(server_args), **scheduler_info, "internal_states", "version"}
  (entrypoints/http_server.py server_info); each internal state is vars(server_args) plus last_gen_throughput,
  memory_usage {weight, kvcache (2 decimals), token_capacity, graph: one number}, effective_max_running_requests_per_dp
  (managers/scheduler.py get_internal_state); /metrics has no memory gauge.
- 0.5.20: {**server_args.resolved_dict(), "launch_command", **scheduler_info, "startup_time", "internal_states",
  "version", "kv_events"}; memory_usage = build_memory_usage (scheduler_components/memory_usage.py: 3 decimals,
  startup_available, token_capacity_swa, graph per phase of graph_memory_usage.GRAPH_MEMORY_USAGE_KEYS);
  /metrics: the four memory gauges (observability/metrics_collector.py) per TP rank, labels model_name,
  engine_type, tp_rank, pp_rank, moe_ep_rank.
- 0.5.23: as 0.5.20 through build_server_info (utils/common.py), plus "frontend": "python".
scheduler_info is {"status": "ready", "max_total_num_tokens", "max_req_input_len"} (managers/scheduler.py).
The figures: a TP=2 Qwen3-32B on H200s, as fixtures/upstream/sglang-0.5.23-tp2.log reads."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

GRAPH_PHASES = ("prefill", "decode", "target_verify", "draft_prefill", "draft_decode", "draft_extend")
SERVER_ARGS: dict[str, Any] = {
    "model_path": "Qwen/Qwen3-32B",
    "tp_size": 2,
    "dp_size": 1,
    "ep_size": 1,
    "pp_size": 1,
    "mem_fraction_static": 0.88,
    "base_gpu_id": 0,
    "gpu_id_step": 1,
    "disable_custom_all_reduce": False,
    "enable_symm_mem": False,
    "enable_dp_attention": False,
    "moe_a2a_backend": "none",
    "enable_metrics": True,
}
SCHEDULER_INFO = {"status": "ready", "max_total_num_tokens": 1500000, "max_req_input_len": 40954}
# per TP rank: weights, KV cache, decode graphs, free memory before the weights (GB as SGLang computes them)
RANKS = ((30.8, 91.56, 1.4, 137.7), (30.8, 91.56, 1.43, 137.71))


def _memory_usage(version: str, rank: int) -> dict[str, Any]:
    weight, kv, graph, startup = RANKS[rank]
    if version == "0.5.9":
        return {"weight": round(weight, 2), "kvcache": round(kv, 2), "token_capacity": 1500000, "graph": round(graph, 2)}
    phases = dict.fromkeys(GRAPH_PHASES, 0.0)
    phases["decode"] = graph
    return {
        "weight": round(weight, 3),
        "kvcache": round(kv, 3),
        "startup_available": round(startup, 3),
        "token_capacity": 1500000,
        "token_capacity_swa": None,
        "graph": {phase: round(gb, 3) for phase, gb in phases.items()},
    }


def server_info(version: str) -> dict[str, Any]:
    state = {**SERVER_ARGS, "last_gen_throughput": 0.0, "memory_usage": _memory_usage(version, 0)}
    state["effective_max_running_requests_per_dp"] = 4096
    if version == "0.5.9":
        return {**SERVER_ARGS, **SCHEDULER_INFO, "internal_states": [state], "version": version}
    state = {**state, "world_size": 2, "startup_time": 41.2}
    info = {
        **SERVER_ARGS,
        "launch_command": "python -m sglang.launch_server --model-path Qwen/Qwen3-32B --tp 2 --enable-metrics",
        **SCHEDULER_INFO,
        "startup_time": 41.2,
        "internal_states": [state],
        "version": version,
        "kv_events": None,
    }
    if version == "0.5.23":
        info["frontend"] = "python"
    return info


def metrics(version: str) -> str:
    lines = [
        "# HELP sglang:num_running_reqs The number of running requests.",
        "# TYPE sglang:num_running_reqs gauge",
    ]
    for rank in range(2):
        labels = f'engine_type="unified",model_name="Qwen/Qwen3-32B",moe_ep_rank="0",pp_rank="0",tp_rank="{rank}"'
        lines.append(f"sglang:num_running_reqs{{{labels}}} 0.0")
        if version == "0.5.9":
            continue
        weight, kv, graph, startup = RANKS[rank]
        lines += [
            f"sglang:weight_memory_usage_gb{{{labels}}} {weight}",
            f"sglang:kv_cache_memory_usage_gb{{{labels}}} {kv}",
            f"sglang:startup_available_gpu_memory_gb{{{labels}}} {startup}",
        ]
        lines += [f'sglang:graph_memory_usage_gb{{{labels},phase="{p}"}} {graph if p == "decode" else 0.0}' for p in GRAPH_PHASES]
    return "\n".join(lines) + "\n"


@contextmanager
def standin(version: str, api_key: str | None = None, metrics_on: bool = True, body: bytes | None = None) -> Iterator[str]:
    """A server answering as SGLang `version` on 127.0.0.1 (a free port); yields its base URL. `body`: answer
    every path with these bytes instead (not an SGLang server)."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802
            if api_key is not None and self.headers.get("Authorization") != f"Bearer {api_key}":
                self._send(401, b'{"error": "Unauthorized"}', "application/json")
            elif body is not None:
                self._send(200, body, "text/html")
            elif self.path in ("/server_info", "/get_server_info"):
                self._send(200, json.dumps(server_info(version)).encode(), "application/json")
            elif self.path == "/metrics" and metrics_on:
                self._send(200, metrics(version).encode(), "text/plain; version=0.0.4")
            else:
                self._send(404, b'{"detail":"Not Found"}', "application/json")

        def _send(self, status: int, data: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
