"""The processes of a launched tree: the root and every descendant, found by walking /proc (each process's
parent is field 4 of /proc/PID/stat, after the command name in parentheses, which may itself hold spaces or
parentheses)."""

from __future__ import annotations

import os
from pathlib import Path

PROC = Path("/proc")


def _parent(stat: bytes) -> int | None:
    close = stat.rfind(b")")
    if close < 0:
        return None
    fields = stat[close + 2 :].split()
    return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else None


def descendants(root: int, proc: Path = PROC) -> set[int]:
    """`root` and every process below it, as /proc shows them now (empty where /proc cannot be read)."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir(proc)
    except OSError:
        return set()
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(proc / name / "stat", "rb") as handle:
                parent = _parent(handle.read())
        except OSError:
            continue  # ended while we looked
        if parent is not None:
            children.setdefault(parent, []).append(int(name))
    tree = {root}
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in tree:
                tree.add(child)
                stack.append(child)
    return tree
