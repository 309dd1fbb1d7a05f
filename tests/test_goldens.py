"""Golden outputs for every (document, format) pair of the one format table (report/formats.py): the analyze
document of each real fixture as JSON, text and Markdown, the HTML page and the ticket comment of a few, and
the diff and plan documents of the constructed TP 4 -> TP 8 pair in every format. Regenerate with
`pytest --update-goldens`; never edit by hand."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from logscope.report.formats import DOCUMENTS, renderer
from tests.helpers import ROOT, analyze_paths, corpus_inputs

GOLDEN = ROOT / "fixtures" / "golden"
CASES = [f"fixtures/real/{p.name}" for p in corpus_inputs()] + [
    "fixtures/h200/smi-busy-q.txt+fixtures/h200/torch-oom-message.txt",
]
PAGE_CASES = ["fixtures/real/h-001-sglang-11716.log", "fixtures/real/f-025-sglang-5770.log",
              "fixtures/synthetic/full-startup-tp2-with-smi.log"]  # html and comment: pages, a few suffice
SUFFIX = {"json": "json", "text": "txt", "markdown": "md", "html": "html", "comment": "comment.md"}
TEXT_WIDTH = 160


def _diff() -> dict[str, Any]:
    from logscope.compare.diff import diff, side
    from logscope.compare.document import diff_document
    from logscope.compare.load import load

    sides = [side(spec, *load(spec, None), None) for spec in ("fixtures/compare/llama70b-tp4.log",
                                                            "fixtures/compare/llama70b-tp8.log")]
    return diff_document(diff(*sides))


def _plan() -> dict[str, Any]:
    from logscope.compare.document import plan_document
    from logscope.compare.load import load
    from logscope.compare.plan import Setting, plan
    from logscope.compare.sizing import kv_sizing

    run = "fixtures/compare/llama70b-tp4.log"
    _analysis, launch = load(run, None)
    return plan_document(plan(run, launch, kv_sizing(launch, None), Setting(tp=8), None))


# (document kind, golden name, how to build the document, the formats pinned)
GOLDENS: list[tuple[str, str, Callable[[], dict[str, Any]], tuple[str, ...]]] = [
    *(("report", case.split("+")[0].rsplit("/", 1)[-1], lambda case=case: analyze_paths(*case.split("+")),
       ("json", "text", "markdown") + (("html", "comment") if case in PAGE_CASES else ())) for case in CASES),
    *(("report", case.rsplit("/", 1)[-1], lambda case=case: analyze_paths(case), ("html", "comment"))
      for case in PAGE_CASES if case not in CASES),
    ("diff", "compare/diff-llama70b-tp4-tp8", _diff, tuple(DOCUMENTS["diff"])),
    ("plan", "compare/plan-llama70b-tp4-to-tp8", _plan, tuple(DOCUMENTS["plan"])),
]
PAIRS = [(kind, name, build, fmt) for kind, name, build, formats in GOLDENS for fmt in formats]


def _output(kind: str, fmt: str, document: dict[str, Any]) -> str:
    if fmt == "json":  # the document itself, one space per level (smaller diffs than the CLI's two)
        return json.dumps(document, indent=1, ensure_ascii=False, sort_keys=False) + "\n"
    return renderer(fmt, kind)(document, TEXT_WIDTH)


def test_every_document_and_format_has_a_golden():
    pinned = {(kind, fmt) for kind, _name, _build, fmt in PAIRS}
    assert pinned == {(kind, fmt) for kind, formats in DOCUMENTS.items() for fmt in formats}


_built: dict[str, dict[str, Any]] = {}


@pytest.mark.parametrize(("kind", "name", "build", "fmt"), PAIRS, ids=[f"{n}.{SUFFIX.get(f, f)}" for _k, n, _b, f in PAIRS])
def test_golden(kind, name, build, fmt, update_goldens):
    if name not in _built:
        _built[name] = build()
    text = _output(kind, fmt, _built[name])
    golden = GOLDEN / f"{name}.{SUFFIX.get(fmt, fmt)}"
    if update_goldens:
        golden.write_text(text, encoding="utf-8")
        pytest.skip("golden regenerated")
    assert golden.exists(), f"missing golden {golden.name}: run pytest --update-goldens"
    assert text == golden.read_text(encoding="utf-8"), f"{golden.name} differs: run pytest --update-goldens and review the diff"
