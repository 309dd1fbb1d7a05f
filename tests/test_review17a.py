"""review17a's items, each in the shape the reviewer ran: a kernel's, a client's or a dataset's start or loading is not
the server's (items 2, 8); the server's work while it failed ("while handling a batch") is no change that handles the
error (item 6); a step of another thing, a test tally under an Actual-behavior heading and errors related to others or
asked about state no failure (items 1, 4, 7); the server's own forms still do."""

from __future__ import annotations

import pytest

from tests.helpers import findings_of

ERROR = "RuntimeError: CUDA error: an illegal memory access was encountered"


@pytest.mark.parametrize(
    "sentence",
    [
        "The fused_moe kernel failed to launch due to insufficient shared memory.",
        "The triton kernel crashes on launch.",
        "The dataset script errors while loading.",
        "Error while loading: the page shows a spinner in the web UI.",
    ],
)
def test_another_thing_s_start_does_not_place_the_server_s_failure(sentence):
    assert findings_of(f"{ERROR}\n{sentence}") == [("failure-time-unknown", "unknown")]


@pytest.mark.parametrize(
    "sentence",
    [
        "The server crashes on launch.",
        "In my tests sglang is failing at launch.",  # (the CI word is not the subject)
        "It crashes while loading.",
        "The server failed to launch.",
    ],
)
def test_the_server_s_start_still_places_it(sentence):
    assert findings_of(f"{ERROR}\n{sentence}") == [("startup-crash", "startup")]


def test_the_server_s_work_when_it_failed_is_no_handling_of_the_error():
    assert findings_of("The scheduler crashed while handling a batch with error: {'message': 'boom'}") == [
        ("failure-time-unknown", "unknown")
    ]
    # (a change that handles it still dismisses the wording)
    assert findings_of("I fixed it by handling the error: RuntimeError: boom") == []


@pytest.mark.parametrize(
    "text",
    [
        "Deploying the docs failed.",
        "launch kernels failed.",
        "### Actual behavior\n\nTests failed: 3 of 120 in test_sampling.py, unrelated to this bug.",
        "Do CUDA errors occur on your side too",
        "Related errors happened in vllm as well, see their issue.",
    ],
)
def test_other_things_tallies_and_questions_state_no_failure(text):
    assert findings_of(text) == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("launch server with load-format=dummy failed", ("startup-crash", "startup")),
        ("### Actual behavior\n\nRun failed: Server Unavailable Error", ("failure-time-unknown", "unknown")),
    ],
)
def test_the_server_s_own_reports_still_state_it(text, found):
    assert findings_of(text) == [found]


@pytest.mark.parametrize(
    ("sentence", "found"),
    [
        # item 3: the concurrency of a clause that went well is the time it did not fail
        (
            "The error appears with the concurrency limit 8 but with concurrency 64 it is fine.",
            ("failure-time-unknown", "unknown"),
        ),
        ("With concurrency 8 it works fine.", ("failure-time-unknown", "unknown")),
        ("It crashes with high concurrency.", ("runtime-crash", "serving")),
    ],
)
def test_a_concurrency_that_went_well_is_no_time_of_the_failure(sentence, found):
    assert findings_of(f"{ERROR}\n{sentence}") == [found]
