"""Text from inputs made safe to show: a file name that is not valid UTF-8 (its bytes kept as surrogate escapes
by the os module) shown with `\\xNN` for each such byte, and control characters (escape sequences, newlines,
carriage returns, bidirectional overrides) shown as escapes before they reach a terminal, where they would move
the cursor, recolour or rewrite what the user reads. `map_strings` applies either to every string of a document."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

# C0 controls but the tab, DEL, C1 controls, zero-width and bidirectional formatting, line and paragraph
# separators, lone surrogates
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    if "\udc80" <= char <= "\udcff":  # a byte the file system name held that is not UTF-8
        return f"\\x{ord(char) - 0xDC00:02x}"
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def terminal_safe(text: str) -> str:
    """`text` with every control character shown as an escape (`\\x1b`, `\\n`, `\\u202e`)."""
    return _UNSAFE.sub(_escape, text) if _UNSAFE.search(text) else text


def shown_name(path: str | bytes) -> str:
    """A file name as valid UTF-8 text: the bytes that are not UTF-8 shown as `\\xNN`."""
    raw = path if isinstance(path, bytes) else os.fsencode(path)
    return raw.decode("utf-8", errors="backslashreplace")


def map_strings(document: Any, change: Callable[[str], str], under: dict[str, Callable[[str], str]] | None = None) -> Any:
    """A copy of a document (dicts, lists, tuples, strings, numbers) with `change` applied to every string, keys
    too, each distinct string once (a document repeats its keys and many texts). Numbers are left as they are.
    `under`: the change of the string values of a dict held under one of these keys (the document's `versions`)."""
    done: dict[str, str] = {}
    special = under or {}

    def text(value: str) -> str:
        out = done.get(value)
        if out is None:
            out = done[value] = change(value)
        return out

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return text(value)
        if isinstance(value, dict):
            return {(text(k) if isinstance(k, str) else k): held(k, v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, tuple):
            return tuple(walk(v) for v in value)
        return value

    def held(key: Any, value: Any) -> Any:
        if key in special and isinstance(value, dict):
            return {text(k): special[key](v) if isinstance(v, str) else walk(v) for k, v in value.items()}
        return walk(value)

    return walk(document)
