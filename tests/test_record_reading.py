"""Structured log records (JSON, logfmt) and the lines around them (review7 items 1, 4, 5, 7, 9): a failing record is read
as its message wherever a logger wrote it, and only there; lines a block hands back are read as lines of their own."""

from __future__ import annotations

from typing import Any

import pytest

from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import Source


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
