"""KV pools are not one line per rank: a hybrid model prints a full-attention pool and a sliding-window pool.
Both belong to the rank's target model, each is named, the ledger reports both, and the phases after
them stay with the rank (a second KV line once started a draft model or a new launch)."""

from __future__ import annotations

import pytest

from tests.helpers import analyze_paths, analyze_text

LOG = "fixtures/pastes/hybrid-swa-two-pools.log"  # written in the catalog's format strings


def test_two_pools_named_by_the_sliding_window_line():
    report = analyze_paths(LOG)
    assert len(report["launches"]) == 1
    for rank in report["launches"][0]["ranks"]:
        pools = [(p["pool"], p["tokens"], p["kv_gib"], p["model"]) for p in rank["phases"] if p["phase"] == "kv_cache_allocated"]
        assert pools == [("full", 1000000, 40.0, "target"), ("swa", 800000, 4.0, "target")]
        assert [p["phase"] for p in rank["phases"]][-2:] == ["memory_pool_end", "capture_begin"]
        kv = next(i for i in rank["ledger"] if i["item"] == "kv_pool")
        assert kv["reported_kv_gib"] == 40.0 and [p["pool"] for p in kv["reported_pools"]] == ["full", "swa"]
        swa = next(i for i in rank["ledger"] if i["item"] == "swa_kv_pool")
        assert (swa["gib"], swa["kind"]) == (4.0, "read")  # the SWA pool is an item of its own
    assert report["launches"][0]["ranks"][0]["ledger"][-1]["item"] == "unexplained"
    kv_pool = {r["rank"]: next(i["gib"] for i in r["ledger"] if i["item"] == "kv_pool") for r in report["launches"][0]["ranks"]}
    # 60.00 - 15.50 and 60.00 - 15.60: measured drops, less the SWA pool's 4.00 read
    assert kv_pool == {"TP0": 40.5, "TP1": 40.4}


def test_pools_without_a_naming_line_are_numbered_in_order():
    text = (
        "[2026-01-01 10:00:10 TP0] Load weight end. type=X, avail mem=60.00 GB, mem usage=18.00 GB.\n"
        "[2026-01-01 10:00:12 TP0] KV Cache is allocated. #tokens: 1000, KV size: 2.00 GB\n"
        "[2026-01-01 10:00:12 TP0] KV Cache is allocated. #tokens: 500, KV size: 1.00 GB\n"
        "[2026-01-01 10:00:13 TP0] Memory pool end. avail mem=56.90 GB\n"
    )
    (rank,) = analyze_text(text)["launches"][0]["ranks"]
    assert [p.get("pool") for p in rank["phases"] if p["phase"] == "kv_cache_allocated"] == ["kv", "kv#2"]
    assert rank["phases"][-1]["phase"] == "memory_pool_end" and rank["phases"][-1]["model"] == "target"


def _source(name: str, text: str):
    from logscope.pipeline.ingest.ingest import Source

    return Source(name=name, path=None, data=text.encode())


def _launches(*files: tuple[str, str]) -> list[dict]:
    from logscope.pipeline.analyze import analyze_sources

    return analyze_sources([_source(name, text) for name, text in files])["launches"]


START = (
    "[{day} 10:00:0{r} TP{r}] Load weight begin. avail mem=70.00 GB\n[{day} 10:00:1{r} TP{r}] Load weight end. "
    "type=X, avail mem=40.00 GB, mem usage=30.00 GB.\n"
)


def test_inputs_that_cannot_be_one_launch_are_separate_launches():
    host_a = "".join(START.format(day="2026-01-01", r=r) for r in range(2))
    host_b = "".join(START.format(day="2026-01-01", r=r) for r in range(2))
    assert [len(launch["ranks"]) for launch in _launches(("a.log", host_a), ("b.log", host_b))] == [2, 2]
    days_apart = "".join(START.format(day="2026-01-04", r=r) for r in range(2, 4))
    assert len(_launches(("a.log", host_a), ("c.log", days_apart))) == 2
    models = (
        "python -m sglang.launch_server --model-path /m/a --tp 2\n" + host_a,
        "python -m sglang.launch_server --model-path /m/b --tp 2\n"
        + "".join(START.format(day="2026-01-01", r=r) for r in range(2, 4)),
    )
    assert len(_launches(("a.log", models[0]), ("b.log", models[1]))) == 2


