"""A code span (the text between backticks of an issue's prose) that reads as a failure's own message: an exception
class, "error: <text>", or words with a blank whose failure word stands alone ("`timeout (dispatch CPU)`",
"`unhandled system error`"). An option (`--watchdog-timeout`), an identifier (`error_log`, `NCCL_TIMEOUT`) or a
setting (`TIMEOUT=1800`, `timeout: 1800`) names no failure (review15c items 4, 5). Shared by the stated-failure parser
and the stated-library reader."""

from __future__ import annotations

import re

# a failure word standing alone (not inside an identifier or an option: `error_log`, `--watchdog-timeout`)
_FAILURE_WORD = re.compile(r"(?<![\w-])(?:[Tt]imed? ?out|[Ee]rror|ERROR|[Ff]ailure|[Ee]xception|[Cc]rash\w*)(?![\w-])")
# a class that names itself, or the "error: <text>" of a message
_MESSAGE_HEAD = re.compile(r"[A-Z]\w*(?:Error|Exception)\b|\b[Ee]rror:\s*\S")
# one word that names an error: a library's error code in camel case (`cudaErrorIllegalAddress`, `ncclSystemError`) or
# a bare capitalised failure word (`Timeout`) (review15d item 12)
_ERROR_NAME = re.compile(r"\w*[a-z]Error(?:[A-Z]\w*)?|Timeout|Timed out|Error|Failure|Exception|Crash")
# a span that opens as a message does ("NCCL error: remote process exited, status: 1", "RuntimeError: ... == 4"); the
# "error:" a word of its own, never an identifier's tail ("on_error: skip", "ignore_error: true" are settings, review16a
# item 10)
_OPENS_MESSAGE = re.compile(r"[A-Z]\w*(?:Error|Exception)\b|(?:\w+\s+)?(?<![\w])[Ee]rror:")
# a key and its value: the whole span ("TIMEOUT=1800", "--watchdog-timeout=300"), or words and a number after a colon
# ("watchdog timeout: 300"); after _OPENS_MESSAGE, as a message may end in a code after a colon or compare with "=="
# (review15d item 3); or a span that opens with an assignment ("TIMEOUT=1800 crash", "NCCL_DEBUG=INFO python -m ..."):
# an environment setting before a command, not a message
_SETTING = re.compile(r"[\w.-]+\s*[=:]\s*\S+|.*\w\s*:\s*\d+|[\w.-]+=\S+\s.*")


def message_span(span: str) -> bool:
    """Whether a code span's text reads as a failure's message (not an option, an identifier or a setting)."""
    text = span.strip()
    if _OPENS_MESSAGE.match(text):
        return True
    if _SETTING.fullmatch(text):
        return False
    if _MESSAGE_HEAD.search(text) or _ERROR_NAME.fullmatch(text):
        return True
    return " " in text and not text.startswith("-") and _FAILURE_WORD.search(text) is not None
