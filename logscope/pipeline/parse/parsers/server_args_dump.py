"""A server_args dump over several lines: SGLang prints it on one line, and a terminal, an issue editor or a
fixed-width paste cuts it anywhere (inside a name: `token` / `izer_mode`, before a comma, before `=16384`). The
pieces go on while the dump's brackets are open and are joined with nothing between them, as they were one
line. A piece of a dump without its head (`lse, ep_size=32, moe_a2a_backend='deepep', ...`: the paste begins
inside it) is read as the fields it holds, when nearly all of its names are fields of a released ServerArgs."""

from __future__ import annotations

import re

from logscope.core import kinds
from logscope.core.events import Event
from logscope.core.server_flags import is_field
from logscope.pipeline.parse.parsers import other_lines
from logscope.pipeline.parse.parsers.base import PREFIX_TEXT, PREFIXED, BlockReader, prefix_of

_HEAD = "server_args="
_NAME = re.compile(r"(?:^|,\s*)([a-z_][a-z0-9_]*)=(?!=)")
_HEADLESS_NAMES = 8  # a piece of a dump names at least this many fields ...
_HEADLESS_SHARE = 0.8  # ... and this share of its names are ServerArgs fields
_LOG_START = re.compile(r"^\s*(?:\d{4}-\d\d-\d\d[ T]\d|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\s)")
_MAX_PIECES = 200


def _state(text: str, depth: int = 0, quote: str = "") -> tuple[int, str]:
    """The brackets left open and the quote left open after the text, from the state before it."""
    after = (depth, quote)
    for _, _, open_now, quoted_now in other_lines.repr_scan(text, depth, quote):
        after = (open_now, quoted_now)
    return after


# the dataclass's repr without the logger's "server_args=" before it (a script's print(server_args), a traceback's
# local): its first field follows the class name
_REPR = "ServerArgs("


def _headless_start(text: str) -> int | None:
    """Where the first whole field of a headless piece of a dump starts, or None when the line is no such piece."""
    if _HEAD in text:
        return None
    names = _NAME.findall(text)
    bare = text.find(_REPR)
    if bare >= 0 and (first_name := re.match(r"([a-z_][a-z0-9_]*)=(?!=)", text[bare + len(_REPR) :])) is not None:
        names.append(first_name.group(1))
    if len(names) < _HEADLESS_NAMES or sum(map(is_field, names)) < _HEADLESS_SHARE * len(names):
        return None
    if bare >= 0 and first_name is not None:
        return bare + len(_REPR)
    first = _NAME.search(text)
    assert first is not None
    return first.start(1)


class WrappedDumpReader(BlockReader):
    """A server_args dump cut over lines, or a piece of one without its head."""

    grammar = kinds.SERVER_ARGS_GRAMMAR
    literals = (_HEAD, "=None, ", "=False, ")

    def starts(self, text: str) -> bool:
        at = text.find(_HEAD)
        if at >= 0:
            return _state(text[at:])[0] > 0
        return _headless_start(text) is not None

    def open(self, lineno: int, text: str) -> BlockReader:
        self.first_line = lineno
        self.prefix = prefix_of(text)
        at = text.find(_HEAD)
        if at < 0:  # headless: read as the fields of a dump whose head the paste does not hold
            start = _headless_start(text) or 0
            self.head = "server_args=ServerArgs("
            self.parts = [text[start:]]
        else:
            self.head = ""
            self.parts = [text[at:]]
        self.depth, self.quote = _state(self.head + self.parts[0])
        return self

    def feed(self, lineno: int, text: str) -> bool:
        if self.depth <= 0 or len(self.parts) >= _MAX_PIECES or not text.strip():
            return False
        if PREFIXED.match(text) or PREFIX_TEXT.match(text.lstrip()) or _LOG_START.match(text) or _HEAD in text:
            return False
        self.parts.append(text)
        self.depth, self.quote = _state(text, self.depth, self.quote)
        return True

    def close(self) -> list[Event]:
        joined = self.head + "".join(self.parts)
        parsed = other_lines.parse_server_args(joined)
        if parsed is None or not parsed[0]:
            return []
        fields, truncated = parsed
        last = self.first_line + len(self.parts) - 1
        data = {"fields": fields, "truncated": truncated, "joined_lines": [self.first_line, last]}
        if self.head:
            data["headless"] = True
        rank = self.prefix.get("rank") if self.prefix else None
        time = self.prefix.get("time") if self.prefix else None
        return [Event(kinds.SERVER_ARGS, self.source, self.first_line, joined[:300], rank, time, data, self.grammar)]
