"""Parsed rules and signatures are cached in the user cache folder under a hash of their files' content (and
of the code that parses them): an edited rule is parsed again, and a folder that cannot be written only costs
the parse."""

from __future__ import annotations

import shutil

from logscope.core import resources
from logscope.core.user_cache import cached, content_key
from logscope.pipeline.parse.signatures.loader import bundled_signatures as bundled
from logscope.pipeline.parse.signatures.loader import load_signatures
from logscope.pipeline.rule_engine.loader import load_rules


def _summary(rules):
    return [(r.id, r.severity, r.when.text, r.message, [(n, e.text) for n, e in r.let]) for r in rules]


def test_rules_come_back_from_the_cache_and_an_edit_is_parsed_again(tmp_path, monkeypatch):
    monkeypatch.setenv("LOGSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    extra = tmp_path / "mine"
    extra.mkdir()
    source = next(p for p in sorted(resources.rules_dir().glob("*.yaml")) if not p.name.endswith(".cases.yaml"))
    shutil.copy(source, extra / source.name)
    first = load_rules([str(extra)])
    assert len(list((tmp_path / "cache").glob("rules-*.pickle"))) == 1
    again = load_rules([str(extra)])
    assert _summary(again) == _summary(first)
    assert again[0].when.evaluate({}) == first[0].when.evaluate({})  # the cached trees evaluate
    mine = next(r for r in first if r.path == str(extra / source.name))
    other = "info" if mine.severity != "info" else "error"
    text = (extra / source.name).read_text()
    assert f"severity: {mine.severity}" in text
    (extra / source.name).write_text(text.replace(f"severity: {mine.severity}", f"severity: {other}"))
    edited = next(r for r in load_rules([str(extra)]) if r.path == str(extra / source.name))
    assert edited.severity == other
    assert len(list((tmp_path / "cache").glob("rules-*.pickle"))) == 2


def test_an_unwritable_cache_folder_costs_only_the_parse(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("LOGSCOPE_CACHE_DIR", str(blocker / "cache"))
    assert _summary(load_rules()) and len(load_rules()) == len(list(load_rules()))
    bundled.cache_clear()
    try:
        assert bundled() == load_signatures()
    finally:
        bundled.cache_clear()


def test_a_corrupt_entry_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("LOGSCOPE_CACHE_DIR", str(tmp_path))
    files = [tmp_path / "a.txt"]
    files[0].write_text("one")
    key = content_key(files, ())
    (tmp_path / f"thing-{key}.pickle").write_bytes(b"not a pickle")
    assert cached("thing", key, lambda: ["built"], lambda v: isinstance(v, list)) == ["built"]
    assert cached("thing", key, lambda: ["other"], lambda v: isinstance(v, list)) == ["built"]
    files[0].write_text("two")
    assert content_key(files, ()) != key
