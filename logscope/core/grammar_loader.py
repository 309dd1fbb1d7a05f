"""Compile each lark grammar once per process, and once per grammar version on disk.

The on-disk cache key is a hash of every .lark file (imports included) plus lark's version, so an
edited grammar is recompiled and a stale cache is never used. A cache that cannot be written (read-only
home, sandbox) only costs the compile time.
"""

from __future__ import annotations

import hashlib
from functools import cache
from typing import Any

from lark import Lark, LarkError, Tree
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


_MEMO_ENTRIES = 4096
_MEMO_TEXT = 2000  # longer lines are parsed every time: rarely repeated, and costly to keep
_memo: dict[tuple[str, str], Tree[Any] | LarkError] = {}


def parse(name: str, text: str) -> Tree[Any]:
    """parser(name).parse(text), once per distinct text: a log repeats its lines (every rank prints the same
    startup, a traceback is printed by each rank and again by the launcher), and a lark parse costs about as
    much as the rest of a line's classification. Trees are shared, never changed (transformers build new
    values); a text the grammar rejects raises the same LarkError again."""
    key = (name, text)
    found = _memo.get(key)
    if found is None:
        try:
            found = parser(name).parse(text)
        except LarkError as exc:
            found = exc
        if len(text) <= _MEMO_TEXT:
            if len(_memo) >= _MEMO_ENTRIES:
                _memo.clear()
            _memo[key] = found
    if isinstance(found, LarkError):
        raise found.with_traceback(None)
    return found
