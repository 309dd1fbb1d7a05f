"""The one serializer: the finished model and the findings → the logscope/1 document (docs/design.md's JSON
contract), and that document as JSON text. Text, Markdown and later views read the document through the
view-model; nothing else builds it."""

from __future__ import annotations

import json
from typing import Any

from logscope import SCHEMA_ID, __version__
from logscope.core import kinds, phases
from logscope.core.events import Event
from logscope.core.limits import LINE_CAP, READ_CAP
from logscope.core.model import (
    WORDING_VERDICTS,
    Analysis,
    Coverage,
    InputFile,
    Launch,
    PhaseReading,
    RankPlacement,
    RankTimeline,
    UnmatchedFailure,
    UserStop,
)

# lines that state a memory figure or a setting but are no phase: listed as the rank's (or launch's) notes
NOTE_KINDS = kinds.of_role(kinds.NOTE)
# the phase fields in the order the document lists them; other values follow in the order read
_PHASE_FIELDS = ("avail_gib", "usage_gib", "tokens", "k_gib", "v_gib", "kv_gib", "elapsed_s", "bs", "graph")


def render_json(report: dict[str, Any], width: int = 0) -> str:
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"


def build_document(analysis: Analysis, findings: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "schema": SCHEMA_ID,
        "logscope_version": __version__,
        "inputs": [_input(i) for i in analysis.inputs],
        "launches": [_launch(analysis, launch) for launch in analysis.launches],
        "versions": analysis.join.versions,
        "gpus": [_gpu(gpu, analysis.gpu_ledgers) for gpu in analysis.join.gpus],
        "topology": analysis.join.topology,
        "findings": findings,
        "coverage": {
            **_coverage(analysis.coverage, analysis.launches, analysis.unmatched_failures),
            **_cuts(analysis.inputs),
            **({"repeated_launches": analysis.repeated.document()} if analysis.repeated is not None else {}),
        },
        **({"calibration": analysis.calibration} if analysis.calibration is not None else {}),
    }


def _gpu(gpu: dict[str, Any], gpu_ledgers: dict[int, list[dict[str, Any]]]) -> dict[str, Any]:
    ledger = gpu_ledgers.get(gpu["index"])
    return gpu if ledger is None else {**gpu, "outside_allocator_ledger": ledger}


def _input(entry: InputFile) -> dict[str, Any]:
    return {
        "path": entry.path,
        "kind": entry.kind,
        "lines": entry.lines,
        "recognized_lines": entry.recognized_lines,
        **({"cut_lines": entry.cut_lines} if entry.cut_lines else {}),
        **({"elided_lines": entry.elided_lines} if entry.elided_lines else {}),
        **({"encoding": entry.encoding} if entry.encoding else {}),
        **({"stopped": entry.stopped} if entry.stopped else {}),
    }


def _launch(analysis: Analysis, launch: Launch) -> dict[str, Any]:
    return {
        "id": launch.id,
        "sources": launch.sources,
        "config": launch.config,
        "config_source": launch.config_source,
        "config_lower_bounds": launch.config_lower_bounds,
        "versions": launch.versions,
        "sglang_version": launch.sglang_version,
        "environment": launch.environment,
        "model": launch.model,
        "ranks": [_rank(analysis, launch, label, timeline) for label, timeline in launch.ranks.items()],
        "ready": launch.ready,
        **_ready_at(launch.ready_event),
        **_stopped(analysis.user_stops.get(launch.id)),
        "phase_stats": analysis.timeline.stats.get(launch.id, []),
        "tp_groups": analysis.join.tp_groups.get(launch.id, []),
        "server_args": launch.server_args,
        "server_args_source": launch.server_args_source,
        **_notes(launch.events),
        **_read_facts(launch.events),
    }


def _ready_at(event: Event | None) -> dict[str, Any]:
    """Where and when the launch's ready line stands (only for a launch that got ready)."""
    return {} if event is None else {"ready_at": {"source": event.source, "line": event.line, "time": event.time}}


def _stopped(stop: tuple[UserStop, int] | None) -> dict[str, Any]:
    """The user's stop that `logscope run` forwarded (only for a launch it stopped)."""
    return {} if stop is None else {"stopped_by_user": stop[0].document(stop[1])}


def _read_facts(events: list[Event]) -> dict[str, Any]:
    """The fields of the catalogued wordings no grammar reads (parse/parsers/catalogue.py), each with its line."""
    read = [
        {"source": e.source, "line": e.line, "time": e.time, **{k: v for k, v in e.data.items() if k != "full_text"}}
        for e in events
        if e.kind == kinds.CATALOGUED_LINE and e.data.get("fields")
    ]
    return {"read": read} if read else {}


_BARS = frozenset({kinds.SHARD_PROGRESS, kinds.ENGINE_CAPTURE_BAR})  # progress bars: their last reading is kept


def _notes(events: list[Event]) -> dict[str, Any]:
    # a progress bar repeats itself: its last reading of each source is the one that says how far it got
    last_progress = {(e.source, e.kind): e for e in events if e.kind in _BARS}
    notes = [
        {
            "kind": e.kind,
            "source": e.source,
            "line": e.line,
            "time": e.time,
            **{k: v for k, v in e.data.items() if k not in ("full_text", "quoted")},
        }
        for e in events
        if e.kind in NOTE_KINDS and (e.kind not in _BARS or last_progress[(e.source, e.kind)] is e)
    ]
    return {"notes": notes} if notes else {}


