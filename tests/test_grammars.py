"""Every grammar compiles under LALR; every sglang.lark rule has a transformer method."""

from __future__ import annotations

import re

import pytest

from logscope.core.grammar_loader import parser
from logscope.core.resources import data_dir
from logscope.pipeline.parse.parsers.sglang_line import _ToData, parse_line

GRAMMARS = sorted(p.stem for p in data_dir("grammars").glob("*.lark") if p.stem != "common")


@pytest.mark.parametrize("name", GRAMMARS)
def test_grammar_compiles(name):
    assert parser(name).options.parser == "lalr"


def test_every_sglang_rule_has_a_transformer_method():
    text = (data_dir("grammars") / "sglang.lark").read_text()
    names = set(re.findall(r"^\??([a-z_]+):", text, re.M)) | set(re.findall(r"->\s*([a-z_]+)", text))
    # rules inlined by "?" or whose every alternative carries an alias never reach the transformer
    inlined = {"start", "message", "prefix", "exc_body", "end_reading", "capture_end_tail", "kv_sizes"}
    missing = [n for n in names - inlined if not hasattr(_ToData, n)]
    assert missing == []


@pytest.mark.parametrize(
    "line",
    [
        "[2025-06-12 22:41:35 TP0] Init torch distributed ends. mem usage=0.1",
        "[2026-05-07 13:39:15 DP1 TP1 EP1] Memory pool end. avail mem=27.5",
        "[2026-05-07 13:39:15 DP1 TP1 EP1] Memory pool end. avail mem=27",
        "Capturing batches (bs=24 avail_mem=21.8",
        "[2025-10-16 09:06:10 TP5] Load weight begin. avail mem=137.2",
        "[2025-10-16 09:06:22 TP5] KV Cache is allocated. #tokens: 2795207, K size: 53.31 GB, V size: 53.3",
    ],
)
def test_a_number_cut_by_truncation_is_never_read(line):
    assert parse_line(line) is None


def test_every_prefix_variant():
    cases = {
        "[2025-03-09 14:40:46 TP4] Memory pool end. avail mem=1.00 GB": "TP4",
        "[2025-03-09 14:40:46.123 DP0 PP1 TP12 EP12] Memory pool end. avail mem=1.00 GB": "DP0 PP1 TP12 EP12",
        "[2025-03-09 14:40:46 DP1 ATTN_CP0 MOE_DP1 TP2 EP2] Memory pool end. avail mem=1.00 GB": "DP1 ATTN_CP0 MOE_DP1 TP2 EP2",
        "[19:01:01 TP0] Memory pool end. avail mem=1.00 GB": "TP0",
        "[rank3]: Memory pool end. avail mem=1.00 GB": "rank3",
        "2025-04-13 14:53:45 INFO 507 [model_runner.py:313] Memory pool end. avail mem=1.00 GB": "pid 507",
    }
    for line, label in cases.items():
        prefix, kind, data = parse_line(line)
        assert prefix["rank"].label == label and kind == "memory_pool_end" and data["avail_gib"] == 1.0
    prefix, kind, _ = parse_line("[2025-03-09 14:40:46] The server is fired up and ready to roll!")
    assert prefix["rank"] is None and kind == "server_ready"


def test_older_and_rarer_variants():
    prefix, kind, data = parse_line("[gpu=0] KV Cache is allocated. K size: 0.21 GB, V size: 0.21 GB.")
    assert prefix["rank"].label == "gpu=0" and kind == "kv_cache_allocated" and data["kv_gib"] == 0.42 and "tokens" not in data
    _, kind, data = parse_line(
        "[2024-09-01 10:00:00 TP0] max_total_num_tokens=350257, max_prefill_tokens=16384, "
        "max_running_requests=4096, context_len=131072"
    )
    assert kind == "scheduler_summary" and data["tokens"] == 350257 and "avail_gib" not in data
    assert "context_len" not in data  # a bare integer ending the line may have been cut
    assert parse_line("[2024-09-01 10:00:00 TP0] max_total_num_tokens=35") is None
    _, kind, data = parse_line(
        "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, "
        "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5"
    )
    assert kind == "exception" and data["exception"] == "torch.distributed.DistBackendError"
    _, kind, data = parse_line("RuntimeError: CUDA error: out of memory")
    assert kind == "oom" and data["cuda_error"] is True
