"""Compiled grammars are cached on disk under a key that changes with any grammar file; a built parser is pickled
there too, read back as it was built, and a damaged or foreign pickle is ignored and rebuilt."""

from __future__ import annotations

import io
import os
import pickle
import shutil
import subprocess
import sys

import pytest
from lark import Lark, LarkError

from logscope.core import grammar_loader, kinds, resources
from tests.helpers import ROOT


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


def _samples(name: str) -> list[str]:
    """The sample lines of a grammar's header, and the catalogue's sample lines of the kinds it reads."""
    header = (resources.data_dir("grammars") / f"{name}.lark").read_text().split("\n\n", 1)[0]
    lines = [line[4:] for line in header.splitlines() if line.startswith("//   ")]
    return lines + [sample for kind in kinds.CATALOGUE if kind.grammar == name for sample in kind.samples]


def _reading(grammar: Lark, text: str) -> object:
    try:
        return grammar.parse(text)
    except LarkError as exc:
        return type(exc).__name__


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LOGSCOPE_CACHE_DIR", str(tmp_path))
    grammar_loader.parser.cache_clear()
    yield tmp_path
    grammar_loader.parser.cache_clear()


GRAMMARS = sorted(p.stem for p in resources.data_dir("grammars").glob("*.lark") if p.stem != "common")


@pytest.mark.parametrize("name", GRAMMARS)
def test_a_parser_read_back_from_the_cache_reads_every_sample_as_a_fresh_build(name, fresh_cache):
    built = grammar_loader.parser(name)  # built, then pickled
    stored = fresh_cache / f"{name}-{grammar_loader.grammars_digest()}-{sys.implementation.cache_tag}.lark-parser"
    assert stored.exists()
    grammar_loader.parser.cache_clear()
    read_back = grammar_loader.parser(name)
    assert read_back is not built and isinstance(read_back, Lark)
    samples = _samples(name)
    assert samples or name == "rule_expr"
    for text in [*samples, "[2026-01-01 10:00:00 TP0] no such line", ""]:
        assert _reading(read_back, text) == _reading(built, text), text


def test_a_parser_pickle_in_another_process_reads_as_the_build(fresh_cache):
    # a rule keeps a hash of its strings, which differs per process: the parser must not carry it over
    line = "[2026-01-01 10:00:00 TP0] Load weight begin. avail mem=78.50 GB"
    probe = f"from logscope.core import grammar_loader\nprint(grammar_loader.parser('sglang').parse({line!r}))\n"
    runs = [
        subprocess.run(
            [sys.executable, "-c", probe],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2", "3")
    ]
    assert list(fresh_cache.glob("sglang-*.lark-parser"))
    assert runs[0] == runs[1] == runs[2] == f"{grammar_loader.parser('sglang').parse(line)}\n"


@pytest.mark.parametrize(
    "damage",
    ["truncated", "garbage", "another object", "another lark", "empty"],
)
def test_a_damaged_or_foreign_parser_cache_is_ignored_and_rebuilt(fresh_cache, damage):
    grammar_loader.parser("check_env")
    stored = next(fresh_cache.glob("check_env-*.lark-parser"))
    whole = stored.read_bytes()
    earley = io.BytesIO()
    grammar_loader._ParserPickler(earley).dump(Lark('start: "a"', parser="earley"))
    stored.write_bytes(
        {
            "truncated": whole[: len(whole) // 2],
            "garbage": b"\x80\x05not a pickle",
            "another object": pickle.dumps({"parser": "lalr"}),
            "another lark": earley.getvalue(),
            "empty": b"",
        }[damage]
    )
    grammar_loader.parser.cache_clear()
    rebuilt = grammar_loader.parser("check_env")
    assert rebuilt.options.parser == "lalr"
    assert str(rebuilt.parse("CUDA Driver Version: 550.127.05").children[0]) == "CUDA Driver Version"
    assert stored.read_bytes() != b"" and pickle.loads(stored.read_bytes()).options.parser == "lalr"


def test_an_edited_grammar_is_never_read_from_an_older_pickle(tmp_path, monkeypatch, fresh_cache):
    copy = tmp_path / "grammars"
    shutil.copytree(resources.data_dir("grammars"), copy)
    monkeypatch.setattr(grammar_loader, "data_dir", lambda name: copy)
    grammar_loader.grammars_digest.cache_clear()
    try:
        assert grammar_loader.parser("check_env").parse("a: b")
        (copy / "check_env.lark").write_text('start: "edited"\n')
        grammar_loader.grammars_digest.cache_clear()
        grammar_loader.parser.cache_clear()
        edited = grammar_loader.parser("check_env")
        assert edited.parse("edited").data == "start"
        with pytest.raises(LarkError):
            edited.parse("a: b")
    finally:
        grammar_loader.grammars_digest.cache_clear()
