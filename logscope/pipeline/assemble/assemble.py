"""Events → launches → ranks → phase timelines (plus launch config, versions, environment, model).

Launches are kept apart: a new `server_args` dump or launch command after phases, or a rank going back
to an earlier phase once it finished, failed, or already ran its draft model, starts a new launch. A
rank that goes back before it finished is loading its draft (speculative) model.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Iterable
from typing import Any

from logscope.core import kinds, phases
from logscope.core.events import FAILURE_KINDS, Event, RankId, SourceEvents
from logscope.core.model import Launch, PhaseReading, RankTimeline, RepeatedLaunches
from logscope.pipeline.assemble.crash_loop import CrashLoopFolder, combined, fold_crash_loop
from logscope.pipeline.assemble.launch_facts import apply_model_config, fill_launch_facts, flag_field

_DRAFT_TYPE = re.compile(r"NextN|MTP|Eagle|Draft|Medusa", re.I)
UNTAGGED = RankId(label="TP0", dims=(("tp", 0),))


def _hint_rank(hint: dict[str, int]) -> RankId | None:
    if "tp" in hint:
        return RankId(label=f"TP{hint['tp']}", dims=(("tp", hint["tp"]),))
    if "rank" in hint:
        return RankId(label=f"rank{hint['rank']}", dims=(("rank", hint["rank"]),))
    if "node" in hint:
        return RankId(label=f"node{hint['node']}", dims=(("node", hint["node"]),))
    return None


class _SourceAssembler:
    """Splits one source's events into launch segments and per-rank timelines."""

    def __init__(self, source: str, hint: dict[str, int]) -> None:
        self.source = source
        self.file_rank = _hint_rank(hint)
        self.segments: list[Launch] = [Launch(id=1)]
        self.started = 1
        self.folder = CrashLoopFolder()  # the segments before the last two, as they end: a crash loop's bounded
        self.repeated: RepeatedLaunches | None = None
        self.commands = _CommandIndex()

    @property
    def seg(self) -> Launch:
        return self.segments[-1]

    def new_segment(self) -> None:
        if len(self.segments) > 2:  # the last two stay open (a command pasted after its log joins the one before)
            self.folder.offer(self.segments.pop(0))
        self.started += 1
        self.segments.append(Launch(id=self.started))

    def add(self, ev: Event) -> None:
        rank = ev.rank or self.file_rank
        if ev.kind in (kinds.SERVER_ARGS, kinds.LAUNCH_COMMAND):
            if self.seg.has_phases() or self.commands.another(self.seg, ev):
                self.new_segment()
            self.seg.events.append(ev)
            return
        if phases.is_phase(ev.kind):
            if ev.kind == kinds.SERVER_READY:
                self.seg.events.append(ev)
                for timeline in self.seg.ranks.values():
                    timeline.complete = True
                return
            if rank is None:
                self.seg.events.append(ev)  # resolved once the segment's ranks are known
                return
            self._add_phase(rank, ev)
            return
        if rank is None:
            self.seg.events.append(ev)
            return
        timeline = self.seg.rank(rank, self.source)
        timeline.events.append(ev)
        if ev.kind in FAILURE_KINDS:
            timeline.failed = True

    def _add_phase(self, rank: RankId, ev: Event, assumed: bool = False) -> None:
        timeline = self.seg.rank(rank, self.source)
        open_pools = _open_pools(timeline) if ev.kind == kinds.KV_CACHE_ALLOCATED else []
        if _printed_again(open_pools, ev):
            return
        if open_pools:  # a second KV pool of the same model (hybrid full + sliding-window attention, ...)
            values = {k: v for k, v in ev.data.items() if k != "model"}
            timeline.phases.append(
                PhaseReading(ev.kind, open_pools[-1].model, ev.source, ev.line, ev.time, values, ev.text, assumed, _full(ev))
            )
            return
        model = self._model_for(timeline, ev)
        if model is None:  # the rank restarted: a new launch
            self.new_segment()
            timeline = self.seg.rank(rank, self.source)
            model = "target"
        order = phases.order_of(ev.kind)
        if model == "draft":
            timeline.mode = "draft"
        else:
            timeline.reached = max(timeline.reached, order)
        if ev.kind == kinds.SCHEDULER_SUMMARY:
            timeline.complete = True
        key = (ev.kind, model, ev.data.get("graph"), _progress_step(ev) if ev.kind == kinds.CAPTURE_PROGRESS else None)
        if ev.kind == kinds.CAPTURE_PROGRESS and key in timeline.seen:
            return  # tqdm repeats the reading of one batch size; the first is the reading taken
        timeline.seen.add(key)
        values = {k: v for k, v in ev.data.items() if k not in ("model",)}
        if ev.kind == kinds.KV_CACHE_ALLOCATED and model == "target" and _target_captured(timeline):
            values["sized_after_capture"] = True
        timeline.phases.append(PhaseReading(ev.kind, model, ev.source, ev.line, ev.time, values, ev.text, assumed, _full(ev)))

    def _model_for(self, timeline: RankTimeline, ev: Event) -> str | None:
        """target / draft for this phase, or None when the rank starts over (new launch)."""
        explicit = ev.data.get("model")
        if explicit == "draft" or _DRAFT_TYPE.search(str(ev.data.get("model_type", ""))):
            return "draft"
        order = phases.order_of(ev.kind)
        key = (ev.kind, "target", ev.data.get("graph"), None)
        goes_back = order < timeline.reached and ev.kind not in (kinds.CAPTURE_BEGIN, kinds.CAPTURE_PROGRESS, kinds.CAPTURE_END)
        repeats = key in timeline.seen and ev.kind not in (kinds.CAPTURE_PROGRESS,)
        if explicit == "target" and ev.kind in (kinds.CAPTURE_BEGIN, kinds.CAPTURE_END) and not repeats:
            return "target"  # "Capture target verify CUDA graph end" after the draft's load is the target's
        if ev.kind in (kinds.CAPTURE_BEGIN, kinds.CAPTURE_END) and timeline.mode == "draft" and not timeline.complete:
            return "draft"
        if not (goes_back or repeats):
            drafting = timeline.mode == "draft" and order <= phases.order_of(kinds.CAPTURE_END) and not timeline.complete
            return "draft" if drafting else "target"
        if timeline.complete or timeline.failed or (ev.kind, "draft", ev.data.get("graph"), None) in timeline.seen:
            return None
        if _sized_after_capture(timeline, ev):
            return "target"
        if ev.kind in (kinds.SCHEDULER_SUMMARY,):
            return None
        return "draft"

    def finish(self) -> list[Launch]:
        self._command_after_its_log()
        for seg in self.segments:
            self.folder.offer(seg)
        self.segments, repeated = self.folder.result()
        # a segment's launch names its sources only once merged: the file folded is this one
        self.repeated = None if repeated is None else dataclasses.replace(repeated, sources=[self.source])
        for seg in self.segments:
            _resolve_untagged(seg, self.source)
        return self.segments

    def _command_after_its_log(self) -> None:
        """A launch command pasted after the log it started ("Log: ... Command: python -m ..."): the last
        segment holds only the command and the one before states no settings of its own, so it is that log's."""
        if len(self.segments) < 2:
            return
        last, previous = self.segments[-1], self.segments[-2]
        stated = (kinds.SERVER_ARGS, kinds.LAUNCH_COMMAND)
        if (
            last.ranks
            or not any(e.kind == kinds.LAUNCH_COMMAND for e in last.events)
            or any(e.kind in stated for e in previous.events)
        ):
            return
        if any(phases.is_phase(e.kind) for e in last.events):
            return
        previous.events += last.events
        self.segments.pop()


