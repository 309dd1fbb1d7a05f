"""docs/rules.md is the current rendering of the rule files (regenerate: logscope rules docs > docs/rules.md)."""

from __future__ import annotations

from logscope.tooling.rule_docs import render_rules_doc
from tests.helpers import ROOT


def test_rules_doc_is_current():
    committed = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert committed == render_rules_doc() + "\n", "run: logscope rules docs > docs/rules.md"
