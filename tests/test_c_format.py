"""The one reading of C printf formats for the native catalogues (NCCL's WARN formats, NVSHMEM's error checks)."""

from __future__ import annotations

import re

from logscope.core.c_format import printf_regex


def test_a_typed_format_matches_what_it_prints_and_only_that():
    rx = re.compile(printf_regex("NET/IB : Got %d devices, %s at %p (%.2f%%)") + r"\s*$")
    assert rx.match("NET/IB : Got 4 devices, mlx5_0 at 0x7f00 (12.50%)")
    assert not rx.match("NET/IB : Got four devices, mlx5_0 at 0x7f00 (12.50%)")


def test_an_untyped_format_takes_any_text_for_a_conversion():
    rx = re.compile(printf_regex("Unable to create ah for %s on port %d.", typed=False) + r"\s*$")
    assert rx.match("Unable to create ah for mlx5_1 on port one.")
    assert printf_regex("a %ld b", typed=False) == "a\\ .*?\\ b"
