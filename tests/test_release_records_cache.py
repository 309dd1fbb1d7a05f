"""The typed release records are kept in the user cache (memory_model/releases.py): read back, they equal the
records typed from the catalogue, and an entry that holds anything else is typed again."""

from __future__ import annotations

import pickle

import pytest

from logscope.memory_model import releases


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    monkeypatch.setenv("LOGSCOPE_CACHE_DIR", str(tmp_path))
    releases.records.cache_clear()
    releases._load.cache_clear()
    yield tmp_path
    releases.records.cache_clear()
    releases._load.cache_clear()


def test_records_read_back_from_the_cache_equal_the_typed_ones(fresh):
    typed = releases._typed_records()
    first = releases.records()
    (stored,) = fresh.glob("release-records-*.pickle")
    releases.records.cache_clear()
    again = releases.records()
    assert again is not first and again == first == typed
    assert [r.version for r in again] == sorted((r.version for r in typed), key=releases.version_key)
    stored.write_bytes(pickle.dumps(("not", "records")))
    releases.records.cache_clear()
    assert releases.records() == typed
    assert pickle.loads(stored.read_bytes()) == typed
