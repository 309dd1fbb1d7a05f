"""The prefilter's grammar test through one Hyperscan pass (fix15 item 4): past NATIVE_AFTER distinct lines a process
asks `grammars_for` through linescan.group_search, which must name exactly the grammars the `in` tests name, in
their order, and an analysis gives the same document either way."""

from __future__ import annotations

from pathlib import Path

import pytest

from logscope.pipeline.ingest import linescan
from logscope.pipeline.parse import prefilter
from tests.helpers import analyze_text

pytest.importorskip("hyperscan")
ROOT = Path(__file__).resolve().parent.parent


def _by_in_tests(text: str) -> tuple[str, ...]:
    return tuple(name for name, lits in prefilter._BY_GRAMMAR.items() if any(lit in text for lit in lits))


def _lines() -> list[str]:
    lines: list[str] = []
    for folder in ("real", "pastes"):
        for path in sorted((ROOT / "fixtures" / folder).iterdir()):
            if path.suffix in (".log", ".txt", ".md"):
                lines += path.read_text(errors="replace").splitlines()
    # a literal at the line's very start and end, a multi-byte one, a lone surrogate, and no literal at all
    lines += ["Traceback", "x out of memory", "显存不足", "bad \udcff byte Error", "nothing here", ""]
    return lines


def test_one_pass_names_the_same_grammars_as_the_in_tests():
    search = linescan.group_search(tuple(prefilter._BY_GRAMMAR.items()))
    assert search is not None
    lines = _lines()
    assert len(lines) > 1500
    named = [search(line) for line in lines]
    assert named == [_by_in_tests(line) for line in lines]
    assert sum(1 for n in named if n) > 500  # the fixtures' lines hold literals of many grammars
    assert len({grammar for n in named for grammar in n}) >= 15
    assert search("nothing here") == () and "signature" in search("bad \udcff byte Error")


def test_an_analysis_is_the_same_through_the_native_pass(monkeypatch):
    text = (ROOT / "fixtures" / "real" / "h-007-sglang-11830.log").read_text() + (
        ROOT / "fixtures" / "real" / "f-025-sglang-5770.log"
    ).read_text()
    prefilter._grammars_of.cache_clear()
    by_in_tests = analyze_text(text)
    monkeypatch.setattr(prefilter, "NATIVE_AFTER", 1)
    monkeypatch.setattr(prefilter, "_asked", 0)
    monkeypatch.setattr(prefilter, "_native", None)
    prefilter._grammars_of.cache_clear()
    native = analyze_text(text)
    assert prefilter._native is not None  # the native pass answered
    prefilter._grammars_of.cache_clear()
    assert native == by_in_tests
