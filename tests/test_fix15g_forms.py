"""review15b items 3, 4, 7, 8, 11, 13 (fix15g): a stated failure needs the program as the subject of what happened, a
dismissal covers only what precedes it, a claim about another run or another party places nothing of this one."""

from __future__ import annotations

from typing import Any

import pytest

from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import Source


def _findings(text: str) -> list[dict[str, Any]]:
    document = analyze_sources([Source(name="paste.log", path=None, data=text.encode())], cases=False)
    return list(document["findings"])


# review15b item 3: docs text, a behaviour, a condition, a string prefix, a question without its mark
@pytest.mark.parametrize(
    "sentence",
    [
        "Note that the server won't start serving until all weights are loaded.",
        "SGLang doesn't start a new process for the tokenizer when --skip-tokenizer-init is set.",
        "The API key is wrong: it doesn't start with sk-.",
        "The router retries when the transfer fails.",
        "Why the router can't connect to the prefill server",
    ],
    ids=["until", "object", "prefix", "when-clause", "question"],
)
def test_a_description_of_behaviour_is_no_stated_failure(sentence):
    assert _findings(sentence + "\n") == []


@pytest.mark.parametrize(
    ("sentence", "rule"),
    [
        ("The server can't start when I set --tp 8.", "startup-crash"),
        ("The router cannot connect to the prefill server.", "failure-time-unknown"),
        ("SGLang won't start with --tp 8 on H20.", "failure-time-unknown"),
        ("KV transfer fails between prefill and decode nodes.", "failure-time-unknown"),
    ],
    ids=["cant-start", "connect-to", "wont-start-with", "fails-between"],
)
def test_the_program_that_cannot_start_is_still_read(sentence, rule):
    (finding,) = _findings(sentence + "\n")
    assert finding["rule"] == rule
    assert sentence in finding["message"]


# review15b item 4: "now it works" dismisses what precedes it, not a failure after it in the sentence
@pytest.mark.parametrize(
    ("sentence", "rule", "phase"),
    [
        ("Now it works with --tp 4 but with --tp 8 the server crashes with NCCL error.", "failure-time-unknown", "unknown"),
        ("Now it works for a few requests, then the scheduler crashes.", "runtime-crash", "serving"),
    ],
    ids=["contrast", "then"],
)
def test_now_it_works_before_a_failure_dismisses_nothing(sentence, rule, phase):
    (finding,) = _findings(sentence + "\n")
    assert finding["rule"] == rule
    assert finding["phase"] == phase


@pytest.mark.parametrize(
    "sentence",
    ["The server crashed with --tp 8, now it works.", "The server didn't start until I set --tp 2, now it works."],
    ids=["crashed", "didnt-start"],
)
def test_now_it_works_after_the_failure_still_dismisses_it(sentence):
    assert _findings(sentence + "\n") == []


_TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/x/y.py", line 3, in f\n'
    "    g()\n"
    "RuntimeError: CUDA error: an illegal memory access was encountered\n"
)


# review15b item 13: "works fine most of the time" says how often, not when, and not of another setup or of launches
@pytest.mark.parametrize(
    ("sentence", "rule", "phase"),
    [
        ("It works fine most of the time on H100, but on A100 it crashes right away:", "failure-time-unknown", "unknown"),
        ("The launch runs fine most of the time; 1 in 10 launches it crashes like this:", "startup-crash", "startup"),
        ("It is fine 90% of the time, sometimes the server crashes at startup with:", "startup-crash", "startup"),
        ("It works fine most of the time, but sometimes crashes:", "runtime-crash", "serving"),
    ],
    ids=["other-setup", "launches", "startup-claim", "occasional"],
)
def test_most_of_the_time_places_only_an_occasional_failure_of_the_same_run(sentence, rule, phase):
    (finding,) = _findings(sentence + "\n" + _TRACEBACK)
    assert finding["rule"] == rule
    assert finding["phase"] == phase
    assert finding["signature"] == "process-cuda-error"


# review15b item 8: a client's warmup, a dataset's loading, a client's 初始化 are not the server's startup; a 初始化
# failure after the server ran a while came while serving
@pytest.mark.parametrize(
    ("sentence", "rule", "phase"),
    [
        ("It fails during warmup with my test harness sending 10 prompts", "runtime-crash", "serving"),
        ("During the loading process of the dataset in my client, an error occurred:", "failure-time-unknown", "unknown"),
        ("客户端初始化失败，服务器正常运行", "failure-time-unknown", "unknown"),
        ("服务运行一段时间后，NCCL初始化失败", "runtime-crash", "serving"),
        ("During the loading process, an error occurred:", "startup-crash", "startup"),
        ("结果：初始化失败", "startup-crash", "startup"),
    ],
    ids=["harness-warmup", "dataset-loading", "client-init", "init-after-serving", "loading-process", "init-failed"],
)
def test_a_clients_step_is_no_startup_claim(sentence, rule, phase):
    (finding,) = _findings(sentence + "\n" + _TRACEBACK)
    assert finding["rule"] == rule
    assert finding["phase"] == phase


# review15b item 7: a serving sentence of another run, or one beside a startup claim, silences no startup hang
_HANG_LOG = (
    "[2025-01-01 10:00:00] server_args=ServerArgs(model_path='X', tp_size=1)\n"
    "[2025-01-01 10:00:05 TP0] Init torch distributed begin.\n"
    "[2025-01-01 10:00:06 TP0] Load weight begin. avail mem=78.00 GB\n"
)


@pytest.mark.parametrize(
    "sentence",
    [
        "The old version ran for 3 days without problems. After upgrading, the server hangs here:",
        "Usually it hangs after running for a few hours, but today it hangs here at startup:",
    ],
    ids=["old-version", "usually-but-today"],
)
def test_a_serving_sentence_of_another_run_keeps_the_startup_hang(sentence):
    (finding,) = _findings(sentence + "\n" + _HANG_LOG)
    assert finding["rule"] == "startup-incomplete"
    assert "last phases seen: load_weight_begin" in finding["message"]


def test_a_serving_sentence_of_this_run_still_says_the_log_was_cut():
    assert _findings("It hangs after running for a few hours:\n" + _HANG_LOG) == []


# review15b item 11: SGLang's /health answers 503 while the server starts (sglang 0.5.6, 0.5.10.post1
# srt/entrypoints/http_server.py health_generate: server_status Starting -> Response(status_code=503))
def test_a_health_probes_503_during_startup_is_no_failure():
    text = _HANG_LOG + "$ curl -i http://localhost:30000/health\nHTTP/1.1 503 Service Unavailable\n"
    (finding,) = _findings(text)
    assert finding["rule"] == "startup-incomplete"


def test_a_503_of_a_generation_request_is_still_unread_failure():
    text = _HANG_LOG + "$ curl -i http://localhost:30000/v1/chat/completions\nHTTP/1.1 503 Service Unavailable\n"
    rules = sorted(f["rule"] for f in _findings(text))
    assert rules == ["startup-incomplete", "unrecognized-failure"]


def test_a_sentence_opening_with_a_status_line_is_prose():
    assert _findings("HTTP/1.1 500 is returned when I send a long prompt\n") == []
