"""The parser registry is the one list of parsers: the prefilter is built from it, so no reader accepts a
line the prefilter drops, and every CSV header nvidia-smi can print is read."""

from __future__ import annotations

import pytest

from logscope.pipeline.parse import literal_set, prefilter
from logscope.pipeline.parse.parsers.registry import BLOCK_READERS, LINE_GRAMMARS
from logscope.pipeline.parse.parsers.smi_csv import _CSV_FIELDS
from tests.helpers import analyze_text


def _kept(literal: str) -> bool:
    """The prefilter keeps every line holding `literal`: one of its literals is part of it."""
    return any(kept in literal for kept in prefilter.all_literals())


def test_every_declared_literal_is_kept_by_the_prefilter():
    for grammar in LINE_GRAMMARS:
        assert grammar.literals and all(_kept(lit) for lit in grammar.literals), grammar.name
    for reader in BLOCK_READERS:
        assert reader.literals and all(_kept(lit) for lit in reader.literals), reader.__name__
    for literal in prefilter.SIGNATURE_LITERALS:
        assert _kept(literal), literal


def test_no_prefilter_literal_holds_another():
    literals = prefilter.all_literals()
    assert not [(a, b) for a in literals for b in literals if a != b and a in b]


@pytest.mark.parametrize("reader", BLOCK_READERS, ids=lambda r: r.__name__)
def test_a_reader_accepts_only_lines_the_prefilter_keeps(reader):
    # accepts() asks for a declared literal before the reader's own shape test
    instance = reader("x")
    for text in ("plain text, nothing here", "GPU  0, 1", "index,", "| MIG devices |", "#0 0x1 in f ()"):
        if instance.accepts(text):
            assert literal_set.holds_literal(text), (reader.__name__, text)


@pytest.mark.parametrize("first", sorted(_CSV_FIELDS))
def test_a_csv_header_starting_with_any_known_field_is_read(first):
    other = "memory.used" if first != "memory.used" else "index"
    text = f"{first}, {other} [MiB]\n7, 1024 MiB\n"
    report = analyze_text(text, "smi.csv")
    assert report["inputs"][0]["kind"] == "nvidia-smi"
    assert report["coverage"]["recognized_lines"] == 2


def test_index_temperature_header_gives_the_gpus():
    text = "index, temperature.gpu, memory.used [MiB], memory.total [MiB]\n0, 35, 1024 MiB, 143771 MiB\n"
    (gpu,) = analyze_text(text, "smi.csv")["gpus"]
    assert (gpu["index"], gpu["temperature_c"], gpu["memory_used_mib"], gpu["memory_total_mib"]) == (0, 35, 1024, 143771)
