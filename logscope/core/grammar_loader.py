"""Compile each lark grammar once per process, and once per grammar version on disk.

The on-disk cache key is a hash of every .lark file (imports included) plus lark's version, so an
edited grammar is recompiled and a stale cache is never used. A cache that cannot be written (read-only
home, sandbox) only costs the compile time.

Two files per grammar: lark's own cache (its grammar analysis, which lark turns back into a parser in Python:
about 12 ms for the sglang grammar, its parse table and one lexer per parser state) and the parser lark built
from it, pickled (unpickled in about 3 ms). A paste loads the pickle; a pickle that cannot be read or holds
something else is ignored, and the parser is built from lark's cache (or the grammar) and pickled again.
"""

from __future__ import annotations

import copyreg
import hashlib
import importlib
import io
import pickle
import sys
import types
from functools import cache
from pathlib import Path
from typing import Any

from lark import Lark, LarkError, Tree
from lark import __version__ as lark_version
from lark.grammar import Rule
from lark.parsers.lalr_analysis import Action

from logscope.core.resources import data_dir
from logscope.core.user_cache import cache_dir as _cache_dir
from logscope.core.user_cache import write_atomically


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
    cache_dir = _cache_dir()
    if cache_dir is None:
        return _built(name, None)
    pickled = cache_dir / f"{name}-{grammars_digest()}-{sys.implementation.cache_tag}.lark-parser"
    found = _unpickled(pickled)
    if found is None:
        found = _built(name, cache_dir)
        _store(pickled, found)
    return found


def _built(name: str, cache_dir: Path | None) -> Lark:
    path = data_dir("grammars") / f"{name}.lark"
    options: dict[str, Any] = {"parser": "lalr", "lexer": "contextual", "maybe_placeholders": False}
    if cache_dir is not None:
        cache_file = cache_dir / f"{name}-{grammars_digest()}.lark-cache"
        try:
            return Lark.open(str(path), rel_to=None, cache=str(cache_file), **options)
        except OSError:
            pass
    return Lark.open(str(path), **options)


def _unpickled(path: Path) -> Lark | None:
    try:
        found = pickle.loads(path.read_bytes())  # noqa: S301 - the user's own cache folder, like lark's cache
    except Exception:  # noqa: BLE001 - any damage to the file (truncated, foreign, from another lark) means: build
        return None
    return found if isinstance(found, Lark) and found.options.parser == "lalr" else None


class _ParserPickler(pickle.Pickler):
    """A built parser as pickle can store it: the `re` module it holds by name, the parse table's Shift and
    Reduce as the module's own objects (the parser tests `action is Shift`), and each grammar rule made again
    by its constructor (it keeps a hash of strings, which differs in every process)."""

    dispatch_table = copyreg.dispatch_table.copy()
    dispatch_table[types.ModuleType] = lambda module: (importlib.import_module, (module.__name__,))
    dispatch_table[Action] = lambda action: action.name  # a global of lark.parsers.lalr_analysis
    dispatch_table[Rule] = lambda rule: (Rule, (rule.origin, rule.expansion, rule.order, rule.alias, rule.options))


def _store(path: Path, built: Lark) -> None:
    buffer = io.BytesIO()
    try:
        _ParserPickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(built)
    except (pickle.PicklingError, TypeError, AttributeError):
        return
    write_atomically(path, buffer.getvalue())


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
