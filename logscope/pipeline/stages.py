"""The pipeline's stages, one after the other, each returning its product (analyze.py starts them, once the
input's large files are being scanned):

chunks → classify → assemble → join_gpus · timeline_numbers · kv_sizing → ledgers · launch_failures → Analysis
→ run_rules → build_document (schema logscope/1), which every renderer reads."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from logscope.cases.failure import has_failure_finding
from logscope.core import kinds
from logscope.core.events import Event, SourceEvents
from logscope.core.model import UNRECOGNIZED, Analysis, Coverage, Failure, InputFile, Launch, UnmatchedFailure, UserStop
from logscope.core.samples import SamplesFile
from logscope.memory_model.kv_pool import kv_sizing
from logscope.pipeline.assemble.assemble import assemble
from logscope.pipeline.failures import after_user_stop, launch_failures, user_stop, without_stated_beside_lines
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.ingest.linescan import LineChunk
from logscope.pipeline.ledger.device import device_readings, measured_ledger, with_device_totals
from logscope.pipeline.ledger.ledger import ledgers, probe_process_ledgers
from logscope.pipeline.ledger.smi_join import join_gpus
from logscope.pipeline.ledger.timeline import timeline_numbers
from logscope.pipeline.parse.classify import classify_sources
from logscope.pipeline.parse.serving import READY_KINDS
from logscope.pipeline.parse.signatures.client_errors import client_program_failure, refused_by_server
from logscope.pipeline.parse.signatures.match import is_candidate, relaunch_stamps
from logscope.pipeline.rule_engine.engine import run_rules
from logscope.pipeline.sizing.calibration import Calibration
from logscope.report.json import build_document

# what kind of input a source was, by the grammars that read its lines
_DUMP_GRAMMARS = frozenset({kinds.NVIDIA_SMI_GRAMMAR, kinds.NVIDIA_TOPO_GRAMMAR, kinds.GPUSTAT_GRAMMAR})
_LOG_GRAMMARS = frozenset(
    {
        kinds.SGLANG,
        kinds.EXCEPTION_GRAMMAR,
        kinds.TORCH_OOM_GRAMMAR,
        kinds.TRACEBACK_GRAMMAR,
        kinds.SERVER_ARGS_GRAMMAR,
        kinds.LAUNCH_COMMAND_GRAMMAR,
        kinds.NATIVE_LOG_GRAMMAR,
        kinds.NATIVE_BACKTRACE_GRAMMAR,
        "signature",
        kinds.PROGRESS_GRAMMAR,
    }
)


def document(analysis: Analysis, rules_dirs: list[str], cases: bool = True) -> dict[str, Any]:
    """The logscope/1 document; with `cases`, each failure finding's nearest known cases (logscope/cases) under the
    additive `known_cases` key (the index is opened only when there is a failure to match)."""
    built = build_document(analysis, run_rules(analysis, rules_dirs))
    if cases and has_failure_finding(built["findings"]):
        # the keys' patterns and the section's code are imported only for a document with a failure to match
        from logscope.cases.block import SECTION, known_cases_section
        from logscope.cases.key import finding_keys

        section = known_cases_section(built, finding_keys(analysis, built["findings"]))
        if section is not None:
            built[SECTION] = section
    return built


def analysis(
    sources: list[Source],
    chunks: list[Iterator[LineChunk]],
    model_config: dict[str, Any] | None = None,
    calibration: Calibration | None = None,
    samples: dict[str, SamplesFile] | None = None,
) -> Analysis:
    classified, coverage = classify_sources(sources, chunks)
    read: dict[str, SourceEvents] = {}
    launches, global_events, repeated = assemble(_once(classified, read), {s.name: s.rank_hint for s in sources}, model_config)
    join = join_gpus(launches, global_events)
    devices = device_readings(launches, join, samples or {})
    join = with_device_totals(join, devices, samples or {})
    failures: dict[int, list[Failure]] = {}
    user_stops: dict[int, tuple[UserStop, int]] = {}
    stamps = relaunch_stamps(e for launch in launches for e in launch.all_events())  # every launch's server_args dump
    for launch in launches:
        stop = user_stop(launch, samples or {})
        failures[launch.id], after = after_user_stop(launch_failures(launch, stamps), stop)
        if stop is not None:
            user_stops[launch.id] = (stop, len(after))
    sizing = {launch.id: kv_sizing(launch, model_config) for launch in launches}
    failures = without_stated_beside_lines(failures, _unmatched_failures(failures, coverage, launches))
    rank_ledgers = ledgers(launches, join, calibration, sizing)
    for launch in launches:
        for label, timeline in launch.ranks.items():
            if (launch.id, label) in devices:
                key = (launch.id, label)
                rank_ledgers[key] = measured_ledger(rank_ledgers[key], devices[key], timeline)
    return Analysis(
        inputs=[_input(s, read[s.name].grammars if s.name in read else set()) for s in sources] + _samples_inputs(samples or {}),
        coverage=coverage,
        launches=launches,
        global_events=global_events,
        join=join,
        timeline=timeline_numbers(launches),
        ledgers=rank_ledgers,
        failures=failures,
        unmatched_failures=_unmatched_failures(failures, coverage, launches),
        calibration=calibration.summary() if calibration is not None else None,
        gpu_ledgers=probe_process_ledgers(join, calibration),
        kv_sizing=sizing,
        devices=devices,
        repeated=repeated,
        user_stops=user_stops,
    )


def _once(classified: Iterator[SourceEvents], read: dict[str, SourceEvents]) -> Iterator[SourceEvents]:
    """Each source once, noted in `read` as it is assembled: an input named twice is read twice (its coverage
    counted twice) and assembled once."""
    for each in classified:
        if each.name in read:
            for _ in each.events:
                pass
            continue
        read[each.name] = each
        yield each


def _samples_inputs(samples: dict[str, SamplesFile]) -> list[InputFile]:
    """The samples files read, listed as inputs (header and samples are their lines)."""
    return [InputFile(s.path, "samples", len(s.samples) + 1, len(s.samples) + 1) for s in samples.values()]


def _unmatched_failures(failures: dict[int, list[Failure]], coverage: Coverage, launches: list[Launch]) -> list[UnmatchedFailure]:
    """Lines that read like a failure but that no signature names: what logscope did not understand (a glog ERROR
    line of a file no catalogued library holds among them: some library reported a failure, in words no signature
    knows; one of a catalogued library's file is that library's failure, signatures/native.py is_library_error)."""
    failed = {(f.event.source, f.event.line) for found in failures.values() for f in found}
    out = [
        UnmatchedFailure(e.source, e.line, e.text, UNRECOGNIZED)
        for launch in launches
        for e in launch.all_events()
        if e.kind == kinds.NATIVE_LOG
        and e.data.get("level") == "E"
        and not e.data.get("source")
        and (e.source, e.line) not in failed
    ]
    out += [
        UnmatchedFailure(f.event.source, f.event.line, f.event.text, f.event.kind)
        for found in failures.values()
        for f in found
        if f.signature is None and f.event.kind != kinds.NATIVE_BACKTRACE
    ]
    out += [
        UnmatchedFailure(unread.source, unread.line, unread.text, UNRECOGNIZED)
        for unread in coverage.unrecognized
        if unread.grammar == "failure"
    ]
    # a client's error for a request the server answered and refused (openai's 4xx): no failure of the server, but
    # what the user pasted it for, so listed (review15b item 6); a client program's own failure (SGLang's frontend
    # language, no server code) is no rank's either, but it is a failure the user pasted: an unrecognised one, so the
    # paste gets the unrecognized-failure warning (exit 1) that quotes it, never an all-clear
    for launch in launches:
        for e in launch.all_events():
            if (e.source, e.line) in failed or not is_candidate(e):
                continue
            if e.kind in (kinds.TRACEBACK, kinds.EXCEPTION) and client_program_failure(e):
                out.append(UnmatchedFailure(e.source, e.line, e.text, UNRECOGNIZED))
            elif refused_by_server(e):
                out.append(UnmatchedFailure(e.source, e.line, e.text, e.kind))
    # the lines of each input that show the server ready or serving (as failures.launch_failures reads them), and its
    # startup lines (a launch's server_args dump, a phase line, a loading or capture bar, vLLM's engine startup line):
    # an unread failure after a ready line, or on it (a line that itself shows a request served), came while the server
    # served, unless a startup line comes between them (a relaunch, a restarted engine: a new startup)
    ready: dict[str, list[int]] = {}
    starts: dict[str, list[int]] = {}
    for launch in launches:
        for e in launch.all_events():
            if e.kind in READY_KINDS:
                ready.setdefault(e.source, []).append(e.line)
            elif _starts(e):
                starts.setdefault(e.source, []).append(e.line)
    ready = {source: sorted(lines) for source, lines in ready.items()}
    starts = {source: sorted(lines) for source, lines in starts.items()}
    out = [_placed(m, ready.get(m.source, []), starts.get(m.source, [])) if m.unrecognized else m for m in out]
    return sorted(out, key=lambda m: (m.source, m.line))


# the kinds of a line printed only while a server starts (the ready line is a phase line too, and no start)
_STARTUP_KINDS = frozenset(
    {k.id for k in kinds.CATALOGUE if k.role == kinds.PHASE and k.id != kinds.SERVER_READY}
    | {kinds.SERVER_ARGS, kinds.SHARD_PROGRESS, kinds.ENGINE_CAPTURE_BAR}
)


def _starts(event: Event) -> bool:
    """A line printed only while a server starts: a phase line, a launch's server_args dump, a loading or capture bar,
    or vLLM's engine startup line other than its end of startup."""
    if event.kind == kinds.ENGINE_STARTUP_LINE:
        return not event.data.get("ended")
    return event.kind in _STARTUP_KINDS


