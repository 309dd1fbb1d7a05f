"""The literal set the byte-range workers start with (read from the user cache, before the parsers are imported)
is the prefilter's, and its cache key covers every file the set is made from."""

from __future__ import annotations

import inspect
import os
from pathlib import Path

from logscope.core import kinds
from logscope.pipeline.parse import literal_set, prefilter
from logscope.pipeline.parse.parsers.registry import BLOCK_READERS, LINE_GRAMMARS
from logscope.pipeline.parse.signatures import loader


def test_the_cached_set_is_the_prefilters(tmp_path, monkeypatch):
    monkeypatch.setenv("LOGSCOPE_CACHE_DIR", str(tmp_path))
    assert literal_set.cached_literals() == prefilter.all_literals()  # computed, then stored
    assert list(tmp_path.glob("literals-*.pickle"))
    assert literal_set.cached_literals() == prefilter.all_literals()  # read back
    assert literal_set.literal_scan().literals == prefilter.all_literals()  # the exact test's set is the cached one


def test_the_key_covers_every_file_the_literals_come_from():
    files = set(literal_set.literal_files())
    sources = {Path(inspect.getsourcefile(reader)).resolve() for reader in BLOCK_READERS}
    sources |= {
        Path(inspect.getsourcefile(grammar.fits)).resolve() for grammar in LINE_GRAMMARS if inspect.isfunction(grammar.fits)
    }
    sources |= {Path(prefilter.__file__).resolve(), Path(kinds.__file__).resolve(), Path(loader.__file__).resolve()}
    sources |= {path.resolve() for path in loader.signature_files()}
    assert sources <= files, sorted(map(str, sources - files))


def test_the_literal_groups_per_grammar_read_from_the_cache_are_the_computed_ones(tmp_path, monkeypatch):
    monkeypatch.setenv("LOGSCOPE_CACHE_DIR", str(tmp_path))
    computed = {name: prefilter._shortest(tuple(dict.fromkeys(lits))) for name, lits in prefilter.LINE_LITERALS.items()}
    assert prefilter._shortest_of(prefilter.LINE_LITERALS) == computed  # computed, then stored
    (stored,) = tmp_path.glob("prefilter-groups-*.pickle")
    assert list(prefilter._shortest_of(prefilter.LINE_LITERALS).items()) == list(computed.items())  # read back, in order
    assert computed == prefilter._BY_GRAMMAR
    stored.write_bytes(b"damaged")
    assert prefilter._shortest_of(prefilter.LINE_LITERALS) == computed
    other = {"a": ("ab", "b", "abc"), "c": ("cd", "c")}
    assert prefilter._shortest_of(other) == {"a": ("b",), "c": ("c",)}  # another set of groups, another key


def test_the_key_changes_when_a_module_outside_the_parse_stage_changes():
    # ingest's failing levels are literals of the set (prefilter.SIGNATURE_LITERALS): a key of the parse stage's modules
    # alone kept a stale set after such a module changed
    from logscope.pipeline.ingest import unwrap

    module = Path(unwrap.__file__)
    stat = module.stat()
    before = literal_set.literal_key()
    try:
        os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
        assert literal_set.literal_key() != before
    finally:
        os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert literal_set.literal_key() == before
    assert module.resolve() in {path.resolve() for path in literal_set.literal_files()}
