"""The lead's fixes of session 16 after the merges: "failing" as the adjective of a CI noun states no failure of a run
(tidy16's report: "There are failing tests in the suite." gave failure-time-unknown)."""

from __future__ import annotations

import pytest

from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import Source


def _rules(text: str) -> list[tuple[str, str | None]]:
    document = analyze_sources([Source(name="paste.log", path=None, data=text.encode())], cases=False)
    return [(f["rule"], f.get("phase")) for f in document["findings"]]


@pytest.mark.parametrize(
    "sentence",
    ["There are failing tests in the suite.", "We have failing CI checks on main.", "There are failing lint jobs on it."],
)
def test_failing_before_a_ci_noun_is_no_failure(sentence: str) -> None:
    assert _rules(sentence) == []


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("There are failing requests when I run the benchmark.", [("runtime-crash", "serving")]),
        ("The server is failing at startup with NCCL error.", [("startup-crash", "startup")]),
    ],
)
def test_failing_of_a_run_stays_a_failure(sentence: str, expected: list[tuple[str, str]]) -> None:
    assert _rules(sentence) == expected
