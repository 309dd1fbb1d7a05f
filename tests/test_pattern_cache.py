"""Regular expressions compiled once per Python build (logscope/pattern_cache.py): every pattern a paste
compiles gives, from the cache, the same matcher as `re` compiles (a Pattern compares equal only with the same
code), and a damaged cache file or entry is ignored and written anew."""

from __future__ import annotations

import marshal
import re
import subprocess
import sys

import pytest

from logscope import pattern_cache
from tests.helpers import ROOT

PASTE = "fixtures/real/h-001-sglang-11716.log"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LOGSCOPE_CACHE_DIR", str(tmp_path))
    pattern_cache.uninstall()
    yield tmp_path / pattern_cache._STORE.file_name()
    pattern_cache.uninstall()
    re.purge()


def test_every_pattern_of_a_paste_is_the_same_matcher_from_the_cache(cache):
    command = [sys.executable, "-m", "logscope", "analyze", PASTE, "-f", "json"]
    env = {"LOGSCOPE_CACHE_DIR": str(cache.parent), "PATH": "/usr/bin:/bin"}
    first = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, check=False)
    stored = marshal.loads(cache.read_bytes())
    assert len(stored) > 200  # the modules' patterns and the lark lexers' alternations
    second = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, check=False)
    assert (second.returncode, second.stdout) == (first.returncode, first.stdout)
    pattern_cache.install()
    for pattern, flags in stored:
        cached = pattern_cache._compile(pattern, flags)
        assert cached == pattern_cache._original(pattern, flags), pattern  # equal code, flags and pattern
        assert (cached.groups, cached.groupindex) == (re.compile(pattern, flags).groups, re.compile(pattern, flags).groupindex)


def test_a_pattern_through_the_cache_matches_as_re_compiles_it(cache):
    texts = ["[2026-01-01 10:00:00 TP3] avail mem=78.50 GB", "KV Cache is allocated. #tokens: 1234", "ÄÖ TP_SIZE=8"]
    named = r"(?P<rank>TP\d+)\]|#tokens: (?P<tokens>\d+)|(?i:tp_size)=(\d+)"
    expected = [(m := re.compile(named, re.M).search(text)) and (m.groupdict(), m.groups(), m.span()) for text in texts]
    pattern_cache.install()
    for _ in range(2):  # compiled and stored, then read back from the file
        re.purge()
        compiled = re.compile(named, re.M)
        assert [(m := compiled.search(text)) and (m.groupdict(), m.groups(), m.span()) for text in texts] == expected
        assert re.compile(rb"avail mem=(\d+\.\d{2}) GB").search(texts[0].encode()).group(1) == b"78.50"
        pattern_cache.save()
        pattern_cache.uninstall()
        pattern_cache.install()
    assert set(marshal.loads(cache.read_bytes())) == {(named, re.M.value), (rb"avail mem=(\d+\.\d{2}) GB", 0)}


@pytest.mark.parametrize(
    "content",
    [
        b"\x00not marshal",
        b"",
        marshal.dumps({("a+", 0): (32, [1, 2, 3], {}, (None,))}),  # code _sre refuses
        marshal.dumps({("a+", 0): "no entry"}),
        marshal.dumps([1, 2]),
    ],
)
def test_a_damaged_cache_file_or_entry_is_ignored_and_written_anew(cache, content):
    cache.write_bytes(content)
    pattern_cache.install()
    re.purge()
    assert re.compile("a+").fullmatch("aaa")
    assert re.compile(r"(\d+) GB").search("avail 78 GB").group(1) == "78"
    pattern_cache.save()
    stored = marshal.loads(cache.read_bytes())
    assert {("a+", 0), (r"(\d+) GB", 0)} <= set(stored)
    assert pattern_cache._from("a+", stored[("a+", 0)]) == pattern_cache._original("a+", 0)


def test_a_one_off_search_is_compiled_but_never_kept(cache):
    # a pattern made at run time may hold text of an input (a function name of a pasted traceback)
    pattern_cache.install()
    re.purge()
    assert re.search(r"\bload_weights_from_my_secret_model\(", "x.load_weights_from_my_secret_model(1)")
    assert re.sub(r"secret-\d+", "", "a secret-42 b") == "a  b"
    assert re.compile(r"kept-\d+").match("kept-1")
    pattern_cache.save()
    assert set(marshal.loads(cache.read_bytes())) == {(r"kept-\d+", 0)}
