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
    # the level ingest kept in front of a record's message, or a record that opens with its level word and a tab once
    # ingest took its time stamp off (a console encoder joining time, level, caller and message with tabs)
    ("level", re.compile(r"^\s*(?P<level>" + _FAILING + r")(?: |\t+)(?P<message>\S.*)$")),
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
# any other record whose prefix is a time stamp and, within its next few fields, a failing level word of its own (the
# family of logger formats that print "%(asctime)s ... %(levelname)s ... %(message)s": Python logging's configured
# formats ("%(asctime)s %(name)s %(process)d %(levelname)s %(message)s", "%(asctime)s - %(name)s - %(levelname)s -
# %(message)s", "[%(asctime)s] [%(levelname)8s] ..."), Go's and C++ loggers of the same form); the message is what
# follows the level and its separators
_STAMPED = re.compile(
    r"^\s*\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?"
    # a field between the separators neither starts with '-' nor gives back what it took (a run of dashes after a time
    # stamp tried every split between separator and field: 80 dashes took 68 s, review10)
    r"(?:[ \t|-]+(?!(?:" + _FAILING + r"|INFO|DEBUG|WARNING|WARN|TRACE|NOTICE)\b)(?>[^\s|-][^\s|]{0,79})){0,3}?"
    r"[ \t|\[-]+(?P<level>" + _FAILING + r")\]?[ \t|:\]-]+(?P<message>\S.*)$"
)
# a traceback's own lines: the reader of tracebacks reads them (a record's message continued on its next lines)
_TRACEBACK_PART = re.compile(r"^(?:Traceback \(most recent call last\)|File \"|During handling of|The above exception|[~^]+\s*$)")


# the level at which the printer itself ends the process: glog's FATAL aborts after printing, zap's Fatal exits
# (os.Exit(1)). Python logging's and loguru's CRITICAL and spdlog's critical are "a serious error, indicating that the
# program itself may be unable to continue" (CPython Doc/howto/logging.rst): may, so a CRITICAL record is a failure only
# where its words say one, as an ERROR record is ("CRITICAL: disk usage above 95%" goes on, review10)
ENDING_LEVELS = frozenset({"FATAL"})


class LevelRecord(NamedTuple):
    printer: str
    level: str  # as printed
    message: str


def level_record(text: str) -> LevelRecord | None:
    """The record of a failing level a line is, with its message, or None (another level, no record, or a message that
    is a traceback's own line)."""
    for printer, shape in (*_SHAPES, ("stamped", _STAMPED)):
        m = shape.match(text)
        if m is not None and not _TRACEBACK_PART.match(m.group("message")):
            return LevelRecord(printer, m.group("level"), m.group("message").strip())
    return None
