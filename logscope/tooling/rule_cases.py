"""Run rules/<id>.cases.yaml: each case is log text and the findings of that rule it must (not) produce."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from logscope.core.errors import RuleError
from logscope.core.resources import rules_dir
from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.rule_engine.loader import parse_yaml_file

_CASE_KEYS = {"name", "log", "expect", "files"}


def case_files(extra_dirs: list[str] | None = None) -> list[Path]:
    files = sorted(rules_dir().glob("*.cases.yaml"))
    for folder in extra_dirs or []:
        files += sorted(Path(folder).glob("*.cases.yaml"))
    return files


def load_cases(path: Path) -> tuple[str, list[dict[str, Any]]]:
    data = parse_yaml_file(path)
    if not isinstance(data, dict) or "rule" not in data or not isinstance(data.get("cases"), list):
        raise RuleError(f"{path}: a case file has `rule: <id>` and `cases: [...]`")
    for case in data["cases"]:
        unknown = set(case) - _CASE_KEYS
        if unknown:
            raise RuleError(f"{path}: case {case.get('name')!r}: unknown keys {sorted(unknown)}")
    return data["rule"], data["cases"]


def run_case(rule_id: str, case: dict[str, Any], extra_dirs: list[str] | None = None) -> list[str]:
    """The problems with one case (empty when it passes)."""
    files = case.get("files") or {"case.log": case.get("log", "")}
    sources = [Source(name=name, path=None, data=text.encode()) for name, text in files.items()]
    report = analyze_sources(sources, extra_dirs)
    got = [f for f in report["findings"] if f["rule"] == rule_id]
    expected = case.get("expect") or []
    problems = []
    if len(got) != len(expected):
        problems.append(
            f"expected {len(expected)} finding(s) of {rule_id}, got {len(got)}: "
            + "; ".join(f"{f['severity']} {f['ranks']} {f['message']}" for f in got)
        )
        return problems
    for want, have in zip(expected, got):
        if "severity" in want and want["severity"] != have["severity"]:
            problems.append(f"severity {have['severity']}, expected {want['severity']}")
        if "ranks" in want and want["ranks"] != have["ranks"]:
            problems.append(f"ranks {have['ranks']}, expected {want['ranks']}")
        for needle in want.get("message_contains", []):
            if needle not in have["message"]:
                problems.append(f"message lacks {needle!r}: {have['message']}")
        for needle in want.get("hint_contains", []):
            if needle not in have["hint"]:
                problems.append(f"hint lacks {needle!r}: {have['hint']}")
        for needle in want.get("hint_lacks", []):
            if needle in have["hint"]:
                problems.append(f"hint has {needle!r}: {have['hint']}")
        if "evidence_lines" in want and [e["line"] for e in have["evidence"]] != want["evidence_lines"]:
            problems.append(f"evidence lines {[e['line'] for e in have['evidence']]}, expected {want['evidence_lines']}")
    return problems


def run_all_cases(extra_dirs: list[str] | None = None) -> tuple[list[str], int]:
    failures: list[str] = []
    total = 0
    for path in case_files(extra_dirs):
        rule_id, cases = load_cases(path)
        for case in cases:
            total += 1
            for problem in run_case(rule_id, case, extra_dirs):
                failures.append(f"{rule_id}::{case.get('name')}: {problem}")
    return failures, total
