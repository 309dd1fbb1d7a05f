"""The data a rule sees: a read-only view of the finished model, as plain dicts.

Launch scope: `launch` (id, ready, sources, ends_cut: the paste ends in an SGLang line its copy cut, served: a line
only serving code prints after the startup shown), `config`,
`config_source`, `env`, `versions`, `model`, `ranks` (each with
`phase.<id>` = its first target reading, `draft.<id>`, `phases`, `errors`, `failed`, `last_phase`,
`last_reading`, `last_capture`, `ledger.<item>`, `cells`, `gpu`, `card_total_gib`, `eager_comm_gib`,
`lazy_comm_gib`), `kv` (the KV sizing stage's figures), `deepep_reserve`, `deepep_buffer` (the dispatch cap, the
low-latency cell and the room after the KV pool), `imbalance` (free memory before the weights across ranks,
SGLang's check, the cause: imbalance.py), `events` (every event of the launch), `errors`,
`gpus`, `tp_groups`, `failures`, `root_failure`.
Global scope: `gpus`, `events` (events outside any launch), `all_events`, `launches` (id, ready, sources).
"""

from __future__ import annotations

import re
from dataclasses import asdict
from typing import Any

from logscope.core import kinds, stage_functions
from logscope.core.events import FAILURE_KINDS, Event
from logscope.core.model import Analysis, Failure, Launch, RankLedger, RankPlacement, RankTimeline
from logscope.memory_model.deepep import DispatchBudget
from logscope.memory_model.fraction import deepep_reserve_applies
from logscope.memory_model.releases import launch_release
from logscope.pipeline.failures import failure_fact, releases_shown, root_of
from logscope.pipeline.parse.serving import READY_KINDS
from logscope.pipeline.parse.signatures.loader import WARNING_LINE
from logscope.pipeline.rule_engine.imbalance import imbalance_fact
from logscope.pipeline.sizing.mem_fraction import fraction_on_command


def _last_records(launch: Launch) -> dict[str, int]:
    """The line of each source's last record of the launch (an event or a phase reading)."""
    last: dict[str, int] = {}
    lines = [(e.source, e.line) for e in launch.all_events()]
    lines += [(p.source, p.line) for t in launch.ranks.values() for p in t.phases]
    for source, line in lines:
        last[source] = max(line, last.get(source, line))
    return last


# the distinct catalogued wordings after a source's last phase line that are looked up (0.6 ms each): a log that went
# on serving shows such a line soon; the bound keeps a long log of other catalogued lines from costing a look-up each
_SERVED_LOOKUPS = 50


def served(launch: Launch) -> str | None:
    """The wording of the first catalogued SGLang line after its input's last phase line that only serving code prints
    (catalog/stages.json, from the released source: reached only from the scheduler's event loop, its request handling
    or a request's arrival), in the releases the launch shows: the startup shown was done and the server had taken a
    request ("Cache flushed successfully!", Scheduler.flush_cache from a flush request, sglang 0.3.3.post1-0.5.9: an RL
    trainer flushing its rollout engine's cache between steps). None for a launch whose ready line was read."""
    if launch.ready:
        return None
    last: dict[str, int] = {}
    for timeline in launch.ranks.values():
        for p in timeline.phases:
            last[p.source] = max(p.line, last.get(p.source, p.line))
    releases = releases_shown(launch.sglang_version)
    looked: set[str] = set()  # the distinct wordings looked up (a repeated line is looked up once)
    after = [e for e in launch.all_events() if e.kind == kinds.CATALOGUED_LINE and e.source in last and e.line > last[e.source]]
    for event in sorted(after, key=lambda e: (e.source, e.line)):  # (only the candidates sorted: a long log has many events)
        wording = str(event.data.get("wording") or "")
        if wording in looked:
            continue
        placed = stage_functions.place_wording(wording, releases)
        if placed is not None and placed[0].stage == "serving":
            return placed[1]
        looked.add(wording)
        if len(looked) >= _SERVED_LOOKUPS:
            break
    return None


