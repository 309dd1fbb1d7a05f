"""The lines printed before a failure that say when it happened, when its own evidence does not: the last SGLang
wording before it that only startup code or only serving code prints (catalog/stages.json, from the released
source), and the last phase line of the launch's other ranks when the failing rank printed none.

Both read like the rank's last phase line (docs/design.md: a failure's phase comes from the last phase line before
it): the launch had got that far when the failure came, and no later line shows it got further. A wording of a
startup step places it in that step, as that step's phase line would."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable

from logscope.core import kinds, phases, stage_functions
from logscope.core.events import Event
from logscope.core.stage_functions import Releases

# the paste's prose is no line a server printed
PROSE_KINDS = frozenset({kinds.TIME_CLAIM, kinds.TIME_CUE, kinds.STATED_FAILURE, kinds.STATED_ENV})
# how far back (events of the input) a wording is looked for: the lines just before the failure
LOOK_BACK = 100
# the startup steps another rank's phase line places a failure in (as the rank's own: after capture_end the warmup
# or the first requests may have begun)
_STEPS = frozenset({"init_distributed", "load_weight", "memory_pool", "capture"})


class LinesBefore:
    """The events of each input in line order (sorted when a failure first asks), and each one's placement by its
    wording (computed once)."""

    def __init__(self, events: list[Event], not_context: Callable[[Event], bool], phase_lines: dict[str, list[int]]) -> None:
        self.phase_lines = phase_lines  # per input, the line numbers of its phase lines (any rank)
        self._events = events
        self._not_context = not_context
        self._by_source: dict[str, list[Event]] | None = None
        self._lines: dict[str, list[int]] = {}  # per input, its sorted events' line numbers (bisected per failure)
        # (per event and release range: another range may place the same line otherwise, review15d item 11)
        self._placed: dict[tuple[int, Releases], tuple[stage_functions.Placement, str] | None] = {}

    def _sorted(self) -> dict[str, list[Event]]:
        if self._by_source is None:
            self._by_source = {}
            for e in self._events:
                if not self._not_context(e):
                    self._by_source.setdefault(e.source, []).append(e)
            for source, found in self._by_source.items():
                found.sort(key=lambda e: e.line)
                self._lines[source] = [e.line for e in found]
        return self._by_source

    def _placement(self, event: Event, releases: Releases) -> tuple[stage_functions.Placement, str] | None:
        key = (id(event), releases)
        if key not in self._placed:
            self._placed[key] = stage_functions.place_wording(str(event.data.get("full_text") or event.text), releases)
        return self._placed[key]

    def wording(self, event: Event, releases: Releases) -> tuple[str, str] | None:
        """(startup | serving, basis) from the last line before the event that holds a wording only startup code or
        only serving code prints; None when a phase line comes first (the rank's phase lines say it) or none is near."""
        phase_line = max((n for n in self.phase_lines.get(event.source, []) if n <= event.line), default=-1)
        # the events between the phase line and the failure, the last LOOK_BACK of them (bisected: filtering every
        # event of the input per failure cost failures x events, 1.5 s at 4,000 prose lines that each state one)
        found_events = self._sorted().get(event.source, [])
        lines = self._lines.get(event.source, [])
        first, end = bisect_right(lines, phase_line), bisect_left(lines, event.line)
        before = found_events[max(first, end - LOOK_BACK) : end]
        for line in reversed(before):
            found = self._placement(line, releases)
            if found is None:
                continue
            placement, literal = found
            rank = f" of {line.rank.label}" if line.rank is not None else ""
            said = f"after line {line.line}{rank}, '{literal.strip()}'"
            return placement.phase or placement.stage, f"{said}: {placement.basis('the code that prints it')}"
        return None


def from_other_ranks(event: Event, others_last_phase: Callable[[Event], tuple[str, str] | None]) -> tuple[str, str] | None:
    """The startup step the launch's other ranks had reached, when the failing rank printed no phase line before it:
    SGLang prints some startup lines on TP rank 0 only (the capture bar: `tqdm` only where tp_rank == 0, sglang
    0.5.x decode_cuda_graph_runner.py / cuda_graph_runner.py) and its ranks go through startup's steps together (each
    step ends in collectives of all ranks)."""
    found = others_last_phase(event)
    if found is None:
        return None
    last, ranks = found
    stage = phases.stage_after(last)
    if stage not in _STEPS:
        return None
    return stage, (
        f"after the last phase line of {ranks}, {last} (this rank printed none): SGLang prints some startup lines on TP rank"
        " 0 only and its ranks go through startup's steps together; inferred"
    )
