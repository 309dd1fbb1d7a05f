"""Run rules/signatures/<mechanism>.cases.yaml: each case is a paste and the finding, phase and signature it
implies (and findings it must not give)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from logscope.core.errors import RuleError
from logscope.core.resources import rules_dir
from logscope.pipeline.analyze import analyze_model, analyze_sources
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse.signatures.loader import bundled_signatures
from logscope.pipeline.parse.signatures.match import locating_frame
from logscope.pipeline.rule_engine.loader import parse_yaml_file

_CASE_KEYS = {"name", "log", "finding", "phase", "signature", "located_by", "not"}


def signature_case_files() -> list[Path]:
    return sorted((rules_dir() / "signatures").glob("*.cases.yaml"))


def load_signature_cases(path: Path) -> list[dict[str, Any]]:
    data = parse_yaml_file(path)
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        raise RuleError(f"{path}: a signature case file has `mechanism: <name>` and `cases: [...]`")
    for case in data["cases"]:
        unknown = set(case) - _CASE_KEYS
        if unknown or "log" not in case or "finding" not in case:
            raise RuleError(f"{path}: case {case.get('name')!r}: needs log and finding; unknown keys {sorted(unknown)}")
    return data["cases"]


def check_case(case: dict[str, Any], log: str | None = None) -> list[str]:
    """The problems with one case run on `log` (the case's own text by default); empty when it passes."""
    text = case["log"] if log is None else log
    report = analyze_sources([Source(name="case.log", path=None, data=text.encode())])
    got = [f for f in report["findings"] if f["rule"] == case["finding"]]
    problems = []
    if not got:
        found = ", ".join(f"{f['rule']} ({f['message']})" for f in report["findings"]) or "none"
        return [f"expected {case['finding']}; findings: {found}"]
    finding = got[0]
    if "phase" in case and finding.get("phase") != case["phase"]:
        problems.append(f"phase {finding.get('phase')!r}, expected {case['phase']!r}: {finding['message']}")
    if (
        "signature" in case
        and finding.get("signature") != case["signature"]
        and (finding.get("signature") is not None or case["signature"] not in _attributing_signatures(text, case["finding"]))
    ):
        # a finding a rule builds from facts (memory-imbalance) names no signature: the failure stage's does
        problems.append(f"signature {finding.get('signature')!r}, expected {case['signature']!r}")
    if "located_by" in case and case["located_by"] not in _locating_signatures(text):
        problems.append(f"no failure located by the {case['located_by']} signature")
    for rule in case.get("not", []):
        if any(f["rule"] == rule for f in report["findings"]):
            problems.append(f"gave {rule}, which the case rules out")
    return problems


def _attributing_signatures(text: str, finding: str) -> set[str]:
    """The signatures that attributed a failure of `finding` in `text` (the failure stage, before the rules)."""
    analysis = analyze_model([Source(name="case.log", path=None, data=text.encode())])
    return {f.signature for fs in analysis.failures.values() for f in fs if f.finding == finding and f.signature}


def _locating_signatures(text: str) -> set[str]:
    """The phase-locating signatures (rules/signatures/phases.yaml) whose frame placed a failure of `text`."""
    analysis = analyze_model([Source(name="case.log", path=None, data=text.encode())])
    found = (locating_frame(f.event, bundled_signatures()) for fs in analysis.failures.values() for f in fs)
    return {hit[0].id for hit in found if hit is not None}


def pinned_signatures() -> set[str]:
    """The signature ids some case names, as the mechanism that matched (`signature`) or the frame that located
    the failure (`located_by`)."""
    return {
        case[key]
        for path in signature_case_files()
        for case in load_signature_cases(path)
        for key in ("signature", "located_by")
        if key in case
    }


def run_signature_cases() -> tuple[list[str], int]:
    failures: list[str] = []
    total = 0
    for path in signature_case_files():
        for case in load_signature_cases(path):
            total += 1
            failures += [f"{path.name}::{case.get('name')}: {p}" for p in check_case(case)]
    return failures, total
