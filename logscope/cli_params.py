"""Option values coerced without pydantic, for the parameter types logscope's commands use.

typer 0.2x coerces every option value through a pydantic TypeAdapter, and importing pydantic cost about
0.09 s of every run (a third of a small paste's answer). logscope's options are plain str, int, float, Path,
an Enum of formats, and lists or optionals of those; for a value whose meaning is plain (digits for an int, a
member's exact value for an Enum, any string for str or Path without path checks) this gives what typer's
adapter gives. Anything else (a range limit, a path flag, a malformed number, another type) goes to typer's
own coercion, so its checks and its error messages are unchanged. If typer's internals move, `install` does
nothing and typer works as shipped.
"""

from __future__ import annotations

import os
import re
import types
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Union, get_args, get_origin

_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)")
_NO_MATCH = object()


def install() -> None:
    try:
        from typer import _coercion, core
    except ImportError:
        return
    original = getattr(core, "build_runtime_param", None)
    runtime_param = getattr(_coercion, "RuntimeParam", None)
    if original is None or runtime_param is None or getattr(original, "_logscope", False):
        return

    @dataclass(frozen=True)
    class PlainRuntimeParam(runtime_param):  # type: ignore[misc, valid-type]
        descriptor: Any

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            plain = coerce(self.annotation, self.parameter_info, value)
            if plain is not _NO_MATCH:
                return plain
            return original(self.descriptor)._coerce_value(value, param=param, ctx=ctx)  # type: ignore[misc]

    def build(descriptor: Any) -> Any:
        if getattr(descriptor, "file_annotation", None) is not None:
            return original(descriptor)
        return PlainRuntimeParam(descriptor.parameter_info, descriptor.annotation, descriptor)

    build._logscope = True  # type: ignore[attr-defined]
    core.build_runtime_param = build


def coerce(annotation: Any, info: Any, value: Any) -> Any:
    """The value for a plain annotation, or _NO_MATCH to leave it to typer."""
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        return coerce(members[0], info, value) if len(members) == 1 else _NO_MATCH
    if origin is list:
        (item,) = get_args(annotation)
        items = [coerce(item, info, v) for v in (value if isinstance(value, (list, tuple)) else [value])]
        return _NO_MATCH if any(i is _NO_MATCH for i in items) else items
    if getattr(info, "parser", None) is not None:
        return _NO_MATCH
    if not isinstance(value, str):  # a default: kept as declared when it already has the type
        typed = (
            (annotation in (str, int, float) and type(value) is annotation)
            or (annotation is Path and isinstance(value, Path))
            or (_is_enum(annotation) and isinstance(value, annotation))
        )
        limited = any(getattr(info, name, None) not in (None, False) for name in ("min", "max", "clamp"))
        return value if typed and not limited else _NO_MATCH
    if annotation is str:
        return value
    if annotation in (int, float):
        limited = any(getattr(info, name, None) not in (None, False) for name in ("min", "max", "clamp"))
        if limited or not (_INT if annotation is int else _FLOAT).fullmatch(value):
            return _NO_MATCH
        return annotation(value)
    if annotation is Path:
        flagged = any(getattr(info, name, None) for name in ("exists", "resolve_path", "allow_dash", "path_type", "writable"))
        if flagged or getattr(info, "file_okay", True) is not True or getattr(info, "dir_okay", True) is not True:
            return _NO_MATCH
        if getattr(info, "readable", True) and os.path.exists(value) and not os.access(value, os.R_OK):
            return _NO_MATCH  # typer says it is not readable
        return Path(value)
    if _is_enum(annotation) and getattr(info, "case_sensitive", True):
        return next((member for member in annotation if member.value == value), _NO_MATCH)
    return _NO_MATCH


def _is_enum(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, Enum)
