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


# CPython 3.13+ prints a call that spans several lines whole under its frame (Lib/traceback.py
# StackSummary.format_frame_summary, CPython 3.13.0: the first and last lines and those around the anchors, each with its
# caret line, "...<N lines>..." for a gap), where 3.11 and 3.12 printed its first line only; the exception line after
# the frames ends the traceback (ROCm/TheRock#4214, a probe: torch.AcceleratorError under torch's conv2d call)
_TB_313 = """\
Traceback (most recent call last):
  File "/usr/lib/python3.13/site-packages/torch/nn/modules/conv.py", line 553, in forward
    return self._conv_forward(input, self.weight, self.bias)
           ~~~~~~~~~~~~~~~~~~^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3.13/site-packages/torch/nn/modules/conv.py", line 548, in _conv_forward
    return F.conv2d(
           ~~~~~~~~^
        input, weight, bias, self.stride, self.padding, self.dilation, self.groups
        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
    )
    ^
{exception}
"""


def _messages(text: str) -> list[str]:
    return [finding["message"] for finding in _findings(text)]


def test_a_multiline_call_under_a_frame_keeps_the_exception_line_that_ends_the_traceback():
    (message,) = _messages(_TB_313.format(exception="torch.AcceleratorError: CUDA error: unspecified launch failure"))
    assert "AcceleratorError: CUDA error: unspecified launch failure" in message
    assert "cut before its exception line" not in message and "conv.py:548 _conv_forward" in message
    # the same without a header (a copy that starts at a frame) and with the gap CPython abbreviates
    headless = _TB_313.split("\n", 1)[1].replace("        input, weight", "    ...<2 lines>...\n        input, weight")
    (message,) = _messages(headless.format(exception="RuntimeError: HIP error: invalid device function"))
    assert "RuntimeError: HIP error: invalid device function" in message


def test_a_traceback_cut_inside_a_multiline_call_is_still_cut():
    cut = _TB_313.split("    )\n")[0]  # (the copy ends inside the call's lines)
    (message,) = _messages(cut)
    assert "cut before its exception line" in message


def test_a_line_under_the_frames_as_deep_as_a_frame_ends_the_segment():
    # (an indented paste: frames at six blanks, the exception line at four; a line no deeper than the frame is no
    # source line of it)
    indented = "\n".join("    " + line if line else line for line in _TB_313.splitlines())
    (message,) = _messages(indented.format(exception="ValueError: bad shape") + "\n")
    assert "ValueError: bad shape" in message


# a process that ended on an error or out of turn, in the words of its own end: sgl-project/sglang#3340 (a probe, a
# comment: "A few minutes later, all nodes shut down with errors."); docker/model-runner#608 (a probe: "Backend
# llama.cpp running model ai/llama3.2 exited with error: llama.cpp terminated unexpectedly", here as a sentence)
@pytest.mark.parametrize(
    ("sentence", "said"),
    [
        ("A few minutes later, all nodes shut down with errors.", "nodes shut down with errors"),
        ("The container exited with error after loading the weights.", "exited with error"),
        ("The worker terminated unexpectedly during cuda graph capture.", "terminated unexpectedly"),
    ],
)
def test_a_process_that_ended_on_an_error_states_the_failure(sentence, said):
    parsed = parse(sentence)
    assert parsed is not None and parsed.data["said"] == said
    assert len(_findings(sentence + "\n")) == 1


@pytest.mark.parametrize(
    "sentence",
    [
        "The server shuts down gracefully after the benchmark.",  # an orderly stop
        "We shut down the nodes after the test.",  # the user's own stop
        "The server never shuts down with errors.",  # a denial
        "If the node shuts down with errors, restart it.",  # a supposition
        "The node will shut down with errors when the disk is full.",  # what may happen
        "Does the worker terminate unexpectedly?",  # a question
        "The job exited with error code 0.",  # a clean exit
    ],
)
def test_an_orderly_stop_a_denial_or_a_possibility_states_no_failure(sentence):
    assert parse(sentence) is None


# a caption that names the text below it, with the text's place before or after its noun (livekit/agents#3841, a
# probe: "Error sequence from logs:" over the log, its failure stated in the sentence above): the caption is no failure
# line, so the sentence states the failure
def test_a_caption_with_the_text_s_place_is_no_failure_line():
    text = (
        "Our agent was running stable in production for weeks, then suddenly all job requests started failing with"
        " DuplexClosed errors.\n\nError sequence from logs:\n\nworker process is not responding.. worker crashed?\n"
    )
    (finding,) = _findings(text)
    assert finding["rule"] == "runtime-crash" and "all job requests started failing" in finding["message"]


@pytest.mark.parametrize("caption", ["Error sequence from logs:", "Error logs below:", "Error output from the server:"])
def test_a_caption_alone_is_no_failure(caption):
    assert _findings(caption + "\n\nThe model is Qwen3-8B.\n") == []


@pytest.mark.parametrize(
    "line",
    [
        "Error from the server: connection reset by peer",  # the error's own words after the colon
        "Failed to read logs from the server:",  # a verb: a failure of its own
    ],
)
def test_a_failure_line_that_looks_like_a_caption_is_still_read(line):
    assert [finding["rule"] for finding in _findings(line + "\n")] == ["unrecognized-failure"]


