"""The wordings of the newest releases, each as its format string prints it (catalog/sglang.json names the
release range): the kind and numbers logscope reads, end to end through `analyze`."""

from __future__ import annotations

import pytest

from logscope.pipeline.parse.parsers.sglang_line import parse_line
from tests.helpers import analyze_text

P = "[2026-10-20 09:00:03 TP0] "

CASES = [
    # distributed/bootstrap.py, 0.5.21+
    (P + "Init parallel begin.", "init_distributed_begin", {}),
    (P + "Init parallel ends. elapsed=2.31 s", "init_parallel_end", {"elapsed_s": 2.31}),
    (P + "Memory baseline taken. mem usage=1.53 GB", "init_distributed_end", {"usage_gib": 1.53}),
    # cuda_graph_setup.py capture_decode_graph, 0.5.16+: bs list before elapsed
    (
        P + "Capture target decode CUDA graph end. bs=[1, 2, 4], elapsed=18.00 s, mem usage=1.40 GB, avail mem=13.20 GB.",
        "capture_end",
        {"bs": [1, 2, 4], "elapsed_s": 18.0, "usage_gib": 1.4, "avail_gib": 13.2, "graph": "decode"},
    ),
    (
        P + "Capture target verify CUDA graph end. elapsed=84.00 s, mem usage=0.19 GB",
        "capture_end",
        {"elapsed_s": 84.0, "usage_gib": 0.19, "graph": "verify"},
    ),
    # memory_pool.py _finalize_allocation_log: "{allocation_label} KV Cache is allocated. ..."
    (
        P + "MiniMax MSA-v1 main NVFP4 KV Cache is allocated. dtype: torch.bfloat16, #tokens: 4096, KV size: 1.25 GB",
        "kv_cache_allocated",
        {"pool_label": "MiniMax MSA-v1 main NVFP4", "tokens": 4096, "kv_gib": 1.25},
    ),
    # pool_configurator.py DSV4PoolConfigurator, 0.5.21+; the bare integer that ends the line is kept apart
    (
        P + "DSV4 memory calculation: unified=True, unified_fp8=False, dspark_draft_bf16=False, bytes_per_full_token=1234.50, "
        "available_bytes=100.25 GB, c128_state_fixed=1.00 GB, c2_state_fixed=0.50 GB, swa_fixed=2.00 GB, "
        "swa_ring_fixed=0.10 GB, c4_state_fixed=0.20 GB, full_token=123456",
        "dsv4_memory",
        {"available_bytes_gib": 100.25, "swa_fixed_gib": 2.0, "full_token_unverified": 123456},
    ),
    # kv_pool_runtime.py compute_post_capture_kv_resize, 0.5.17+
    (
        P + "Post-capture KV sizing: KV cache allocated. dtype: torch.bfloat16, #tokens: 812345, KV size: 61.98 GB, "
        "avail mem=3.10 GB",
        "post_capture_kv",
        {"tokens": 812345, "kv_gib": 61.98, "avail_gib": 3.1},
    ),
    # mooncake_transfer_engine.py, 0.5.20+: a RuntimeError without the final period, with or without the code
    ("RuntimeError: Mooncake memory registration failed", "exception", {"body_kind": "pd_transfer_failed"}),
    ("RuntimeError: Mooncake memory registration failed (ret=-1)", "exception", {"body_kind": "pd_transfer_failed", "ret": -1}),
]


@pytest.mark.parametrize(("line", "kind", "values"), CASES, ids=[c[1] + str(i) for i, c in enumerate(CASES)])
def test_newest_wording_is_read_with_its_numbers(line, kind, values):
    parsed = parse_line(line)
    assert parsed is not None
    _, got_kind, data = parsed
    assert got_kind == kind
    assert {k: data.get(k) for k in values} == values


@pytest.mark.parametrize(
    "line",
    [
        "RuntimeError: Mooncake memory registration failed",
        "RuntimeError: Mooncake memory registration failed (ret=-1)",
    ],
)
def test_mooncake_runtime_error_is_a_pd_transfer_failure(line):
    report = analyze_text(line + "\n")
    assert "pd-transfer-failed" in {f["rule"] for f in report["findings"]}


def test_a_line_naming_memory_that_no_grammar_reads_is_listed_without_a_literal():
    report = analyze_text(P + "Reserved scratch for the new thing: avail mem=12.34 GB, size=2.00 GB\n")
    assert [(m["line"], m["grammar"]) for m in report["coverage"]["unrecognized"]] == [(1, "memory_line")]


def test_a_runtime_line_without_a_memory_word_stays_out_of_the_coverage():
    report = analyze_text(
        P + "Decode batch. #running-req: 12, #token: 3400, token usage: 0.02, gen throughput (token/s): 812.5\n"
    )
    assert report["coverage"]["unrecognized"] == []
