"""Structured log records (JSON, logfmt) and the lines around them (review7 items 1, 4, 5, 7, 9): a failing record is read
as its message wherever a logger wrote it, and only there; lines a block hands back are read as lines of their own."""

from __future__ import annotations

import json
from typing import Any

import pytest

from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.ingest.unwrap import FAILING_RECORDS, expand


def _findings(text: str) -> list[dict[str, Any]]:
    document = analyze_sources([Source(name="paste.log", path=None, data=text.encode())], cases=False)
    return list(document["findings"])


def _evidence_lines(text: str) -> list[int]:
    return [e["line"] for f in _findings(text) for e in f["evidence"]]


@pytest.mark.parametrize("gap", ["", "\n"])
def test_lines_a_bash_array_hands_back_are_not_read_as_the_failing_record_after_it(gap):
    text = f'ARGS=(\n  --tp 8\n  --model-path m\n{gap}{{"level":"error","msg":"pod crashed"}}\n'
    (finding,) = _findings(text)
    assert finding["rule"] == "unrecognized-failure"
    assert [e["line"] for e in finding["evidence"]] == [4 + len(gap)]
    assert '"pod crashed"' in finding["message"]


@pytest.mark.parametrize(
    "line",
    [
        '{"levelname":"CRITICAL","message":"disk gone"}',  # a Python JSON formatter
        "time=x level=critical msg=gone",  # logfmt at Python's level name
        '{"level":"dpanic","msg":"gone"}',  # zap's development panic level
        '{"severity":"Alert","msg":"gone"}',  # Cloud Logging's severity, capitalised
    ],
)
def test_every_failing_level_a_record_reader_knows_reaches_it(line):
    (finding,) = _findings(line + "\n")
    assert finding["rule"] == "unrecognized-failure"
    assert "gone" in finding["message"]


@pytest.mark.parametrize("line", ['{"level":"info","msg":"gone"}', "time=x level=warn msg=gone"])
def test_a_record_at_another_level_is_no_failure(line):
    assert _findings(line + "\n") == []


RECEIVED_REQUEST = (
    "[2025-01-01 10:00:00] Prefill batch. #new-seq: 1, #new-token: 8, #cached-token: 0, token usage: 0.00, "
    "#running-req: 0, #queue-req: 0\n"
    '[2025-01-01 10:00:01] INFO:     127.0.0.1:5000 - "POST /generate HTTP/1.1" 200 OK\n'
    "[2025-01-01 10:00:02] Receive: obj=GenerateReqInput(text='Classify this log: "
    '{"level": "error", "msg": "disk quota exceeded"}\', sampling_params={})\n'
)


@pytest.mark.parametrize(
    "text",
    [
        "To silence it, I set level=error msg=hello in my config\n",  # prose naming a level
        'My logging config is {"level": "error", "msg": "only errors"} but nothing prints.\n',  # prose quoting JSON
        RECEIVED_REQUEST,  # a user's request text logged by SGLang
    ],
)
def test_a_record_quoted_inside_another_line_is_no_record(text):
    assert _findings(text) == []


@pytest.mark.parametrize(
    ("line", "read"),
    [
        ('  {"level":"error","msg":"pod crashed"}  ', "pod crashed"),
        ('`{"level":"error","msg":"pod crashed"}`', "pod crashed"),
        ('time="2025-10-01T12:00:00Z" level=error msg="pod crashed" error="exit 1"  ', "pod crashed: exit 1"),
        ("`time=x level=error msg=crashed`", "crashed"),
    ],
)
def test_a_whole_line_record_alone_or_in_a_code_span_is_read(line, read):
    (piece,) = expand(line)
    assert piece.how in FAILING_RECORDS and piece.text == read


@pytest.mark.parametrize(
    "line",
    [
        'time=x level=error msg="bad \\ud800 thing"',
        '{"level":"error","msg":"bad \\ud800 thing"}',
        '{"x":"RuntimeError: bad \\ud800 thing happened here"}',  # a JSON string piece
    ],
)
def test_a_lone_surrogate_escape_in_a_record_is_read_as_a_replacement_character(line):
    from tests.helpers import run

    proc = run("analyze", "-", "--format", "json", input=(line + "\n").encode())
    assert proc.returncode == 1, proc.stderr
    (finding,) = json.loads(proc.stdout)["findings"]
    assert "bad \ufffd thing" in finding["message"]


def test_a_header_only_traceback_has_no_message_to_match_a_known_case_on():
    document = analyze_sources([Source(name="paste.log", path=None, data=b"Traceback (most recent call last):")])
    (known,) = document["known_cases"]["findings"]
    assert known["rule"] == "failure-time-unknown"
    assert known["key"]["message"] == "" and known["key"]["quote"] == "Traceback (most recent call last):"
    assert known["matches"] == []


@pytest.mark.parametrize(
    "text",
    [
        "```\nTraceback (most recent call last):\n```\n",  # the header alone where the copy ends (read before)
        "```\nTraceback (most recent call last):\n```\nThat is all I have.\n",
        "Traceback (most recent call last):\n\nthe rest is too long to paste\n",
        "Traceback (most recent call last):\nI cut it here.\nAnd the rest is lost.\n",
    ],
)
def test_a_bare_traceback_header_followed_by_prose_is_a_failure(text):
    (finding,) = _findings(text)
    assert finding["rule"] == "failure-time-unknown"
    assert finding["evidence"][0]["text"] == "Traceback (most recent call last):"


def test_a_line_between_a_header_and_its_frames_is_read_on_its_own_and_the_traceback_goes_on():
    text = (
        "[2025-01-01 10:00:00 TP0] Load weight begin. avail mem=70.00 GB\n"
        "Traceback (most recent call last):\n"
        "Loading safetensors checkpoint shards:  50% Completed | 1/2\n"
        '  File "/x.py", line 1, in f\n'
        "    f()\n"
        "KeyError: 1\n"
    )
    (finding,) = _findings(text)
    assert finding["rule"] == "startup-crash" and "KeyError: 1" in finding["message"]
