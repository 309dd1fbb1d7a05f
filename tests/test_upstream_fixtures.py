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
    assert [p["usage_gib"] for p in init] == [1.53]
    assert "init_parallel_end" in {p["phase"] for p in rank["phases"]}
    found = launch["sglang_version"]
    assert found["version"] is None and found["range"][1] == "0.5.23"
    assert _key(found["range"][0]) >= _key("0.5.22")
    assert found["how"].startswith("inferred from")
    assert found["evidence"]


def test_0_5_23_ledger_takes_the_memory_baseline_as_the_eager_init_reading():
    """The same startup printed in 0.5.23's wordings and in the older ones gives the same ledger: "Memory
    baseline taken. mem usage=1.53 GB" is what "Init torch distributed ends. mem usage=1.53 GB" was."""
    new = analyze_paths("fixtures/upstream/sglang-0.5.23-tp2-with-smi.log")["launches"][0]["ranks"][0]["ledger"]
    old = analyze_paths("fixtures/synthetic/full-startup-tp2-with-smi.log")["launches"][0]["ranks"][0]["ledger"]
    assert new == old
    eager = next(i for i in new if i["item"] == "comm_eager")
    assert eager["measured_init_gib"] == 1.53
    assert next(i for i in new if i["item"] == "cuda_context")["measured_pre_existing_gib"] == 0.57
