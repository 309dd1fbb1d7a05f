"""A thread's `outcome` as the mined yaml records it (fixtures/mined/README.md: state, fixed_by, fixed_in,
workaround, duplicate_of, closed_without_fix) → the index's Outcome, with thread references as owner/name#N."""

from __future__ import annotations

import re
from typing import Any

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
