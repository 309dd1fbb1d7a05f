"""One runner for every rules/<id>.cases.yaml (ids "<rule>::<case>")."""

from __future__ import annotations

import pytest

from logscope.tooling.rule_cases import case_files, load_cases, run_case

CASES = [(rule, case) for path in case_files() for rule, cases in [load_cases(path)] for case in cases]


@pytest.mark.parametrize(("rule_id", "case"), CASES, ids=[f"{r}::{c['name']}" for r, c in CASES])
def test_rule_case(rule_id, case):
    problems = run_case(rule_id, case)
    assert not problems, "\n".join(problems)