def _progress_step(ev: Event) -> Any:
    return _step_of(ev.data)


def _step_of(values: dict[str, Any]) -> Any:
    """What tells one capture step from another: its batch size, or, where the release prints none (before
    0.4.8), the reading itself (tqdm repeats one step's reading on every refresh)."""
    bs = values.get("bs", values.get("num_tokens"))
    return ("bs", bs) if bs is not None else ("avail", values.get("avail_gib"))


class _CommandIndex:
    """Whether a launch command has other arguments than one the segment being filled already holds: a second launch
    pasted beside the first (prefill and decode, node 0 and node 1, the run that works and the one that fails). The
    segment's events are read once: up to two distinct argument sets of its launch commands (a command differs from
    one of them exactly when two are held, or the one held is not its own), read on from where the last call
    stopped. Comparing each command with every event of its segment cost stated commands x events (6M comparisons
    at 2,000 prose lines that each hold a command)."""

    def __init__(self) -> None:
        self._events: list[Event] | None = None  # the list indexed (the segment's own: a new segment starts over)
        self._read = 0
        self._distinct: list[Any] = []

    def another(self, seg: Launch, ev: Event) -> bool:
        if ev.kind != kinds.LAUNCH_COMMAND:
            return False
        if self._events is not seg.events or self._read > len(seg.events):
            self._events, self._read, self._distinct = seg.events, 0, []
        for e in seg.events[self._read :]:
            if e.kind == kinds.LAUNCH_COMMAND and len(self._distinct) < 2 and e.data["args"] not in self._distinct:
                self._distinct.append(e.data["args"])
        self._read = len(seg.events)
        args = ev.data["args"]
        return len(self._distinct) > 1 or (len(self._distinct) == 1 and self._distinct[0] != args)


