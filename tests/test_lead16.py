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


_LAUNCH = "I launched the server with python -m sglang.launch_server --model-path Qwen/Qwen2-7B --tp 2.\n"


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # review16a item 3: a "when a ..." clause is this run's time, unless it opens its sentence with the process
        # failing in the generic present (a pull request's rule, miles-572's shape)
        ("The server crashes when a second request arrives.", [("runtime-crash", "serving")]),
        ("When a user sends requests after 2 hours of serving the scheduler crashes.", [("runtime-crash", "serving")]),
        (
            "When a batch of long requests arrived, the server crashed with CUDA error: an illegal memory access was "
            "encountered.",
            [("runtime-crash", "serving")],
        ),
        (
            "When a request with a long prompt is sent after the server has been running for 2 hours, the server crashes.",
            [("runtime-crash", "serving")],
        ),
        ("The scheduler hangs when a rank crashes during startup.", [("startup-crash", "startup")]),
        (
            "- **Added crash diagnostics to `_wait_server_healthy`**: When an SGLang server process dies during "
            "startup, the error now includes the exit code.",
            [],
        ),
    ],
)
def test_a_when_clause_is_a_rule_only_when_it_opens_with_the_process_failing(
    sentence: str, expected: list[tuple[str, str]]
) -> None:
    assert _rules(_LAUNCH + sentence + "\n") == expected


_SCHEDULER_LOOP = (
    "[2026-06-04 03:58:55] Scheduler hit an exception: Traceback (most recent call last):\n"
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2612, in run_scheduler_process\n'
    "    scheduler.event_loop_normal()\n"
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 778, in event_loop_normal\n'
    "    result = self.run_batch(batch)\n"
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1800, in run_batch\n'
    "    logits_output, next_token_ids = self.tp_worker.forward_batch_generation(model_worker_batch)\n"
    "RuntimeError: CUDA error: an illegal memory access was encountered\n"
)


@pytest.mark.parametrize(
    ("first", "expected"),
    [
        # review16a item 6: a loose startup cue does not move the scheduler loop's failure to the warmup
        ("After the server finished startup, it crashed.", [("runtime-crash", "serving")]),
        ("The server crashed with the error below after startup.", [("runtime-crash", "serving")]),
        ("I increased the startup timeout but it still crashes:", [("runtime-crash", "serving")]),
        (
            "During startup I had to set --mem-fraction-static 0.8 to get it to load at all. It crashed with the error below.",
            [("runtime-crash", "serving")],
        ),
        # a firm time claim does (runtime16's probe sgl-project/sglang#13021 shape)
        ("The value becomes None during PD warmup:", [("startup-crash", "warmup")]),
    ],
)
def test_only_a_firm_claim_or_a_failure_verbs_startup_places_the_loop_at_the_warmup(
    first: str, expected: list[tuple[str, str]]
) -> None:
    assert _rules(first + "\n" + _SCHEDULER_LOOP) == expected


@pytest.mark.parametrize(
    "first",
    [
        "python3 -m sglang.launch_server --model-path Qwen/Qwen2-7B --tp 2",
        "I launched the server with python -m sglang.launch_server --model-path Qwen/Qwen2-7B --tp 2.",
    ],
)
def test_a_quoted_span_after_a_launch_command_is_not_placed_as_the_next_terminal_line(first: str) -> None:
    # review16a item 11: "Error message: `...`" is what the user saw, not the line the program printed right after the
    # command: its time is unknown (the illegal memory access is mostly a serving failure)
    text = first + "\nError message: `RuntimeError: CUDA error: an illegal memory access was encountered`\n"
    assert _rules(text) == [("failure-time-unknown", "unknown")]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # review16b item 4: the bare "<process> crash." after any lead but a preposition or a verb (the noun)
        ("When I send two requests at once the server crash.", [("runtime-crash", "serving")]),
        ("After 2 hours the server crash.", [("runtime-crash", "serving")]),
        ("Related: a health check that detects the server crash.", []),
        ("Thanks for looking into the container crash!", []),
        # review16b item 7: the plural with the bare verb, unless a generic statement of how OOM comes about
        ("On my 8xH100 node, OOM errors happen after about 2 hours of serving.", [("runtime-oom", "serving")]),
        ("Out-of-memory errors occur on rank 3 at the first prefill.", [("oom-time-unknown", "unknown")]),
        ("Out of memory errors happen when the KV cache pool is larger than the free memory.", []),
        # a sentence that opens with a stated failure's word is prose, no record head ("OOM ..." read nothing)
        ("OOM errors happened during prefill.", [("oom-time-unknown", "unknown")]),
        ("OOM when deploying gemma-3 on 8 x A800.", [("oom-time-unknown", "unknown")]),
    ],
)
def test_review16b_stated_failures(sentence: str, expected: list[tuple[str, str]]) -> None:
    launch = "" if sentence.startswith("O") else _LAUNCH
    assert _rules(launch + sentence + "\n") == expected


@pytest.mark.parametrize(
    "line",
    [
        # review16b item 1: a writer's line that opens with the words is no NCCL result
        "NCCL error: none of the above fixes worked for me",
        "NCCL error: is this related to #1234?",
        "NCCL error: solved by setting NCCL_P2P_DISABLE=1",
    ],
)
def test_a_line_opening_with_nccl_error_needs_an_nccl_result_after_it(line: str) -> None:
    assert [rule for rule, _ in _rules(line + "\n")] != ["nccl-error"]


@pytest.mark.parametrize(
    "line",
    [
        # review16b item 2: a count or another verb between the failure word and the time claim: no failure
        "Failed requests: 0 after 2 hours of serving.",
        "Failed: none after 12 hours of serving at 200 QPS.",
        "Failed health checks stopped after 2 hours of serving.",
        "Killed processes are restarted after 10 minutes of serving by the supervisor.",
    ],
)
def test_a_claim_after_a_count_or_another_verb_keeps_the_line_healthy(line: str) -> None:
    assert _rules(line + "\n") == []


def test_a_when_clause_with_the_process_as_its_object_keeps_the_claim() -> None:
    # review16b item 5
    sentence = "When a request reaches the server after 2 hours of serving, the scheduler crashes with an error."
    assert _rules(_LAUNCH + sentence + "\n") == [("runtime-crash", "serving")]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # review16b item 9: an OOM title with a time claim keeps the claim as its time
        ("CUDA out of memory after 2 hours of serving.", [("runtime-oom", "serving")]),
        # torch's own OOM record (no claim) stays an OOM at an unknown time
        (
            "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.11 GiB total capacity; 3.00 GiB already allocated)",
            [("oom-time-unknown", "unknown")],
        ),
    ],
)
def test_an_oom_line_with_a_time_claim(line: str, expected: list[tuple[str, str]]) -> None:
    assert _rules(line + "\n") == expected
