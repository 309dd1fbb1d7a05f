"""Cells travel typed: the stages hand `Cell` values from sizing to the ledger, the rules, compare and the view-model,
and the logscope/1 document is written from them only at the end (Cell.as_json), so it reads back unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from logscope.core.cell import Cell, CellAlternative
from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import Source
from logscope.report.view import build_view

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "fixtures" / "golden"


def _analysis(path: Path):
    return analyze_model([Source(name=path.name, path=None, data=path.read_bytes())])


def test_the_ledger_holds_typed_cells():
    analysis = _analysis(ROOT / "fixtures" / "cells" / "tp2-h200-0.5.23.log")
    ledger = next(iter(analysis.ledgers.values()))
    assert ledger.cells and all(isinstance(c, Cell) for c in ledger.cells)
    v2 = next(c for c in ledger.cells if c.mechanism == "custom_ar_v2")
    # SM90 table at W=2: 4 push slots x 16 MiB + 16 MiB pull + 64 x 128 B + graph_params 131072 x 2 x 8 B
    assert v2.bytes == 4 * 16 * 2**20 + 16 * 2**20 + 64 * 128 + 131072 * 2 * 8
    assert (v2.timing, v2.kind, v2.gib) == ("eager", "estimated", 0.08)  # 82 MiB


def test_alternatives_are_typed_where_the_release_is_not_stated():
    analysis = _analysis(GOLDEN.parent / "real" / "f-004-sglang-5285.log")
    cells = [c for ledger in analysis.ledgers.values() for c in ledger.cells if c.alternatives]
    assert cells, "f-004 states no release: its custom all-reduce cell lists what older releases give"
    assert all(isinstance(a, CellAlternative) for c in cells for a in c.alternatives)
    assert all(a.sglang.startswith("SGLang ") for c in cells for a in c.alternatives)


def test_a_probe_figure_overrides_the_estimate_and_reads_back():
    cell = Cell("tp", "pynccl", 717_225_984, "estimated", "eager", "first communicator")
    probed = Cell("tp", "pynccl", 717_225_984, "measured (probe)", "eager", "probe", measured_gib=0.705)
    assert (cell.gib, probed.gib) == (0.668, 0.705)
    assert Cell.from_json(probed.as_json()) == probed
    assert Cell.from_json(cell.as_json()) == cell


@pytest.mark.parametrize("golden", sorted(GOLDEN.glob("*.json")), ids=lambda p: p.name)
def test_every_golden_cell_reads_back_as_written(golden: Path):
    document = json.loads(golden.read_text(encoding="utf-8"))
    cells = [c for launch in document.get("launches", []) for r in launch["ranks"] for c in r["cells"]]
    for c in cells:
        assert Cell.from_json(c).as_json() == c
    view = build_view(document)
    assert all(isinstance(c, Cell) for launch in view.launches for c in launch.cells)
