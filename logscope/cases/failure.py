"""Which findings of a document are failures: the test that decides whether a document needs the known cases at
all, apart from the keys and their patterns, so that a report with no failure (most pastes) imports neither."""

from __future__ import annotations

from typing import Any

UNRECOGNIZED = "unrecognized-failure"  # the rule of a line that reads like a failure and that no signature names


def is_failure_finding(finding: dict[str, Any]) -> bool:
    """A finding the rule engine attributed to a failure (it carries the failure's signature, maybe None), or any
    error finding (a failure SGLang raised itself, such as memory-imbalance), or a failure line no signature names
    (unrecognized-failure: matched on its words alone)."""
    attributed = "signature" in finding and finding.get("severity") in ("error", "warning")
    return attributed or finding.get("severity") == "error" or finding.get("rule") == UNRECOGNIZED


def has_failure_finding(findings: list[dict[str, Any]]) -> bool:
    return any(is_failure_finding(finding) for finding in findings)
