"""What every parser shares: the SGLang line-prefix rule, the block-reader protocol, and the reading of one
CSV row. The registry (parsers/registry.py) lists the parsers; nothing here knows any of them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from logscope.core import kinds
from logscope.core.events import Event, RankId

# "[2026-05-07 13:39:14 DP1 TP1 EP1] ..." (date optional in older versions): the one owner of the prefix rule
# a shell prompt before a command ("$ ", "# ", "user@host:~/dir$ ", "(venv) user@host:~$ "), as
# grammars/launch_command.lark's PROMPT reads it
SHELL_PROMPT = r"(?:\([^()\s]+\)\s+)?\S*[$#]\s+"
# the words that make a line read like a failure (classify.FAILURE_LOOK adds WARN, FAILURE and CRITICAL records;
# an open bash array stops at them): the record forms of the failure word table
FAILURE_WORDS = "|".join(word.record for word in kinds.FAILURE_WORD_TABLE if word.record)
PREFIXED = re.compile(r"^\s*\[(\d{4}-\d{2}-\d{2} )?\d{2}:\d{2}:\d{2}")
# (its opening bracket may be cut off with whatever the copy left out before it: "2026-01-04 03:36:55 TP0] Load weight
# end. ...", a line a paste starts with; the date, the time and the closing bracket still mark it)
_PREFIX = re.compile(r"^\s*\[?(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{3})?)((?: [A-Z_]+\d+)*)\]")
_ANY_BRACKET = re.compile(r"^\s*\[[^\]]*\]\s*")
# the two logger prefixes without a leading bracket that grammars/sglang.lark reads (custom_prefix, vllm_prefix):
# "2025-04-13 14:53:43 WARNING 509 [custom_all_reduce.py:185] ..." (rank tags may come first in the bracket:
# "[ DP10 TP10 EP10 scheduler.py:2655]") and "INFO 01-01 10:00:00 [__init__.py:239] ..."
_LEVEL = r"(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)"
_LOGGER_PREFIX = re.compile(
    r"^\s*(?:\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:[.,]\d{3})? +" + _LEVEL + r" +\d+"
    r"|" + _LEVEL + r" +\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{3})?) +\[ ?(?:[A-Z_]+\d+ )*[\w.-]+:\d+\]\s*"
)
# CPython logging's default format, logging.BASIC_FORMAT = "%(levelname)s:%(name)s:%(message)s" (Lib/logging/__init__.py;
# what a root logger never configured, or logging.basicConfig(), prints): "ERROR:root:...", "WARNING:sglang.srt.utils:..."
# (grammars/sglang.lark basic_prefix)
BASIC_PREFIX = re.compile(r"^\s*(" + _LEVEL + r"):([A-Za-z_<][\w.<>-]*):")
# the same prefix, closed, anywhere in a line (a paste wrapper may come first): over the bytes, how ingest finds the
# startup parts' prefixed lines that hold no literal (the classifier reads each with PREFIXED after cleaning it);
# over the text, whether a terminal join holds one; at a line's start, the message after it
# (or its rank tags alone, "[TP0] ...", as a launcher that drops the time prints them)
_CLOSED_PREFIX = (
    r"\[(?:(?:\d{4}-\d{2}-\d{2} )?\d{2}:\d{2}:\d{2}(?:\.\d+)?(?: [A-Z_]+\d+)*"
    r"|(?:DP|PP|ATTN_CP|MOE_DP|TP|EP|CP|DCP)\d+(?: [A-Z_]+\d+)*)\]"
)
PREFIX_BYTES = re.compile(_CLOSED_PREFIX.encode())
PREFIX_TEXT = re.compile(_CLOSED_PREFIX)
_MESSAGE = re.compile(r"^\s*" + _CLOSED_PREFIX + r" ?(.*\S)")


def prefix_of(text: str) -> dict[str, Any] | None:
    """{'time', 'rank'} of a line with SGLang's prefix, else None."""
    m = _PREFIX.match(text)
    if not m:
        return None
    tags = m.group(2).split()
    return {"time": m.group(1), "rank": RankId.from_tags(tags) if tags else None}


