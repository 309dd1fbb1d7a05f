"""A failure read out of a sentence and the time that same sentence gives it (signatures/match._counted): "The server
crashes on launch with `RuntimeError: ...`" places the quoted failure at startup as a claim on the line before it
would. And a clause that says a time went well, the bare verb "works" included ("It works at startup, but later it
crashed ..."), names when it did NOT fail (parse/parsers/time_cues._WORKED): its startup words place nothing."""

from __future__ import annotations

import pytest

from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import Source
from tests.helpers import failure_placed

# torch's CUDA check (torch 2.5-2.9 wording), quoted in the sentence
ERROR = "`RuntimeError: CUDA error: an illegal memory access was encountered`"


def _placed(paste: str) -> tuple[str, str]:
    return failure_placed(f"{paste}\n")


@pytest.mark.parametrize(
    ("sentence", "placed"),
    [
        (f"The server crashes on launch with {ERROR}.", ("startup-crash", "startup")),
        (f"Our 2-GPU box fails at start, it crashed with {ERROR}.", ("startup-crash", "startup")),
        (f"After running for 3 hours the server crashed with {ERROR}.", ("runtime-crash", "serving")),
        # (a claim of the same sentence that another clause denies: nothing)
        (f"It does not crash on launch, it crashes later with {ERROR}.", ("failure-time-unknown", "unknown")),
        (f"If it crashes on launch with {ERROR}, lower --mem-fraction-static.", None),
    ],
)
def test_a_claim_in_the_failure_s_own_sentence_places_it(sentence, placed):
    if placed is None:  # a supposed failure: its claim places nothing, whatever else reads the quote
        analysis = analyze_model([Source(name="paste.log", path=None, data=f"{sentence}\n".encode())])
        assert {f.phase for fs in analysis.failures.values() for f in fs} <= {"unknown"}
    else:
        assert _placed(sentence) == placed


@pytest.mark.parametrize(
    "sentence",
    [
        f"It works at startup, but later it crashed with {ERROR}.",
        f"Startup works, but it crashes after a few minutes: {ERROR}",
        f"Loading the model worked, however it crashed with {ERROR}.",
    ],
)
def test_a_start_that_went_well_does_not_place_the_failure(sentence):
    assert _placed(sentence) == ("failure-time-unknown", "unknown")


@pytest.mark.parametrize(
    ("sentence", "placed"),
    [
        # the clause after the turn still says when
        (f"It worked for a while, but it crashes during inference with {ERROR}.", ("runtime-crash", "serving")),
        # a task's "works on" is no time that went well
        (
            f"The server crashes during startup while the scheduler works on the graph capture: {ERROR}",
            ("startup-crash", "capture"),
        ),
    ],
)
def test_work_words_that_do_not_say_it_went_well_keep_their_time(sentence, placed):
    assert _placed(sentence) == placed
