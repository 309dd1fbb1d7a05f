"""review15d's two HIGH items: the time a comma-less "is done" / "was over" clause gives, and a count word that
counts no failure only right before the failure noun."""

from __future__ import annotations

from typing import Any

import pytest

from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import Source


def _rules(text: str) -> list[str]:
    document: dict[str, Any] = analyze_sources([Source(name="paste.md", path=None, data=text.encode())], cases=False)
    return [finding["rule"] for finding in document["findings"]]


@pytest.mark.parametrize(
    ("without_comma", "with_comma"),
    [
        (
            "After the benchmark is done the server crashes with an NCCL error.",
            "After the benchmark is done, the server crashes with an NCCL error.",
        ),
        (
            "When inference was over the server crashed with an NCCL error.",
            "When inference was over, the server crashed with an NCCL error.",
        ),
    ],
    ids=["is-done", "was-over"],
)
def test_an_ended_run_gives_the_same_time_with_or_without_the_comma(without_comma: str, with_comma: str):
    # the run ended before the failure: no serving time either way (a comma-less clause read "crashed while serving")
    assert _rules(without_comma) == _rules(with_comma) == ["failure-time-unknown"]


def test_done_with_a_preposition_and_over_a_span_end_no_run():
    # "inference done with the client" is a participle, "over a large dataset" a preposition: the run goes on
    assert _rules("While running inference over a large dataset, the server crashed with an NCCL error.") == ["runtime-crash"]


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        # a message that opens with "No" is the failure, not a count of none
        ("I got No CUDA GPUs are available error when launching the server.", ["startup-crash"]),
        # "no" before another noun counts no error: the CUDA error later in the sentence is the failure
        ("I got no output for a while and then a CUDA error during decode.", ["failure-time-unknown"]),
        # the count right before the failure noun still counts none
        ("The log shows zero errors", []),
        ("I got zero errors", []),
        ("I got no errors at all.", []),
    ],
    ids=["no-cuda-gpus", "no-output-then-error", "shows-zero-errors", "got-zero-errors", "got-no-errors"],
)
def test_a_count_word_counts_no_failure_only_right_before_the_failure_noun(text: str, rules: list[str]):
    assert _rules(text) == rules