def _reading(reading: PhaseReading, drop: tuple[float, str] | None) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "phase": reading.phase,
        "model": reading.model,
        "source": reading.source,
        "line": reading.line,
        "time": reading.time,
    }
    for key in _PHASE_FIELDS:
        if key in reading.values:
            entry[key] = reading.values[key]
    for key, value in reading.values.items():
        if key not in entry and key != "joined_lines":
            entry[key] = value
    if reading.rank_assumed:
        entry["rank_assumed"] = True
    if drop is not None:
        entry["drop_gib"], entry["drop_since"] = drop
    return entry


def _rank(analysis: Analysis, launch: Launch, label: str, timeline: RankTimeline) -> dict[str, Any]:
    rank = timeline.rank
    placement = analysis.join.placements.get((launch.id, label), RankPlacement())
    ledger = analysis.ledgers[(launch.id, label)]
    entry: dict[str, Any] = {
        "rank": rank.label,
        "tp": rank.get("tp"),
        "dp": rank.get("dp"),
        "pp": rank.get("pp"),
        "ep": rank.get("ep"),
        "attn_cp": rank.get("attn_cp"),
        "moe_dp": rank.get("moe_dp"),
        **({"rank_index": rank.get("rank")} if rank.get("rank") is not None else {}),
        "source": timeline.source,
        "gpu": placement.gpu,
        "gpu_assumed": placement.gpu_assumed,
        "phases": _with_device(
            [
                _reading(reading, analysis.timeline.drops.get((launch.id, label, seq)))
                for seq, reading in enumerate(timeline.phases)
            ],
            analysis.devices.get((launch.id, label)),
        ),
        "ledger": ledger.items,
        "cells": [c.as_json() for c in ledger.cells],
    }
    if placement.card_total_gib is not None:
        entry["card_total_gib"] = placement.card_total_gib
    if placement.gpu_processes is not None:
        entry["gpu_processes"] = placement.gpu_processes
    if placement.other_process_mib is not None:
        entry["other_process_mib"] = placement.other_process_mib
    if placement.outside_allocator_mib is not None:
        entry["outside_allocator_mib"] = placement.outside_allocator_mib
    if ledger.has_readings:
        entry["card_total_gib"] = ledger.card_total_gib
        entry["card_total_source"] = ledger.card_total_source
    device = analysis.devices.get((launch.id, label))
    if device is not None:
        entry["device"] = {"samples": device.samples, "gpu": device.gpu, "gpu_basis": device.gpu_basis}
    entry["eager_comm_gib"] = ledger.eager_comm_gib
    entry["lazy_comm_gib"] = ledger.lazy_comm_gib
    entry.update(_notes(timeline.events))
    entry.update(_read_facts(timeline.events))
    return entry


def _with_device(readings: list[dict[str, Any]], device: Any) -> list[dict[str, Any]]:
    """Each phase reading with the device's figures at the moment it was printed (`logscope run`'s samples)."""
    if device is not None:
        for phase in device.phases:
            readings[phase.reading]["device"] = phase.document()
    return readings


def _cuts(inputs: list[InputFile]) -> dict[str, Any]:
    """Lines cut at the line cap, and lines read as their head and tail, counted in the coverage (only when there
    were some)."""
    cut = sum(i.cut_lines for i in inputs)
    elided = sum(i.elided_lines for i in inputs)
    return {
        **({"cut_lines": cut, "line_cap_bytes": LINE_CAP} if cut else {}),
        **({"elided_lines": elided, "read_cap_bytes": READ_CAP} if elided else {}),
    }


def _missing_phases(launches: list[Launch]) -> dict[str, dict[str, list[str]]]:
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
    return missing


def _coverage(coverage: Coverage, launches: list[Launch], unmatched: list[UnmatchedFailure]) -> dict[str, Any]:
    return {
        "lines": coverage.lines,
        "recognized_lines": coverage.recognized_lines,
        "grammars": {
            name: {"seen": coverage.seen[name], "recognized": coverage.recognized[name]} for name in sorted(coverage.seen)
        },
        "unrecognized": [unread.document() for unread in coverage.unrecognized],
        "unrecognized_total": coverage.unrecognized_total,
        "missing_phases": _missing_phases(launches),
        "unmatched_failures": [m.document() for m in unmatched],
        **_prefixed(coverage),
    }


def _prefixed(coverage: Coverage) -> dict[str, Any]:
    """The SGLang-prefixed startup lines no grammar reads, by verdict, and where each input's startup part ended
    (only when an input has such lines, or ended its startup part)."""
    out: dict[str, Any] = {}
    if coverage.prefixed:
        counts = {verdict: coverage.prefixed[verdict] for verdict in WORDING_VERDICTS}
        out["prefixed_unread"] = {"lines": sum(counts.values()), **counts}
    if coverage.startup_ends:
        out["startup_ends"] = coverage.startup_ends
    if coverage.startup_ends_total > len(coverage.startup_ends):
        out["startup_ends_total"] = coverage.startup_ends_total
    return out
