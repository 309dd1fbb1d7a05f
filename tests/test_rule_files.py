"""A rule file holds conditions, messages and hints over named facts; the computing is done in the facts layer
(logscope/pipeline/rule_engine/facts.py and the modules it calls). A `let` longer than 200 characters is a
program in YAML: move its computation into a typed fact."""

from __future__ import annotations

import pytest
import yaml

from logscope.core.resources import rules_dir

LET_LIMIT = 200
RULE_FILES = sorted(p for p in rules_dir().glob("*.yaml") if not p.name.endswith(".cases.yaml"))


@pytest.mark.parametrize("path", RULE_FILES, ids=[p.name for p in RULE_FILES])
def test_no_let_is_longer_than_the_limit(path):
    lets = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("let") or {}
    long = {name: len(str(expr)) for name, expr in lets.items() if len(str(expr)) > LET_LIMIT}
    assert long == {}, f"{path.name}: these lets compute: move them into a fact: {long}"


_RULE = """id: {id}
title: A test rule
severity: info
texts:
{texts}
let:
  said: pick(texts, config.which)
when: exists(said)
message: "{{said}} {{other}}"
hint: Nothing.
why: A test.
"""


def _load(tmp_path, texts: str):
    from logscope.pipeline.rule_engine.loader import load_rule_file

    path = tmp_path / "texts-rule.yaml"
    path.write_text(_RULE.format(id="texts-rule", texts=texts), encoding="utf-8")
    return load_rule_file(path)


def test_named_texts_are_picked_by_a_fact_and_fill_templates(tmp_path):
    from logscope.pipeline.rule_engine.engine import evaluate

    rule = _load(tmp_path, '  one: "the first: as written"\n  other: the other')
    assert rule.texts == {"one": "the first: as written", "other": "the other"}
    finding = evaluate(rule, {"config": {"which": "one"}}, 1)
    assert finding is not None and finding["message"] == "the first: as written the other"
    assert evaluate(rule, {"config": {"which": "none"}}, 1) is None


@pytest.mark.parametrize(
    ("texts", "error"),
    [
        ("  one: [a, list]\n  other: x", "texts: expected a mapping of name: text"),
        ("  Bad-Name: x\n  other: x", "not a valid name"),
    ],
)
def test_bad_texts_are_refused_with_the_place(tmp_path, texts: str, error: str):
    from logscope.pipeline.rule_engine.expr import RuleError

    with pytest.raises(RuleError, match=error):
        _load(tmp_path, texts)
