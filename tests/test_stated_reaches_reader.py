"""Every sentence of the built mined pastes (real issue text) that the stated-failure reader reads must reach it: the
prefilter sends a line to the reader only when it holds one of kinds.STATED_FAILURE_LITERALS, and a form of the
reader whose words no piece held was silently never read ("the server keeps dying", "**oom occurs**")."""

from __future__ import annotations

from pathlib import Path

from logscope.core import kinds
from logscope.pipeline.parse import prefilter
from logscope.pipeline.parse.parsers import stated_failure

MINED = Path(__file__).resolve().parent.parent / "fixtures" / "mined"


def _built_lines() -> list[str]:
    lines = []
    for labels in sorted(MINED.glob("*.yaml")):
        if "split: built" not in labels.read_text(encoding="utf-8", errors="replace"):
            continue  # (the held-back part is never read while building)
        text = labels.with_suffix(".txt").read_text(encoding="utf-8", errors="replace")
        lines.extend(line.strip() for line in text.splitlines() if 0 < len(line.strip()) <= 2000)
    return lines


def test_every_sentence_the_reader_states_reaches_it():
    stated = [(line, s) for line in _built_lines() for s in stated_failure.sentences(line) if stated_failure.parse(s)]
    assert len(stated) > 400  # (the built pastes' stated failures: 456 at this test's writing)
    missed = [s for line, s in stated if kinds.STATED_FAILURE_GRAMMAR not in prefilter.grammars_for(line)]
    assert missed == []
