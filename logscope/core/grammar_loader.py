"""Compile each lark grammar once per process, and once per grammar version on disk.

The on-disk cache key is a hash of every .lark file (imports included) plus lark's version, so an
edited grammar is recompiled and a stale cache is never used. A cache that cannot be written (read-only
home, sandbox) only costs the compile time.
"""

from __future__ import annotations

import hashlib
from functools import cache
from typing import Any

from lark import Lark
from lark import __version__ as lark_version

from logscope.core.resources import data_dir
from logscope.core.user_cache import cache_dir as _cache_dir


@cache
def grammars_digest() -> str:
    digest = hashlib.sha256(lark_version.encode())
    for path in sorted(data_dir("grammars").glob("*.lark")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


@cache
def parser(name: str) -> Lark:
    """The LALR parser for grammars/<name>.lark (contextual lexer)."""
    path = data_dir("grammars") / f"{name}.lark"
    options: dict[str, Any] = {"parser": "lalr", "lexer": "contextual", "maybe_placeholders": False}
    cache_dir = _cache_dir()
    if cache_dir is not None:
        cache_file = cache_dir / f"{name}-{grammars_digest()}.lark-cache"
        try:
            return Lark.open(str(path), rel_to=None, cache=str(cache_file), **options)
        except OSError:
            pass
    return Lark.open(str(path), **options)
