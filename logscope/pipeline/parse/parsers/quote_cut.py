"""A launch command that a paste cut inside a quoted value (`--model-path "/models/DeepSeek-R1-Dist`, `--extra-config
'{"prefetc`): the shell would still wait for the closing quote, so the value is unknown; the command is read up to the
word that opened the quote (form seen in pastes: sglang-20016, sglang-18366 of fixtures/mined)."""

from __future__ import annotations


def before_open_quote(command: str) -> str | None:
    """The command up to the start of the word whose quote never closes (as the shell reads quotes: `\\` escapes
    outside single quotes), or None when every quote closes."""
    quote = ""
    word_start = 0
    at = 0
    while at < len(command):
        char = command[at]
        if quote:
            if char == "\\" and quote == '"':
                at += 2
                continue
            if char == quote:
                quote = ""
        elif char == "\\":
            at += 2
            continue
        elif char in "\"'":
            quote = char
        elif char.isspace():
            word_start = at + 1
        at += 1
    return command[:word_start].rstrip() if quote else None
