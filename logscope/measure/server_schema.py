"""What a running SGLang server tells about its memory, per release, as the released source has it (read from
the wheels: sglang/srt/managers/scheduler.py get_internal_state up to 0.5.21, then
sglang/srt/managers/scheduler_components/internal_state.py _add_memory_usage and memory_usage.py
build_memory_usage; the gauges in sglang/srt/observability/metrics_collector.py, before 0.5.10
sglang/srt/metrics/collector.py).

- internal_states[].memory_usage {weight, kvcache, token_capacity, graph: one number}: in 0.5.1.post3 (the
  oldest 0.5 wheel read; 0.4.8.post1 has no memory_usage) to 0.5.16.
- from 0.5.17: build_memory_usage: {weight, kvcache, startup_available, token_capacity, token_capacity_swa,
  graph: {phase: GB}} (phases: prefill, decode, target_verify, draft_prefill, draft_decode, draft_extend).
- /metrics (--enable-metrics): sglang:startup_available_gpu_memory_gb from 0.5.11; sglang:weight_memory_usage_gb,
  sglang:kv_cache_memory_usage_gb, sglang:graph_memory_usage_gb{phase} from 0.5.17; labels model_name,
  engine_type, tp_rank, pp_rank, moe_ep_rank (and dp_rank when set).
All figures in GB as SGLang computes them (GiB: bytes / 2^30), rounded to 2 (before 0.5.17) or 3 decimals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

GAUGE_WEIGHT: Final = "sglang:weight_memory_usage_gb"
GAUGE_KV: Final = "sglang:kv_cache_memory_usage_gb"
GAUGE_GRAPH: Final = "sglang:graph_memory_usage_gb"
GAUGE_STARTUP: Final = "sglang:startup_available_gpu_memory_gb"
GAUGES: Final = (GAUGE_WEIGHT, GAUGE_KV, GAUGE_GRAPH, GAUGE_STARTUP)


@dataclass(frozen=True, slots=True)
class Feature:
    what: str
    since: str  # the first release read that has it


MEMORY_USAGE: Final = Feature("internal_states[].memory_usage (weight, kvcache, graph)", "0.5.1.post3")
MEMORY_USAGE_PHASES: Final = Feature("memory_usage.startup_available and the graph per phase", "0.5.17")
STARTUP_GAUGE: Final = Feature(f"/metrics {GAUGE_STARTUP}", "0.5.11")
MEMORY_GAUGES: Final = Feature(f"/metrics {GAUGE_WEIGHT}, {GAUGE_KV}, {GAUGE_GRAPH}{{phase}}", "0.5.17")
