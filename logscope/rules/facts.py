"""The data a rule sees: plain dicts built from the assembled launch and the report.

Launch scope: `launch`, `config`, `env`, `versions`, `model`, `ranks` (each with `phase.<id>` = its first
target reading, `draft.<id>`, `phases`, `errors`, `failed`, `last_phase`, `ledger.<item>`, `cells`),
`events` (every event of the launch), `gpus`, `links`, `card_total_gib`.
Global scope: `gpus`, `links`, `events` (events outside any launch), `launches`.
"""

from __future__ import annotations

from typing import Any

from logscope.assemble import Launch
from logscope.events import FAILURE_KINDS, Event
from logscope.failures import failure_fact, root_of
from logscope.signatures.match import Failure


def event_fact(ev: Event) -> dict[str, Any]:
    fact = {k: v for k, v in ev.data.items() if k not in ("kind", "rank", "source", "line", "text")}
    fact.update(kind=ev.kind, rank=ev.rank.label if ev.rank else None, source=ev.source, line=ev.line, text=ev.text)
    fact["frames_text"] = " ".join(ev.data.get("frames", []))
    return fact


def failure_facts(failures: list[Failure]) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    root = root_of(failures)
    facts = [failure_fact(f, event_fact(f.event), root) for f in failures]
    return facts, next((fact for fact in facts if fact["is_root"]), None)


def launch_facts(report: dict[str, Any], entry: dict[str, Any], launch: Launch,
                 failures: list[Failure] | None = None) -> dict[str, Any]:
    failure_list, root = failure_facts(failures or [])
    events = [event_fact(e) for e in launch.events]
    ranks = []
    for rank_entry, timeline in zip(entry["ranks"], launch.ranks.values()):
        phase: dict[str, Any] = {}
        draft: dict[str, Any] = {}
        phase_list = []
        for p in timeline.phases:
            fact = {"phase": p.phase, "model": p.model, "source": p.source, "line": p.line, "text": p.text,
                    "rank": rank_entry["rank"], **p.values}
            phase_list.append(fact)
            target = phase if p.model == "target" else draft
            key = p.phase
            if p.phase in ("capture_begin", "capture_end") and p.values.get("graph") not in ("decode", "verify", None):
                key = f"{p.phase}_{p.values['graph']}"
            target.setdefault(key, fact)
        rank_events = [event_fact(e) for e in timeline.events]
        events.extend(rank_events)
        target_phases = [p for p in phase_list if p["model"] == "target"]
        ranks.append({
            "rank": rank_entry["rank"], "tp": rank_entry["tp"], "dp": rank_entry["dp"], "pp": rank_entry["pp"],
            "ep": rank_entry["ep"], "gpu": rank_entry["gpu"], "phase": phase, "draft": draft, "phases": phase_list,
            "last_phase": target_phases[-1]["phase"] if target_phases else None,
            "last_reading": next((p for p in reversed(target_phases) if "avail_gib" in p), None),
            "last_capture": next((p for p in reversed(target_phases) if p["phase"] == "capture_progress"), None),
            "errors": [e for e in rank_events if e["kind"] in FAILURE_KINDS],
            "failed": any(e["kind"] in FAILURE_KINDS for e in rank_events),
            "ledger": {item["item"]: item["gib"] for item in rank_entry["ledger"]},
            "ledger_items": rank_entry["ledger"],
            "cells": rank_entry["cells"],
            **{k: v for k, v in rank_entry.items() if k.startswith(("card_", "gpu_processes", "lazy_", "eager_"))},
        })
    ready = {(e.source, e.line) for e in launch.events if e.kind == "server_ready"}
    for event in events:
        event["after_ready"] = any(source == event["source"] and event["line"] > line for source, line in ready)
    events.sort(key=lambda e: (e["source"], e["line"]))
    return {
        "launch": {"id": entry["id"], "ready": entry["ready"], "sources": entry["sources"]},
        "config": entry["config"], "config_source": entry["config_source"], "env": entry["environment"],
        "versions": entry["versions"], "model": entry["model"], "ranks": ranks, "events": events,
        "errors": [e for e in events if e["kind"] in FAILURE_KINDS],
        "gpus": report["gpus"], "links": report["topology"]["links"],
        "tp_groups": entry.get("tp_groups", []),
        "failures": failure_list, "root_failure": root,
    }


def global_facts(report: dict[str, Any], global_events: list[Event], launches: list[Launch]) -> dict[str, Any]:
    every = list(global_events)
    for launch in launches:
        every += launch.events + [e for timeline in launch.ranks.values() for e in timeline.events]
    return {
        "gpus": report["gpus"], "links": report["topology"]["links"],
        "events": [event_fact(e) for e in global_events], "all_events": [event_fact(e) for e in every],
        "launches": report["launches"],
    }
