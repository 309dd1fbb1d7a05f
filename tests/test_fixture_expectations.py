"""Every real paste in fixtures/real against its .expect.yaml: (launch, rank, phase, model, field, value)."""

from __future__ import annotations

import pytest
import yaml

from tests.helpers import analyze_paths, corpus_inputs, dump_inputs, gpu_rows, rel

CASES = corpus_inputs() + dump_inputs()


def _tuples(report: dict) -> list[list]:
    out = []
    for launch in report["launches"]:
        for rank in launch["ranks"]:
            for phase in rank["phases"]:
                for field in ("avail_gib", "usage_gib", "tokens", "kv_gib", "k_gib", "v_gib", "elapsed_s", "bs"):
                    if field in phase:
                        out.append([launch["id"], rank["rank"], phase["phase"], phase["model"], field, phase[field]])
    return out


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_fixture_matches_expect_file(path):
    expect = yaml.safe_load(path.with_name(path.stem + ".expect.yaml").read_text())
    report = analyze_paths(rel(path))
    assert len(report["launches"]) == expect["launches"]
    ranks = {str(launch["id"]): [r["rank"] for r in launch["ranks"]] for launch in report["launches"]}
    assert ranks == {str(k): v for k, v in expect["ranks"].items()}
    assert _tuples(report) == expect["phases"]
    config = {}
    for launch in report["launches"]:
        config.update(launch["config"])
    assert config == expect["config"]
    bounds = {}
    for launch in report["launches"]:
        bounds.update({k: v["at_least"] for k, v in launch["config_lower_bounds"].items()})
    assert bounds == expect.get("lower_bounds", {})  # sizes only the rank tags imply are lower bounds
    found = sorted({f"{f['rule']}:{f['severity']}" for f in report["findings"]})
    assert found == sorted(expect["findings"]["must"])
    versions = report["launches"][0]["versions"] if report["launches"] else report["versions"]
    assert versions == expect["versions"]
    assert gpu_rows(report) == expect["gpus"]
    assert report["topology"]["links"] == expect["links"]
    assert report["topology"].get("p2p", []) == expect["p2p"]


@pytest.mark.parametrize("path", [p for p in CASES if p.name.startswith("h-")], ids=lambda p: p.name)
def test_healthy_logs_get_no_error_finding(path):
    report = analyze_paths(rel(path))
    assert [f["rule"] for f in report["findings"] if f["severity"] == "error"] == []
