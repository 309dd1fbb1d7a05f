"""One reading of a folder, for `analyze DIR` and `scan` alike: every regular file below it (hidden names
skipped, symlinked folders followed once), sorted, and each entry that is left out named with why (a dangling
link, a symlink loop, a pipe, socket or device, a folder or file that cannot be read: permission denied)."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field

from logscope.core.printable import shown_name


@dataclass(slots=True)
class FolderReading:
    files: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # "path: why", each an entry left out


def why(exc: OSError) -> str:
    """An OSError said in a few words."""
    if exc.errno == errno.ELOOP:
        return "symlink loop"
    return "permission denied" if isinstance(exc, PermissionError) else (exc.strerror or str(exc)).lower()


def regular_file(path: str) -> tuple[os.stat_result | None, str | None]:
    """(its stat, None) for a regular file (through links), else (None, "path: why it is left out"); a folder is
    (None, None)."""
    try:
        info = os.stat(path)  # follows a symlink; a loop or a dangling link raises
    except OSError as exc:
        return None, f"{shown_name(path)}: {why(exc)}"
    if stat.S_ISREG(info.st_mode):
        return info, None  # one that cannot be read is left out when read, and named then
    if stat.S_ISDIR(info.st_mode):
        return None, None
    return None, f"{shown_name(path)}: not a regular file (a pipe, socket or device is not read from a folder)"


def listing(folder: str, seen: set[tuple[int, int]]) -> tuple[list[os.DirEntry[str]], list[os.DirEntry[str]], str | None]:
    """(its files, its folders: visible entries, sorted by name; a problem instead when it cannot be listed or was
    walked already through another link)."""
    try:
        info = os.stat(folder)
        key = (info.st_dev, info.st_ino)
        if key in seen:
            return [], [], f"{shown_name(folder)}: symlink loop or second link to a folder already walked"
        seen.add(key)
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        return [], [], f"{shown_name(folder)}: {why(exc)}"
    visible = [e for e in entries if not e.name.startswith(".")]
    return [e for e in visible if not _is_dir(e)], [e for e in visible if _is_dir(e)], None


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()  # follows symlinks: a symlinked folder is walked
    except OSError:
        return False


def read_folder(root: str) -> FolderReading:
    reading = FolderReading()
    seen: set[tuple[int, int]] = set()
    pending = [root]
    while pending:
        folder = pending.pop(0)
        files, folders, problem = listing(folder, seen)
        if problem is not None:
            reading.problems.append(problem)
            continue
        for entry in files:
            info, left_out = regular_file(entry.path)
            if info is not None:
                reading.files.append(entry.path)
            elif left_out is not None:
                reading.problems.append(left_out)
        pending[:0] = [e.path for e in folders]  # depth first, in name order
    reading.files.sort()
    return reading
