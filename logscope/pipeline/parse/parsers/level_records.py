"""A log record at a failing level, its level and its message: what a line says failed when no grammar or signature
reads its words.

Ingest takes the printers' own prefixes off a line and keeps a failing level in front of the message (ingest.py
_with_own_level: vLLM's logger, loguru, spdlog, tracing-subscriber, LMCache; "ERROR <message>"); the Python logging
format with time, level, process id and [file:line] that SGLANG_LOGGING_CONFIG_PATH configs print is read here whole.
A record whose message is a traceback's own line (its header, a frame, a source or caret line) is no failure of its
own: the traceback reader reads those. SGLang's own format prints no level (`[%(asctime)s{prefix}] %(message)s`,
sglang 0.5.23 utils/common.py configure_logger): its records are judged by their wording (core/error_outcomes.py)."""

from __future__ import annotations

import re
from typing import NamedTuple

_FAILING = r"ERROR|CRITICAL|FATAL"
_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    # the level ingest kept in front of a record's message
    ("level", re.compile(r"^\s*(?P<level>" + _FAILING + r") (?P<message>\S.*)$")),
    # Python logging with the time, level, process id and [file:line] ("2025-04-13 14:53:43 ERROR 509 [ TP0
    # scheduler.py:2655] ...", grammars/sglang.lark custom_prefix)
    (
        "python-logging",
        re.compile(
            r"^\s*\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:[.,]\d+)? +(?P<level>" + _FAILING + r") +\d+ +"
            r"\[ ?(?:[A-Z_]+\d+ )*[\w.-]+:\d+\] ?(?P<message>\S.*)$"
        ),
    ),
)
# a traceback's own lines: the reader of tracebacks reads them (a record's message continued on its next lines)
_TRACEBACK_PART = re.compile(r"^(?:Traceback \(most recent call last\)|File \"|During handling of|The above exception|[~^]+\s*$)")


class LevelRecord(NamedTuple):
    printer: str
    level: str  # as printed
    message: str


def level_record(text: str) -> LevelRecord | None:
    """The record of a failing level a line is, with its message, or None (another level, no record, or a message that
    is a traceback's own line)."""
    for printer, shape in _SHAPES:
        m = shape.match(text)
        if m is not None and not _TRACEBACK_PART.match(m.group("message")):
            return LevelRecord(printer, m.group("level"), m.group("message").strip())
    return None
