"""The terminal report at 80, 100 and 160 columns: no line wider than the terminal, no number cut or
ellipsised (a table too wide is split into parts), the verdict first, correct plurals."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from logscope.cli import Format, render
from logscope.report.view import build_view, fmt_gib
from tests.helpers import analyze_paths, corpus_inputs, rel

CASES = [rel(p) for p in corpus_inputs()][::3] + ["fixtures/synthetic/full-startup-tp2-with-smi.log"]


def _numbers(report: dict) -> list[str]:
    """Every number the timeline, ledger and cells tables show."""
    view = build_view(report)
    out = []
    for launch in view.launches:
        if launch.timeline is not None:
            for row in launch.timeline.rows:
                for cell in row.cells:
                    if cell.value is not None:
                        out.append(fmt_gib(cell.value))
                    if cell.drop is not None:
                        out.append(f"{abs(cell.drop):.2f}")
        if launch.ledger is not None:
            out += [f"{v:.2f}" for _, _, values in launch.ledger.rows for v in values[:8] if v is not None]
        out += [f"{c['gib']:.3f}" for c in launch.cells if c["gib"] is not None]
    return out


@pytest.mark.parametrize("width", [80, 100, 160])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.rsplit("/", 1)[-1])
def test_no_number_is_cut(case, width):
    report = analyze_paths(case)
    text = render(report, Format.text, width)
    lines = text.splitlines()
    assert max(cell_len(line) for line in lines) <= width
    assert "…" not in text
    for number in _numbers(report):
        assert number in text, f"{number} missing at width {width}"
    assert lines[0].startswith("verdict: ")


def test_plurals_and_no_empty_launch():
    text = render(analyze_paths("fixtures/real/h-007-sglang-11830.log"), Format.text, 120)
    assert "(1 rank)" in text and "(1 ranks)" not in text
    assert "(0 ranks)" not in text


def test_columns_env_sets_the_width(monkeypatch):
    from logscope.report.text import terminal_width

    monkeypatch.setenv("COLUMNS", "93")
    assert terminal_width() == 93
    assert terminal_width(120) == 120  # --width wins
    monkeypatch.delenv("COLUMNS")
    assert terminal_width() == 160  # piped, no COLUMNS
