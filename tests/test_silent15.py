"""Failure forms read in session 15 (issue 43, "a failure paste must never get nothing found"): each case is the real
shape of a probe thread's paste (named at each) or of a released program's wording (named at each), with the quiet
cases that prove what is not claimed."""

from __future__ import annotations

from typing import Any

import pytest

from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import Source, clean


def _findings(text: str) -> list[dict[str, Any]]:
    document = analyze_sources([Source(name="paste.log", path=None, data=text.encode())], cases=False)
    return list(document["findings"])


_READY_LOG = (
    "[2025-10-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=1, mem_fraction_static=0.85)\n"
    "[2025-10-01 10:00:30] The server is fired up and ready to roll!\n"
)


# a health check's count of failures that is zero qualifies the "failed" before it: no failure (closing14's leftover);
# sgl-model-gateway's worker.rs words its reason f"Health check failed (consecutive failures: {failures})"
@pytest.mark.parametrize(
    "line", ["Health check failed error count: 0", "Health check failed (consecutive failures: 0)"], ids=["count", "router"]
)
def test_a_failed_check_with_a_zero_count_is_no_failure(line):
    assert _findings(_READY_LOG + line + "\n") == []


@pytest.mark.parametrize(
    "line", ["Health check failed error count: 2", "Health check failed (consecutive failures: 3)"], ids=["count", "router"]
)
def test_a_failed_check_with_a_count_above_zero_is_still_read(line):
    (finding,) = _findings(_READY_LOG + line + "\n")
    assert finding["rule"] == "unrecognized-failure"
    assert line in finding["message"]


# semanser/codel#45 (probe, built): a Go program's log (Go's standard logger, log.LstdFlags: "2009/01/23 01:23:23 ")
# under the writer's sentence; the log line is the program's record, quoted as the failure, not the sentence
CODEL_GO_LOG = """\
when using codel, I met 500 server error
```
2024/04/02 00:30:33 Processing command 4 of type input
2024/04/02 00:30:33 Getting next task
2024/04/02 00:30:38 Failed to get response from OpenAI error, status code: 500, message: Internal server error
```
"""


def test_a_go_standard_log_record_is_a_record_not_a_sentence():
    (finding,) = _findings(CODEL_GO_LOG)
    assert finding["rule"] == "unrecognized-failure"
    assert "Failed to get response from OpenAI error, status code: 500" in finding["message"]
    assert "I met 500 server error" not in finding["message"]
    assert finding["evidence"][0]["line"] == 5


def test_go_standard_log_records_without_a_failure_are_quiet():
    assert _findings("2024/04/02 00:30:33 Processing command 4 of type input\n2024/04/02 00:30:33 Getting next task\n") == []


def test_the_go_runtimes_fatal_error_is_a_failure():
    (finding,) = _findings("fatal error: concurrent map writes\n\ngoroutine 7 [running]:\n")
    assert finding["rule"] == "failure-time-unknown"
    assert "fatal error: concurrent map writes" in finding["message"]


@pytest.mark.parametrize(
    "text",
    [
        "If the gateway prints fatal error: followed by a reason, restart it.\n",
        "the fatal error: field of the schema is optional\n",
    ],
    ids=["advice", "docs"],
)
def test_fatal_error_not_at_a_records_start_is_no_go_failure(text):
    assert _findings(text) == []


# NIyueeE/ds-free-api#26 (probe, built): a Rust gateway's env_logger records; the unread failure quoted is the one logged
# at ERROR, not the WARN lines before it (a program that warns goes on)
RUST_GATEWAY = """\
[2026-04-29T02:41:45Z INFO  http::server] openai base_url: http://127.0.0.1:5317
[2026-04-29T02:42:15Z WARN  adapter] tool_parser parse failed, asking for a repair
[2026-04-29T02:42:18Z WARN  adapter] tool_calls repair failed: internal error: the repair model's answer is no tool call
[2026-04-29T02:42:18Z ERROR http::response] SSE stream error: internal error: repair failed: internal error
"""