def _placed(m: UnmatchedFailure, ready: list[int], starts: list[int]) -> UnmatchedFailure:
    """The unread failure placed after the last ready line at or before it, when no startup line lies between them."""
    at = bisect_right(ready, m.line)
    if not at:
        return m
    before = ready[at - 1]
    if bisect_left(starts, m.line) > bisect_right(starts, before):  # a startup line between them
        return m
    return replace(m, serving_after=before)


def input_kind(grammars: set[str]) -> str:
    """nvidia-smi, check_env, log or unknown, from the grammars that read the source's lines."""
    if not grammars:
        return "unknown"
    if grammars & _LOG_GRAMMARS:
        return "log"
    if grammars & {kinds.CHECK_ENV_GRAMMAR, kinds.COLLECT_ENV_GRAMMAR}:
        return kinds.CHECK_ENV_GRAMMAR
    if grammars & _DUMP_GRAMMARS:
        return "nvidia-smi"
    return "log"


def _input(source: Source, grammars: set[str]) -> InputFile:
    notes = source.notes
    return InputFile(
        source.name,
        input_kind(grammars),
        source.lines,
        source.recognized_lines,
        notes.cut_lines,
        notes.elided_lines,
        notes.encoding,
        notes.stopped,
        notes.unterminated,
    )
