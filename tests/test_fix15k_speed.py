"""fix15k: the assembler's launch-command check and the wording placement read each input once (review15b item 18)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from logscope.core import kinds, stage_functions
from logscope.core.events import Event, RankId
from logscope.core.model import Launch
from logscope.core.text_memo import MEMO_TEXT, OWNED_MEMO
from logscope.pipeline.assemble.assemble import _SourceAssembler
from logscope.pipeline.parse.signatures.lines_before import LOOK_BACK, LinesBefore


class _CountedArgs(dict[str, Any]):
    """An event's data that counts how often its launch arguments are read."""

    reads = 0

    def __getitem__(self, key: str) -> Any:
        if key == "args":
            _CountedArgs.reads += 1
        return super().__getitem__(key)


def _command(line: int, args: dict[str, str]) -> Event:
    return Event(kinds.LAUNCH_COMMAND, "paste", line, "python -m sglang.launch_server", data=_CountedArgs(args=args))


def _reads(commands: int) -> int:
    _CountedArgs.reads = 0
    assembler = _SourceAssembler("paste", {})
    for line in range(commands):
        assembler.add(_command(line, {"model-path": "X", "tp": "4"}))
    assert len(assembler.segments) == 1  # the same command again joins its launch
    return _CountedArgs.reads


def test_the_same_command_on_every_line_is_read_a_bounded_number_of_times_per_line() -> None:
    # 2,000 prose lines that each state the same command: each command's arguments read about twice (its own, and once
    # as the segment's), not compared with every earlier command of the segment (2,000 x 2,000 / 2 reads)
    assert _reads(1000) <= 2 * 1000
    assert _reads(2000) <= 2 * 2000


def _brute(events: list[Event], ev: Event) -> bool:
    return ev.kind == kinds.LAUNCH_COMMAND and any(
        e.kind == kinds.LAUNCH_COMMAND and e.data["args"] != ev.data["args"] for e in events
    )


def test_commands_split_launches_exactly_as_comparing_with_every_event_does() -> None:
    # review15d item 8 (b): the stream holds server_args lines and phase lines too. A phase line of a rank ends the
    # launch's start: the next command or server_args line opens a new launch (Launch.has_phases), whose event list
    # the command index must notice by its identity (a new list may be as long as the one read before); a phase line
    # without a rank, a server_args line and prose join the segment's events without splitting it
    rng = random.Random(15)
    pool = [{"tp": "4"}, {"tp": "8"}, {"tp": "4", "dp": "2"}]
    seen_phase_split = seen_command_split = 0
    for trial in range(400):
        assembler = _SourceAssembler("paste", {})
        expected: list[int] = []  # the lines that start a new launch, as the plain model reads them
        held: list[Event] = []  # the launch commands of the segment being filled
        phased = False  # a phase line of a rank since the segment opened
        splits: list[int] = []
        for line in range(rng.randint(1, 14)):
            roll = rng.random()
            if roll < 0.2:
                ev = Event("prose", "paste", line, "x")
            elif roll < 0.3:
                ev = Event(kinds.SERVER_ARGS, "paste", line, "server_args=ServerArgs(...)", data={"fields": {}})
            elif roll < 0.45:
                # each phase line its own rank: no rank starts over (a restart is another rule's split)
                rank = RankId(label=f"rank{trial}_{line}", dims=(("rank", line),)) if rng.random() < 0.7 else None
                ev = Event(kinds.LOAD_WEIGHT_BEGIN, "paste", line, "Load weight begin.", rank=rank)
            else:
                ev = _command(line, dict(rng.choice(pool)))
            if ev.kind in (kinds.SERVER_ARGS, kinds.LAUNCH_COMMAND):
                if phased or _brute(held, ev):
                    expected.append(line)
                    seen_phase_split += phased
                    seen_command_split += not phased
                    held, phased = [], False
                if ev.kind == kinds.LAUNCH_COMMAND:
                    held.append(ev)
            elif ev.kind == kinds.LOAD_WEIGHT_BEGIN and ev.rank is not None:
                phased = True
            before = assembler.started
            assembler.add(ev)
            if assembler.started != before:
                splits.append(line)
        assert splits == expected
    # both splits were exercised, many times
    assert seen_phase_split > 100 and seen_command_split > 100


def test_a_second_command_with_other_arguments_starts_a_second_launch() -> None:
    assembler = _SourceAssembler("paste", {})
    assembler.add(_command(1, {"tp": "4"}))
    assembler.add(_command(2, {"tp": "4"}))
    assert [len(seg.events) for seg in assembler.segments] == [2]
    assembler.add(_command(3, {"tp": "8"}))
    assert [len(seg.events) for seg in assembler.segments] == [2, 1]
    assert isinstance(assembler.segments[-1], Launch)


WORDING = "KV transfer failed for the request"
WORDING_RUNS = (("serving", None, "0.5.2", "0.5.23", "transfer_worker", "transfer_worker"),)


def _catalogue(monkeypatch: pytest.MonkeyPatch, runs: tuple[Any, ...]) -> list[str]:
    """A one-wording catalogue, and the texts the wording index is asked about (one per question computed)."""
    wordings = ((WORDING, runs),)
    monkeypatch.setattr(stage_functions, "_placed", lambda: ({}, wordings))
    asked: list[str] = []
    held = stage_functions._held

    def counted(indexed: Any, text: str) -> list[int]:
        asked.append(text)
        return held(indexed, text)

    monkeypatch.setattr(stage_functions, "_held", counted)
    return asked


