"""What the text and Markdown views show, computed once from the report dict."""

from __future__ import annotations

from typing import Any

# (column title, phase id, graph filter, value key)
PHASE_COLUMNS = (
    ("init used", "init_distributed_end", None, "usage_gib"),
    ("load begin", "load_weight_begin", None, "avail_gib"),
    ("load end", "load_weight_end", None, "avail_gib"),
    ("KV pool", "kv_cache_allocated", None, "kv_gib"),
    ("pool end", "memory_pool_end", None, "avail_gib"),
    ("cap. begin", "capture_begin", "decode", "avail_gib"),
    ("cap. end", "capture_end", "decode", "avail_gib"),
    ("summary", "scheduler_summary", None, "avail_gib"),
)
SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


def phase_value(rank: dict[str, Any], phase_id: str, graph: str | None, key: str, model: str = "target") -> Any:
    for phase in rank["phases"]:
        if phase["phase"] != phase_id or phase["model"] != model:
            continue
        if graph is not None and phase.get("graph") not in (graph, "verify"):
            continue
        if key in phase:
            return phase[key]
    return None


def drop_before(rank: dict[str, Any], phase_id: str, graph: str | None) -> float | None:
    """Free memory lost between the previous reading and this phase's reading (measured, from the timeline)."""
    for phase in rank["phases"]:
        if phase["phase"] != phase_id or phase["model"] != "target":
            continue
        if graph is not None and phase.get("graph") not in (graph, "verify"):
            continue
        return phase.get("drop_gib")
    return None


def last_capture_bs(rank: dict[str, Any]) -> tuple[int, float] | None:
    progress = [p for p in rank["phases"] if p["phase"] == "capture_progress" and p["model"] == "target"]
    if not progress:
        return None
    last = progress[-1]
    return last.get("bs") or last.get("num_tokens"), last["avail_gib"]


def column_stats(ranks: list[dict[str, Any]], phase_id: str, graph: str | None, key: str) -> dict[str, float] | None:
    values = [v for v in (phase_value(r, phase_id, graph, key) for r in ranks) if isinstance(v, (int, float))]
    if len(values) < 2:
        return None
    low, high = min(values), max(values)
    spread = round(high - low, 2)
    pct = round(spread / high * 100, 1) if high > 0 else 0.0
    return {"min": low, "max": high, "spread": spread, "spread_pct": pct}


def visible_columns(ranks: list[dict[str, Any]]) -> list[tuple[str, str, str | None, str]]:
    return [c for c in PHASE_COLUMNS if any(phase_value(r, c[1], c[2], c[3]) is not None for r in ranks)]


def sorted_findings(findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(findings, key=lambda f: (SEVERITY_ORDER.get(f["severity"], 9), f.get("launch") or 0, f["rule"]))


def fmt_gib(value: Any) -> str:
    return "" if value is None else (f"{value:.2f}" if isinstance(value, float) else str(value))
