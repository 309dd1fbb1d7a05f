"""The run's request concurrency named as the time of a failure (parse/parsers/time_claims.py): concurrency counts the
requests in flight at once, so a failure the writer puts "with high concurrency", "at concurrency 64", "with 256
concurrent requests", "when the concurrency exceeds 100" or under the ESL caption "concurrent 256 cause" came while the
server served (probes sgl-project/sglang#3696, InternLM/InternLM#762: built-split threads, not stored). A setting named
by the concurrency, a question, and a server that failed to start place no serving time (time_cues.py: "fails to
start" names the startup, so a sentence holding it and a serving word places nothing)."""

from __future__ import annotations

import pytest

from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse.parsers import time_claims, time_cues

# the shape of sglang#3696's paste: a probe answered, then the NCCL watchdog's CUDA error (torch 2.5/2.6 wording)
WATCHDOG = (
    '[2025-02-19 10:36:52] INFO:     10.101.0.14:45930 - "GET /health HTTP/1.1" 200 OK\n'
    "[rank4]:[E219 10:36:52.051413081 ProcessGroupNCCL.cpp:1595] [PG ID 2 PG GUID 3 Rank 4] Process group watchdog "
    "thread terminated with exception: CUDA error: an illegal memory access was encountered\n"
    "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be "
    "incorrect.\n"
)


def _placed(prose: str) -> tuple[str, str]:
    data = f"{prose}\n```\n{WATCHDOG}```\n".encode()
    analysis = analyze_model([Source(name="paste.log", path=None, data=data)])
    (failure,) = [f for fs in analysis.failures.values() for f in fs]
    return failure.finding, failure.phase


def test_the_probe_health_answer_alone_places_nothing():
    # (the /health answer is a probe's, which the warmup's launcher sends too: the log alone gives no time)
    assert _placed("The log:") == ("failure-time-unknown", "unknown")


@pytest.mark.parametrize(
    "prose",
    [
        "concurrent 256 cause",  # the probe's own caption (ESL), the error quoted under it
        "When concurrency is 256, I got:",
        "With 256 concurrent requests:",
        "High concurrency leads to this:",
        "It crashes at concurrency 64:",
        "Sending 100 concurrent requests gives the following:",
        "The process crashes after the concurrency exceeds 100, when tp=2:",  # "tp=2" made the cue sentence code
        "Concurrency 128 causes this error:",
    ],
)
def test_the_concurrency_named_places_the_failure_while_serving(prose):
    assert _placed(prose) == ("runtime-crash", "serving")


@pytest.mark.parametrize(
    ("prose", "placed"),
    [
        # a setting named by the concurrency is the writer's configuration; the start that failed is the time
        ("With the concurrency limit set to 8 the server fails at startup:", ("startup-crash", "startup")),
        # a server that failed to start with a serving word in the sentence: no serving time (was serving before)
        ("The server fails to start with high concurrency:", ("failure-time-unknown", "unknown")),
        ("The server fails to start under high concurrency:", ("failure-time-unknown", "unknown")),
        # a question claims nothing
        ("Does it crash with high concurrency?", ("failure-time-unknown", "unknown")),
        # concurrency said not to matter
        ("Not with high concurrency, it fails with one request too:", ("failure-time-unknown", "unknown")),
    ],
)
def test_a_setting_a_failed_start_or_a_question_places_no_serving_time(prose, placed):
    assert _placed(prose) == placed


@pytest.mark.parametrize(
    "line",
    [
        # bench_serving's arguments and results, and a traceback frame of concurrent.futures: no claim of a time
        "Namespace(backend='sglang', max_concurrency=180, request_rate=3.5, num_prompts=180)",
        "Max request concurrency:                 64",
        '  File "/usr/lib/python3.10/concurrent/futures/thread.py", line 58, in run',
        "We plan to support higher concurrency in the router.",
    ],
)
def test_lines_that_only_mention_concurrency_claim_nothing(line):
    assert time_claims.parse(line) is None


def test_a_failed_start_cancels_the_serving_cue_of_its_sentence():
    assert time_cues.parse("The server fails to start with high concurrency.") is None
    assert time_cues.parse("The server failed to boot while I was sending requests.") is None
    # the cue alone still places
    parsed = time_cues.parse("The server crashes with high concurrency.")
    assert parsed is not None and parsed.data["stage"] == "serving"