def message_after_prefix(text: str) -> str | None:
    """The message of a line with SGLang's whole prefix (closed, and text after it), else None."""
    m = _MESSAGE.match(text)
    return m.group(1) if m else None


def strip_prefix(text: str) -> str:
    """The message after a leading bracketed prefix (SGLang's, or any other logger's), or after one of the logger
    prefixes without a bracket that the SGLang grammar reads (Python logging's default format among them)."""
    m = _ANY_BRACKET.match(text) or _LOGGER_PREFIX.match(text) or BASIC_PREFIX.match(text)
    return text[m.end() :] if m else text


@dataclass(frozen=True, slots=True)
class Parsed:
    """One line grammar's reading of a line: the event kind, its numbers, and the prefix when the line has one."""

    kind: str
    data: dict[str, Any]
    prefix: dict[str, Any] | None = None


# a shell line continued: a backslash at a line's end continues it whatever stands before it (bash 5.2 manual, "Escape
# Character": "If a \newline pair appears, and the backslash itself is not quoted, the \newline is treated as a line
# continuation"): "--speculative-num-steps 1\" goes on; "\\" at the end is a quoted backslash. A note after the
# backslash ("--dp 2 \  # was 16") is how people mark a line of a command they paste: bash would end the command there
# (the backslash escapes the blank, "#" opens a comment), but the lines below are shown as the same command, the note is
# no argument
CONTINUED_LINE = re.compile(r"(?<!\\)\\(?:\s+#.*)?\s*$")


class BlockReader:
    """A reader of records spanning several lines. The classifier calls `accepts` on a candidate line, then
    `feed` on every following line until it declines one, then `close` for the events, then `handed_back`: the lines
    the reader took but that turned out to be no part of its record (an array whose ")" never came), which the
    classifier reads again, in order, as if the block had never taken them.

    `literals`: one of them is in every line `starts` accepts. The prefilter is built from them, so a
    reader can never accept a line the prefilter dropped (`accepts` checks it)."""

    grammar: ClassVar[str] = "block"
    literals: ClassVar[tuple[str, ...]] = ()

    def __init__(self, source: str) -> None:
        self.source = source

    def accepts(self, text: str) -> bool:
        return any(literal in text for literal in self.literals) and self.starts(text)

    def starts(self, text: str) -> bool:
        raise NotImplementedError

    def open(self, lineno: int, text: str) -> BlockReader:
        raise NotImplementedError

    def feed(self, lineno: int, text: str) -> bool:
        raise NotImplementedError

    def close(self) -> list[Event]:
        raise NotImplementedError

    def close_at_end(self, open_fence: bool) -> list[Event]:
        """`close` when the source ended inside the record: a reader whose last line may have been cut by the end of
        the copy drops what the cut may have shortened. `open_fence`: the copy ended inside a Markdown code block
        whose closing fence never came (the copy was cut)."""
        return self.close()

    def handed_back(self) -> list[tuple[int, str]]:
        """(line number, text) of the lines `feed` took that are no part of the record, asked after `close`."""
        return []


_NUMBER_WITH_UNIT = re.compile(r"^(-?\d+(?:\.\d+)?)\s*(MiB|W|%|C)?$")


def csv_value(cell: str) -> Any:
    """One CSV cell as printed by nvidia-smi: a number (its unit dropped) or the text."""
    m = _NUMBER_WITH_UNIT.match(cell)
    if not m:
        return cell
    return float(m.group(1)) if "." in m.group(1) else int(m.group(1))


def csv_row(text: str, columns: list[str]) -> dict[str, Any] | None:
    """A CSV line read against its columns, or None when the cell count differs (not a row of this table)."""
    cells = [c.strip() for c in text.split(",")]
    if len(cells) != len(columns):
        return None
    return {column: csv_value(cell) for column, cell in zip(columns, cells)}