# sgl-project/sglang#4562 (probe, built): the router's retries; the try that was retried is quoted last
ROUTER_RETRIES = """\
[Router (Rust)] 2025-03-18 14:17:58 - WARN - Generate request to http://localhost:8001 failed (attempt 1/3)
[Router (Rust)] 2025-03-18 14:17:58 - INFO - Retrying request after 1 failed attempts
[Router (Rust)] 2025-03-18 14:17:58 - WARN - Generate request to http://localhost:8001 failed (attempt 3/3)
[Router (Rust)] 2025-03-18 14:17:58 - WARN - Removing failed worker: http://localhost:8001
"""


def test_the_unread_line_at_a_failing_level_is_quoted_before_warnings():
    (finding,) = _findings(RUST_GATEWAY)
    assert finding["rule"] == "unrecognized-failure"
    assert '"[2026-04-29T02:42:18Z ERROR http::response] SSE stream error: internal error' in finding["message"]
    assert "(and 2 more such line(s)" in finding["message"]
    assert sorted(e["line"] for e in finding["evidence"]) == [2, 3, 4]


def test_a_retried_attempt_is_quoted_after_the_last_one():
    (finding,) = _findings(ROUTER_RETRIES)
    assert finding["rule"] == "unrecognized-failure"
    assert "failed (attempt 3/3)" in finding["message"]
    assert sorted(e["line"] for e in finding["evidence"]) == [1, 2, 3, 4]


def _document(text: str) -> dict[str, Any]:
    return analyze_sources([Source(name="paste.log", path=None, data=text.encode())], cases=False)


# "sglang <verb>" opens a sentence about the program, not its command line: only the console script's subcommands
# (sglang 0.5.12.post1 sglang/cli/main.py: serve, generate, version) or a release after the name start a record
def test_a_sentence_that_opens_with_sglang_states_its_failure():
    (finding,) = _findings("sglang crashed with no error message.\n")
    assert finding["rule"] == "failure-time-unknown"
    assert "sglang crashed with no error message." in finding["message"]


def test_sglang_serve_still_opens_a_command():
    document = _document("sglang serve --model-path Qwen/Qwen3-8B --tp 2 --mem-fraction-static 0.8\n")
    (launch,) = document["launches"]
    assert launch["config"]["tp_size"] == 2
    assert launch["config"]["mem_fraction_static"] == 0.8
    assert document["findings"] == []


# the forms of an issue's sentence that state a failure and gave nothing (issue 43's probes: a screenshot-only report
# states its failure in one sentence), and the same words asked, supposed, advised or fixed
@pytest.mark.parametrize(
    ("sentence", "rule"),
    [
        ("The server can't start when I set --tp 8.", "startup-crash"),
        ("The router cannot connect to the prefill server.", "failure-time-unknown"),
        ("When enabling --enable-dp-attention, the launch fails.", "failure-time-unknown"),
        ("KV transfer fails between prefill and decode nodes.", "failure-time-unknown"),
        ("NCCL timeout happened during cuda graph capture.", "startup-crash"),
    ],
    ids=["cant-start", "cannot-connect", "launch-fails", "fails-between", "timeout-happened"],
)
def test_a_sentence_that_states_a_failure_is_read(sentence, rule):
    (finding,) = _findings(sentence + "\n")
    assert finding["rule"] == rule
    assert sentence in finding["message"]


@pytest.mark.parametrize(
    "sentence",
    [
        "Why can't the server start with --tp 8?",
        "If the server cannot start, check the logs.",
        "Make sure the router can connect to the prefill server.",
        "If the launch fails, retry with --disable-cuda-graph.",
        "The server didn't start until I set --mem-fraction-static 0.7, now it works.",
        "First start the server, then run the benchmark.",
    ],
    ids=["question", "condition", "advice", "advice-fails", "fixed", "instruction"],
)
def test_the_same_words_asked_supposed_or_fixed_are_no_failure(sentence):
    assert _findings(sentence + "\n") == []


# a Ray-coloured line whose ESC characters a rendered page dropped (the RL frameworks' pastes: verl, slime), one line alone
def test_a_colour_codes_remnant_is_taken_off_a_line():
    line = "[36m(TaskRunner pid=1234)[0m RuntimeError: Engine core initialization failed. See root cause above.\n"
    (finding,) = _findings(line)
    assert finding["severity"] == "error"  # (a failure of unknown time, or of startup where its wording places it)
    assert "RuntimeError: Engine core initialization failed" in finding["message"]
    assert "[36m" not in finding["message"]


