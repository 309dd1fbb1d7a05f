"""What a record at a failing level means (issue 43, i43-levels): a failure, a record its printer goes on after, or
one to list as an unread failure (flagged). SGLang's own records are judged by what its released code does after
logging the wording (core/error_outcomes.py); another printer's by its level and its words
(parsers/level_records.py)."""

from __future__ import annotations

import re
from typing import Any, Final, Literal, NamedTuple

from logscope.core import error_outcomes, kinds
from logscope.pipeline.parse.parsers import stated_failure
from logscope.pipeline.parse.parsers.base import Parsed, message_after_prefix
from logscope.pipeline.parse.parsers.level_records import ENDING_LEVELS, LevelRecord, level_record

# the levels of a catalogued wording (its logger call in the released code) that report a failure
FAILING_LOGGER_CALLS = frozenset({"error", "critical"})
# an error-level wording that says the process goes on ("Ignore import error when loading '%s'", "...; retrying",
# "Continuing without metrics", "falling back to plain mmap", "Skipping sequential fallback", "Assuming no NVLink
# available", "NVLink detection failed. This is normal if ..."): no failure of the run ("assuming", not "assumes": the
# Mooncake connector's "head-sliced transfer assumes one item length ..." returns -1, sglang 0.5.23 mooncake/conn.py);
# and a diagnostic the watchdog logs before its own timeout line, the failure (sglang 0.5.23 utils/watchdog.py "{name}
# debug info:", utils/cudacore_pyspy_dump_utils.py "Pyspy dump for PID", "Triggered CUDA user coredump for PID")
_GOES_ON = re.compile(
    r"(?i)\b(?:ignor\w*|skip\w*|retry\w*|fall(?:s|ing)? ?back|continu\w*|instead|assuming|is normal)\b"
    r"|\bdebug info:|^Pyspy dump for\b|^Triggered CUDA user coredump\b"
)
# a wording that reports a process's end ("Scheduler or DataParallelController {pid} terminated with {exitcode}", sglang
# 0.5.23 engine.py block_until_scheduler_exits, logged and the loop goes on to the next process): what the logging
# function does next is no news of the process it names, so such a record stays flagged (review10)
_REPORTS_AN_END = re.compile(
    r"(?i)\b(?:terminat\w*|crash\w*|died|dies|dead|exit(?:ed|code)?|killed|abort\w*|fatal|segfault\w*)\b"
)

GOES_ON: Final = "goes_on"  # read, and no failure: its printer carries on
FLAGGED: Final = "flagged"  # listed as an unread failure with its level, never silent
FAILURE: Final = "failure"  # a failure, its message the failure's words


class RecordMeaning(NamedTuple):
    verdict: Literal["goes_on", "flagged", "failure"]
    message: str = ""  # a failure's words
    data: dict[str, Any] | None = None  # a failure's event data (level, printer, the wording)


def record_meaning(text: str, parsed: Parsed | None) -> RecordMeaning | None:
    """What the line means as a record at a failing level that no signature read (`parsed`: the catalogue's reading of
    it, if any). An SGLang wording its released code logs at error level: a failure where every release dies right
    after logging it, read and no failure where every release goes on (unless it reports another process's end);
    another printer's record at a level that ends the process (ENDING_LEVELS: FATAL), or at ERROR or CRITICAL with
    words that state a failure and none that say it goes on: a failure; a CRITICAL record that states none: flagged.
    None otherwise: an ERROR record of a printer whose code is not catalogued may be one it carries on after, so the
    caller lists it as an unread failure."""
    if _goes_on_below_error(parsed):
        return RecordMeaning(GOES_ON)
    outcome = _sglang_outcome(parsed)
    if outcome == error_outcomes.GOES_ON and parsed is not None and not _REPORTS_AN_END.search(str(parsed.data.get("wording"))):
        return RecordMeaning(GOES_ON)
    record = level_record(text)
    reports = record is not None and _reports_a_failure(record)
    if outcome != error_outcomes.DIES and record is not None and record.level == "CRITICAL" and not reports:
        return RecordMeaning(FLAGGED)  # its printer may be unable to go on
    if outcome != error_outcomes.DIES and not reports:
        return None
    data: dict[str, Any]
    if outcome == error_outcomes.DIES and parsed is not None:
        data = {"level": parsed.data.get("level"), "printer": kinds.SGLANG, "wording": parsed.data.get("wording")}
        message = message_after_prefix(text) or text
    else:
        assert record is not None
        data = {"level": record.level, "printer": record.printer}
        message = record.message
    data["message"] = message.strip()
    return RecordMeaning(FAILURE, message, data)


