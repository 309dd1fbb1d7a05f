"""False findings of session 17's probes (precision17): a record a library prints at its info level, and the words of
a change that handles an error, are no failure of the run; the same failure printed at a failing level, or reported as
this run's, still is."""

from __future__ import annotations

from typing import Any

import pytest

from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse.classify import _before_failure


def _rules(text: str) -> list[str]:
    document = analyze_sources([Source(name="paste.log", path=None, data=text.encode())], cases=False)
    findings: list[dict[str, Any]] = document["findings"]
    return [f["rule"] for f in findings]


# NCCL's INFO() records of a plugin it does not find, before it loads an older one (nccl 2.19-2.27 src/plugin/net*.cc),
# in the shape an NCCL_DEBUG=INFO log prints them (probe pytorch/pytorch#105287)
_NCCL_INFO_PLUGIN = (
    "node7:180457:180457 [0] NCCL INFO Bootstrap : Using eth0:192.168.0.3<0>\n"
    "node7:180457:180457 [0] NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v6 symbol.\n"
    "node7:180457:180457 [0] NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v10 symbol.\n"
    "node7:180457:180457 [0] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin v8 (v8)\n"
)


def test_an_nccl_info_record_with_failure_words_is_no_failure():
    assert _rules(_NCCL_INFO_PLUGIN) == []


def test_the_same_words_at_nccls_warn_level_stay_a_failure():
    text = _NCCL_INFO_PLUGIN.replace("[0] NCCL INFO NET/Plugin: Failed", "[0] NCCL WARN NET/Plugin: Failed", 1)
    assert _rules(text) == ["nccl-error"]


def test_an_nccl_info_line_beside_a_real_failure_leaves_the_failure():
    text = _NCCL_INFO_PLUGIN + (
        "node7:180457:180470 [0] NCCL WARN socketPollConnect: Connect to 10.0.0.4<56849> returned 113(No route to host)\n"
    )
    assert _rules(text) == ["nccl-error"]


# a pull request's line that quotes the error its change catches (probe crynux-network/crynux-node#59): the catalogue's
# error-level "error: {...}" template read it as an error SGLang logged
def test_a_change_that_catches_an_error_states_no_failure():
    assert _rules("- update stable-diffusion-task lib to catch RuntimeError: CUDA error: out of memory\n") == []
    assert _rules("This PR fixes error: CUDA error: out of memory in the scheduler\n") == []


def test_the_error_reported_after_the_change_still_is_a_failure():
    # the clause after "but" reports this run's error, whatever the change before it did
    assert _rules("I added a retry but it still fails with RuntimeError: CUDA error: out of memory\n") == ["oom-time-unknown"]
    assert _rules(
        "I use try/except to catch the RuntimeError but the server still died with error: CUDA error: out of memory\n"
    ) == ["failure-time-unknown"]


def test_the_error_a_sentence_reports_is_still_read():
    assert _rules("After 2 hours the server printed error: CUDA error: out of memory\n") == ["runtime-crash"]
    # a question that says the writer got the error still reports it (the change shape alone is ruled out)
    assert _rules("Why do I get error: CUDA error: out of memory?\n") == ["failure-time-unknown"]


# SGLang's own wordings that its released code logs below error level and that say the code goes on (the levels of
# catalog/sglang.json): "Sage Attention backend failed to import. Falling back to Flash Attention." (info), "Failed to
# parse environment variable %s=%r as %s, using default %r" (warning)
_GOES_ON_LOG = (
    "[2026-01-01 10:00:00] Sage Attention backend failed to import. Falling back to Flash Attention.\n"
    "[2026-01-01 10:00:00] Failed to parse environment variable SGLANG_FOO='abc' as int, using default 4\n"
)


def test_a_below_error_wording_that_goes_on_is_no_failure():
    assert _rules(_GOES_ON_LOG) == []


def test_a_below_error_wording_that_does_not_say_it_goes_on_stays_listed():
    # info level, but no word that it carries on: "Warmup req processing failed" (sglang 0.5.x, diffusion warmup)
    assert _rules(_GOES_ON_LOG + "[2026-01-01 10:00:01] Warmup req processing failed\n") == ["unrecognized-failure"]


def test_the_same_words_in_a_line_that_is_not_the_wording_stay_listed():
    # not SGLang's wording (another printer's, no catalogued template): listed as before
    assert _rules("[2026-01-01 10:00:00] Custom loader failed to import, falling back to nothing at all and dying\n") == [
        "unrecognized-failure"
    ]


# the clause _before_failure gives handles_it: after the last turn that a failure word follows, up to that word; the
# same answer on a long line of turns (it was searched on from every turn, quadratic: a 30 KB line took 14 s)
@pytest.mark.parametrize(
    ("line", "before"),
    [
        ("I added a retry but it still fails with RuntimeError: x", " it still "),
        ("update the lib to catch RuntimeError: CUDA error: out of memory", "update the lib to catch "),
        ("it works; but then it crashed; and that is all", " then it "),
        ("nothing to see here", "nothing to see here"),
        ("a; " * 10000 + "to catch error", " to catch "),
    ],
)
def test_the_clause_before_the_failure_word(line, before):
    assert _before_failure(line) == before