# a step that failed with one phrase of its ends or its object between it and its verb (constructed in the shape of
# PD-disaggregation reports: "The KV cache transfer from prefill to decode fails under load.")
@pytest.mark.parametrize(
    ("sentence", "said"),
    [
        ("The KV cache transfer from prefill to decode fails under load.", "transfer from prefill to decode fails"),
        ("The transfer between prefill and decode failed.", "transfer between prefill and decode failed"),
        ("The launch of the decode server fails.", "launch of the decode server fails"),
    ],
)
def test_a_step_with_its_ends_named_that_failed_states_the_failure(sentence, said):
    parsed = parse(sentence)
    assert parsed is not None and parsed.data["said"] == said


@pytest.mark.parametrize(
    "sentence",
    [
        "When the transfer from prefill to decode fails, the request is retried.",  # whenever it does
        "Why does the transfer from prefill to decode fail?",  # a question
        "The transfer from prefill to decode never fails.",  # a denial
    ],
)
def test_a_step_with_its_ends_named_in_a_condition_question_or_denial_states_no_failure(sentence):
    assert parse(sentence) is None


# the error the run printed, quoted right after "the error (message) ... is/was" (zai-org/CogVLM#96, a probe: "The error
# info in the terminal is 'nan in logits, set nan_default_token to proceed in BaseStrategy.forward.' This info can be
# located in the following code:"): the quote names the failure, so "the following code:" points at no text elsewhere
@pytest.mark.parametrize(
    ("sentence", "said"),
    [
        (
            "The error info in the terminal is 'nan in logits, set nan_default_token to proceed in"
            " BaseStrategy.forward.' This info can be located in the following code:",
            "The error info in the terminal is",
        ),
        ("The error message was `Connection reset by peer`.", "The error message was"),
        ('The error message is "No CUDA GPUs are available" on the second node.', "The error message is"),
    ],
)
def test_an_error_quoted_as_what_it_was_states_the_failure(sentence, said):
    parsed = parse(sentence)
    assert parsed is not None and parsed.data == {"sentence": sentence, "said": said}
    assert [finding["rule"] for finding in _findings(sentence + "\n")] == ["failure-time-unknown"]


@pytest.mark.parametrize(
    "sentence",
    [
        'If the error message is "CUDA out of memory", lower the batch size.',  # a supposition
        'Why is the error message "no kernel image" so vague?',  # a question
        'This PR changes the error message to "Invalid tool call parser".',  # a change
        'The error message is "Invalid value" when the flag is wrong, as expected.',  # behaviour as designed
        "The error is 'x'.",  # too short to be a message
    ],
)
def test_an_error_message_in_a_supposition_question_change_or_design_states_no_failure(sentence):
    assert parse(sentence) is None


# a library's wording in a sentence of what is likely in general, beside other sentences on the same line, is no failure
# of this run: the router's own panic below is (sgl-project/sglang#7028, a probe)
_BACKGROUND = (
    "Background: DP Attention is not stable yet. During high concurrency, illegal memory access is more likely to"
    " occur, leading to crashes. Therefore, when one worker fails, there is a certain probability it will trigger a"
    " cascading failure that brings down all workers.\n"
)


def test_a_wording_in_a_sentence_of_likelihood_gives_way_to_the_log_s_failure():
    text = _BACKGROUND + "\n```\nthread 'actix-rt|system:0|arbiter:12' panicked at src/router.rs:463:40:\n"
    (finding,) = _findings(text)
    assert finding["mechanism"] == "process" and "panicked at src/router.rs:463:40" in finding["message"]


def test_a_wording_in_a_sentence_of_likelihood_alone_is_no_failure():
    assert _findings(_BACKGROUND) == []
    assert _findings("Illegal memory access is less likely to occur with --disable-cuda-graph.\n") == []


def test_a_wording_in_a_report_beside_a_sentence_of_likelihood_is_still_read():
    text = "Crashes are likely to happen under load. We got CUDA error: an illegal memory access was encountered.\n"
    (finding,) = _findings(text)
    assert finding["mechanism"] == "cuda"


# a 5xx answer the writer's client got (anthropics/claude-code#47484, a probe: "... and received a 500 code response."),
# and a met error a 5xx status names ("I got a 500 error when sending images."); a 4xx is the client's own failure, a
# count no status
@pytest.mark.parametrize(
    ("sentence", "said"),
    [
        (
            "I was responding to Claude with answers to it's questions and received a 500 code response.",
            "received a 500",
        ),
        ("We got a 503 Service Unavailable from the router.", "got a 503"),
        ("I got a 500 error when sending images.", "got a 500 error"),
    ],
)
def test_a_5xx_answer_received_states_the_failure(sentence, said):
    parsed = parse(sentence)
    assert parsed is not None and parsed.data["said"] == said


@pytest.mark.parametrize(
    "sentence",
    [
        "I got a 400 error.",  # the client's own request refused
        "I got a 500 token reply.",  # a count
        "If you get a 500 error, retry.",  # a supposition
        "Did you get a 502 response?",  # a question
        "I got an error at 512 tokens.",  # a count after an unnamed error
    ],
)
def test_a_4xx_a_count_a_supposition_or_a_question_states_no_5xx(sentence):
    assert parse(sentence) is None


def test_a_message_quoted_in_the_line_is_read_whole_with_its_own_question():
    # (ai-dynamo/dynamo#1101, fixtures: torch's message asks a question of its own inside the quote)
    text = (
        "`RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling"
        " NumCudaDevices() that might have already set an error? Error 803: system has unsupported display driver /"
        " cuda driver combination\n"
    )
    (finding,) = _findings(text)
    assert "Did you run some cuda functions" in finding["message"] and "Error 803" in finding["message"]