@pytest.mark.parametrize(
    ("physical", "logical"),
    [
        ("[32mINFO[0m:     Started server process [40093]", "INFO:     Started server process [40093]"),
        ("took [0ms] to answer [5min]", "took [0ms] to answer [5min]"),  # a bracket a word closes: no colour code
        ("[36m(TaskRunner pid=1)[36m is fine", "[36m(TaskRunner pid=1)[36m is fine"),  # no reset's remnant: left
    ],
    ids=["uvicorn", "brackets", "no-reset"],
)
def test_colour_code_remnants_only_where_a_reset_shows_them(physical, logical):
    assert clean(physical) == [logical]


# a structured record at a failing level whose message a prose grammar also reads (a time claim's "start"): logrus's
# TextFormatter (time="..." level=error msg="..." error="...") and a JSON record ("level":"ERROR", "message" nested)
@pytest.mark.parametrize(
    ("line", "said"),
    [
        (
            'time="2025-10-01T10:00:00Z" level=error msg="failed to start container" error="OCI runtime create failed"',
            "failed to start container: OCI runtime create failed",
        ),
        (
            '{"timestamp":"2025-10-01T10:00:00Z","level":"ERROR","fields":{"message":"Shard 0 failed to start"}}',
            "Shard 0 failed to start",
        ),
    ],
    ids=["logfmt", "json"],
)
def test_a_failing_records_message_read_by_a_prose_grammar_is_still_a_failure_line(line, said):
    (finding,) = _findings(line + "\n")
    assert finding["rule"] == "unrecognized-failure"
    assert f'"{said}"' in finding["message"]


def test_the_same_record_at_info_level_is_quiet():
    line = 'time="2025-10-01T10:00:00Z" level=info msg="waiting for the container to start" attempt=1'
    assert _findings(line + "\n") == []


# an interactive bash's job report (bash 5.2.15, run here in a terminal: "[1]+  Killed                  sleep 30")
def test_an_interactive_shells_killed_job_is_a_failure():
    (finding,) = _findings("[1]+  Killed                  python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2\n")
    assert finding["rule"] == "failure-time-unknown"
    assert "Killed python3 -m sglang.launch_server" in finding["message"]


@pytest.mark.parametrize(
    "line",
    ["[1]+  Done                    echo Killed here", "[2]   Running                 sleep 30 &"],
    ids=["done", "running"],
)
def test_a_job_report_of_another_status_is_no_kill(line):
    assert _findings(line + "\n") == []


def test_a_killed_job_report_right_after_sglangs_own_failure_gives_way():
    log = (
        "[2025-10-01 10:00:00] Initialization failed. warmup error: Traceback (most recent call last):\n"
        "RuntimeError: CUDA error: an illegal memory access was encountered\n"
        "[1]+  Killed                  python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B\n"
    )
    findings = _findings(log)
    (finding,) = [f for f in findings if f["severity"] == "error"]
    assert (finding["rule"], finding["signature"], finding["phase"]) == ("startup-crash", "process-warmup-failed", "warmup")
    assert finding["evidence"][0]["line"] == 1
    assert all("Killed python3" not in f["message"] for f in findings)


# a server's error answer as curl prints its status line (curl 7.88.1 -i / -v, run here against a server answering 500)
@pytest.mark.parametrize(
    "line", ["HTTP/1.0 500 Internal Server Error", "< HTTP/1.0 500 Internal Server Error", "HTTP/2 503"], ids=["i", "v", "h2"]
)
def test_a_5xx_status_line_of_a_response_is_an_unread_failure(line):
    (finding,) = _findings("$ curl -i http://127.0.0.1:30000/v1/chat/completions\n" + line + "\n")
    assert finding["rule"] == "unrecognized-failure"
    assert f'"{line}"' in finding["message"]


@pytest.mark.parametrize(
    "line",
    ["HTTP/1.1 200 OK", "< HTTP/1.1 404 Not Found", "an HTTP/1.1 500 answer is described in the API docs"],
    ids=["ok", "client-error", "prose"],
)
def test_other_status_lines_and_prose_are_none(line):
    assert _findings(line + "\n") == []
