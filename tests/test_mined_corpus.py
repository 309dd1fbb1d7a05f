"""The mined corpus (fixtures/mined/) keeps its schema: every yaml valid, its split the sha1 rule, its .txt beside it,
and no thread of the independent evaluation list among its sources."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
import yaml

from tests.helpers import ROOT

_SPEC = importlib.util.spec_from_file_location("mined_bench", ROOT / "bench" / "mined.py")
assert _SPEC is not None and _SPEC.loader is not None
mined = importlib.util.module_from_spec(_SPEC)
sys.modules["mined_bench"] = mined
_SPEC.loader.exec_module(mined)

YAMLS = sorted(mined.FOLDER.glob("*.yaml"))


def test_the_corpus_is_there():
    assert len(YAMLS) >= 200


@pytest.mark.parametrize("path", YAMLS, ids=lambda p: p.stem)
def test_a_mined_yaml_follows_the_schema(path: Path):
    assert mined.problems(path) == []


def test_every_paste_has_its_yaml():
    assert {p.stem for p in mined.FOLDER.glob("*.txt")} == {p.stem for p in YAMLS}


def test_the_split_rule_is_sha1_mod_3():
    assert mined.thread_split("sgl-project/sglang", 8974) == "built"
    assert {mined.thread_split("sgl-project/sglang", n) for n in range(1, 30)} == {"built", "heldback"}


def test_a_schema_break_is_caught(tmp_path: Path):
    doc = yaml.safe_load(YAMLS[0].read_text(encoding="utf-8"))
    doc["split"] = "heldback" if doc["split"] == "built" else "built"
    doc["classes"] = [*doc["classes"], "failures:no-such-library"]
    broken = tmp_path / YAMLS[0].name
    broken.write_text(yaml.safe_dump(doc), encoding="utf-8")
    broken.with_suffix(".txt").write_text("x\n", encoding="utf-8")
    found = " ".join(mined.problems(broken))
    assert "sha1 rule" in found and "unknown class" in found


@pytest.mark.skipif(not mined.HELD_OUT_LIST.is_file(), reason=f"{mined.HELD_OUT_LIST} is not on this machine")
def test_no_source_is_kept_for_independent_evaluation():
    held = mined.held_out_threads()
    sources = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in YAMLS]
    assert [d["id"] for d in sources if mined.is_held_out(d["repository"], d["number"], held)] == []


def test_a_number_compares_whatever_its_type():
    assert mined._norm("4") == mined._norm(4) == mined._norm(4.0)
    assert mined._norm("10.0.0.1:5000") == "10.0.0.1:5000"
    assert mined._norm(True) is True


def test_nvidia_smis_cuda_version_answers_a_cuda_label_only_where_no_toolkit_cuda_is_read():
    header_only = {"versions": {"cuda_driver_api": "13.0", "driver": "580.82.07"}, "launches": []}
    assert mined._versions(header_only)["cuda"] == "13.0"
    both = {"versions": {"cuda_driver_api": "13.0"}, "launches": [{"versions": {"cuda": "12.8"}}]}
    assert mined._versions(both)["cuda"] == "12.8"
    in_launch = {"versions": {}, "launches": [{"versions": {"cuda_driver_api": "12.9"}}]}
    assert mined._versions(in_launch)["cuda"] == "12.9"


def test_a_failure_names_its_library_by_mechanism_signature_or_the_library_its_evidence_names():
    # kernel_library's CUDA check is generic: the library comes from the file the check prints (logscope/1 `library`)
    check = {"mechanism": "kernel_library", "signature": "kernel-cuda-check", "library": "FlashMLA"}
    assert mined._names_library(check, "flashmla")
    assert not mined._names_library({**check, "library": None}, "flashmla")
    assert mined._names_library({"mechanism": "pd_transfer", "signature": "pd-mooncake-native"}, "mooncake")


def test_the_per_rule_table_says_what_was_given_instead_of_a_missed_finding():
    labels = {"findings": ["runtime-crash:error", "nccl-error:error|startup-crash:error"]}
    report = {"findings": [{"rule": "failure-time-unknown"}, {"rule": "custom-ar-disabled"}]}
    rows = mined.findings_by_rule(labels, report)
    assert (rows["runtime-crash"].found, rows["runtime-crash"].labelled) == (0, 1)
    assert rows["runtime-crash"].misses == ["custom-ar-disabled+failure-time-unknown"]
    assert rows["nccl-error|startup-crash"].misses == ["custom-ar-disabled+failure-time-unknown"]
    hit = mined.findings_by_rule(labels, {"findings": [{"rule": "startup-crash"}]})
    assert (hit["nccl-error|startup-crash"].found, hit["nccl-error|startup-crash"].misses) == (1, [])
    assert mined.findings_by_rule(labels, {"findings": []})["runtime-crash"].misses == ["(nothing)"]


def test_no_thread_of_the_development_corpus_is_mined_again():
    # fixtures/real holds ../shared/corpus/real's pastes: a thread there is development data, not a fresh measure
    real = set()
    for path in (ROOT / "fixtures" / "real").glob("*.yaml"):
        url = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("source_url") or ""
        if "/issues/" in url or "/pull/" in url:
            real.add(url.rstrip("/"))
    sources = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in YAMLS]
    assert [d["id"] for d in sources if d["source_url"].rstrip("/") in real] == []
