"""A dict of compiled things kept in one marshal file of the user cache, for the start-up caches of a command
(method_cache.py: dataclass methods; pattern_cache.py: regular expressions). The file is named after the
interpreter's build (its cache tag and bytecode magic number), since what it holds is only valid for the build
that made it; an unreadable file, or one holding anything but the entries it should, counts as empty and is
written anew at the end of the command."""

from __future__ import annotations

import contextlib
import importlib.util
import marshal
import sys
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

from logscope.core.user_cache import cache_dir, write_atomically


class CompiledStore:
    def __init__(self, kind: str, valid: Callable[[Any, Any], bool], cap: int, salt: str = "") -> None:
        self.kind = kind
        self.valid = valid  # (key, value) -> whether an entry read from the file is one this store writes
        self.cap = cap  # a file past this many entries starts again with the ones this process used
        self.salt = salt  # what else the entries depend on
        self.entries: dict[Any, Any] = {}
        self.used: set[Any] = set()
        self.added = False
        self.path: Path | None = None

    def file_name(self) -> str:
        tag = sys.implementation.cache_tag or sys.implementation.name
        return f"{self.kind}-{tag}-{importlib.util.MAGIC_NUMBER.hex()}{self.salt}.marshal"

    def open(self) -> bool:
        """Read the file (False: no cache folder that can be written, nothing to keep)."""
        folder = cache_dir()
        if folder is None:
            return False
        self.path = folder / self.file_name()
        self.entries.update(self._read(self.path))
        return True

    def _read(self, path: Path) -> dict[Any, Any]:
        try:
            stored = marshal.loads(path.read_bytes())  # marshal.load(file) reads object by object: ten times slower
        except (OSError, EOFError, ValueError, TypeError):
            return {}
        if not isinstance(stored, dict) or not all(self.valid(key, value) for key, value in stored.items()):
            return {}
        return stored

    def get(self, key: Hashable) -> Any:
        self.used.add(key)
        return self.entries.get(key)

    def put(self, key: Hashable, value: Any) -> None:
        self.entries[key] = value
        self.used.add(key)
        self.added = True

    def save(self) -> None:
        """Store what this process added (atomically; nothing when nothing is new)."""
        if not self.added or self.path is None:
            return
        self.added = False
        entries = self.entries if len(self.entries) <= self.cap else {k: self.entries[k] for k in self.used if k in self.entries}
        with contextlib.suppress(ValueError):  # a value marshal cannot write: the file is left as it was
            write_atomically(self.path, marshal.dumps(entries))

    def close(self) -> None:
        self.entries.clear()
        self.used.clear()
        self.added, self.path = False, None
