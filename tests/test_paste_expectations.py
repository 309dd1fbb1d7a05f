"""Pastes written from the catalogs' format strings and from real pastes' forms (fixtures/pastes), each with
the values a person reads off it, checked by hand: [path in the logscope/1 document, value]."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.helpers import ROOT, analyze_paths

PASTES = sorted(p for p in (ROOT / "fixtures" / "pastes").iterdir() if not p.name.endswith(".expect.yaml"))


def _at(document: object, path: str) -> object:
    for part in path.split("."):
        document = document[int(part)] if isinstance(document, list) else document[part]  # type: ignore[index]
    return document


@pytest.mark.parametrize("paste", PASTES, ids=lambda p: p.name)
def test_paste_gives_the_values_it_states(paste: Path):
    expect = yaml.safe_load(paste.with_name(paste.stem + ".expect.yaml").read_text())
    report = analyze_paths(str(paste.relative_to(ROOT)))
    assert sorted({f["rule"] for f in report["findings"]}) == sorted(expect["findings"])
    for path, value in expect["values"]:
        assert _at(report, path) == value, path
