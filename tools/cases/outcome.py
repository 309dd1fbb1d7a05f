"""A thread's `outcome` as the mined yaml records it (fixtures/mined/README.md: state, fixed_by, fixed_in,
workaround, duplicate_of, closed_without_fix) → the index's Outcome, with thread references as owner/name#N."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from logscope.cases.index import Outcome

_REF = re.compile(r"(?:(?P<repo>[\w.-]+/[\w.-]+))?#(?P<n>\d+)|github\.com/(?P<url>[\w.-]+/[\w.-]+)/(?:pull|issues)/(?P<un>\d+)")


def thread_ref(value: Any, repo: str) -> str | None:
    """ "sgl-project/sglang#9012", "#9012", 9012 or a GitHub address → "owner/name#N"."""
    text = str(value).strip()
    if text.isdigit():
        return f"{repo}#{text}"
    m = _REF.search(text)
    if m is None:
        return None
    if m.group("url"):
        return f"{m.group('url')}#{m.group('un')}"
    return f"{m.group('repo') or repo}#{m.group('n')}"


def outcome_of(value: Any, repo: str) -> Outcome:
    if not isinstance(value, dict):
        return Outcome()
    fixed_by = value.get("fixed_by") or ()
    if isinstance(fixed_by, (str, int)):
        fixed_by = [fixed_by]
    refs = tuple(r for r in (thread_ref(v, repo) for v in fixed_by) if r)
    duplicate = value.get("duplicate_of")
    fixed_in = value.get("fixed_in")
    workaround = value.get("workaround")
    return Outcome(
        state=str(value.get("state") or "unknown"),
        fixed_by=refs,
        fixed_in=None if fixed_in is None else str(fixed_in).lstrip("v"),
        workaround=None if workaround is None else str(workaround)[:120],
        duplicate_of=None if duplicate is None else thread_ref(duplicate, repo),
        closed_without_fix=bool(value.get("closed_without_fix")),
    )


def merged(outcomes: list[Outcome]) -> Outcome:
    """One thread's outcome from all it states (each paste's yaml, the supplement): the union of the pull requests,
    the first release, workaround and duplicate named, the most final state."""
    states = [o.state for o in outcomes]
    state = next((s for s in ("merged", "closed", "open") if s in states), "unknown")
    return Outcome(
        state=state,
        fixed_by=tuple(dict.fromkeys(r for o in outcomes for r in o.fixed_by)),
        fixed_in=next((o.fixed_in for o in outcomes if o.fixed_in), None),
        workaround=next((o.workaround for o in outcomes if o.workaround), None),
        duplicate_of=next((o.duplicate_of for o in outcomes if o.duplicate_of), None),
        closed_without_fix=any(o.closed_without_fix for o in outcomes),
    )


def read_supplement(path: Path) -> dict[str, list[Outcome]]:
    """tools/cases/outcomes.yaml: thread (owner/name#N) → the outcomes stated elsewhere in it, each with its source."""
    entries = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    out: dict[str, list[Outcome]] = {}
    for entry in entries:
        if not isinstance(entry, dict) or not entry.get("thread") or not entry.get("source") or not entry.get("read_on"):
            raise ValueError(f"{path}: each entry needs thread, source and read_on: {entry!r}")
        repo = str(entry["thread"]).split("#", 1)[0]
        out.setdefault(str(entry["thread"]), []).append(outcome_of(entry, repo))
    return out
