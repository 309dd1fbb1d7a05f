"""The document's `known_cases` section (schema logscope-cases/1, additive to logscope/1): for each failure
finding, its key and up to three nearest known cases, or the plain statement that none is known. The index is
opened only here, and only when there is a failure finding to match."""

from __future__ import annotations

from typing import Any, Final

from logscope.cases.key import CaseKey

CASES_SCHEMA: Final = "logscope-cases/1"
SECTION: Final = "known_cases"


def known_cases_section(document: dict[str, Any], keys: list[tuple[int, CaseKey]]) -> dict[str, Any] | None:
    """None when no finding is a failure (the index stays closed)."""
    if not keys:
        return None
    # the first failure of the process opens the index (and imports what matches it)
    from logscope.cases.index import bundled_index
    from logscope.cases.match import TOP, log_context, nearest

    index = bundled_index()
    findings = document["findings"]
    out = []
    for position, key in keys:
        finding = findings[position]
        log = log_context(document, finding.get("launch"))
        matches = nearest(key, index, log, TOP)
        entry: dict[str, Any] = {
            "rule": finding["rule"],
            "launch": finding.get("launch"),
            "signature": key.signature,
            "key": key.to_json(),
            "log_release": log.release_text(),
            "matches": [m.to_json() for m in matches],
        }
        if not matches:
            what = f"signature {key.signature}" if key.signature else f"finding {key.finding} and a message like this one"
            entry["statement"] = f"No known case with {what} among the {len(index.cases)} indexed threads."
        out.append(entry)
    return {"schema": CASES_SCHEMA, "index": index.summary(), "findings": out}
