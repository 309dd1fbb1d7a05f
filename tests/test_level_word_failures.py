"""A line that opens with a tool's error word is a failure, never "nothing found": `error: ...` at a line's start
(CPython's argparse, pip, git, cargo, the compilers) and the FATAL level word (zap, logrus, log4j, UCX)."""

from __future__ import annotations

from typing import Any

import pytest

from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import Source


def _findings(text: str) -> list[dict[str, Any]]:
    document = analyze_sources([Source(name="paste.log", path=None, data=text.encode())], cases=False)
    return list(document["findings"])


@pytest.mark.parametrize(
    "line",
    [
        "error: subprocess-exited-with-error",  # pip's build failure
        "error: externally-managed-environment",  # pip under PEP 668
        "error: could not compile `sgl-kernel`",  # cargo
        "error: unable to start manager",  # a tiny SGLang catalogue template "error: {...}" also reads it
    ],
)
def test_a_line_opening_with_an_error_word_is_a_failure(line):
    rules = [f["rule"] for f in _findings(line + "\n")]
    assert rules == ["unrecognized-failure"]


@pytest.mark.parametrize("line", ["FATAL something broke", "FATAL unable to start the manager: no matches for kind"])
def test_a_record_at_the_fatal_level_is_the_failure(line):
    """The level word opens a record (zap, logrus, log4j): its message is the failure's words (parsers/level_records.py)."""
    (finding,) = _findings(line + "\n")
    assert finding["rule"] == "failure-time-unknown"
    assert line.split(" ", 1)[1] in finding["message"]


@pytest.mark.parametrize(
    "line",
    [
        "the docs say some error: lines are harmless",  # the word inside a sentence
        "Fatality rate is not a log level",
        "errors: 0",
    ],
)
def test_an_error_word_inside_prose_is_no_failure(line):
    assert _findings(line + "\n") == []


def test_argparse_usage_error_keeps_its_own_signature():
    (finding,) = _findings("error: unrecognized arguments: --foo\n")
    assert finding["rule"] == "startup-crash"


def test_an_unrecognised_failure_is_a_failure_of_unknown_time():
    """unrecognized-failure is a failure (rule_engine/engine.py): its finding says `phase` unknown, `mechanism` and
    `signature` null, as a failure of no known mechanism, so bots and the mined score read "this failed, time unknown",
    never "nothing". The line: sgl-router's tracing ERROR record as sglang-12355 (built) holds it."""
    line = (
        "2025-10-29 21:49:19 ERROR http_request{method=POST uri=/generate version=HTTP/1.1}: sglang_router_rs::routers::"
        "http::pd_router: src/routers/http/pd_router.rs:142: Failed to select PD pair error=No available prefill workers"
    )
    (finding,) = _findings(line + "\n")
    assert finding["rule"] == "unrecognized-failure"
    assert (finding["phase"], finding["mechanism"], finding["signature"]) == ("unknown", None, None)
    assert "Failed to select PD pair" in finding["message"]
