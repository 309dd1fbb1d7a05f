"""The text of every command that prints text (analyze, diff, plan, triage) at 80, 100 and 160 columns: no line
wider than the terminal, no number cut or ellipsised (a table too wide is split into parts), the verdict first,
correct plurals, hanging indents, no trailing padding; --width and COLUMNS set the width of each command."""

from __future__ import annotations

import re

import pytest
from rich.cells import cell_len

from logscope.cli import Format, render
from logscope.report.compare_view import build_compare_view
from logscope.report.formats import renderer
from logscope.report.view import build_view, fmt_gib
from tests.helpers import REAL, analyze_paths, corpus_inputs, rel, run

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
        out += [f"{c.gib:.3f}" for c in launch.cells if c.gib is not None]
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


def _diff(a: str, b: str) -> dict:
    from logscope.compare.diff import diff, side
    from logscope.compare.document import diff_document
    from logscope.compare.load import load

    return diff_document(diff(*(side(spec, *load(spec, None), None) for spec in (a, b))))


def _plan(run_spec: str, **setting) -> dict:
    from logscope.compare.document import plan_document
    from logscope.compare.load import load
    from logscope.compare.plan import Setting, plan
    from logscope.memory_model.kv_pool import kv_sizing

    _analysis, launch = load(run_spec, None)
    return plan_document(plan(run_spec, launch, kv_sizing(launch, None), Setting(**setting), None))


COMPARE = {
    "diff-tp4-tp8": lambda: _diff("fixtures/compare/llama70b-tp4.log", "fixtures/compare/llama70b-tp8.log"),
    "diff-h019-h025": lambda: _diff("fixtures/real/h-019-sglang-17392.log", "fixtures/real/h-025-sglang-17392.log"),
    "plan-tp4-to-tp8": lambda: _plan("fixtures/compare/llama70b-tp4.log", tp=8),
    "plan-h019": lambda: _plan("fixtures/real/h-019-sglang-17392.log", mem_fraction_static=0.8),
}
_NUMBER = re.compile(r"[+-]?\d+(?:,\d{3})*(?:\.\d+)?")


def _assert_fits(text: str, width: int) -> None:
    lines = text.splitlines()
    assert max(cell_len(line) for line in lines) <= width, max(lines, key=cell_len)
    assert "…" not in text
    assert not [line for line in lines if line != line.rstrip()], "trailing padding"


@pytest.mark.parametrize("width", [80, 100, 160])
@pytest.mark.parametrize("name", COMPARE)
def test_diff_and_plan_fit_the_width_without_cutting_a_number(name, width):
    document = COMPARE[name]()
    text = renderer("text", name.split("-")[0])(document, width)
    _assert_fits(text, width)
    view = build_compare_view(document)
    for section in view.sections:
        for row in section.rows:
            for i, cell in enumerate(row):
                if i in section.wrapped:  # prose wraps between words; its numbers are words
                    numbers = _NUMBER.findall(cell)
                    assert all(n in text for n in numbers if len(n) < width // 4), (cell, width)
                else:
                    assert all(n in text for n in _NUMBER.findall(cell)), (cell, width)
    assert text.startswith(f"logscope {view.kind}: ")


TRIAGE = sorted(p.name for p in REAL.glob("f-*.log"))[::4]


@pytest.mark.parametrize("width", [80, 100, 160])
@pytest.mark.parametrize("name", TRIAGE)
def test_triage_text_fits_the_width(name, width):
    from logscope.triage.run import triage_text

    body = f"It fails:\n\n```\n{(REAL / name).read_text(encoding='utf-8')}\n```\n"
    report = triage_text(body)
    text = render(report, Format.text, width)
    _assert_fits(text, width)
    for number in _numbers(report):
        assert number in text, f"{number} missing at width {width}"


def test_findings_hang_their_continuation_lines():
    text = render(analyze_paths("fixtures/real/f-001-sglang-4233.log"), Format.text, 80)
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("error   [memory-imbalance]"))
    fix = next(i for i in range(start, len(lines)) if lines[i].startswith("        fix: "))
    assert all(line.startswith(" " * 8) and line.strip() for line in lines[start + 1 : fix])  # the message hangs at 8
    after = lines[fix + 1]
    assert after.startswith(" " * 13) and not after.startswith(" " * 14)  # the fix's text hangs under its start
    evidence = next(i for i in range(fix, len(lines)) if lines[i].startswith("        fixtures/real/f-001"))
    assert lines[evidence + 1].startswith(" " * 10) and not lines[evidence + 1].startswith(" " * 11)


@pytest.mark.parametrize(
    "command",
    [
        ["analyze", "fixtures/real/f-001-sglang-4233.log"],
        ["diff", "fixtures/compare/llama70b-tp4.log", "fixtures/compare/llama70b-tp8.log"],
        ["plan", "--from", "fixtures/compare/llama70b-tp4.log", "--tp", "8"],
        ["triage", "fixtures/real/f-001-sglang-4233.log", "--format", "text"],
    ],
)
def test_every_text_command_takes_width_and_columns(command):
    for args, env in ((["--width", "72"], {}), ([], {"COLUMNS": "72"})):
        done = run(*command, *args, env=env)
        assert done.returncode in (0, 1), done.stderr
        lines = done.stdout.decode().splitlines()
        assert max(cell_len(line) for line in lines) <= 72 and max(cell_len(line) for line in lines) > 60