def test_one_log_pasted_in_two_parts_stays_one_launch():
    first = "".join(START.format(day="2026-01-01", r=r) for r in range(2))
    rest = "".join(f"[2026-01-01 10:00:2{r} TP{r}] Memory pool end. avail mem=10.00 GB\n" for r in range(2))
    (launch,) = _launches(("part1", first), ("part2", rest))
    assert [p["phase"] for p in launch["ranks"][0]["phases"]] == ["load_weight_begin", "load_weight_end", "memory_pool_end"]
    other_ranks = "".join(START.format(day="2026-01-01", r=r) for r in range(2, 4))
    (launch,) = _launches(("tp01.log", first), ("tp23.log", other_ranks))
    assert len(launch["ranks"]) == 4


def test_memory_lines_that_are_no_phase_are_the_ranks_notes():
    text = (
        "[2026-01-01 10:00:00 TP0] Load weight begin. avail mem=70.00 GB\n"
        "[2026-01-01 10:00:01 TP1] Load weight begin. avail mem=70.00 GB\n"
        "[2026-01-01 10:00:05 TP1] DeepGEMM masked layout budget: 12.34 GiB from 50.00 GiB free.\n"
        "[2026-01-01 10:00:06 TP0] Allocating 107.37 GB host memory for hierarchical KV cache.\n"
        "[2026-01-01 10:00:07 TP0] Registering 6 cuda graph addresses\n"
    )
    ranks = {r["rank"]: r for r in analyze_text(text)["launches"][0]["ranks"]}
    assert [(n["kind"], n["line"]) for n in ranks["TP0"]["notes"]] == [("hicache_host", 4), ("ar_registering", 5)]
    assert ranks["TP0"]["notes"][0]["host_gb"] == 107.37 and ranks["TP0"]["notes"][1]["addresses"] == 6
    (budget,) = ranks["TP1"]["notes"]
    assert (budget["budget_gib"], budget["free_gib"]) == (12.34, 50.0)


def test_weight_loading_progress_says_where_loading_stopped():
    (launch,) = analyze_paths("fixtures/real/f-016-sglang-7212.log")["launches"]
    (note,) = [n for n in launch["notes"] if n["kind"] == "shard_progress"]  # the bar's last reading only
    assert (note["done"], note["total"], note["pct"], note["line"]) == (7, 13, 54, 13)


def test_a_capture_bar_without_batch_sizes_and_a_prefix_after_a_nul_are_read():
    """Releases before 0.4.8 print the capture bar with no batch size (tqdm on TP rank 0); a rank's undated prefix
    after a NUL shown in caret notation (a log a crashed writer left) still starts its line."""
    text = (
        "^@[17:43:23 TP1] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=20.62 GB\n"
        "Capturing batches (avail_mem=14.45 GB):  29%|##        | 8/28 [00:14<00:25,  1.30s/it]"
        "[2025-05-16 10:48:21 TP1] Scheduler hit an exception: Traceback (most recent call last):\n"
    )
    ranks = {r["rank"]: r["phases"] for r in analyze_text(text)["launches"][0]["ranks"]}
    assert [(p["phase"], p["avail_gib"]) for p in ranks["TP1"]] == [("load_weight_end", 20.62)]
    assert [(p["phase"], p["avail_gib"], p.get("bs")) for p in ranks["TP0"]] == [("capture_progress", 14.45, None)]


@pytest.mark.parametrize(
    "tag",
    ["node01: ", "worker-1: ", "123: ", "- ", "May 16 10:48:21 gpu-host python3[1234]: "],
)
def test_a_record_after_a_host_line_number_or_bullet_tag_is_read(tag):
    """pdsh / mpirun --tag-output hosts, grep -n's line numbers, syslog's program tag, a Markdown bullet."""
    line = "[2025-05-16 10:48:21 TP3] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=20.62 GB"
    (launch,) = analyze_text(tag + line + "\n")["launches"]
    assert [(r["rank"], p["phase"], p["avail_gib"]) for r in launch["ranks"] for p in r["phases"]] == [
        ("TP3", "load_weight_end", 20.62)
    ]


def test_a_bracketed_time_in_a_sentence_is_no_record():
    text = "It crashed at [2025-05-16 10:48:21] while loading, see below\n"
    # no rank, no phase record from the bracketed time (the sentence's "while loading" is a time claim since runtime17,
    # whose launch holds no rank, as "while loading the model" always did)
    assert [launch["ranks"] for launch in analyze_text(text)["launches"]] == [[]]