def test_a_wording_asked_again_is_answered_from_the_first_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _catalogue(monkeypatch, WORDING_RUNS)
    line = f"[2025-01-01 10:00:00 TP0] {WORDING} 7"
    answers = {stage_functions.place_wording(line, None) for _ in range(500)}
    assert len(answers) == 1
    placed = answers.pop()
    assert placed is not None
    assert (placed[0].stage, placed[0].releases, placed[1]) == ("serving", "0.5.2-0.5.23", WORDING)
    assert asked == [line]  # once, not 500 times
    # another release range is another question (it may place otherwise), asked once too
    assert stage_functions.place_wording(line, ("0.5.30", "0.5.30")) is None
    assert stage_functions.place_wording(line, ("0.5.30", "0.5.30")) is None
    assert asked == [line, line]
    # a line without the wording places nothing
    assert stage_functions.place_wording("all fine", None) is None


def test_another_catalogue_never_gets_an_answer_of_the_first(monkeypatch: pytest.MonkeyPatch) -> None:
    line = f"ValueError: {WORDING}"
    _catalogue(monkeypatch, WORDING_RUNS)
    first = stage_functions.place_wording(line, None)
    assert first is not None
    assert first[0].stage == "serving"
    asked = _catalogue(monkeypatch, (("startup", "memory_pool", "0.5.2", "0.5.23", "f", "Scheduler.init"),))
    second = stage_functions.place_wording(line, None)
    assert second is not None
    assert (second[0].stage, second[0].phase) == ("startup", "memory_pool")
    assert asked == [line]


def test_the_wording_memo_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    _catalogue(monkeypatch, WORDING_RUNS)
    for n in range(OWNED_MEMO + 10):
        stage_functions.place_wording(f"line {n}", None)
    assert len(stage_functions._WORDING_ANSWERS) <= OWNED_MEMO


def test_a_long_text_is_placed_but_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    _catalogue(monkeypatch, WORDING_RUNS)
    kept = len(stage_functions._WORDING_ANSWERS)
    long_line = "x" * (MEMO_TEXT + 1) + f" {WORDING} 7"
    placed = stage_functions.place_wording(long_line, None)
    assert placed is not None and placed[1] == WORDING
    assert len(stage_functions._WORDING_ANSWERS) == kept


class _Line:
    """An event as LinesBefore reads it, counting how often its line number is read."""

    reads = 0

    def __init__(self, line: int, text: str) -> None:
        self._line, self.source, self.text, self.data, self.rank, self.kind = line, "paste", text, {}, None, "other"

    @property
    def line(self) -> int:
        _Line.reads += 1
        return self._line


def _lines_before(texts: list[str], phase_lines: list[int]) -> LinesBefore:
    events: list[Any] = [_Line(n, text) for n, text in enumerate(texts, 1)]
    return LinesBefore(events, lambda e: False, {"paste": phase_lines})


def test_each_failure_reads_the_lines_before_it_not_every_line(monkeypatch: pytest.MonkeyPatch) -> None:
    _catalogue(monkeypatch, WORDING_RUNS)

    def reads(count: int) -> int:
        before = _lines_before([f"{WORDING} {n}" for n in range(count)], [])
        before.wording(before._events[0], None)  # sorts the events once
        _Line.reads = 0
        for ev in before._events:
            before.wording(ev, None)
        return _Line.reads

    # a failure looks at most LOOK_BACK lines back: about 4 reads a failure (its own line, the one before), not every
    # line of the input (4,000 x 4,000 reads)
    assert reads(2000) <= 4 * 2000
    assert reads(4000) <= 4 * 4000


def test_the_wording_placed_is_the_last_one_after_the_phase_line_within_look_back(monkeypatch: pytest.MonkeyPatch) -> None:
    # review15d item 8 (a): the events come out of line order, from two inputs, some of them no context (prose): each
    # failure's window is its own input's context events between its last phase line and it, the last LOOK_BACK of
    # them in line order, as filtering every event for every failure gives
    _catalogue(monkeypatch, WORDING_RUNS)
    rng = random.Random(16)
    sources = ("paste", "server.log")
    placed = 0
    for _ in range(100):
        count = rng.randint(1, 300)
        events: list[Any] = []
        for n in range(1, count + 1):
            ev = _Line(n, WORDING if rng.random() < 0.05 else "plain")
            ev.source = rng.choice(sources)
            events.append(ev)
        dropped = {id(ev) for ev in events if rng.random() < 0.2}
        phase_lines = {source: sorted(rng.sample(range(1, count + 1), min(count, rng.randint(0, 3)))) for source in sources}
        rng.shuffle(events)
        before = LinesBefore(events, lambda e, ids=dropped: id(e) in ids, phase_lines)
        for ev in events:
            n = ev._line
            phase = max((p for p in phase_lines[ev.source] if p <= n), default=-1)
            context = [e for e in events if e.source == ev.source and id(e) not in dropped and phase < e._line < n]
            window = sorted(context, key=lambda e: e._line)[-LOOK_BACK:]
            held = [e._line for e in window if e.text == WORDING]
            found = before.wording(ev, None)
            if not held:
                assert found is None
            else:
                assert found is not None
                assert found[0] == "serving"
                assert found[1].startswith(f"after line {held[-1]}, '{WORDING}'")
                placed += 1
    assert placed > 1000