def ends_cut(analysis: Analysis, launch: Launch) -> bool:
    """The launch's log ends where the paste does, in an SGLang line the copy cut, so where the log itself ended the
    paste does not show: a line whose wording the sglang grammar knows but cannot read to its end ("Load weight end.
    elapsed=4.2"), on the source's last line, after every record read there (of any launch), and ended by a newline: a
    last line without one is what a writer leaves when it is stopped mid-line (a killed process's log file), where the
    log did end."""
    own = _last_records(launch)
    last: dict[str, int] = {}
    for other in analysis.launches:
        for source, line in _last_records(other).items():
            last[source] = max(line, last.get(source, line))
    ends = {i.path: i.lines for i in analysis.inputs if not i.unterminated}
    return any(
        u.grammar == kinds.SGLANG
        and u.source in own
        and own[u.source] == last[u.source]
        and u.line == ends.get(u.source)
        and u.line > last[u.source]
        for u in analysis.coverage.unrecognized
    )


def event_fact(ev: Event) -> dict[str, Any]:
    fact = {k: v for k, v in ev.data.items() if k not in ("kind", "rank", "source", "line", "text")}
    fact.update(kind=ev.kind, rank=ev.rank.label if ev.rank else None, source=ev.source, line=ev.line, text=ev.text)
    if ev.data.get("unwrapped"):  # evidence says how the line was read
        fact["text"] = f"(from {ev.data['unwrapped']}) {ev.text}"
    if ev.kind == kinds.OOM and ev.data.get("processes"):  # an OOM text's other processes: its evidence shows them
        fact["focus"] = [f"Process {p.get('pid')} has" for p in ev.data["processes"]]
    fact["frames_text"] = " ".join(ev.data.get("frames", []))
    return fact


def failure_facts(failures: list[Failure]) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    root = root_of(failures)
    facts = [failure_fact(f, event_fact(f.event), root) for f in failures]
    for fact in facts:  # raised inside DeepEP: its frames, an NVSHMEM line, or an error naming DeepEP
        frames, text, error = (str(fact.get(k) or "").lower() for k in ("frames_text", "text", "error"))
        fact["in_deepep"] = "deepep" in frames or "deep_ep" in frames or "nvshmem" in text or "deepep" in error
        if fact["in_deepep"] and not fact.get("mechanism"):  # what the deepep-buffer rule then reports it as
            fact["mechanism"] = "deepep"
    return facts, next((fact for fact in facts if fact["is_root"]), None)


