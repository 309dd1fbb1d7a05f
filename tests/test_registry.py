"""The parser registry is the one list of parsers: the prefilter is built from it, so no reader accepts a
line the prefilter drops, and every CSV header nvidia-smi can print is read."""

from __future__ import annotations

import re

import pytest

from logscope import prefilter
from logscope.parsers.nvidia_smi import _CSV_FIELDS
from logscope.parsers.registry import BLOCK_READERS, LINE_GRAMMARS
from tests.helpers import analyze_text


def test_every_declared_literal_is_in_the_prefilter():
    literals = set(prefilter.all_literals())
    for grammar in LINE_GRAMMARS:
        assert grammar.literals and set(grammar.literals) <= literals, grammar.name
    for reader in BLOCK_READERS:
        assert reader.literals and set(reader.literals) <= literals, reader.__name__


@pytest.mark.parametrize("reader", BLOCK_READERS, ids=lambda r: r.__name__)
def test_a_reader_accepts_only_lines_the_prefilter_keeps(reader):
    # accepts() asks for a declared literal before the reader's own shape test
    instance = reader("x")
    rx = re.compile(prefilter.PATTERN)
    for text in ("plain text, nothing here", "GPU  0, 1", "index,", "| MIG devices |", "#0 0x1 in f ()"):
        if instance.accepts(text):
            assert rx.search(text), (reader.__name__, text)


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
