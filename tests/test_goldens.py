"""Golden reports of the real fixtures: the JSON document, and the text and Markdown views (which pin the
view-model and its stylings). Regenerate with `pytest --update-goldens`; never edit by hand (tests/goldens.py:
the manifest of input hashes, the header lines)."""

from __future__ import annotations

import json

import pytest

from logscope.cli import Format, render
from tests import goldens
from tests.goldens import GOLDEN, MANIFEST, REGENERATE, check_golden, input_digest, read_manifest
from tests.helpers import analyze_paths, corpus_inputs

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
    check_golden(golden, text, case.split("+"), update_goldens)


def test_every_golden_is_in_the_manifest_with_its_inputs_as_they_are(update_goldens):
    """A golden nobody regenerated after its input changed fails here even when its own test is not run."""
    if update_goldens:
        pytest.skip("the goldens are being regenerated")
    entries = read_manifest()
    goldens = sorted(p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*") if p.is_file() and p != MANIFEST)
    assert sorted(entries) == goldens
    stale = [name for name, (digest, inputs) in entries.items() if digest != input_digest(inputs)]
    assert stale == [], f"inputs changed since these goldens were generated: run {REGENERATE}"


def test_a_golden_whose_input_changed_fails_even_when_the_output_is_the_same(tmp_path, monkeypatch):
    case = CASES[0]
    golden = GOLDEN / (case.rsplit("/", 1)[-1] + ".json")
    text = VIEWS["json"](analyze_paths(case))
    check_golden(golden, text, [case], update=False)  # as generated: passes
    edited = tmp_path / case
    edited.parent.mkdir(parents=True)
    edited.write_bytes((goldens.ROOT / case).read_bytes() + b"\n")  # one more empty line: the same report
    monkeypatch.setattr(goldens, "ROOT", tmp_path)
    with pytest.raises(AssertionError, match="inputs changed since it was generated"):
        check_golden(golden, text, [case], update=False)
