"""review15b's items on the readers added in session 15 (issue 43): a launch command in a sentence is read only where
the sentence states the writer's own run (English and Chinese lead-ins), a conda environment's name is no CUDA
release, a client's 4xx stays listed, and placing a failure by the paste's claims is linear in them."""

from __future__ import annotations

import pytest

from tests.helpers import analyze_text

LAUNCHER = "python -m sglang.launch_server --model-path X --tp 8"


@pytest.mark.parametrize(
    "prose",
    [
        # advice, a recommendation, an example, docs' imperative, a negation, another person's run, a PR's text, a
        # question without "?" (review15b item 1)
        f"Please try {LAUNCHER} --disable-cuda-graph and report back",
        f"We recommend {LAUNCHER} for large models.",
        f"For example {LAUNCHER} works.",
        f"Run {LAUNCHER} to enable it.",
        f"I did not use {LAUNCHER} at all.",
        f"My colleague used {LAUNCHER} last week, but I use docker",
        f"This PR changes {LAUNCHER} behaviour",
        f"Anyone tried {LAUNCHER} --enable-deepep-moe on H20",
    ],
)
def test_a_sentence_that_states_no_run_of_the_writers_gives_no_launch(prose):
    assert analyze_text(prose + "\n")["launches"] == []


def test_advice_above_the_users_log_adds_no_option_to_the_launch():
    text = (
        f"Please try {LAUNCHER} --disable-cuda-graph and report back\n"
        "[2025-01-01 10:00:00] server_args=ServerArgs(model_path='X', tp_size=8)\n"
        "[2025-01-01 10:00:05 TP0] Load weight begin. avail mem=78.00 GB\n"
        "[2025-01-01 10:00:09 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
        "RuntimeError: CUDA error: out of memory\n"
    )
    configs = [launch["config"] for launch in analyze_text(text)["launches"]]
    assert configs and all("disable_cuda_graph" not in config for config in configs)
    assert configs[0]["tp_size"] == 8


@pytest.mark.parametrize(
    ("sentence", "config"),
    [
        (f"I launched with {LAUNCHER} and at the first request it fails", {"model_path": "X", "tp_size": 8}),
        ("We run sglang serve --model-path Qwen/Qwen3-8B --tp 2.", {"model_path": "Qwen/Qwen3-8B", "tp_size": 2}),
        (f"Yesterday I started the server with {LAUNCHER} and it hangs", {"model_path": "X", "tp_size": 8}),
        ("1. Run python -m sglang.launch_server --model-path X --tp 2", {"model_path": "X", "tp_size": 2}),
    ],
)
def test_the_writers_own_run_in_a_sentence_is_read(sentence, config):
    (launch,) = analyze_text(sentence + "\n")["launches"]
    assert launch["config"] == config


@pytest.mark.parametrize(
    "line",
    [
        # 请问 "may I ask ... how to set", 建议 ... 试试 "suggest trying", 不要用 "don't use" (review15b item 9)
        f"请问 {LAUNCHER} 怎么设置",
        f"建议 {LAUNCHER} --disable-cuda-graph 试试",
        "不要用 python -m sglang.launch_server --model-path X --enable-dp-attention",
    ],
)
def test_a_chinese_question_advice_or_prohibition_before_a_command_gives_no_launch(line):
    assert analyze_text(line + "\n")["launches"] == []


