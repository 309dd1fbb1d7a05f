"""Golden reports of the real fixtures: the JSON document, and the text and Markdown views (which pin the
view-model and its stylings). Regenerate with `pytest --update-goldens`; never edit by hand."""

from __future__ import annotations

import json

import pytest

from logscope.cli import Format, render
from tests.helpers import ROOT, analyze_paths, corpus_inputs

GOLDEN = ROOT / "fixtures" / "golden"
CASES = [f"fixtures/real/{p.name}" for p in corpus_inputs()] + [
    "fixtures/h200/smi-busy-q.txt+fixtures/h200/torch-oom-message.txt",
]


VIEWS = {"json": lambda report: json.dumps(report, indent=1, ensure_ascii=False, sort_keys=False) + "\n",
         "txt": lambda report: render(report, Format.text, 160),
         "md": lambda report: render(report, Format.markdown)}


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.rsplit("/", 1)[-1])
def test_golden_report(case, view, update_goldens):
    report = analyze_paths(*case.split("+"))
    text = VIEWS[view](report)
    golden = GOLDEN / (case.split("+")[0].rsplit("/", 1)[-1] + "." + view)
    if update_goldens:
        golden.write_text(text, encoding="utf-8")
        pytest.skip("golden regenerated")
    assert golden.exists(), f"missing golden {golden.name}: run pytest --update-goldens"
    assert text == golden.read_text(encoding="utf-8"), f"{golden.name} differs: run pytest --update-goldens and review the diff"