def _target_captured(timeline: RankTimeline) -> bool:
    return timeline.has(kinds.CAPTURE_END)


def _sized_after_capture(timeline: RankTimeline, ev: Event) -> bool:
    """SGLANG_ENABLE_POST_CAPTURE_KV_SIZING allocates the target's KV pool after its graphs are captured. A pool
    line after the capture is that pool, not a draft model's, when no draft weights were loaded (a draft model
    always loads its weights before its pool) and the target has no pool yet."""
    if ev.kind not in (kinds.KV_CACHE_ALLOCATED, kinds.MEMORY_POOL_END) or not _target_captured(timeline):
        return False
    if any(p.model == "draft" for p in timeline.phases):
        return False
    if ev.kind == kinds.KV_CACHE_ALLOCATED:
        return not any(p.phase == kinds.KV_CACHE_ALLOCATED for p in timeline.phases)
    last_pool = max((i for i, p in enumerate(timeline.phases) if p.phase == kinds.KV_CACHE_ALLOCATED), default=-1)
    last_end = max((i for i, p in enumerate(timeline.phases) if p.phase == kinds.MEMORY_POOL_END), default=-1)
    return last_pool > last_end


def _open_pools(timeline: RankTimeline) -> list[PhaseReading]:
    """The KV pools this rank allocated since its last weights finished loading and before its memory pool
    ended: a further KV line belongs to the same model."""
    pools: list[PhaseReading] = []
    for reading in reversed(timeline.phases):
        if reading.phase == kinds.KV_CACHE_ALLOCATED:
            pools.append(reading)
        elif reading.phase != kinds.OTHER_POOL_ALLOCATED:
            break
    return pools[::-1]


def _printed_again(open_pools: list[PhaseReading], ev: Event) -> bool:
    """The same KV line again (the same figures, from a duplicated log handler or ranks that print no tag):
    one pool printed twice, not a second pool to add. Its line is kept on the reading as `printed_again_at`."""
    figures = {k: v for k, v in ev.data.items() if k != "model"}
    for pool in open_pools:
        if {k: v for k, v in pool.values.items() if k not in ("pool", "printed_again_at", "sized_after_capture")} == figures:
            pool.values.setdefault("printed_again_at", []).append(ev.line)
            return True
    return False


_POOL_LABELS = {"Full": "full", "SWA": "swa"}  # SWAKVPool's allocation_label of its two pools (0.5.17+)


