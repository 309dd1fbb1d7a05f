"""The memory-model library checked against figures worked by hand from each release's source: one case file per
concern under tests/memory_model_cases/, each case with its derivation (file:function, inputs, arithmetic)
beside the expected numbers. Nothing here recomputes an expected figure with the code under test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from logscope.memory_model.fraction import auto_fraction
from logscope.memory_model.releases import release_for
from tests.helpers import analyze_paths, analyze_text

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "memory_model_cases"


def _cases(name: str) -> list[dict[str, Any]]:
    cases = yaml.safe_load((CASES / name).read_text(encoding="utf-8"))["cases"]
    for case in cases:
        assert case.get("derivation"), f"{name}: {case['name']} has no derivation"
    return cases


def _log(case: dict[str, Any]) -> str:
    gpu, capability = case.get("gpu", "NVIDIA H200"), case.get("capability", "9.0")
    head = (
        f"Python: 3.12.3\nCUDA available: True\nGPU 0,1,2,3: {gpu}\nGPU 0,1,2,3 Compute Capability: {capability}\n"
        f"sglang: {case['version']}\n"
    )
    head += "".join(f"export {name}={value}\n" for name, value in case.get("exports", {}).items())
    if case.get("nccl"):  # the NCCL INFO line NCCL prints at init (init.cc showVersion)
        head += f"NCCL version {case['nccl']}\n"
    path = case.get("model_path", "/m/x")
    text = head + f"[2026-11-20 10:00:00] server_args=ServerArgs(model_path='{path}', {case['args']})\n"
    text += "[2026-11-20 10:00:05 TP0] Load weight begin. avail mem=138.39 GB\n"
    if case.get("architecture"):
        text += f"[2026-11-20 10:00:41 TP0] Load weight end. type={case['architecture']}, avail mem=75.11 GB\n"
    return text


CELL_CASES = [(f, c) for f in ("custom_all_reduce.yaml", "deepep.yaml", "gpu_model.yaml", "nccl.yaml") for c in _cases(f)]


@pytest.mark.parametrize(("file", "case"), CELL_CASES, ids=[f"{f}::{c['name']}" for f, c in CELL_CASES])
def test_cells(file, case):
    rank = analyze_text(_log(case))["launches"][0]["ranks"][0]
    cells = {(c["group"], c["mechanism"]): c for c in rank["cells"]}
    for want in case.get("expect", []):
        cell = cells.get((want["group"], want["mechanism"]))
        assert cell is not None, f"no {want['group']}/{want['mechanism']} cell: {sorted(cells)}"
        assert cell["gib"] == want.get("gib"), cell["basis"]
        if "timing" in want:
            assert cell["timing"] == want["timing"]
        for key, value in want.get("inputs", {}).items():
            assert cell["inputs"][key] == value, (key, cell["inputs"])
        for words in want.get("basis_contains", []):
            assert words in cell["basis"], cell["basis"]
    mechanisms = {mechanism for _, mechanism in cells}
    assert not mechanisms & set(case.get("absent", [])), sorted(mechanisms)


FRACTION_CASES = _cases("automatic_fraction.yaml")


@pytest.mark.parametrize("case", FRACTION_CASES, ids=[c["name"] for c in FRACTION_CASES])
def test_automatic_fraction(case):
    found = auto_fraction(
        case["config"], release_for(case["version"]), case["gpu_mem_mib"], case.get("mla"), case.get("environment")
    )
    assert found.reserved_mib == case["expect"]["reserved_mib"], found.describe()
    assert found.value == case["expect"]["value"]


LEDGER_CASES = _cases("ledger.yaml")


@pytest.mark.parametrize("case", LEDGER_CASES, ids=[c["name"] for c in LEDGER_CASES])
def test_ledger(case):
    ledger = analyze_paths(str(ROOT / case["input"]))["launches"][0]["ranks"][0]["ledger"]
    items = {i["item"]: i["gib"] for i in ledger}
    for item, gib in case["expect"].items():
        if item == "total":
            assert round(sum(items.values()), 2) == gib
        else:
            assert items.get(item) == gib, (item, items)


RELEASE_CASES = _cases("release_choice.yaml")


@pytest.mark.parametrize("case", RELEASE_CASES, ids=[c["name"] for c in RELEASE_CASES])
def test_release_choice(case):
    found = release_for(case.get("version"), tuple(case["range"]) if "range" in case else None)
    want = case["expect"]
    assert found.version == want["release"] and found.known is want["known"]
    if "span" in want:
        assert found.span == want["span"]
    if "candidates" in want:
        assert [r.version for r in found.candidates] == want["candidates"]
    if "note_contains" in want:
        assert want["note_contains"] in found.note
