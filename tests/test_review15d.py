"""review15d's items: the time a comma-less "is done" / "was over" clause gives, a count word that counts no failure
only right before the failure noun, "failed to deploy" after a model's own name, "suggests" after the evidence, one-word
error names in code spans."""

from __future__ import annotations

from typing import Any

import pytest

from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse.parsers import time_claims


def _rules(text: str) -> list[str]:
    document: dict[str, Any] = analyze_sources([Source(name="paste.md", path=None, data=text.encode())], cases=False)
    return [finding["rule"] for finding in document["findings"]]


@pytest.mark.parametrize(
    ("without_comma", "with_comma"),
    [
        (
            "After the benchmark is done the server crashes with an NCCL error.",
            "After the benchmark is done, the server crashes with an NCCL error.",
        ),
        (
            "When inference was over the server crashed with an NCCL error.",
            "When inference was over, the server crashed with an NCCL error.",
        ),
    ],
    ids=["is-done", "was-over"],
)
def test_an_ended_run_gives_the_same_time_with_or_without_the_comma(without_comma: str, with_comma: str):
    # the run ended before the failure: no serving time either way (a comma-less clause read "crashed while serving")
    assert _rules(without_comma) == _rules(with_comma) == ["failure-time-unknown"]


def test_done_with_a_preposition_and_over_a_span_end_no_run():
    # "inference done with the client" is a participle, "over a large dataset" a preposition: the run goes on
    assert _rules("While running inference over a large dataset, the server crashed with an NCCL error.") == ["runtime-crash"]


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        # a message that opens with "No" is the failure, not a count of none
        ("I got No CUDA GPUs are available error when launching the server.", ["startup-crash"]),
        # "no" before another noun counts no error: the CUDA error later in the sentence is the failure
        ("I got no output for a while and then a CUDA error during decode.", ["failure-time-unknown"]),
        # the count right before the failure noun still counts none
        ("The log shows zero errors", []),
        ("I got zero errors", []),
        ("I got no errors at all.", []),
    ],
    ids=["no-cuda-gpus", "no-output-then-error", "shows-zero-errors", "got-zero-errors", "got-no-errors"],
)
def test_a_count_word_counts_no_failure_only_right_before_the_failure_noun(text: str, rules: list[str]):
    assert _rules(text) == rules


@pytest.mark.parametrize(
    "text",
    [
        "DeepSeek-V3 failed to deploy on 2 H100 nodes.",
        "Qwen3-235B failed to deploy with TP=8.",
        "SGLang 0.4.6 failed to deploy on H20.",
        "But the container failed to deploy.",
    ],
)
def test_a_model_by_its_own_name_failed_to_deploy_at_startup(text: str):
    claim = time_claims.parse(text)
    assert claim is not None and claim.data["stage"] == "startup"


@pytest.mark.parametrize(
    "text", ["the PR bot failed to deploy the preview build", "The docs site failed to deploy.", "The CI failed to deploy."]
)
def test_a_ci_or_docs_deployment_claims_no_startup(text: str):
    assert time_claims.parse(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "This suggests during startup the scheduler crashed with an NCCL error.",
        "The traceback suggests during startup the scheduler crashed with an NCCL error.",
    ],
)
def test_suggests_after_the_evidence_or_before_a_preposition_is_no_advice(text: str):
    assert _rules(text) == ["startup-crash"]


def test_advice_stays_advice():
    assert _rules("It suggests to lower the memory fraction.") == []


@pytest.mark.parametrize(
    "text", ["The `cudaErrorIllegalAddress` occurred again during decode.", "The `Timeout` recurred during decode."]
)
def test_a_one_word_error_name_in_a_code_span_is_a_quoted_failure(text: str):
    assert _rules(text) == ["failure-time-unknown"]


@pytest.mark.parametrize("text", ["The `error_log` persists.", "The `--watchdog-timeout` happens to be 600."])
def test_an_identifier_or_an_option_in_a_code_span_is_none(text: str):
    assert _rules(text) == []


def test_a_ci_word_before_the_program_names_the_program():
    # the CI word heads the subject only right before the verb (at most one CI noun after it)
    # ("failing at launch" names the time too since runtime17: the server's launch, so startup)
    assert _rules("In my tests sglang is failing at launch.") == ["startup-crash"]
    assert _rules("The lint job is failing on main because of an unrelated ruff update") == []
    assert _rules("test_moe is failing with an assertion.") == []
