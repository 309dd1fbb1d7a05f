"""What a page or a comment draws of a large document: the first launches, the first ranks of each, the
first findings in the verdict's order (so the verdict stays the top finding's). The document keeps its shape
(schema logscope/1) and gains `shown`, the counts drawn and in all, with the findings left out counted by
rule; every styling says it next to the verdict (view.shown_statement)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from logscope.report.view import finding_order


@dataclass(frozen=True)
class DrawLimits:
    launches: int = 20
    ranks: int = 64  # per launch
    findings: int = 50


def within(document: dict[str, Any], limits: DrawLimits) -> dict[str, Any]:
    """The document cut to `limits` (a shallow copy; the input is not changed); unchanged when it fits."""
    launches = document["launches"]
    findings = document["findings"]
    ranks = sum(len(launch["ranks"]) for launch in launches)
    fits = len(launches) <= limits.launches and len(findings) <= limits.findings
    if fits and all(len(launch["ranks"]) <= limits.ranks for launch in launches):
        return document
    kept = [{**launch, "ranks": launch["ranks"][: limits.ranks]} for launch in launches[: limits.launches]]
    kept_ranks = {str(launch["id"]): {r["rank"] for r in launch["ranks"]} for launch in kept}
    coverage = dict(document["coverage"])
    missing = coverage.get("missing_phases") or {}
    coverage["missing_phases"] = {
        launch: {rank: phases for rank, phases in by_rank.items() if rank in kept_ranks[launch]}
        for launch, by_rank in missing.items()
        if launch in kept_ranks
    }
    first = set(sorted(range(len(findings)), key=lambda i: finding_order(findings[i]))[: limits.findings])
    kept_findings = [f for i, f in enumerate(findings) if i in first]  # the verdict's top finding among them
    left_out = Counter(f["rule"] for i, f in enumerate(findings) if i not in first)
    return {
        **document,
        "launches": kept,
        "findings": kept_findings,
        "coverage": coverage,
        "shown": {
            "launches": len(kept),
            "of_launches": len(launches),
            "ranks": sum(len(launch["ranks"]) for launch in kept),
            "of_ranks": ranks,
            "ranks_per_launch": limits.ranks,
            "findings": len(kept_findings),
            "of_findings": len(findings),
            "findings_left_out": dict(left_out.most_common()),
        },
    }
