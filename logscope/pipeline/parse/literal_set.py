"""The prefilter's literals, read from the user cache where they were stored, so that a large input's byte
ranges are being scanned while the grammars, signatures and rules are still being imported and loaded
(computing the set imports every parser: about 0.1 s before the first byte could be scanned).

The cache key is every file the set could be made from, by name, size and modification time: all of logscope's modules
(the parse stage's readers declare their literals, but a reader may take them from any module: ingest's failing
levels, the kind catalogue), the catalogues and the bundled signature files; any change to one of them computes the
set again. (A key of the parse stage's modules alone kept a stale set after a literal was added elsewhere.) Stamps,
not contents: about 300 stats cost less than hashing the 90 modules did."""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path

import logscope
from logscope.core import user_cache
from logscope.core.resources import data_dir
from logscope.pipeline.ingest.linescan import LiteralScan
from logscope.pipeline.parse.signatures.loader import signature_files

_PACKAGE = Path(logscope.__file__).resolve().parent


def literal_files() -> list[Path]:
    """Every module of the package, the catalogues and the bundled signature files."""
    return [Path(path) for path, _ in _stamps()]


def _stamps() -> list[tuple[str, str]]:
    """(path, "size mtime") of each file (os.scandir: pathlib's rglob and stat cost a paste twice as much)."""
    out: list[tuple[str, str]] = []
    folders = [str(_PACKAGE)]
    while folders:
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                    folders.append(entry.path)
                elif entry.name.endswith(".py"):
                    stat = entry.stat()
                    out.append((entry.path, f"{stat.st_size} {stat.st_mtime_ns}"))
    for path in (*sorted(data_dir("catalog").glob("*.json")), *signature_files()):
        stat = path.stat()
        out.append((str(path), f"{stat.st_size} {stat.st_mtime_ns}"))
    return sorted(out)


def literal_key() -> str | None:
    """The files' names, sizes and modification times, hashed; None when one cannot be read (no cache then)."""
    try:
        stamps = _stamps()
    except OSError:
        return None
    return hashlib.sha256("\n".join(f"{path}\0{stamp}" for path, stamp in stamps).encode()).hexdigest()[:24]


def cached_literals() -> tuple[str, ...]:
    """prefilter.all_literals(), without importing the prefilter when the cache holds them (computing them costs a
    process 0.13 s)."""

    def compute() -> tuple[str, ...]:
        from logscope.pipeline.parse import prefilter

        return prefilter.all_literals()

    return user_cache.cached(
        "literals",
        literal_key(),
        compute,
        lambda value: isinstance(value, tuple) and bool(value) and all(isinstance(x, str) for x in value),
    )


@cache
def literal_scan() -> LiteralScan:
    """The literals for the raw-bytes pass over an input and the exact test of a line's text (the cached set: an
    input read on this thread and a long line's exact test computed it anew each run)."""
    return LiteralScan(cached_literals())


def holds_literal(text: str) -> bool:
    """The exact test a candidate line passes: it holds one of the literals."""
    return literal_scan().holds(text)
