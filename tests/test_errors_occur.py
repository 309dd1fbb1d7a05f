"""Errors of a named kind said to occur (parse/parsers/stated_failure.py, the "errors_occur" form): "CUDA errors occur
after a while" states the run's failure as "an OOM occurred" does; an unnamed "an error occurred" points at a text
elsewhere, a count of none or a question names nothing, and how errors come about in general ("CUDA errors occur when
the driver is too old", with nothing of the writer's own run) is no report."""

from __future__ import annotations

import pytest

from tests.helpers import findings_of


@pytest.mark.parametrize(
    ("sentence", "found"),
    [
        ("Running the benchmark, CUDA errors occur after a while.", ("runtime-crash", "serving")),
        ("NCCL errors happened on node 2 after an hour.", ("failure-time-unknown", "unknown")),
        ("Intermittent connection errors appear in the router log.", ("failure-time-unknown", "unknown")),
        # (the writer's own run: the general form with "when" is theirs)
        ("On my node CUDA errors occur when the driver is too old.", ("failure-time-unknown", "unknown")),
    ],
)
def test_named_errors_said_to_occur_state_a_failure(sentence, found):
    assert findings_of(sentence) == [found]


@pytest.mark.parametrize(
    "sentence",
    [
        "No errors occur.",
        "An error occurred.",  # (unnamed: points at a text elsewhere)
        "These errors occur during startup.",
        "Which errors occur?",
        "CUDA errors occur when the driver is too old.",  # how they come about, in general
        "If NCCL errors occur, restart the job.",
        "This PR fixes CUDA errors that occur during capture.",
    ],
)
def test_unnamed_denied_general_or_supposed_errors_state_nothing(sentence):
    assert findings_of(sentence) == []


def test_a_process_that_keeps_dying_reaches_the_reader():
    # ("keeps dying" was a form of the reader whose words no prefilter piece held: nothing read)
    assert findings_of("The server keeps dying.") == [("failure-time-unknown", "unknown")]
    assert findings_of("It keeps dying when I send long prompts.") == [("runtime-crash", "serving")]
