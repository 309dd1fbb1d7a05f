"""runtime16: a sentence that labels the code span after it ("Error message: `KeyError: '...'`", probe
sgl-project/sglang#519) is prose whose span is the exception, not a record that opens with the word "Error": the
exception is read (and placed by the paste's own words), where the whole line used to be listed as an unread failure."""

from __future__ import annotations

import pytest

from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse.classify import _looks_like_a_record

LAUNCH = "Failed to launch the sglang server:\n\n"


def _failures(text: str) -> list[tuple[str, str, str | None]]:
    analysis = analyze_model([Source(name="paste.md", path=None, data=text.encode())])
    return [
        (f.finding, f.phase, f.values.get("error") or f.event.data.get("exception"))
        for fs in analysis.failures.values()
        for f in fs
    ]


@pytest.mark.parametrize(
    "line",
    [
        "Error message: `KeyError: 'lm_head.weight'`",
        "Error log: `KeyError: 'lm_head.weight'`",
        "Error message is `KeyError: 'lm_head.weight'`",
    ],
)
def test_the_labelled_exception_is_read_and_placed_at_startup(line):
    ((finding, phase, _),) = _failures(LAUNCH + line + "\n")
    assert (finding, phase) == ("startup-crash", "startup")


def test_a_record_that_opens_with_an_exception_stays_a_record():
    assert _looks_like_a_record("Error: CUDA error: out of memory")
    assert _looks_like_a_record("ErrorCode 3: device lost")
    assert _looks_like_a_record("Exception in thread Thread-3 (forward_thread_func):")
    assert not _looks_like_a_record("Error message: `KeyError: 'lm_head.weight'`")
