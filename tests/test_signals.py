"""The fatal signals' table: each handler's words for one signal name it alike."""

from __future__ import annotations

import pytest

from logscope.core.signals import signal_name


@pytest.mark.parametrize(
    ("words", "name"),
    [
        ("Segmentation fault", "SIGSEGV"),  # CPython's faulthandler, UCX's handler
        ("Segfault", "SIGSEGV"),  # tvm-ffi's handler
        ("SIGSEGV", "SIGSEGV"),  # Abseil, glog, gdb
        ("signal 11", "SIGSEGV"),
        ("Aborted", "SIGABRT"),
        ("Bus error", "SIGBUS"),
        ("Floating point exception", "SIGFPE"),
        ("Illegal instruction", "SIGILL"),
    ],
)
def test_each_handler_s_words_name_the_signal(words, name):
    assert signal_name(words) == name


@pytest.mark.parametrize("words", [None, "", "Check failed: ret == 0", "signal 99", "Segmentation"])
def test_other_words_name_no_signal(words):
    assert signal_name(words) is None