def _rank_fact(
    analysis: Analysis, launch: Launch, label: str, timeline: RankTimeline
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    phase: dict[str, Any] = {}
    draft: dict[str, Any] = {}
    phase_list = []
    for p in timeline.phases:
        fact = {
            **{"phase": p.phase, "model": p.model, "source": p.source, "line": p.line, "text": p.text, "rank": label},
            **{"time": p.time, **p.values},
        }
        phase_list.append(fact)
        key = p.phase
        if p.phase in (kinds.CAPTURE_BEGIN, kinds.CAPTURE_END) and p.values.get("graph") not in ("decode", "verify", None):
            key = f"{p.phase}_{p.values['graph']}"
        (phase if p.model == "target" else draft).setdefault(key, fact)
    rank_events = [event_fact(e) for e in timeline.events]
    target_phases = [p for p in phase_list if p["model"] == "target"]
    placement = analysis.join.placements.get((launch.id, label), RankPlacement())
    ledger = analysis.ledgers[(launch.id, label)]
    rank = timeline.rank
    fact = {
        "rank": label,
        "tp": rank.get("tp"),
        "dp": rank.get("dp"),
        "pp": rank.get("pp"),
        "ep": rank.get("ep"),
        "gpu": placement.gpu,
        "phase": phase,
        "draft": draft,
        "phases": phase_list,
        # the last phase line the rank printed, of either model (the draft's capture can be the last thing seen)
        "last_phase": (
            phase_list[-1]["phase"] + (" (draft)" if phase_list[-1]["model"] == "draft" else "") if phase_list else None
        ),
        "last_reading": next((p for p in reversed(target_phases) if "avail_gib" in p), None),
        "last_capture": next((p for p in reversed(target_phases) if p["phase"] == kinds.CAPTURE_PROGRESS), None),
        # the rank's lines of the input (phase lines, bars and every other record of it): a line quoted out of a log
        # is one, a log of the rank holds more
        "records": len({(p.source, p.line) for p in timeline.phases} | {(e.source, e.line) for e in timeline.events}),
        "errors": [e for e in rank_events if e["kind"] in FAILURE_KINDS],
        "failed": any(e["kind"] in FAILURE_KINDS for e in rank_events),
        "ledger": {item["item"]: item["gib"] for item in ledger.items},
        "cells": [c.as_json() for c in ledger.cells],  # the rules read cells as the document carries them
        "card_total_gib": ledger.card_total_gib,
        "card_total_source": ledger.card_total_source,
        "gpu_processes": placement.gpu_processes,
        "eager_comm_gib": ledger.eager_comm_gib,
        "lazy_comm_gib": ledger.lazy_comm_gib,
    }
    return fact, rank_events


def launch_facts(analysis: Analysis, launch: Launch) -> dict[str, Any]:
    failure_list, root = failure_facts(analysis.failures.get(launch.id, []))
    events = [event_fact(e) for e in launch.events]
    ranks = []
    for label, timeline in launch.ranks.items():
        fact, rank_events = _rank_fact(analysis, launch, label, timeline)
        ranks.append(fact)
        events.extend(rank_events)
    ready = {(e.source, e.line) for e in launch.all_events() if e.kind in READY_KINDS}
    for event in events:
        event["after_ready"] = any(source == event["source"] and event["line"] > line for source, line in ready)
    events.sort(key=lambda e: (e["source"], e["line"]))
    return {
        "launch": {
            "id": launch.id,
            "ready": launch.ready,
            "sources": launch.sources,
            "ends_cut": ends_cut(analysis, launch),
            "served": served(launch),
        },
        "config": launch.config,
        "config_source": launch.config_source,
        "env": launch.environment,
        "versions": launch.versions,
        "model": launch.model,
        "ranks": ranks,
        "events": events,
        "errors": [e for e in events if e["kind"] in FAILURE_KINDS],
        "gpus": analysis.join.gpus,
        "tp_groups": analysis.join.tp_groups.get(launch.id, []),
        "failures": failure_list,
        "root_failure": root,
        "kv": analysis.kv_sizing[launch.id].to_json() if launch.id in analysis.kv_sizing else None,
        "deepep_reserve": _deepep_reserve(launch),
        "imbalance": imbalance_fact(events, failure_list, ranks, analysis.join.gpus, launch.config).to_fact(),
        "deepep_buffer": _deepep_buffer(launch, ranks, [analysis.ledgers[(launch.id, label)] for label in launch.ranks]),
    }


def _deepep_buffer(launch: Launch, ranks: list[dict[str, Any]], rank_ledgers: list[RankLedger]) -> dict[str, Any]:
    """The dispatch cap in force, the low-latency cell it sizes and the room after the KV pool (the deepep-buffer
    rule's numbers), from the memory-model library."""
    release = launch_release(launch.versions, launch.sglang_version)
    default = release.record.deepep.num_max_dispatch_tokens_per_rank.value
    given = launch.environment.get("SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK")
    try:
        tokens = int(given) if given is not None else default
    except (TypeError, ValueError):
        tokens = default
    cell = next((c for led in rank_ledgers for c in led.cells if c.mechanism == "deepep_low_latency"), None)
    reserved = None if cell is None else cell.inputs.get("reserved_bytes")
    room = next(
        (
            reading["avail_gib"]
            for r in ranks
            for reading in (r["phase"].get(kinds.CAPTURE_BEGIN), r["phase"].get(kinds.MEMORY_POOL_END))
            if reading is not None and reading.get("avail_gib") is not None
        ),
        None,
    )
    budget = DispatchBudget(
        tokens=tokens,
        tokens_set=given is not None,
        default_tokens=default,
        release=release.version,
        low_latency_gib=None if cell is None else cell.gib,
        reserved_gib=None if reserved is None else reserved / 2**30,
        room_gib=room,
    )
    return {**asdict(budget), "fit_tokens_in_room": budget.fit_tokens(room)}


def _deepep_reserve(launch: Launch) -> dict[str, Any]:
    """Whether the release's automatic fraction rule holds the DeepEP reserve for this launch, and whether the
    launch command gave --mem-fraction-static (the server_args dump prints the resolved value either way)."""
    release = launch_release(launch.versions, launch.sglang_version)
    applies, why = deepep_reserve_applies(launch.config, release)
    on_command = fraction_on_command(launch)
    in_release = release.record.deepep.reserve_mib.value is not None
    return {
        "release": release.version,
        "version_known": release.known,
        "in_release": in_release,
        "gib": (release.record.deepep.reserve_mib.value or 0) / 1024,
        "applies_if_automatic": applies,
        "why": why,
        "fraction_on_command": on_command,
        "default_tokens": release.record.deepep.num_max_dispatch_tokens_per_rank.value,
        "status": _reserve_status(in_release, applies, on_command, launch.config.get("mem_fraction_static") is not None),
    }


def _reserve_status(in_release: bool, applies: bool, on_command: bool, fraction_shown: bool) -> str:
    """What the input shows about the DeepEP reserve: the release has none, its rule does not hold it for this
    launch, --mem-fraction-static on the command turned the automatic rule off, or the dump's resolved fraction
    hides whether it was in it ("" when the fraction is not in the input at all)."""
    if not in_release:
        return "not_in_release"
    if not applies:
        return "does_not_apply"
    if on_command:
        return "given_on_command"
    return "not_shown" if fraction_shown else ""


# a record's level field at info or debug ("- INFO -", "[INFO]", "INFO ", glog's "I0101 ...")
_INFO_LINE = re.compile(r"(?<![\w-])(?:INFO|DEBUG)(?![\w-])|^\s*I\d{4} \d\d:\d\d:\d\d")


# a numbered try of a request ("failed (attempt 1/3)"): one below the last is retried
_ATTEMPT = re.compile(r"\battempt (\d{1,4}) ?/ ?(\d{1,4})\b")


def _level_rank(text: str) -> tuple[int, bool]:
    """The order in which unread failure lines are quoted: a line logged at a failing level, or with no level, first;
    then a warning (a program that warns goes on); then an info or debug record (a retry it logs, a state it notes):
    "[... ERROR http::response] SSE stream error: ..." over the "[... WARN  adapter] ..." lines before it. Within a
    level, a try that is retried ("failed (attempt 1/3)") comes after the others ("failed (attempt 3/3)")."""
    level = 1 if WARNING_LINE.search(text) else 2 if _INFO_LINE.search(text) else 0
    attempt = _ATTEMPT.search(text) if "ttempt" in text else None
    return level, attempt is not None and int(attempt.group(1)) < int(attempt.group(2))


def global_facts(analysis: Analysis) -> dict[str, Any]:
    every = list(analysis.global_events)
    for launch in analysis.launches:
        every += launch.all_events()
    return {
        "gpus": analysis.join.gpus,
        "events": [event_fact(e) for e in analysis.global_events],
        "all_events": [event_fact(e) for e in every],
        "launches": [{"id": launch.id, "ready": launch.ready, "sources": launch.sources} for launch in analysis.launches],
        # lines that read like a failure but that no grammar or signature read, and the failures that were read
        "unread_failures": sorted(
            (m.document() for m in analysis.unmatched_failures if m.unrecognized), key=lambda doc: _level_rank(doc["text"])
        ),
        "failure_count": sum(1 for found in analysis.failures.values() for f in found if f.cause),
    }