def name_pools(timeline: RankTimeline) -> None:
    """Each KV reading's `pool`: `full` / `swa` when the line's label names it, or the token counts of the
    sliding-window line (before the pools) or of the SWAKVPool total (after them) tell them apart, else `kv`,
    `kv#2`, ... in the order printed."""
    group: list[PhaseReading] = []
    split: dict[str, Any] = {}
    totals = [ev for ev in timeline.events if ev.kind == kinds.SWA_POOL_USAGE]

    def close() -> None:
        if group and not split:
            last = group[-1]
            after = next((ev for ev in totals if ev.source == last.source and ev.line >= last.line), None)
            if after is not None:
                split.update(full_layer_tokens=after.data["full_tokens"], swa_layer_tokens=after.data["swa_tokens"])
        for index, reading in enumerate(group):
            tokens = reading.values.get("tokens")
            label = _POOL_LABELS.get(str(reading.values.get("pool_label")))
            if label is not None:  # the line names its pool (swa_memory_pool.py: "Full KV Cache", "SWA KV Cache")
                reading.values["pool"] = label
            elif tokens is not None and tokens == split.get("full_layer_tokens"):
                reading.values["pool"] = "full"
            elif tokens is not None and tokens in (split.get("swa_layer_tokens"), split.get("swa_layer_tokens_unverified")):
                reading.values["pool"] = "swa"
            else:
                reading.values["pool"] = "kv" if index == 0 else f"kv#{index + 1}"
        group.clear()
        split.clear()

    for reading in timeline.phases:
        if reading.phase == kinds.KV_CACHE_ALLOCATED:
            group.append(reading)
        elif reading.phase == kinds.OTHER_POOL_ALLOCATED and reading.values.get("pool") == "swa":
            split.update(reading.values)
        elif reading.phase in (kinds.MEMORY_POOL_END, kinds.LOAD_WEIGHT_BEGIN, kinds.LOAD_WEIGHT_END):
            close()
    close()


def _resolve_untagged(seg: Launch, source: str) -> None:
    """Untagged phase lines: the only rank when there is one (TP=1), tqdm progress to the capturing rank."""
    remaining: list[Event] = []
    tagged = [t for t in seg.ranks.values() if t.phases or t.events]
    for ev in seg.events:
        if not phases.is_phase(ev.kind) or ev.kind == kinds.SERVER_READY:
            remaining.append(ev)
            continue
        if not tagged:
            timeline = seg.rank(UNTAGGED, source)
            if ev.kind == kinds.KV_CACHE_ALLOCATED and _printed_again(_open_pools(timeline), ev):
                continue
            timeline.phases.append(
                PhaseReading(ev.kind, _plain_model(ev), ev.source, ev.line, ev.time, dict(ev.data), ev.text, False, _full(ev))
            )
            continue
        if ev.kind == kinds.CAPTURE_PROGRESS:
            capturing = [t for t in seg.ranks.values() if any(p.phase == kinds.CAPTURE_BEGIN for p in t.phases)]
            if capturing:
                target = min(capturing, key=lambda t: t.rank.sort_key())
                bs = ev.data.get("bs")
                if not any(p.phase == kinds.CAPTURE_PROGRESS and p.values.get("bs") == bs for p in target.phases):
                    target.phases.append(
                        PhaseReading(ev.kind, "target", ev.source, ev.line, ev.time, dict(ev.data), ev.text, True, _full(ev))
                    )
            else:  # no rank says its capture began: the bar is TP rank 0's (cuda_graph_runner shows tqdm there only)
                seg.rank(UNTAGGED, source).phases.append(
                    PhaseReading(ev.kind, "target", ev.source, ev.line, ev.time, dict(ev.data), ev.text, True, _full(ev))
                )
            continue
        remaining.append(ev)
    # de-duplicate progress readings for an untagged single rank too
    for timeline in seg.ranks.values():
        seen: set[Any] = set()
        kept = []
        for p in timeline.phases:
            key = (p.phase, p.model, _step_of(p.values)) if p.phase == kinds.CAPTURE_PROGRESS else None
            if key is not None and key in seen:
                continue
            if key is not None:
                seen.add(key)
            kept.append(p)
        timeline.phases = kept
    seg.events = remaining


def _plain_model(ev: Event) -> str:
    return "draft" if ev.data.get("model") == "draft" else "target"


