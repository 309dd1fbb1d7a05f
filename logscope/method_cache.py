"""The methods that `@dataclass` writes, compiled once per Python build instead of once per process.

A dataclass's `__init__`, `__repr__`, `__eq__`, `__hash__`, `__setattr__` ... are Python source that the
dataclasses module writes out and hands to `exec` when the class is created. Compiling those few hundred small
functions was the largest single cost of a paste's start-up (about 55 ms of 0.28 s for 109 classes, more than
lark or typer). The command's entry (entry.py) installs `exec` in the dataclasses module's namespace (the module
looks the name up there before the builtins) as `_exec`, which compiles a source text it has not seen and takes
the code object of one it has from a dict stored in the user cache folder (marshal, under the interpreter's
bytecode magic number: a code object is only ever run by the build that compiled it). The code is what
`exec(text)` itself would compile (same text, same file name, no inherited `__future__` flags), so the classes
are the same; an unreadable or damaged file is ignored and written anew at the end of the command.
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import importlib.util
import marshal
import sys
from pathlib import Path
from types import CodeType
from typing import Any

from logscope.core.user_cache import cache_dir, write_atomically

_MAX_ENTRIES = 4000  # every dataclass of the package makes about 5: a file past this is started again

_compiled: dict[str, CodeType] = {}
_used: set[str] = set()  # the texts this process ran: what a file past _MAX_ENTRIES starts again with
_added = False
_path: Path | None = None


def file_name() -> str:
    tag = sys.implementation.cache_tag or sys.implementation.name
    return f"dataclass-methods-{tag}-{importlib.util.MAGIC_NUMBER.hex()}.marshal"


def install() -> None:
    """Compile dataclass methods through the cache from now on (a folder that cannot be written: nothing)."""
    global _path
    folder = cache_dir()
    if folder is None or getattr(dataclasses, "exec", None) is _exec:
        return
    _path = folder / file_name()
    _compiled.update(_read(_path))
    dataclasses.exec = _exec  # type: ignore[attr-defined]


def uninstall() -> None:
    global _path, _added
    if getattr(dataclasses, "exec", None) is _exec:
        del dataclasses.exec  # type: ignore[attr-defined]
    _compiled.clear()
    _used.clear()
    _path, _added = None, False


def _read(path: Path) -> dict[str, CodeType]:
    try:
        stored = marshal.loads(path.read_bytes())  # marshal.load(file) reads object by object: ten times slower
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(stored, dict) or not all(
        isinstance(text, str) and isinstance(code, CodeType) for text, code in stored.items()
    ):
        return {}
    return stored


def _exec(source: Any, globals: dict[str, Any] | None = None, locals: dict[str, Any] | None = None) -> None:  # noqa: A002 - exec's own names
    global _added
    if isinstance(source, str):
        _used.add(source)
        code = _compiled.get(source)
        if code is None:
            # dont_inherit: exec(text) in the dataclasses module compiles without this module's __future__ flags
            code = compile(source, "<string>", "exec", dont_inherit=True)
            _compiled[source] = code
            _added = True
        source = code
    builtins.exec(source, globals, locals)


def save() -> None:
    """Store what this process compiled that the file did not hold (atomically; nothing when nothing is new)."""
    global _added
    if not _added or _path is None:
        return
    _added = False
    entries = _compiled if len(_compiled) <= _MAX_ENTRIES else {text: _compiled[text] for text in _used}
    with contextlib.suppress(ValueError):  # a code object marshal cannot write: the file is left as it was
        write_atomically(_path, marshal.dumps(entries))
