"""Triage one issue: its posts split into blocks, all analysed together; the document gains a `triage` section
(title, the blocks with their origin) that the comment styling reads, and is redacted whole (logscope/core/redact.py)
before anyone renders it: the comment, the JSON and the bot's comment all come from it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from logscope.core.redact import KINDS, redact_document
from logscope.pipeline.analyze import ReadDeadline, analyze_sources
from logscope.pipeline.ingest.ingest import Source
from logscope.triage.issue import read_issue, split_blocks


def triage_text(
    text: str,
    source: str = "<stdin>",
    skip: Iterable[str] = (),
    rules_dirs: list[str] | None = None,
    deadline: ReadDeadline | None = None,
) -> dict[str, Any]:
    skipped = set(skip)
    title, posts = read_issue(text, source)
    blocks = [block for post in posts for block in split_blocks(post)]
    sources = [Source(name=block.name, path=None, data=block.text.encode()) for block in blocks]
    document = analyze_sources(sources, rules_dirs, deadline=deadline)
    read = {entry["path"]: entry for entry in document["inputs"]}
    document["triage"] = {
        "title": title or None,
        "posts": [{"origin": p.origin, "author": p.author} for p in posts],
        "blocks": [
            {
                "name": b.name,
                "origin": b.origin,
                "number": b.number,
                "kind": b.kind,
                "first_line": b.first_line,
                "lines": read[b.name]["lines"],
                "recognized_lines": read[b.name]["recognized_lines"],
                "input_kind": read[b.name]["kind"],
            }
            for b in blocks
        ],
        "redacted": [kind for kind in KINDS if kind not in skipped],
    }
    return redact_document(document, skipped)
