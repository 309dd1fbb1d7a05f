"""The prefilter's grammar test through one Hyperscan pass (fix15 item 4): past NATIVE_AFTER distinct lines a process
asks `grammars_for` through linescan.group_search, which must name exactly the grammars the `in` tests name, in
their order, and an analysis gives the same document either way."""

from __future__ import annotations

import pickle
import re
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


@pytest.mark.parametrize("scheme", ["literal-index", "groups-reversed"])
def test_a_stored_database_of_another_id_scheme_is_compiled_again_not_trusted(scheme, tmp_path, monkeypatch):
    # review15a item 1: a valid database under the cache name whose ids are not the table's group indexes (another
    # logscope's scheme: each literal's own index, or the groups in another order) crashed `grammars_for` with
    # IndexError inside the Hyperscan callback, or named wrong grammars
    hyperscan = pytest.importorskip("hyperscan")
    monkeypatch.setenv("LOGSCOPE_CACHE_DIR", str(tmp_path))
    table = tuple(prefilter._BY_GRAMMAR.items())
    monkeypatch.setattr(linescan, "_GROUPS", {})
    assert linescan.group_search(table) is not None
    [stored] = tmp_path.glob("hyperscan-db-*.pickle")
    literals = [lit for _, lits in table for lit in lits]
    if scheme == "literal-index":
        ids = list(range(len(literals)))
    else:
        ids = [len(table) - 1 - index for index, (_, lits) in enumerate(table) for _ in lits]
    foreign = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    foreign.compile(
        expressions=[re.escape(lit.encode()) for lit in literals], ids=ids, elements=len(literals), flags=[0] * len(ids)
    )
    stored.write_bytes(pickle.dumps(hyperscan.dumpb(foreign)))
    monkeypatch.setattr(linescan, "_GROUPS", {})
    search = linescan.group_search(table)
    assert search is not None
    for line in ("2026-01-01 ERROR RuntimeError: CUDA out of memory", *_lines()[:400]):
        assert search(line) == _by_in_tests(line)
    assert "signature" in search("2026-01-01 ERROR RuntimeError: CUDA out of memory")
    # ... and the file is stored anew, in the table's scheme
    again = hyperscan.loadb(pickle.loads(stored.read_bytes()), hyperscan.HS_MODE_BLOCK)
    again.scratch = hyperscan.Scratch(again)
    assert linescan._maps_groups(again, table)


def test_the_group_database_name_hashes_the_table_not_only_its_literals_and_sizes(tmp_path, monkeypatch):
    # the same literals in groups of the same sizes, the groups named or ordered otherwise: another cache entry
    pytest.importorskip("hyperscan")
    monkeypatch.setenv("LOGSCOPE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(linescan, "_GROUPS", {})
    assert linescan.group_search((("a", ("WARN",)), ("b", ("ERROR",))))("x ERROR") == ("b",)
    assert linescan.group_search((("b", ("WARN",)), ("a", ("ERROR",))))("x ERROR") == ("a",)
    assert len(list(tmp_path.glob("hyperscan-db-*.pickle"))) == 2
