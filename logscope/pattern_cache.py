"""Regular expressions compiled once per Python build instead of once per process.

`re.compile` parses a pattern and generates the matcher's code in Python; only the last step, `_sre.compile`, is
C. A paste compiles about 280 patterns (the modules' own and lark's lexers, one alternation per parser state it
reaches): about a sixth of its time. The command's entry (entry.py) installs `_compile` in the place of the `re`
package's compiler function (`re._compiler.compile`, `sre_compile.compile` before Python 3.11; the same lines in
3.10 to 3.13), which keeps for each pattern and flags what `_sre.compile` is given (the code, the flags, the
groups and their names) in a file of the user cache (compiled_store.py: named after the interpreter's build) and
hands a pattern it has seen straight to `_sre.compile`, which checks the code it is given. A Python whose
compiler function is not the one this module knows is left alone.

Only what `re.compile` compiles is kept (the modules' constants, lark's lexers, the catalogue's templates): the
one-off `re.search` / `re.match` / `re.sub` of a pattern made at run time may hold text of an input (a function
name of a pasted traceback), which the cache must neither keep nor grow with."""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

from logscope.compiled_store import CompiledStore

if sys.version_info >= (3, 11):
    from re import _compiler as _compiler_module
    from re import _parser as _parser_module
else:  # pragma: no cover - Python 3.10
    import sre_compile as _compiler_module
    import sre_parse as _parser_module

_compiler: ModuleType = _compiler_module
_parser: ModuleType = _parser_module
_original = _compiler.compile


def _valid(key: Any, value: Any) -> bool:
    return (
        isinstance(key, tuple)
        and len(key) == 2
        and isinstance(key[0], (str, bytes))
        and isinstance(key[1], int)
        and isinstance(value, tuple)
        and len(value) == 4
        and isinstance(value[0], int)
        and isinstance(value[1], list)
        and isinstance(value[2], dict)
        and isinstance(value[3], tuple)
    )


# the matcher's code format is _sre's: its MAGIC is part of the file's name; a paste compiles about 280 patterns,
# the whole test suite 900: a file past 1,500 starts again with what the command that fills it used
_STORE = CompiledStore("regex-code", _valid, 1500, salt=f"-sre{_compiler._sre.MAGIC}")


def install() -> None:
    """Compile regular expressions through the cache from now on (a folder that cannot be written: nothing)."""
    if _compiler.compile is _compile or not _knows_this_python() or not _STORE.open():
        return
    setattr(_compiler, "compile", _compile)  # noqa: B010 - a module attribute mypy does not know


def uninstall() -> None:
    if _compiler.compile is _compile:
        setattr(_compiler, "compile", _original)  # noqa: B010 - as above
    _STORE.close()


def save() -> None:
    _STORE.save()


def _knows_this_python() -> bool:
    """The compiler function is the one this module repeats (Python 3.10 to 3.13 have the same lines)."""
    code = getattr(_original, "__code__", None)
    return (
        code is not None
        and code.co_varnames[:2] == ("p", "flags")
        and all(name in code.co_names for name in ("_code", "compile", "groupdict", "groups"))
        and hasattr(_compiler, "_code")
        and hasattr(_compiler._sre, "compile")
    )


def _compile(p: Any, flags: int = 0) -> Any:
    if not isinstance(p, (str, bytes)) or flags & _compiler.SRE_FLAG_DEBUG:
        return _original(p, flags)
    key = (p, int(flags))
    found = _STORE.get(key)
    if found is not None:
        try:
            return _from(p, found)
        except (RuntimeError, TypeError, ValueError, OverflowError):  # _sre.compile refused the stored code
            pass
    # what re._compiler.compile does, keeping what it gives _sre.compile
    parsed = _parser.parse(p, flags)
    code = [int(op) for op in _compiler._code(parsed, flags)]  # opcodes are int subclasses marshal cannot write
    groupindex = parsed.state.groupdict
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    found = (int(flags | parsed.state.flags), code, dict(groupindex), tuple(indexgroup))
    if _from_re_compile(sys._getframe(2)):
        _STORE.put(key, found)
    return _from(p, found)


def _from(p: Any, found: tuple[int, list[int], dict[str, int], tuple[str | None, ...]]) -> Any:
    final_flags, code, groupindex, indexgroup = found
    return _compiler._sre.compile(p, final_flags, code, len(indexgroup) - 1, groupindex, indexgroup)


def _from_re_compile(frame: Any) -> bool:
    """The frame above re._compile is re.compile (not re.search, re.match, re.sub ...)."""
    return bool(frame.f_code.co_name == "compile" and frame.f_globals.get("__name__") == "re")
