"""The pipeline: inputs → lines → events → launches → facts → findings, as one JSON-shaped report
(schema logscope/1). Every renderer (text, Markdown, JSON) reads this one dict."""

from __future__ import annotations

from typing import Any

from logscope import SCHEMA_ID, __version__, phases
from logscope.assemble import Launch, assemble
from logscope.classify import Coverage, classify_sources
from logscope.events import Event
from logscope.ingest import Source
from logscope.launch_facts import apply_model_config, fill_launch_facts

_PHASE_FIELDS = ("avail_gib", "usage_gib", "tokens", "k_gib", "v_gib", "kv_gib", "elapsed_s", "bs", "graph")


def analyze_sources(sources: list[Source], rules_dirs: list[str] | None = None,
                    model_config: dict[str, Any] | None = None) -> dict[str, Any]:
    per_source, coverage = classify_sources(sources)
    hints = {s.name: s.rank_hint for s in sources}
    launches, global_events = assemble(per_source, hints)
    for launch in launches:
        fill_launch_facts(launch, global_events)
        if model_config:
            apply_model_config(launch, model_config)
    report: dict[str, Any] = {
        "schema": SCHEMA_ID,
        "logscope_version": __version__,
        "inputs": [_input_entry(s, per_source.get(s.name, [])) for s in sources],
        "launches": [_launch_entry(launch) for launch in launches],
        "versions": {},
        "gpus": [],
        "topology": {"links": []},
        "findings": [],
        "coverage": _coverage_entry(coverage, launches),
    }
    _timeline_numbers(report)
    from logscope.smi_join import join_gpus

    join_gpus(report, launches, global_events)
    from logscope.ledger import fill_ledgers

    fill_ledgers(report, [launch.events + [e for r in launch.ranks.values() for e in r.events] for launch in launches])
    from logscope.failures import launch_failures
    from logscope.rules.engine import run_rules

    failures = {launch.id: launch_failures(launch) for launch in launches}
    report["coverage"]["unmatched_failures"] = _unmatched_failures(failures, coverage)
    report["findings"] = run_rules(report, launches, global_events, rules_dirs or [], failures)
    return report


def _unmatched_failures(failures: dict[int, list], coverage: Coverage) -> list[dict[str, Any]]:
    """Lines that read like a failure but that no signature names: what logscope did not understand."""
    out = [{"source": f.event.source, "line": f.event.line, "text": f.event.text, "kind": f.event.kind}
           for found in failures.values() for f in found if f.signature is None and f.event.kind != "native_backtrace"]
    out += [{"source": m["source"], "line": m["line"], "text": m["text"], "kind": "unrecognized"}
            for m in coverage.unrecognized if m["grammar"] == "failure"]
    return sorted(out, key=lambda m: (m["source"], m["line"]))


def _timeline_numbers(report: dict[str, Any]) -> None:
    """From the polars timeline: each reading's drop since the previous one of its rank (measured), and
    per phase the min / max / spread across ranks."""
    from logscope.timeline import cross_rank_stats, timeline_frame, with_deltas

    frame = timeline_frame(report["launches"])
    drops = {(row["launch"], row["rank"], row["seq"]): (row["drop_gib"], row["prev_phase"])
             for row in with_deltas(frame).iter_rows(named=True) if row["drop_gib"] is not None}
    stats = cross_rank_stats(frame)
    for launch in report["launches"]:
        for rank in launch["ranks"]:
            for seq, phase in enumerate(rank["phases"]):
                found = drops.get((launch["id"], rank["rank"], seq))
                if found is not None:
                    phase["drop_gib"], phase["drop_since"] = found
        launch["phase_stats"] = [
            {k: v for k, v in row.items() if k != "launch"}
            for row in stats.filter(stats["launch"] == launch["id"]).iter_rows(named=True)
            if row["ranks"] >= 2
        ]


def _input_entry(source: Source, events: list[Event]) -> dict[str, Any]:
    kinds = {e.grammar for e in events}
    if kinds & {"nvidia_smi", "smi_table", "smi_q", "smi_csv", "smi_topo"} and not kinds & {"sglang", "exception"}:
        kind = "nvidia-smi"
    elif kinds == {"check_env"} or kinds <= {"check_env", "smi_topo"} and "check_env" in kinds:
        kind = "check_env"
    elif kinds:
        kind = "log"
    else:
        kind = "unknown"
    entry = {"path": source.name, "kind": kind, "lines": source.lines, "recognized_lines": source.recognized_lines}
    return entry


def _rank_entry(timeline: Any) -> dict[str, Any]:
    rank = timeline.rank
    phases = []
    for phase in timeline.phases:
        entry: dict[str, Any] = {"phase": phase.phase, "model": phase.model, "source": phase.source,
                                 "line": phase.line, "time": phase.time}
        for key in _PHASE_FIELDS:
            if key in phase.values:
                entry[key] = phase.values[key]
        for key, value in phase.values.items():
            if key not in entry and key not in ("joined_lines",):
                entry[key] = value
        if phase.rank_assumed:
            entry["rank_assumed"] = True
        phases.append(entry)
    return {
        "rank": rank.label,
        "tp": rank.get("tp"), "dp": rank.get("dp"), "pp": rank.get("pp"), "ep": rank.get("ep"),
        "attn_cp": rank.get("attn_cp"), "moe_dp": rank.get("moe_dp"),
        **({"rank_index": rank.get("rank")} if rank.get("rank") is not None else {}),
        "source": timeline.source,
        "gpu": None, "gpu_assumed": True,
        "phases": phases,
        "ledger": [],
        "cells": [],
    }


def _launch_entry(launch: Launch) -> dict[str, Any]:
    return {
        "id": launch.id,
        "sources": launch.sources,
        "config": launch.config,
        "config_source": launch.config_source,
        "config_lower_bounds": launch.config_lower_bounds,
        "versions": launch.versions,
        "environment": launch.environment,
        "model": launch.model,
        "ranks": [_rank_entry(t) for t in launch.ranks.values()],
        "ready": any(e.kind == "server_ready" for e in launch.events),
    }


def _coverage_entry(coverage: Coverage, launches: list[Launch]) -> dict[str, Any]:
    missing: dict[str, dict[str, list[str]]] = {}
    for launch in launches:
        per_rank: dict[str, list[str]] = {}
        for label, timeline in launch.ranks.items():
            have = {p.phase for p in timeline.phases if p.model == "target"}
            if not have:
                continue
            want = [p for p in phases.expected_phases() if p not in have]
            if launch.config.get("disable_cuda_graph") is True:
                want = [p for p in want if not p.startswith("capture")]
            if want:
                per_rank[label] = want
        if per_rank:
            missing[str(launch.id)] = per_rank
    return {
        "lines": coverage.lines,
        "recognized_lines": coverage.recognized_lines,
        "grammars": {
            name: {"seen": coverage.seen[name], "recognized": coverage.recognized[name]}
            for name in sorted(coverage.seen)
        },
        "unrecognized": coverage.unrecognized,
        "unrecognized_total": coverage.unrecognized_total,
        "missing_phases": missing,
    }
