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


_HANG_LOG = (
    "[2025-01-01 10:00:00] server_args=ServerArgs(model_path='X', tp_size=1)\n"
    "[2025-01-01 10:00:05 TP0] Init torch distributed begin.\n"
    "[2025-01-01 10:00:06 TP0] Load weight begin. avail mem=78.00 GB\n"
)


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
