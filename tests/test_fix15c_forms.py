"""Forms of session 15's mine15a batch that no earlier paste showed (fix15c): a version the writer says they install
("I install the latest nixl-0.3.0"), in the present tense as many write it."""

from __future__ import annotations

import pytest

from logscope.pipeline.parse.parsers import time_claims, time_cues
from tests.helpers import analyze_text, stated_versions

# the shape of an issue's opening sentence over a fence of the server's log (sglang-6773)
_LOG = (
    "\n```\n"
    '[2025-05-30 08:22:51] INFO:     127.0.0.1:54604 - "POST /generate HTTP/1.1" 200 OK\n'
    "[2025-05-30 08:22:51] The server is fired up and ready to roll!\n"
    "```\n"
)


@pytest.mark.parametrize(
    ("sentence", "versions"),
    [
        (
            "I am playing with P/D disaggregation in SGLang, I install the latest nixl-0.3.0. However, I met following"
            " issues, seems a version mismatch?",
            {"nixl": "0.3.0"},
        ),
        ("We install mooncake-transfer-engine-0.3.5 on both nodes, then the transfer fails.", {"mooncake": "0.3.5"}),
        ("I install torch 2.8.0 and the server starts.", {"torch": "2.8.0"}),
    ],
)
def test_the_writers_own_install_states_the_version(sentence, versions):
    found = stated_versions(sentence + _LOG)
    assert {k: found.get(k) for k in versions} == versions


@pytest.mark.parametrize(
    "sentence",
    [
        "Please install nixl-0.3.0 before you start the server.",
        "You need to install nixl-0.3.0 first.",
        "How do I install nixl-0.3.0?",
        "If I install nixl-0.3.0 the server does not start.",
        "I tried to install nixl-0.3.0 but pip could not find it.",
        "Downloading nixl-0.3.0-cp312-cp312-manylinux_2_28_x86_64.whl (20.1 MB)",
        "See https://pypi.org/project/nixl-0.3.0/ for the wheels.",
        "It worked before nixl-0.3.0 but fails after nixl-0.3.1.",
    ],
)
def test_an_install_asked_for_or_a_file_states_no_version(sentence):
    assert "nixl" not in stated_versions(sentence + _LOG)


# a launch, a sentence, and the rank's exception cut in its first word (sglang-10046's shape)
_CUT = (
    "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1-0528 --tp 8 --pp 2 --nnodes 2 --node-rank 0\n\n"
    "{sentence}\n"
    "```\n"
    "[2025-09-04 18:09:42 TP2 PP0] Scheduler hit an exception: Traceback (m\n"
)


def _rules(sentence: str) -> list[str]:
    return [f["rule"] for f in analyze_text(_CUT.format(sentence=sentence))["findings"]]


@pytest.mark.parametrize(
    "sentence",
    ["The server to start with the error below:", "The sglang server starts with this error:"],
)
def test_a_start_that_came_with_an_error_places_the_failure_at_startup(sentence):
    assert _rules(sentence) == ["startup-crash"]


@pytest.mark.parametrize(
    "sentence",
    [
        "The server started with the following command and then showed this:",
        "The server starts with the following warning:",
        "If the server starts with the error below, what should I change?",
    ],
)
def test_a_start_with_a_command_a_warning_or_a_supposed_error_places_nothing(sentence):
    assert _rules(sentence) == ["failure-time-unknown"]


@pytest.mark.parametrize(
    "sentence",
    [
        "In SGLang v0.4.4.post3, when launching the server with the following command:",
        "When starting the server using this command:",
    ],
)
def test_a_start_that_brings_in_a_command_claims_no_time(sentence):
    assert time_claims.parse(sentence) is None


def test_a_start_that_brings_in_an_error_still_claims_startup():
    parsed = time_claims.parse("When launching the server, I got this error:")
    assert parsed is not None and parsed.data["stage"] == "startup"


# an issue of two launches, a serving sentence pointing at a fence the copy cut in the traceback's first frame line
# (sglang-5248's shape)
_FENCED_CUT = (
    "In SGLang v0.4.5, when launching the server with the following command:\n\n"
    "```bash\npython3 -m sglang.launch_server --model-path Qwen/Qwen2.5-VL-3B-Instruct\n```\n\n"
    "and sending an image-containing request causes the SGLang server to crash with the following error:\n\n"
    "```\n"
    '  File "/sgl-workspace\n'
)


