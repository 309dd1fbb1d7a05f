"""`logscope cases`: the index listed, or searched by a signature or rule id, a thread (owner/name#N or #N), or words
of a message or title (ranked by how many of the words a case holds)."""

from __future__ import annotations

import re
from typing import Any

from logscope.cases.index import CaseIndex, KnownCase
from logscope.cases.key import normalise_message
from logscope.cases.match import MESSAGE_WORD, outcome_text

_THREAD = re.compile(r"^(?:(?P<repo>[\w.-]+/[\w.-]+))?#(?P<n>\d+)$")


def _words(text: str) -> set[str]:
    return set(MESSAGE_WORD.findall(normalise_message(text)))


def search(index: CaseIndex, query: str | None) -> list[KnownCase]:
    if not query:
        return list(index.cases)
    query = query.strip()
    thread = _THREAD.match(query)
    if thread is not None:
        number, repo = int(thread.group("n")), thread.group("repo")
        return [c for c in index.cases if c.number == number and (repo is None or c.repo.lower() == repo.lower())]
    ids = [c for c in index.cases if any(query in (k.signature, k.finding, k.mechanism) for k in c.keys)]
    if ids:
        return ids
    wanted = _words(query)
    scored = []
    for case in index.cases:
        held = _words(case.title) | {w for k in case.keys for w in _words(k.message)}
        hits = len(wanted & held)
        if hits:
            scored.append((-hits, case.ref, case))
    return [case for _, _, case in sorted(scored, key=lambda t: (t[0], t[1]))]


def case_line(case: KnownCase) -> str:
    signatures = ", ".join(dict.fromkeys(k.signature or f"({k.finding})" for k in case.keys))
    facts = "; ".join(
        part
        for part in (
            case.date or "",
            ", ".join(case.releases[:3]),
            "/".join(case.hardware[:3]),
            signatures,
            outcome_text(case),
        )
        if part
    )
    return f"{case.ref}  {case.title}  [{facts}]"


def listing(index: CaseIndex, query: str | None) -> tuple[list[str], list[dict[str, Any]]]:
    """(text lines, JSON records) of the cases the query finds, with a head line saying what the index is."""
    found = search(index, query)
    head = f"{len(found)} of {len(index.cases)} known cases (index generated {index.generated or 'never'})"
    if query:
        head += f" for {query!r}"
    return [head, *(case_line(c) for c in found)], [c.to_json() for c in found]
