"""A reproduction's client step (parse/parsers/time_claims.CLIENT_STEPS): a command or call that only talks to a
server that is up, shown before the server's failure, places that failure while serving, inferred and said so; shown
after the failure, only meant ("I will try ..."), or a command that launches its own server places nothing."""

from __future__ import annotations

import pytest

from logscope.core.model import Failure
from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse.parsers import time_claims

LAUNCH = "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --trust-remote-code --port 30000\n"
WATCHDOG = (
    "[rank14]:[E319 05:16:21.789822241 ProcessGroupNCCL.cpp:1595] [PG ID 2 PG GUID 3 Rank 14] Process group watchdog "
    "thread terminated with exception: CUDA error: an illegal memory access was encountered\n"
)


def _failures(text: str) -> list[Failure]:
    analysis = analyze_model([Source(name="paste.log", path=None, data=text.encode())])
    return [f for fs in analysis.failures.values() for f in fs]


def _failure(text: str) -> Failure:
    (found,) = _failures(text)
    return found


def _reproduction(step: str) -> str:
    """An issue body's shape: the launch and the client step in one fence, the error in the next."""
    return f"### Reproduction\n\n```bash\n{LAUNCH}\n{step}\n```\n\nThe server then dies with:\n\n```\n{WATCHDOG}```\n"


@pytest.mark.parametrize(
    ("step", "what"),
    [
        # curl with the URL on its first line, continued (the shape of built paste sglang-10001), or on one line
        (
            'curl ${BASE_URL}/v1/completions \\\n    -H "Content-Type: application/json" \\\n    -d \'{"prompt": "hi"}\'',
            "a request sent to the server's generation endpoint",
        ),
        (
            'curl -X POST http://127.0.0.1:30000/generate -H "Content-Type: application/json" -d \'{"text": "Hi"}\'',
            "a request sent to the server's generation endpoint",
        ),
        ("curl -s http://localhost:30000/v1/chat/completions -d @req.json", "a request sent to the server's generation endpoint"),
        # the openai package's client made with the server's base_url
        (
            'client = openai.Client(base_url="http://127.0.0.1:30000/v1", api_key="EMPTY")',
            "a client of the server's OpenAI-compatible endpoint",
        ),
        (
            'client = OpenAI(api_key="EMPTY", base_url="http://127.0.0.1:30000/v1")',
            "a client of the server's OpenAI-compatible endpoint",
        ),
        # SGLang's benchmark clients: the module path of 0.5.15.post1+, the one-batch benchmark against a running server
        (
            "python3 -m sglang.benchmark.serving --backend sglang --dataset-name random --num-prompts 1000",
            "a benchmark client sends requests to a running server",
        ),
        (
            "python3 -m sglang.bench_one_batch_server --model None --base-url http://localhost:30000 --batch-size 16",
            "a benchmark client sends requests to a running server",
        ),
    ],
    ids=[
        "curl-continued",
        "curl-generate",
        "curl-chat",
        "openai-client",
        "openai-api-key-first",
        "benchmark-serving",
        "one-batch-base-url",
    ],
)
def test_a_client_step_before_the_failure_places_it_while_serving_inferred(step, what):
    failure = _failure(_reproduction(step))
    assert (failure.finding, failure.phase) == ("runtime-crash", "serving")
    assert what in failure.phase_basis
    assert failure.phase_basis.startswith("inferred from line") and "lower confidence" in failure.phase_basis


@pytest.mark.parametrize(
    "text",
    [
        # the one-batch benchmark without --base-url launches a server of its own: its startup may be what failed
        _reproduction("python3 -m sglang.bench_one_batch_server --model-path meta-llama/Llama-3.1-8B --batch-size 16"),
        # a probe of the server's health is no request it served (SGLang's wait_for_server polls it during startup)
        _reproduction("curl http://127.0.0.1:30000/health"),
        # a download of a file whose name starts like an endpoint
        _reproduction("curl -LO https://raw.githubusercontent.com/org/repo/main/tools/generate.py"),
        # an accuracy script of the repository: the built pastes label the failure after it time unknown (0/1)
        _reproduction("python3 benchmark/gsm8k/bench_sglang.py --parallel 1400 --num-questions 1400"),
        # the client step shown after the failure
        f"```\n{LAUNCH}```\n```\n{WATCHDOG}```\nThen I sent curl http://127.0.0.1:30000/v1/chat/completions -d '{{}}'\n",
        # only meant: a plan in a sentence, with the command in a code span or bare
        f"Next I will try `python3 -m sglang.bench_serving --num-prompts 10` as well.\n\n```\n{WATCHDOG}```\n",
        f"I plan to run python3 -m sglang.bench_serving --num-prompts 10 against it.\n\n```\n{WATCHDOG}```\n",
        f"Could you try `curl http://127.0.0.1:30000/generate -d '{{}}'` on your side?\n\n```\n{WATCHDOG}```\n",
    ],
    ids=[
        "one-batch-launches",
        "health-probe",
        "curl-download",
        "accuracy-script",
        "after-the-failure",
        "will-try-span",
        "plan-to-run",
        "could-you",
    ],
)
def test_a_client_step_that_sent_no_request_before_the_failure_places_nothing(text):
    assert _failure(text).phase == "unknown"


def test_a_phase_line_after_the_client_step_places_the_failure_by_the_log():
    logged = "[2026-01-05 10:00:00 TP0] Load weight begin. avail mem=78.50 GB\n" + WATCHDOG.replace(
        "[rank14]:", "[2026-01-05 10:00:01 TP0] "
    )
    text = f"```bash\n{LAUNCH}curl http://127.0.0.1:30000/generate -d '{{}}'\n```\n```\n{logged}```\n"
    assert _failure(text).phase == "load_weight"


def test_a_launch_and_a_client_step_without_a_failure_give_no_failure():
    assert _failures(f"```bash\n{LAUNCH}\ncurl http://127.0.0.1:30000/generate -d '{{}}'\n```\n") == []


def test_a_client_step_claim_says_it_is_one_and_a_sentence_does_not():
    """place15: a claim carries `client` (rules/startup-incomplete.yaml reads a sentence of the serving time, never a
    client step, as a sign the pasted log went past startup)."""
    step = time_claims.parse("python3 -m sglang.bench_serving --backend sglang --num-prompts 100 --port 30000")
    assert step is not None and step.data["stage"] == "serving" and step.data["client"] is True
    said = time_claims.parse("The server hangs after running for about 3 hours.")
    assert said is not None and said.data == {
        "stage": "serving",
        "said": "running for about 3 hours",
        "firm": True,
        "client": False,
    }
