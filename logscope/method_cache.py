"""The methods that `@dataclass` writes, compiled once per Python build instead of once per process.

A dataclass's `__init__`, `__repr__`, `__eq__`, `__hash__`, `__setattr__` ... are Python source that the
dataclasses module writes out and hands to `exec` when the class is created. Compiling those few hundred small
functions was the largest single cost of a paste's start-up (about 55 ms of 0.28 s for 109 classes, more than
lark or typer). The command's entry (entry.py) installs `exec` in the dataclasses module's namespace (the module
looks the name up there before the builtins) as `_exec`, which compiles a source text it has not seen and takes
the code object of one it has from a dict stored in the user cache folder (marshal, under the interpreter's
bytecode magic number: a code object is only ever run by the build that compiled it). The code is what
`exec(text)` itself would compile (same text, same file name, no inherited `__future__` flags), so the classes
are the same; an unreadable or damaged file is ignored and written anew at the end of the command
(compiled_store.py).
"""

from __future__ import annotations

import builtins
import dataclasses
from types import CodeType
from typing import Any

from logscope.compiled_store import CompiledStore

# a paste makes about 600 methods, the whole test suite 1,100: a file past 2,000 (older releases' classes, other
# commands') starts again with what the command that fills it used
_STORE = CompiledStore("dataclass-methods", lambda text, code: isinstance(text, str) and isinstance(code, CodeType), 2000)


def file_name() -> str:
    return _STORE.file_name()


def install() -> None:
    """Compile dataclass methods through the cache from now on (a folder that cannot be written: nothing)."""
    if getattr(dataclasses, "exec", None) is _exec or not _STORE.open():
        return
    dataclasses.exec = _exec  # type: ignore[attr-defined]


def uninstall() -> None:
    if getattr(dataclasses, "exec", None) is _exec:
        del dataclasses.exec  # type: ignore[attr-defined]
    _STORE.close()


def _exec(source: Any, globals: dict[str, Any] | None = None, locals: dict[str, Any] | None = None) -> None:  # noqa: A002 - exec's own names
    if isinstance(source, str):
        code = _STORE.get(source)
        if code is None:
            # dont_inherit: exec(text) in the dataclasses module compiles without this module's __future__ flags
            code = compile(source, "<string>", "exec", dont_inherit=True)
            _STORE.put(source, code)
        source = code
    builtins.exec(source, globals, locals)


def save() -> None:
    """Store what this process compiled that the file did not hold (atomically; nothing when nothing is new)."""
    _STORE.save()
