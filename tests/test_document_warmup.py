"""The document's warm-up (pipeline/analyze.py `_DocumentWarmup`): while range workers scan a large file, a thread
loads what the stages after the read need whatever the input holds; started only there, and the document the same."""

from __future__ import annotations

import builtins
import sys
import threading
from pathlib import Path

import pytest

from logscope.cases import index
from logscope.memory_model import releases
from logscope.pipeline import analyze
from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest import ranges
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.rule_engine import engine
from logscope.pipeline.sizing import cell_rules

ROOT = Path(__file__).resolve().parent.parent
CRASH = ROOT / "fixtures/real/f-025-sglang-5770.log"  # a startup crash: a failure finding, so the known cases too


def _spied_starts(monkeypatch: pytest.MonkeyPatch) -> list[analyze._DocumentWarmup]:
    started: list[analyze._DocumentWarmup] = []
    start = analyze._DocumentWarmup.start

    def spy(self: analyze._DocumentWarmup) -> None:
        started.append(self)
        start(self)

    monkeypatch.setattr(analyze._DocumentWarmup, "start", spy)
    return started


def test_workers_scanning_a_file_start_the_warmup_and_the_document_is_the_same(tmp_path, monkeypatch):
    if ranges.workers() < 2:
        pytest.skip("one core: no worker processes")
    path = tmp_path / "crash.log"
    path.write_bytes(CRASH.read_bytes())
    expected = analyze_sources([Source(name=str(path), path=path)], parallel=False)
    assert [f["rule"] for f in expected["findings"]] == ["startup-crash"]
    assert expected["known_cases"]
    started = _spied_starts(monkeypatch)
    monkeypatch.setattr(ranges, "RANGE_MIN_BYTES", 1)
    monkeypatch.setattr(ranges, "RANGE_BYTES", 4096)  # several ranges, cut inside lines
    monkeypatch.setattr(ranges, "DENSE_RANGE_BYTES", 4096)
    got = analyze_sources([Source(name=str(path), path=path)])
    assert len(started) == 1
    thread = started[0].thread
    assert thread is not None and thread.name == "logscope-document-warmup" and not thread.is_alive()
    assert got == expected


def test_a_paste_and_a_sequential_read_start_no_warmup(tmp_path, monkeypatch):
    started = _spied_starts(monkeypatch)
    analyze_sources([Source(name="paste", path=None, data=CRASH.read_bytes())])
    path = tmp_path / "crash.log"
    path.write_bytes(CRASH.read_bytes())
    monkeypatch.setattr(ranges, "RANGE_MIN_BYTES", 1)
    analyze_sources([Source(name=str(path), path=path)], parallel=False)
    assert started == []


def _warm(cases: bool, bundled_rules: bool) -> None:
    warmup = analyze._DocumentWarmup(cases=cases, bundled_rules=bundled_rules)
    warmup.start()
    warmup.join()


_LOADERS = (
    engine.bundled_rules,
    releases.records,
    releases.nccl_ranges,
    releases.torch_allocators,
    releases.deepep,
    cell_rules.shipped_calibration,
    index.bundled_index,
)


@pytest.mark.parametrize("cases", [True, False])
def test_the_warmup_fills_each_loaders_cache_and_the_index_only_with_known_cases(cases):
    for loader in _LOADERS:
        loader.cache_clear()
    _warm(cases=cases, bundled_rules=True)
    filled = {loader.__name__: loader.cache_info().currsize for loader in _LOADERS}
    assert filled == {loader.__name__: 1 for loader in _LOADERS} | ({} if cases else {"bundled_index": 0})
    rule_files = [p for p in (ROOT / "rules").glob("*.yaml") if not p.name.endswith(".cases.yaml")]
    assert len(engine.bundled_rules()) == len(rule_files) == 24  # the rules themselves, not an empty answer
    assert releases.records()


def test_the_warmup_leaves_the_bundled_rules_alone_where_rules_come_from_folders():
    engine.bundled_rules.cache_clear()
    _warm(cases=False, bundled_rules=False)
    assert engine.bundled_rules.cache_info().currsize == 0


def test_the_warmup_thread_imports_no_module(monkeypatch):
    """The modules are imported by the thread that starts it (the classifier's, which imports parsers lazily
    meanwhile): two threads importing at once could meet in a module's import lock."""
    for loader in _LOADERS:
        loader.cache_clear()
    imported: list[tuple[str, str]] = []
    real_import = builtins.__import__

    def spy(name, *args, **kwargs):
        if name not in sys.modules:
            imported.append((threading.current_thread().name, name))
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", spy)
    warmup = analyze._DocumentWarmup(cases=True, bundled_rules=True)
    warmup.start()
    warmup.join()
    assert [name for thread, name in imported if thread == "logscope-document-warmup"] == []
    assert index.bundled_index.cache_info().currsize == 1
