"""Compiled grammars are cached on disk under a key that changes with any grammar file."""

from __future__ import annotations

import shutil

import pytest
from lark import LarkError

from logscope.core import grammar_loader, resources


def test_cache_key_follows_the_grammar_text(tmp_path, monkeypatch):
    copy = tmp_path / "grammars"
    shutil.copytree(resources.data_dir("grammars"), copy)
    monkeypatch.setattr(grammar_loader, "data_dir", lambda name: copy)
    monkeypatch.setenv("LOGSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    grammar_loader.grammars_digest.cache_clear()
    grammar_loader.parser.cache_clear()
    try:
        before = grammar_loader.grammars_digest()
        grammar_loader.parser("check_env")
        assert (tmp_path / "cache" / f"check_env-{before}.lark-cache").exists()
        (copy / "check_env.lark").write_text((copy / "check_env.lark").read_text() + "\n// edited\n")
        grammar_loader.grammars_digest.cache_clear()
        grammar_loader.parser.cache_clear()
        after = grammar_loader.grammars_digest()
        assert after != before
        grammar_loader.parser("check_env")
        assert (tmp_path / "cache" / f"check_env-{after}.lark-cache").exists()
    finally:
        grammar_loader.grammars_digest.cache_clear()
        grammar_loader.parser.cache_clear()


def test_a_repeated_text_is_parsed_once_and_a_rejected_one_raises_again(monkeypatch):
    calls = []
    real = grammar_loader.parser("sglang")

    class Counting:
        def parse(self, text):
            calls.append(text)
            return real.parse(text)

    monkeypatch.setattr(grammar_loader, "parser", lambda name: Counting())
    monkeypatch.setattr(grammar_loader, "_memo", {})
    line = "[2026-01-01 10:00:00 TP0] Load weight begin. avail mem=78.50 GB"
    first = grammar_loader.parse("sglang", line)
    assert grammar_loader.parse("sglang", line) is first and calls == [line]
    for _ in range(2):
        with pytest.raises(LarkError):
            grammar_loader.parse("sglang", "no SGLang line at all")
    assert calls == [line, "no SGLang line at all"]