@pytest.mark.parametrize(
    "line",
    [
        # 执行 "run", 我用 "I use", 启动 "start"
        f"执行 {LAUNCHER} 过一段时间就出现下面的错误",
        f"我用 {LAUNCHER}",
        f"启动 {LAUNCHER}",
    ],
)
def test_a_chinese_lead_in_that_states_a_run_is_read(line):
    (launch,) = analyze_text(line + "\n")["launches"]
    assert launch["config"] == {"model_path": "X", "tp_size": 8}


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        # a conda environment named after the toolkit wanted is no CUDA release (review15b item 2)
        ("conda create -n cuda12.4 python=3.10", {"python": "3.10"}),
        ("conda activate cuda12.4", {}),
        ("My env name is cuda12.4 but the toolkit is CUDA 12.1", {"cuda": "12.1"}),
        ("Does it work with cuda12.8", {}),
        # an environment list's field still gives it
        ("env: CUDA12.8, torch2.7.1", {"cuda": "12.8", "torch": "2.7.1"}),
        ("8*H100 cuda12.4 torch2.5.1", {"cuda": "12.4", "torch": "2.5.1"}),
        ("H100 and cuda12.4", {"cuda": "12.4"}),
        ("Specs:\n\n1. Ubuntu 22.04\n2. PyTorch 2.4.1\n3. cuda12.4", {"torch": "2.4.1", "cuda": "12.4"}),
    ],
)
def test_a_glued_cuda_word_is_a_release_only_at_an_environment_fields_start(line, versions):
    assert analyze_text(line + "\n")["versions"] == versions


# openai's error for a 400 answer (openai/_base_client.py: err_msg = f"Error code: {response.status_code}")
REFUSED = "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': 'The input is longer than the context'}"


def test_a_clients_4xx_is_no_failure_of_the_server_but_stays_listed():
    document = analyze_text(REFUSED + "\n")
    assert document["findings"] == []
    (unread,) = document["coverage"]["unmatched_failures"]
    assert (unread["line"], unread["text"]) == (1, REFUSED)


def test_a_4xx_answer_whose_message_a_signature_reads_is_that_failure():
    # (review15b item 6: a 400 body that holds a server-side failure message; constructed, as the review says)
    text = (
        'INFO:     127.0.0.1:5000 - "POST /v1/chat/completions HTTP/1.1" 400 Bad Request\n'
        "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': 'Internal server error: CUDA error: "
        "an illegal memory access was encountered', 'type': 'BadRequestError', 'param': None, 'code': 400}\n"
    )
    (finding,) = analyze_text(text)["findings"]
    assert (finding["signature"], finding["evidence"][0]["line"]) == ("process-cuda-error", 2)


def test_the_refused_wordings_are_data_checked_against_openais_releases():
    import json

    from logscope.core.events import Event
    from logscope.pipeline.parse.signatures.client_errors import client_refused, refused_by_server
    from tools.upstream.write import ROOT

    catalogue = json.loads((ROOT / "catalog" / "package_wordings.json").read_text())["signatures"]
    ids = sorted(sig.id for sig in client_refused())
    assert len(ids) == 7
    for sig_id in ids:
        assert catalogue[sig_id]["versions"] == ["1.0.0", "3.63.0"]
    assert catalogue["client-openai-not-found"]["found"]["3.63.0"] == {
        "NotFoundError: Error code:": "openai/_exceptions.py:177 (class); openai/_base_client.py:485"
    }

    def refused(text: str) -> bool:
        return refused_by_server(Event(source="p", line=1, kind="exception", text=text, data={}))

    assert refused("openai.NotFoundError: Error code: 404 - {'detail': 'Not Found'}")
    assert refused("openai.RateLimitError: Error code: 429")
    assert not refused("openai.InternalServerError: Error code: 500 - {'message': 'x'}")
    assert not refused("openai.NotFoundError: Error code: 400")  # openai maps 400 to BadRequestError only


def test_placing_stated_failures_by_the_pastes_claims_is_linear_in_them(monkeypatch):
    # each line a stated failure and a claim (review15b item 18's input): the claims' times are read once, not once
    # per stated failure
    from logscope.pipeline.parse.signatures import match

    line = f"执行 {LAUNCHER} 过一段时间就出现下面的错误 初始化失败\n"
    calls = []
    counted = match.at_startup

    def at_startup(stage: str) -> bool:
        calls.append(stage)
        return counted(stage)

    monkeypatch.setattr(match, "at_startup", at_startup)
    counts = []
    for lines in (100, 200):
        calls.clear()
        analyze_text(line * lines)
        counts.append(len(calls))
    assert counts[0] > 0
    assert counts[1] <= 2.2 * counts[0]
