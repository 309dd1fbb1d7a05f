"""An issue as posts (the body, then each comment) and each post as blocks: fenced code, `<details>`
contents, quoted lines, indented code, and the prose around them. Every block keeps its origin (post,
block number, first line in the post) so that evidence can point at it."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from logscope.core.errors import InputError

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_QUOTED = re.compile(r"^\s{0,3}>")
_INDENTED = re.compile(r"^(?: {4}|\t)\S")
_DETAILS = re.compile(r"</?details[^>]*>|</?summary[^>]*>.*?(?:</summary>|$)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Post:
    origin: str  # "body" or "comment 3"
    author: str | None
    text: str


@dataclass(frozen=True, slots=True)
class Block:
    origin: str  # "body" or "comment 3"
    number: int  # 1-based, in the post
    kind: str  # fenced | quoted | indented | prose
    first_line: int  # the block's first line in the post (1-based)
    text: str

    @property
    def name(self) -> str:
        """The block's name in evidence: `body#2`, `comment 3#1`."""
        return f"{self.origin}#{self.number}"


def read_issue(text: str, source: str) -> tuple[str | None, list[Post]]:
    """(title, posts) from a Markdown body or the REST API's JSON: an issue object, a list of the issue and
    its comments, or {"issue": ..., "comments": [...]}."""
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            data = json.loads(stripped)
        except ValueError:
            data = None
        if data is not None:
            return _from_json(data, source)
    return None, [Post("body", None, text)]


def _login(obj: dict[str, Any]) -> str | None:
    user = obj.get("user")
    return user.get("login") if isinstance(user, dict) else None


def _from_json(data: Any, source: str) -> tuple[str | None, list[Post]]:
    if isinstance(data, dict) and "issue" in data:
        issue, comments = data["issue"], data.get("comments") or []
    elif isinstance(data, list) and data and isinstance(data[0], dict) and "title" in data[0]:
        issue, comments = data[0], data[1:]
    elif isinstance(data, dict) and ("body" in data or "title" in data):
        issue, comments = data, []
    else:
        raise InputError(f"{source}: JSON that is neither a GitHub issue nor an issue with its comments")
    if not isinstance(issue, dict) or not isinstance(comments, list):
        raise InputError(f"{source}: JSON that is neither a GitHub issue nor an issue with its comments")
    posts = [Post("body", _login(issue), str(issue.get("body") or ""))]
    posts += [Post(f"comment {i}", _login(c), str(c.get("body") or "")) for i, c in enumerate(comments, 1) if isinstance(c, dict)]
    return (str(issue["title"]) if issue.get("title") else None), posts


def split_blocks(post: Post) -> list[Block]:
    """The post's blocks in order; prose lines between them are one `prose` block each run."""
    lines = post.text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[Block] = []
    run: list[str] = []
    run_kind = ""
    run_start = 0
    fence: str | None = None

    def flush() -> None:
        nonlocal run, run_kind
        if run and any(line.strip() for line in run):
            blocks.append(Block(post.origin, len(blocks) + 1, run_kind, run_start, "\n".join(run)))
        run, run_kind = [], ""

    for number, raw in enumerate(lines, 1):
        line = _DETAILS.sub("", raw) if "<" in raw else raw
        if fence is not None:
            if re.match(rf"^\s{{0,3}}{re.escape(fence[0])}{{{len(fence)},}}\s*$", line):
                fence = None
                flush()
            else:
                run.append(line)
            continue
        opened = _FENCE.match(line)
        if opened:
            flush()
            fence, run_kind, run_start = opened.group(1), "fenced", number + 1
            continue
        kind = "quoted" if _QUOTED.match(line) else "indented" if _INDENTED.match(line) else "prose"
        if kind == "indented" and run_kind == "prose" and run and run[-1].strip():
            kind = "prose"  # a continuation line of a paragraph, not a code block
        if kind != run_kind:
            flush()
            run_kind, run_start = kind, number
        run.append(
            re.sub(r"^\s{0,3}>\s?", "", line)
            if kind == "quoted"
            else line[4:]
            if kind == "indented" and line.startswith("    ")
            else line[1:]
            if kind == "indented"
            else line
        )
    flush()
    return blocks
