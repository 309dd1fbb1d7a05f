"""A failure the writer puts at the server's start in the words people use (parse/parsers/time_claims.py): any
failure word, noun or verb, "on launch", "at launch", "on startup" or at the bare "start" ending the clause ("Crash on
launch:", "Error on startup:", "It is crashing at start:"), and the loading, launch or start named bare as the time
("It crashes while loading.", "It fails when launching:"). The launch or start of another thing ("failed on launch of
the kernel", "errors at start of decoding") and the loading of another thing ("while loading the dataset") place
nothing; neither does a start said to have gone well."""

from __future__ import annotations

import pytest

from logscope.pipeline.parse.parsers import time_claims
from tests.helpers import failure_placed

# a header-less error line of torch's CUDA check (torch 2.5-2.9 wording), nothing in the log to place it
ERROR = "RuntimeError: CUDA error: an illegal memory access was encountered\n"


def _placed(prose: str) -> tuple[str, str]:
    return failure_placed(f"{prose}\n```\n{ERROR}```\n")


def test_the_error_line_alone_places_nothing():
    assert _placed("The log:") == ("failure-time-unknown", "unknown")


@pytest.mark.parametrize(
    "prose",
    [
        "Crash on launch:",
        "Error on startup:",
        "It is crashing at start:",
        "sglang crashes on launch with:",
        "The server errors out at launch:",
        "It fails at launch, every time:",
        "It hangs upon startup and then dies:",
        "The process exits during server launch:",
        "It crashes while loading.",
        "Error while loading:",
        "It fails when launching:",
        "It dies when starting up:",
    ],
)
def test_a_failure_at_the_server_s_start_places_it_at_startup(prose):
    assert _placed(prose) == ("startup-crash", "startup")


@pytest.mark.parametrize(
    "prose",
    [
        "It fails on launch of the kernel:",  # another thing's launch
        "Errors at start of decoding:",  # another thing's start
        "It crashes while loading the dataset:",  # another thing loaded
        "It does not crash at launch:",  # said not to
        "Does it crash on launch?",  # a question
    ],
)
def test_another_thing_s_start_a_denial_or_a_question_places_nothing(prose):
    assert _placed(prose) == ("failure-time-unknown", "unknown")


@pytest.mark.parametrize(
    "line",
    [
        # SGLang's own lines and CUDA's launch wording hold no claim of the writer's
        "[2025-08-28 15:53:20] INFO:     Waiting for application startup.",
        "RuntimeError: CUDA error: unspecified launch failure",
        "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30000",
        "It launches fine and serves requests, then crashes after 2 hours.",
    ],
)
def test_lines_that_only_mention_a_launch_claim_no_startup(line):
    parsed = time_claims.parse(line)
    assert parsed is None or parsed.data["stage"] == "serving"


# "fails to launch" / "fails to boot" with no object of its own is the server's launch, as "fails to start" is; a
# serving word beside it ("under high concurrency") then places nothing (the claims disagree), and another thing's
# launch ("failed to launch the kernel") is no claim
@pytest.mark.parametrize(
    ("sentence", "stage"),
    [
        ("The server failed to launch.", "startup"),
        ("It fails to launch when --tp 8 is set.", "startup"),
        ("sglang fails to boot on H20 with tp 8.", "startup"),
        ("The server failed to launch under high concurrency.", None),
        ("The job failed to launch the kernel with 1024 threads.", None),
    ],
)
def test_a_launch_that_failed_is_the_server_s_start(sentence, stage):
    parsed = time_claims.parse(sentence)
    assert (parsed.data["stage"] if parsed else None) == stage
