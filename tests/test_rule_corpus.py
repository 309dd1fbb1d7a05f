"""Policies over the whole rule set, and the loader's validation errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from logscope.core.errors import RuleError
from logscope.core.resources import rules_dir
from logscope.pipeline.rule_engine.expr import Expr
from logscope.pipeline.rule_engine.loader import load_rule_file, load_rules
from logscope.tooling.rule_cases import load_cases

STABLE = {
    "capture-oom": "error",
    "startup-oom": "error",
    "kv-pool-too-small": "error",
    "custom-ar-failed": "error",
    "nccl-error": "error",
    "pd-transfer-failed": "error",
    "memory-imbalance": "warning",
    "startup-incomplete": "warning",
    "deepep-buffer": "warning",
    "custom-ar-disabled": "info",
}


def test_stable_ids_exist_with_their_default_severity():
    rules = {r.id: r for r in load_rules()}
    for rule_id, severity in STABLE.items():
        assert rule_id in rules, rule_id
        assert rules[rule_id].severity == severity, rule_id
    assert "error" in rules["memory-imbalance"].escalate
    assert "error" in rules["deepep-buffer"].escalate


def test_every_rule_has_a_firing_and_a_quiet_case():
    for rule in load_rules():
        path = rules_dir() / f"{rule.id}.cases.yaml"
        assert path.exists(), f"{rule.id}: add {path.name}"
        rule_id, cases = load_cases(path)
        assert rule_id == rule.id
        assert any(c.get("expect") for c in cases), f"{rule.id}: no case that fires"
        assert any(not c.get("expect") for c in cases), f"{rule.id}: no quiet case"


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


GOOD = """id: demo-rule
title: Demo
severity: warning
when: count(ranks) > 0
message: "{n_ranks} ranks"
hint: do this
why: because
"""


def test_a_valid_rule_loads(tmp_path):
    assert load_rule_file(_write(tmp_path, "demo-rule.yaml", GOOD)).id == "demo-rule"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (GOOD + "colour: red\n", "demo-rule.yaml:8:1: unknown key 'colour'"),
        (GOOD.replace("severity: warning", "severity: high"), "demo-rule.yaml:3:11: severity should be one of"),
        (GOOD.replace("count(ranks) > 0", "count(ranks) >"), "demo-rule.yaml:4:"),
        (GOOD.replace("count(ranks) > 0", "open('/etc/passwd')"), "unknown function 'open'"),
        (GOOD.replace("{n_ranks}", "{secret}"), "placeholder {secret} is not defined"),
        (GOOD.replace("id: demo-rule", "id: other"), "must match the file name"),
        ("- just\n- a list\n", "a rule file is a mapping"),
        (GOOD + "when: [unclosed\n", "invalid YAML"),
        (GOOD.replace("severity: warning", "severity: !!python/object:os.system ls"), "demo-rule.yaml"),
    ],
)
def test_invalid_rules_are_rejected_with_a_location(tmp_path, text, needle):
    with pytest.raises(RuleError) as err:
        load_rule_file(_write(tmp_path, "demo-rule.yaml", text))
    assert needle in str(err.value)


def test_expression_limits():
    with pytest.raises(RuleError, match="too large"):
        Expr("(" * 30 + "1" + ")" * 30 + " + 1" * 500, "x")
    with pytest.raises(RuleError, match="longer than"):
        Expr("1 + " * 2000 + "1", "x")


def test_expression_semantics():
    env = {"ranks": [{"r": "TP0", "v": 10.0}, {"r": "TP1", "v": 8.5}], "config": {"tp": 2}}
    assert Expr("spread(ranks, it.v)", "x").evaluate(env) == 1.5
    assert Expr("map(where(ranks, it.v < 9), it.r)", "x").evaluate(env) == ["TP1"]
    assert Expr("argmax(ranks, it.v).r", "x").evaluate(env) == "TP0"
    assert Expr("config.missing > 1 or config.tp == 2", "x").evaluate(env) is True
    assert Expr("config.missing + 1", "x").evaluate(env) is None
    assert Expr("1 / 0", "x").evaluate(env) is None
    assert Expr("__class__", "x").evaluate(env) is None  # names only read the facts dict


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (GOOD.replace("severity: warning", "severity: 5"), "severity: expected a non-empty string"),
        (GOOD + "references: just-a-string\n", "references: expected a list of strings"),
        (GOOD + "let: [a, b]\n", "let: expected a mapping"),
        (GOOD + "let:\n  Bad-Name: 1\n", "is not a valid name"),
        (GOOD.replace('message: "{n_ranks} ranks"', 'message: "line one\\nline two"'), "message: must be one line"),
        (GOOD + "scope: cluster\n", "scope should be launch or global"),
    ],
)
def test_wrong_types_are_rejected(tmp_path, text, needle):
    with pytest.raises(RuleError) as err:
        load_rule_file(_write(tmp_path, "demo-rule.yaml", text))
    assert needle in str(err.value)


def test_a_rule_cannot_reach_outside_the_facts(tmp_path):
    for expression in ("__import__('os')", "open('x')", "eval('1')", "getattr(config, 'x')"):
        with pytest.raises(RuleError, match="unknown function"):
            load_rule_file(_write(tmp_path, "demo-rule.yaml", GOOD.replace("count(ranks) > 0", expression)))
    rule = load_rule_file(_write(tmp_path, "demo-rule.yaml", GOOD.replace("count(ranks) > 0", "config.__class__")))
    assert rule.when.evaluate({"config": {"tp": 1}}) is None


def test_case_takes_the_first_true_branch_and_evaluates_only_it():
    env = {"n": 3}
    assert Expr('case(n > 5, "big", n > 2, "mid", "small")', "x").evaluate(env) == "mid"
    assert Expr('case(n > 5, "big", "small")', "x").evaluate(env) == "small"
    # the branches not taken are not evaluated
    assert Expr('case(n > 1, n * 2, fmt(1, "y"))', "x").evaluate(env) == 6  # fmt(1, "y") would raise
    with pytest.raises(RuleError, match="condition/value pairs and a default"):
        Expr('case(n > 5, "big")', "x")
