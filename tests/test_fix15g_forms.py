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
