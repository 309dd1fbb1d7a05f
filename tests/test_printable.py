"""Text from inputs shown safely (logscope/core/printable.py): control characters, bidirectional overrides and
bytes that are not UTF-8 become visible escapes before they reach a terminal; analyze's text report too."""

from __future__ import annotations

import os

from typer.testing import CliRunner

from logscope.cli import app
from logscope.core.printable import map_strings, shown_name, terminal_safe


def test_controls_become_escapes_and_plain_text_is_kept():
    assert terminal_safe("a\x1b[31mb\nc\rd\x07e\u202ef\x9bg\th") == "a\\x1b[31mb\\nc\\rd\\x07e\\u202ef\\x9bg\th"
    assert terminal_safe("plain: 137.30 GB, ünïcode ✓") == "plain: 137.30 GB, ünïcode ✓"
    assert shown_name(os.fsdecode(b"rank\xfe.log")) == "rank\\xfe.log" and shown_name(b"a\xffb") == "a\\xffb"
    assert map_strings({"k\n": ["v\x1b", 1, ("t\r",)]}, terminal_safe) == {"k\\n": ["v\\x1b", 1, ("t\\r",)]}


def test_analyze_text_never_sends_control_characters_to_the_terminal(tmp_path):
    log = tmp_path / "ctl.log"
    log.write_bytes("RuntimeError: NCCL error: unhandled system error \u202ereversed \x1b]0;title\x07 x\n".encode())
    done = CliRunner().invoke(app, ["analyze", str(log), "--width", "200"])
    assert "\u202e" not in done.stdout and "\x07" not in done.stdout and "\x1b]" not in done.stdout
    assert "\\u202ereversed" in done.stdout


def test_an_error_naming_a_path_escapes_it(tmp_path):
    done = CliRunner().invoke(app, ["analyze", str(tmp_path / "no\x1b[31mfile\n.log")])
    assert done.exit_code == 2 and "\x1b" not in done.output and "no\\x1b[31mfile\\n.log" in done.output


class _Ballast:
    pass


def test_out_of_memory_is_one_line_written_after_the_memory_is_freed(monkeypatch):
    import gc
    import weakref

    from logscope import cli

    held: list[weakref.ref] = []
    written: list[tuple[bytes, bool]] = []

    def exhausted(**kwargs):
        ballast = _Ballast()  # stands for what the command held when an allocation failed
        held.append(weakref.ref(ballast))
        raise MemoryError

    def write():
        gc.collect()
        written.append((cli._OUT_OF_MEMORY, held[0]() is not None))

    monkeypatch.setattr(cli, "app", exhausted)
    monkeypatch.setattr(cli, "_out_of_memory", write)
    try:
        cli.main()
    except SystemExit as exc:
        assert exc.code == 2
    assert written == [(b"logscope: error: out of memory (give it less input at once, or more memory)\n", False)]