def logged_at_failing_level(parsed: Parsed) -> bool:
    """A catalogued wording that the released code logs at error or critical level."""
    return parsed.data.get("level") in FAILING_LOGGER_CALLS


def logged_as_failure(parsed: Parsed) -> bool:
    """A catalogued SGLang wording, whole in its line, that the released code logs at error or critical level, and
    that does not say the process goes on."""
    data = parsed.data
    if parsed.kind != kinds.CATALOGUED_LINE or not logged_at_failing_level(parsed) or data.get("in_sentence"):
        return False
    return _GOES_ON.search(str(data.get("wording") or "")) is None


def _reports_a_failure(record: LevelRecord) -> bool:
    """A record at a level that ends the process (FATAL), or at ERROR or CRITICAL with a message that states a failure in
    the words stated_failure.py reads in prose ("EngineCore failed to start.", "... encountered a fatal error.") and says
    nothing of going on: the printer itself says something failed. Another record may be one its printer carries on
    after."""
    if record.level in ENDING_LEVELS:
        return True
    if _GOES_ON.search(record.message):  # "... failed to start within the health check window, retrying"
        return False
    return stated_failure.fits(record.message) and stated_failure.parse(record.message) is not None


# the levels below error that SGLang's released code logs a wording at
_BELOW_ERROR = frozenset({"warning", "info", "debug"})


def _goes_on_below_error(parsed: Parsed | None) -> bool:
    """A catalogued SGLang wording, whole at the start of its line's message, that the released code logs below error
    level and whose own words say the code goes on ("Sage Attention backend failed to import. Falling back to Flash
    Attention.", info; "Failed to parse environment variable %s=%r as %s, using default %r", warning; "Direct CUDA video
    save failed; falling back to imageio: %s", warning; the levels of catalog/sglang.json, sglang 0.3-0.5.23): read,
    and no failure, as an error-level wording that goes on is (_GOES_ON), unless it reports a process's end."""
    if parsed is None or parsed.kind != kinds.CATALOGUED_LINE or parsed.data.get("level") not in _BELOW_ERROR:
        return False
    if parsed.data.get("in_sentence") or parsed.data.get("cut"):
        return False
    wording = str(parsed.data.get("wording"))
    goes_on = _GOES_ON.search(wording) or _USES_DEFAULT.search(wording)
    return goes_on is not None and _REPORTS_AN_END.search(wording) is None


# a wording that carries on with a default value ("..., using default %r", ". Using default SamplingParams")
_USES_DEFAULT = re.compile(r"(?i)\busing (?:the )?default\b")


def _sglang_outcome(parsed: Parsed | None) -> str | None:
    """What SGLang's released code does after logging the catalogued wording, whole at the start of its line's message,
    at error or critical level (core/error_outcomes.py: dies, goes on, unsure), or None."""
    if parsed is None or parsed.kind != kinds.CATALOGUED_LINE or not logged_at_failing_level(parsed):
        return None
    if parsed.data.get("in_sentence") or parsed.data.get("cut"):
        return None
    return error_outcomes.outcome(str(parsed.data.get("wording")), str(parsed.data.get("module")))
