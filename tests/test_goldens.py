"""Golden outputs for every (document, format) pair of the one format table (report/formats.py): the analyze
document of each real fixture as JSON, text and Markdown, the HTML page and the ticket comment of a few, and
the diff and plan documents of the constructed TP 4 -> TP 8 pair in every format. Regenerate with
`pytest --update-goldens`; never edit by hand (tests/goldens.py: the manifest of input hashes, the header
lines)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from logscope.report.formats import DOCUMENTS, renderer
from tests import goldens
from tests.goldens import GOLDEN, MANIFEST, REGENERATE, check_golden, input_digest, read_manifest
from tests.helpers import analyze_paths, corpus_inputs

CASES = [f"fixtures/real/{p.name}" for p in corpus_inputs()] + [
    "fixtures/h200/smi-busy-q.txt+fixtures/h200/torch-oom-message.txt",
]
PAGE_CASES = [
    "fixtures/real/h-001-sglang-11716.log",
    "fixtures/real/f-025-sglang-5770.log",
    "fixtures/synthetic/full-startup-tp2-with-smi.log",
]  # html and comment: pages, a few suffice
# the formats pinned on every fixture; every other format of the table (pages, and any format added) is pinned on
# PAGE_CASES, so a new line in report/formats.py asks for its goldens and `--update-goldens` writes them
ON_EVERY_FIXTURE = ("json", "text", "markdown")
REPORT_FORMATS = tuple(DOCUMENTS["report"])
SUFFIX = {"json": "json", "text": "txt", "markdown": "md", "html": "html", "comment": "comment.md"}
TEXT_WIDTH = 160
DIFF_INPUTS = ["fixtures/compare/llama70b-tp4.log", "fixtures/compare/llama70b-tp8.log"]
PLAN_INPUTS = ["fixtures/compare/llama70b-tp4.log"]


def _diff() -> dict[str, Any]:
    from logscope.compare.diff import diff, side
    from logscope.compare.document import diff_document
    from logscope.compare.load import load

    sides = [side(spec, *load(spec, None), None) for spec in DIFF_INPUTS]
    return diff_document(diff(*sides))


def _plan() -> dict[str, Any]:
    from logscope.compare.document import plan_document
    from logscope.compare.load import load
    from logscope.compare.plan import Setting, plan
    from logscope.memory_model.kv_pool import kv_sizing

    run = PLAN_INPUTS[0]
    _analysis, launch = load(run, None)
    return plan_document(plan(run, launch, kv_sizing(launch, None), Setting(tp=8), None))


# (document kind, golden name, its inputs, how to build the document, the formats pinned)
GOLDENS: list[tuple[str, str, list[str], Callable[[], dict[str, Any]], tuple[str, ...]]] = [
    *(
        (
            "report",
            case.split("+")[0].rsplit("/", 1)[-1],
            case.split("+"),
            lambda case=case: analyze_paths(*case.split("+")),
            tuple(f for f in REPORT_FORMATS if f in ON_EVERY_FIXTURE or case in PAGE_CASES),
        )
        for case in CASES
    ),
    *(
        (
            "report",
            case.rsplit("/", 1)[-1],
            [case],
            lambda case=case: analyze_paths(case),
            tuple(f for f in REPORT_FORMATS if f not in ON_EVERY_FIXTURE),
        )
        for case in PAGE_CASES
        if case not in CASES
    ),
    ("diff", "compare/diff-llama70b-tp4-tp8", DIFF_INPUTS, _diff, tuple(DOCUMENTS["diff"])),
    ("plan", "compare/plan-llama70b-tp4-to-tp8", PLAN_INPUTS, _plan, tuple(DOCUMENTS["plan"])),
]
PAIRS = [(kind, name, inputs, build, fmt) for kind, name, inputs, build, formats in GOLDENS for fmt in formats]


def _output(kind: str, fmt: str, document: dict[str, Any]) -> str:
    if fmt == "json":  # the document itself, one space per level (smaller diffs than the CLI's two)
        return json.dumps(document, indent=1, ensure_ascii=False, sort_keys=False) + "\n"
    return renderer(fmt, kind)(document, TEXT_WIDTH)


def test_every_document_and_format_has_a_golden():
    pinned = {(kind, fmt) for kind, _name, _inputs, _build, fmt in PAIRS}
    assert pinned == {(kind, fmt) for kind, formats in DOCUMENTS.items() for fmt in formats}


_built: dict[str, dict[str, Any]] = {}


@pytest.mark.parametrize(
    ("kind", "name", "inputs", "build", "fmt"), PAIRS, ids=[f"{n}.{SUFFIX.get(f, f)}" for _k, n, _i, _b, f in PAIRS]
)
def test_golden(kind, name, inputs, build, fmt, update_goldens, monkeypatch):
    monkeypatch.chdir(goldens.ROOT)  # the inputs' names as a user in the checkout types them
    if name not in _built:
        _built[name] = build()
    text = _output(kind, fmt, _built[name])
    check_golden(GOLDEN / f"{name}.{SUFFIX.get(fmt, fmt)}", text, inputs, update_goldens)


def test_every_golden_is_in_the_manifest_with_its_inputs_as_they_are(update_goldens):
    """A golden nobody regenerated after its input changed fails here even when its own test is not run."""
    if update_goldens:
        pytest.skip("the goldens are being regenerated")
    entries = read_manifest()
    on_disk = sorted(p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*") if p.is_file() and p != MANIFEST)
    assert sorted(entries) == on_disk
    stale = [name for name, (digest, inputs) in entries.items() if digest != input_digest(inputs)]
    assert stale == [], f"inputs changed since these goldens were generated: run {REGENERATE}"


def test_a_golden_whose_input_changed_fails_even_when_the_output_is_the_same(tmp_path, monkeypatch):
    case = CASES[0]
    golden = GOLDEN / (case.rsplit("/", 1)[-1] + ".json")
    text = _output("report", "json", analyze_paths(case))
    check_golden(golden, text, [case], update=False)  # as generated: passes
    edited = tmp_path / case
    edited.parent.mkdir(parents=True)
    edited.write_bytes((goldens.ROOT / case).read_bytes() + b"\n")  # one more empty line: the same report
    monkeypatch.setattr(goldens, "ROOT", tmp_path)
    with pytest.raises(AssertionError, match="inputs changed since it was generated"):
        check_golden(golden, text, [case], update=False)
