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
