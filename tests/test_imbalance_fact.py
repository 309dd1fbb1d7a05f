"""The imbalance fact (logscope/pipeline/rule_engine/imbalance.py) on hand-made facts: the low and high ranks
before the weights, the spread, and the cause, tried in order."""

from __future__ import annotations

from logscope.pipeline.rule_engine import imbalance as im


def _rank(label: str, before: float | None, init_usage: float = 1.5, gpu: int = 0, draft: bool = False) -> dict:
    phase = {"init_distributed_end": {"usage_gib": init_usage}}
    if before is not None:
        phase["load_weight_begin"] = {"phase": "load_weight_begin", "avail_gib": before, "rank": label}
    return {"rank": label, "gpu": gpu, "phase": phase, "draft": {"load_weight_begin": {}} if draft else {}}


def test_the_spread_before_the_weights_and_a_cause_from_before_the_start():
    ranks = [_rank("TP0", 78.0, gpu=0), _rank("TP1", 60.0, gpu=1), _rank("TP2", None, gpu=2)]
    fact = im.imbalance_fact([], [], ranks, [], {})
    assert (fact.ranks_read, fact.low_rank, fact.high_rank) == (2, "TP1", "TP0")
    assert (fact.low_gib, fact.high_gib, fact.spread_gib, fact.spread_pct) == (60.0, 78.0, 18.0, 23.1)
    assert [r["rank"] for r in fact.readings] == ["TP1", "TP0"]
    assert fact.cause == im.BEFORE_START  # init-distributed used the same (1.5 GiB) on both


def test_the_causes_in_order():
    ranks = [_rank("TP0", 78.0, init_usage=1.5, gpu=0), _rank("TP1", 60.0, init_usage=2.5, gpu=1, draft=True)]
    busy = [{"index": 1, "name": "H200", "processes": [{"pid": 1}, {"pid": 2}]}, {"index": 0, "name": "H200"}]
    assert im.imbalance_fact([], [], ranks, busy, {}).cause == im.OTHER_PROCESS
    mixed = [{"index": 0, "name": "H200"}, {"index": 1, "name": "H100"}]
    assert im.imbalance_fact([], [], ranks, mixed, {}).cause == im.MIXED_GPUS
    assert im.imbalance_fact([], [], ranks, [], {}).cause == im.DRAFT_MODEL  # init usage differs by 1 GiB
    plain = [_rank("TP0", 78.0, init_usage=1.5), _rank("TP1", 60.0, init_usage=2.5)]
    assert im.imbalance_fact([], [], plain, [], {"enable_dp_attention": True}).cause == im.DP_ATTENTION
    assert im.imbalance_fact([], [], plain, [], {}).cause == im.NOT_SHOWN


def test_sglangs_check_and_the_draft_worker():
    check = {"kind": "imbalance", "rank": "TP1", "frames_text": "eagle_worker.py:80 __init__"}
    fact = im.imbalance_fact([check, {"kind": "load_weight_begin"}], [], [], [], {})
    assert fact.raised == [check] and fact.ranks_read == 0 and fact.cause == im.DRAFT_WORKER
    failure = {"finding": "memory-imbalance", "rank": "TP0"}
    assert im.imbalance_fact([], [failure], [], [], {}).raised == [failure]
