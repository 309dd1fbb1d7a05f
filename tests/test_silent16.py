"""Failure forms read in session 16 (issue 43, "a failure paste must never get nothing found"): each case is the real
shape of a probe thread's paste (named at each, split=built), with the quiet cases that prove what is not claimed."""

from __future__ import annotations

from typing import Any

import pytest

from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse.parsers.stated_failure import parse


def _findings(text: str) -> list[dict[str, Any]]:
    document = analyze_sources([Source(name="paste.log", path=None, data=text.encode())], cases=False)
    return list(document["findings"])


def _rules(text: str) -> list[tuple[str, str | None]]:
    return [(finding["rule"], finding.get("mechanism")) for finding in _findings(text)]


_SCREENSHOT = '\n\n<img width="1136" alt="Image" src="https://github.com/user-attachments/assets/a752d2a4" />\n'
_MARKDOWN_IMAGE = "\n\n![Image](https://github.com/user-attachments/assets/bb2c7d63-c780-4fbf-84c8-f4856cf9e986)\n"


# a verb of meeting an error whose object names nothing ("I got the following error:") before a screenshot states no
# failure the paste shows: the mined labels give none where the error is only in a picture (sglang-3362, built: "I got
# some error like this,please help" beside two screenshots, findings []); tried in session 16 and left as is
@pytest.mark.parametrize("sentence", ["I got the following error:", "When I start the server, I get this error:"])
def test_a_met_error_only_in_a_picture_is_no_failure_shown(sentence):
    assert _findings(sentence + _SCREENSHOT) == []
    assert _findings(sentence + _MARKDOWN_IMAGE) == []


# an attempt the writer made that then failed, the verb last in a clause after "but" (sgl-project/sglang#3781:
# "I have try to deploy DeepSeek-V2-Lite-Chat on Ascend NPU, but it failed.")
@pytest.mark.parametrize(
    ("sentence", "rule"),
    [
        ("I have try to deploy DeepSeek-V2-Lite-Chat on Ascend NPU, but it failed.", "failure-time-unknown"),
        ("We launched the server with --tp 8 but the launch failed.", "startup-crash"),  # (the launch places it)
        ("I tried --disable-cuda-graph, but it still fails.", "failure-time-unknown"),
    ],
)
def test_an_attempt_that_then_failed_states_the_failure(sentence, rule):
    parsed = parse(sentence)
    assert parsed is not None and parsed.data["said"].startswith("but ")
    assert [found for found, _ in _rules(sentence + "\n")] == [rule]


@pytest.mark.parametrize(
    "sentence",
    [
        "I tried to reproduce it on 8 H100, but it failed.",  # the reader's repro, not the writer's run
        "What if it runs out of pages, but it failed?",  # a question
        "If the first attempt times out but it failed over to the backup, nothing is lost.",  # a supposition
        "It failed.",  # no attempt named: a title's echo, unchanged
        "The first request was slow but it failed over to the second replica.",  # "failed over" is no failure
    ],
)
def test_an_attempt_the_writer_did_not_make_or_no_verb_last_states_no_failure(sentence):
    assert parse(sentence) is None
