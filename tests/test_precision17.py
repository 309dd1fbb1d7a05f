"""False findings of session 17's probes (precision17): a record a library prints at its info level, and the words of
a change that handles an error, are no failure of the run; the same failure printed at a failing level, or reported as
this run's, still is."""

from __future__ import annotations

from typing import Any

from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import Source


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
