"""review14b items 1, 2, 3, 7, 14: sentences that name a count, a setting, a noun, a rule or the user's own act in a
failure's words state no failure of the run; the failures the forms were written for still read."""

from __future__ import annotations

import pytest

from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse.parsers.stated_failure import parse


def _findings(text: str) -> list[str]:
    analysis = analyze_model([Source(name="paste.md", path=None, data=text.encode())])
    return sorted(f.finding for found in analysis.failures.values() for f in found)


@pytest.mark.parametrize(
    "sentence",
    [
        # item 1: a count after "returns" is no HTTP status
        "The benchmark returned 523 requests per minute on one H100 with sglang 0.5.3.",
        "With sglang 0.5.3 on H100 the server returns 512 tokens per request and we see 40 tok/s.",
        "The embedding endpoint returns 544 embeddings per second.",
        # item 2: the timeout as a setting or a section
        "Please see the timeout section of the docs for the right value.",
        "I get the request timeout from the config file and pass it to the client.",
        # item 3: OOM as a noun, or what may happen
        "Set the container OOM score adjustment to -1000 so that the kernel picks other processes.",
        "The pod OOM score is -997.",
        "The engine will OOM if you set --max-running-requests too high.",
        "In the README: The engine will OOM if you set --max-running-requests too high.",
        # item 7: a change of how often, the user's own stop
        "Added a health check so the process panics less often.",
        "We killed all worker processes before upgrading to sglang 0.5.3, then started them again.",
        # item 14: a general rule in the present
        "Setting --mem-fraction-static above 0.9 results in out of memory on 24 GB cards, so the default is 0.88.",
        "A larger chunked prefill size leads to OOM on small GPUs; see the docs for the right value.",
    ],
)
def test_a_count_a_setting_a_noun_a_rule_or_the_user_s_stop_states_no_failure(sentence):
    assert parse(sentence) is None


@pytest.mark.parametrize(
    ("sentence", "said"),
    [
        ("The server returns 500 errors after a while.", "returns 500"),
        ("It returned HTTP 502 on every call.", "returned HTTP 502"),
        ("The router returns 503 Service Unavailable.", "returns 503"),
        ("The server returns a 500 for every request.", "returns a 500"),
        ("I got NCCL timeout after 600s.", "got NCCL timeout"),
        ("I hit a timeout during warmup.", "hit a timeout"),
        ("After several hours the server OOMs.", "server OOMs"),
        ("Decode node OOM after running for a while.", "node OOM"),
        ("it OOMs during capture.", "it OOMs"),
        ("The watchdog killed the server.", "killed the server"),
        ("The router panics when a worker is removed.", "router panics"),
        ("The router panics more often since 0.5.3.", "router panics"),
        ("Enabling it resulted in an OOM during capture.", "resulted in an OOM"),
        ("this leads to OOM after a few requests.", "leads to OOM"),
    ],
)
def test_the_failures_the_forms_read_still_read(sentence, said):
    parsed = parse(sentence)
    assert parsed is not None and parsed.data["said"] == said


HEALTHY = (
    "### Describe the bug\n"
    "Throughput is low. With sglang 0.5.3 on H100 the server returns 512 tokens per request and we see 40 tok/s.\n\n"
    "```\n"
    "[2025-10-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=1, mem_fraction_static=0.85)\n"
    "[2025-10-01 10:00:30] The server is fired up and ready to roll!\n"
    "[2025-10-01 10:01:00] Decode batch. #running-req: 8, #token: 4096, token usage: 0.05, gen throughput (token/s): 40.12,"
    " #queue-req: 0\n"
    "```\n"
)


def test_a_healthy_perf_report_with_a_count_in_the_500s_has_no_failure():
    assert _findings(HEALTHY) == []
    # (the same report whose server answers a 5xx status is a failure while serving)
    failed = HEALTHY.replace("returns 512 tokens per request", "returns 502 on every request")
    assert _findings(failed) == ["runtime-crash"]


def test_a_long_sentence_of_rejected_failure_words_reads_a_bounded_number_of_them(monkeypatch):
    """review14b item 9: each failure word read re-reads the sentence before it (its clause, its turn): the words read
    per sentence are capped, so a 32 KiB sentence of denied crashes costs a bounded number of those reads."""
    from logscope.pipeline.parse.parsers import stated_failure

    reads: list[int] = []
    real = stated_failure.CLAUSE

    class Counting:
        def split(self, text):
            reads.append(len(text))
            return real.split(text)

        def __getattr__(self, name):
            return getattr(real, name)

    monkeypatch.setattr(stated_failure, "CLAUSE", Counting())
    sentence = "the server never crashes, " * 1250
    assert stated_failure.parse(sentence) is None
    assert len(reads) == stated_failure.MAX_REJECTED
    assert sum(reads) <= stated_failure.MAX_REJECTED * len(sentence)
    # (a failure stated after a few denied ones still reads)
    reads.clear()
    parsed = stated_failure.parse("the server never crashes, " * 3 + "but then the scheduler crashed during decode.")
    assert parsed is not None and parsed.data["said"] == "crashed"


def test_an_open_mpi_stop_signal_is_no_failure_a_crash_signal_is():
    """review14b item 12: process-openmpi-signal skips SIGINT (2) and SIGTERM (15), as its siblings' `unless` does."""
    stopped = "```\n[node1:04567] Signal: Terminated (15)\n[node1:04567] Signal code:  (0)\n```\n"
    assert _findings(stopped) == []
    assert _findings(stopped.replace("Terminated (15)", "Interrupt (2)")) == []
    assert _findings(stopped.replace("Terminated (15)", "Segmentation fault (11)")) == ["failure-time-unknown"]
