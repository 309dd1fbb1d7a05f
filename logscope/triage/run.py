"""Triage one issue: its posts split into blocks, all analysed together; the document gains a `triage` section
(title, the blocks with their origin) that the comment styling reads, and is redacted whole (logscope/core/redact.py)
before anyone renders it: the comment, the JSON and the bot's comment all come from it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from logscope.core.errors import InputError, LogscopeError
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
    cases: bool = True,
) -> dict[str, Any]:
    skipped = set(skip)
    title, posts = read_issue(text, source)
    blocks = [block for post in posts for block in split_blocks(post)]
    sources = [Source(name=block.name, path=None, data=block.text.encode()) for block in blocks]
    document = analyze_sources(sources, rules_dirs, deadline=deadline, cases=cases)
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


def triage_issue(issue: str, keep: list[str], no_redact: bool, rules_dirs: list[str], cases: bool = True) -> dict[str, Any]:
    """`logscope triage`: the issue in a file (or `-`, stdin) read whole and triaged; `keep` names the kinds of
    redaction to leave out (all of them with `no_redact`)."""
    unknown = sorted(set(keep) - set(KINDS))
    if unknown:
        raise LogscopeError(f"--keep: unknown kinds {', '.join(unknown)} (known: {', '.join(KINDS)})")
    text = read_issue_file(issue)
    return triage_text(text, "<stdin>" if issue == "-" else issue, KINDS if no_redact else keep, rules_dirs, cases=cases)


def read_issue_file(issue: str) -> str:
    """The issue's text, read whole (it is split into blocks) but never more than limits.ISSUE_CAP bytes."""
    from logscope.core.limits import ISSUE_CAP, size
    from logscope.pipeline.ingest.decoding import decode_text
    from logscope.pipeline.ingest.ingest import stdin_stream

    name = "<stdin>" if issue == "-" else issue
    try:
        if issue == "-":
            raw = stdin_stream().read(ISSUE_CAP + 1)
        else:
            with open(issue, "rb") as handle:
                raw = handle.read(ISSUE_CAP + 1)
    except IsADirectoryError:
        raise InputError(f"{issue}: is a directory (triage reads one issue)") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > ISSUE_CAP:
        raise InputError(
            f"{name}: larger than {size(ISSUE_CAP)}; triage reads one issue thread (GitHub caps a body "
            f"or a comment at 65536 characters): give the logs to logscope analyze instead"
        )
    return decode_text(name, raw)