def assemble(
    per_source: Iterable[SourceEvents], hints: dict[str, dict[str, int]], model_config: dict[str, Any] | None = None
) -> tuple[list[Launch], list[Event], RepeatedLaunches | None]:
    """Launch segments of every source merged by position, each with the settings the inputs state (config,
    versions, environment, model); events that belong to no launch returned apart; a crash loop's repeated
    launches aggregated as they end (crash_loop.py), while a streaming source is read."""
    merged: list[Launch] = []
    global_events: list[Event] = []
    repeated: list[RepeatedLaunches] = []
    for read in per_source:
        source = read.name
        # the file name gives the rank only to a file whose lines carry no rank tag of their own
        assembler = _SourceAssembler(source, {} if read.tagged else hints.get(source, {}))
        for ev in read.events:
            assembler.add(ev)
        segments = [s for s in assembler.finish() if s.ranks or s.events]
        if assembler.repeated is not None:
            repeated.append(assembler.repeated)
        launch_like = [s for s in segments if s.ranks or any(e.kind not in GLOBAL_KINDS for e in s.events)]
        if not launch_like:
            for s in segments:
                global_events.extend(s.events)
            continue
        for index, seg in enumerate(segments):
            target = next((merged[i] for i in range(index, len(merged)) if not _conflict(merged[i], seg)), None)
            if target is None:  # no launch it can be part of: a launch of its own (a crash loop's keeps its id)
                target = Launch(id=max(seg.id, max((m.id for m in merged), default=0) + 1))
                merged.append(target)
            target.sources.append(source)
            target.events.extend(seg.events)
            for label, timeline in seg.ranks.items():
                existing = target.ranks.get(label)
                if existing is None:
                    target.ranks[label] = timeline
                else:
                    existing.phases.extend(timeline.phases)
                    existing.events.extend(timeline.events)
    merged, folded_after = fold_crash_loop(merged)
    in_all = combined(repeated, folded_after)
    in_all = None if in_all is None else dataclasses.replace(in_all, kept=len(merged))
    for launch in merged:
        launch.ranks = dict(sorted(launch.ranks.items(), key=lambda kv: kv[1].rank.sort_key()))
        for timeline in launch.ranks.values():
            name_pools(timeline)
        fill_launch_facts(launch, global_events)
        if model_config:
            apply_model_config(launch, model_config)
    return merged, global_events, in_all


_APART_SECONDS = 12 * 3600


def _model_path(launch: Launch) -> str | None:
    for ev in launch.events:
        if ev.kind == kinds.SERVER_ARGS and ev.data["fields"].get("model_path"):
            return str(ev.data["fields"]["model_path"])
        if ev.kind == kinds.LAUNCH_COMMAND:  # the flag under any of its names (--model-path, --model)
            value = next((v for flag, v in ev.data["args"].items() if flag_field(flag) == "model_path"), None)
            if value:
                return str(value)
    return None


def _first_time(launch: Launch) -> float | None:
    times = [p.time for t in launch.ranks.values() for p in t.phases if p.time and len(p.time) >= 19]
    return dt.datetime.fromisoformat(min(times)[:19]).timestamp() if times else None


def _phase_set(timeline: RankTimeline) -> set[tuple[str, str]]:
    return {(p.phase, p.model) for p in timeline.phases if not phases.by_id()[p.phase].progress}


def _conflict(launch: Launch, seg: Launch) -> bool:
    """True when a source's segment cannot be part of this launch: the same rank printed the same phase in
    both (two hosts, or two runs), the model paths differ, or they started more than 12 hours apart."""
    for label, timeline in seg.ranks.items():
        existing = launch.ranks.get(label)
        if existing is not None and _phase_set(existing) & _phase_set(timeline):
            return True
    paths = (_model_path(launch), _model_path(seg))
    if None not in paths and paths[0] != paths[1]:
        return True
    times = (_first_time(launch), _first_time(seg))
    return None not in times and abs(times[0] - times[1]) > _APART_SECONDS  # type: ignore[operator]


# what a dump says about the machine, not about one launch: these alone make no launch
GLOBAL_KINDS = {
    kinds.CHECK_ENV,
    kinds.STATED_ENV,
    kinds.SMI_GPU,
    kinds.SMI_PROCESS,
    kinds.SMI_VERSIONS,
    kinds.SMI_MIG,
    kinds.TOPOLOGY,
}


def _full(ev: Event) -> str | None:
    """The whole line of a phase event whose text was cut (classify.py keeps it in data["full_text"])."""
    full = ev.data.get("full_text")
    return str(full) if full else None
