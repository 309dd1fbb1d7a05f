"""fixtures/upstream/sglang-<version>-tp2.log, written by tools/upstream/fixtures.py from the format strings each
catalogued release prints: every expected phase on both ranks, the init reading, and the release range the
wordings imply containing the release that wrote them."""

from __future__ import annotations

import pytest

from logscope.core import phases, upstream
from tests.helpers import analyze_paths

VERSIONS = upstream.versions()


def _key(version: str) -> tuple:
    return tuple(int(p) if p.isdigit() else -1 for p in version.replace(".post", ".").split("."))


# what the oldest releases do not print at all (their catalogue has no such wording): 0.3 prints no init end,
# no KV cache line and no capture end; 0.4.0 adds the capture end, 0.4.1 the KV line, 0.4.3 the init end
NOT_PRINTED = {
    "0.3": {"init_distributed_end", "kv_cache_allocated", "capture_end"},
    "0.4.0": {"init_distributed_end", "kv_cache_allocated"},
    "0.4.1": {"init_distributed_end"},
    "0.4.2": {"init_distributed_end"},
}


def _not_printed(version: str) -> set[str]:
    return next((gone for head, gone in NOT_PRINTED.items() if version.startswith(head + ".")), set())


@pytest.mark.parametrize("version", VERSIONS)
def test_every_release_startup_is_read_end_to_end(version):
    report = analyze_paths(f"fixtures/upstream/sglang-{version}-tp2.log")
    assert report["coverage"]["unrecognized"] == []
    assert report["inputs"][0]["recognized_lines"] == report["inputs"][0]["lines"]
    (launch,) = report["launches"]
    assert [r["rank"] for r in launch["ranks"]] == ["TP0", "TP1"]
    for rank in launch["ranks"]:
        seen = {p["phase"] for p in rank["phases"]}
        expected = set(phases.expected_phases()) - _not_printed(version)
        assert expected <= seen, (rank["rank"], expected - seen)
        load_end = next(p for p in rank["phases"] if p["phase"] == "load_weight_end")
        assert load_end["avail_gib"] == 106.90
    found = launch["sglang_version"]
    if found["range"] is not None:
        low, high = found["range"]
        assert _key(low) <= _key(version) <= _key(high)


def test_0_5_23_gives_the_eager_init_reading_and_its_version_range():
    report = analyze_paths("fixtures/upstream/sglang-0.5.23-tp2.log")
    (launch,) = report["launches"]
    rank = launch["ranks"][0]
    init = [p for p in rank["phases"] if p["phase"] == "init_distributed_end"]
    assert [p["usage_gib"] for p in init] == [0.00]
    assert "init_parallel_end" in {p["phase"] for p in rank["phases"]}
    found = launch["sglang_version"]
    assert found["version"] is None and found["range"][1] == "0.5.23"
    assert _key(found["range"][0]) >= _key("0.5.22")
    assert found["how"].startswith("inferred from")
    assert found["evidence"]


def test_0_5_23_ledger_reads_the_pre_weights_memory_from_the_card_not_the_baseline():
    """0.5.21+ distributed/bootstrap.py measure_pre_model_load_memory takes both readings behind "Memory baseline
    taken" after init_parallel_runtime built every group: it prints about 0.00. The memory taken before weights is
    the card minus "Load weight begin": 143771 - 616 MiB (nvidia-smi -q) = 139.80 GiB, - 137.70 = 2.10 GiB; the
    context (0.5 GiB, the typical size) and the eager cells (pynccl 0.758 + custom AR v2 0.080 = 0.838 GiB) are
    non-zero and the residual is 2.10 - 0.50 - 0.84 = 0.76 GiB."""
    ledger = analyze_paths("fixtures/upstream/sglang-0.5.23-tp2-with-smi.log")["launches"][0]["ranks"][0]["ledger"]
    items = {i["item"]: i for i in ledger}
    assert items["cuda_context"]["gib"] == 0.5
    assert items["cuda_context"]["measured_pre_existing_gib"] == 2.1
    assert items["comm_eager"]["gib"] == 0.84
    assert items["comm_eager"]["measured_baseline_gib"] == 0.0
    assert items["unexplained"]["gib"] == 0.76
    assert round(sum(i["gib"] for i in ledger), 2) == 139.8
