"""Read a YAML data file (rules, signatures) as a node tree with positions, safely and with a size cap."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from logscope.core.errors import RuleError
from logscope.core.lazy import lazy_module

if TYPE_CHECKING:
    import yaml as yaml  # the name the readers of data files import from here
else:
    yaml = lazy_module("yaml")  # imported when a data file is parsed, not when its parsed form is cached


def safe_loader() -> type[yaml.SafeLoader]:
    """libyaml's safe loader when PyYAML has it (same safety: no Python tags), the pure one otherwise."""
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # type: ignore[no-any-return]


def compose_file(path: Path, max_bytes: int, what: str) -> tuple[bytes, yaml.Node]:
    """(raw bytes, root node); errors name the file, line and column."""
    name = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RuleError(f"{name}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > max_bytes:
        raise RuleError(f"{name}: {what} larger than {max_bytes} bytes")
    try:
        root = yaml.compose(raw.decode("utf-8"), Loader=safe_loader())
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        raise RuleError(f"{name}{where}: invalid YAML: {getattr(exc, 'problem', exc)}") from None
    return raw, root