def test_a_frame_cut_where_the_copy_ends_in_its_fence_is_the_failure():
    report = analyze_text(_FENCED_CUT)
    assert [f["rule"] for f in report["findings"]] == ["runtime-crash"]


def test_an_unfenced_cut_frame_after_a_client_error_is_no_failure_of_its_own():
    # a client's refused request, then its traceback's frame cut at the end of the copy, no fence (sglang-12745's shape)
    text = (
        "error message as follows:\n"
        "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': 'The following requested LoRA"
        " adapters are not loaded: 120b', 'type': 'BadRequestError', 'param': None, 'code': 400}\n\n"
        '  File ".venv/lib/python3.12/site-packages/langc\n'
    )
    rules = [f["rule"] for f in analyze_text(text)["findings"]]
    assert "failure-time-unknown" not in rules and "runtime-crash" not in rules


def test_a_closed_fence_of_a_cut_frame_alone_is_no_failure():
    # the fence closed after the line: the copy did not end inside it (no cut of the copy is shown)
    rules = [f["rule"] for f in analyze_text(_FENCED_CUT + "```\n")["findings"]]
    assert rules == []


@pytest.mark.parametrize(
    "sentence",
    [
        "The server runs with the log pattern described below and then crashes without a meaningful traceback.",
        "The server runs for a while and then crashes.",
    ],
)
def test_a_server_that_ran_and_then_crashed_failed_while_serving(sentence):
    parsed = time_cues.parse(sentence)
    assert parsed is not None and parsed.data["stage"] == "serving"


@pytest.mark.parametrize(
    "sentence",
    [
        "The server runs out of memory and then crashes.",
        "The server runs into an error and then crashes.",
        "The server runs the warmup and then crashes.",
        "The server runs with the following command and then crashes.",
        "The server runs and crashes.",
    ],
)
def test_running_out_into_or_through_a_step_is_no_serving_time(sentence):
    assert time_cues.parse(sentence) is None


def test_a_server_that_runs_a_startup_step_or_a_few_seconds_was_not_up():
    # review15c item 10: a startup step as the object keeps its step; a few seconds alone show no serving
    capture = "After launching, the server runs cuda graph capture and then crashes with the error below."
    parsed = time_cues.parse(capture)
    assert parsed is not None and parsed.data["stage"] == "capture"
    assert time_cues.parse("The server runs for about 5 seconds and then crashes with the error below.") is None
    # positive: time said in hours is serving
    fine = time_cues.parse("The server runs for two hours and then crashes.")
    assert fine is not None and fine.data["stage"] == "serving"


def test_an_error_free_log_at_the_start_is_no_startup_claim():
    # review15c item 9: "starts with an error-free log" names no error at the start
    assert time_claims.parse("The server starts with an error-free log and serves fine, but then it crashes:") is None
    paste = (
        "The server starts with an error-free log and serves fine, but after 2 hours of load it crashes:\n\n"
        "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    )
    assert [f["rule"] for f in analyze_text(paste)["findings"]] == ["runtime-crash"]
    # positive: the error below at the start
    parsed = time_claims.parse("The server starts with the error below:")
    assert parsed is not None and parsed.data["stage"] == "startup"


def test_a_ci_bot_that_failed_to_deploy_claims_no_startup():
    # review15c item 11: the subject of "failed to deploy" is the model or its server, not a PR bot's preview build
    assert time_claims.parse("Note: the PR bot failed to deploy the preview build, unrelated to this issue.") is None
    paste = (
        "Note: the PR bot failed to deploy the preview build, unrelated to this issue.\n"
        "The server crashes after 2 hours of serving with the error below.\n\n"
        "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    )
    assert [f["rule"] for f in analyze_text(paste)["findings"]] == ["runtime-crash"]
    # positive: the model that fails to deploy
    parsed = time_claims.parse("The model fails to deploy on two GPUs.")
    assert parsed is not None and parsed.data["stage"] == "startup"
