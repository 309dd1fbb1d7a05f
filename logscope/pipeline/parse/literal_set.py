"""The prefilter's literals, read from the user cache where they were stored, so that a large input's byte
ranges are being scanned while the grammars, signatures and rules are still being imported and loaded
(computing the set imports every parser: about 0.1 s before the first byte could be scanned).

The cache key hashes every file the set is made from: the parse stage's modules (the grammar registry, the
block readers, the signature loader), the kind catalogue that declares the line grammars' literals, and the
bundled signature files; any change to one of them computes the set again."""

from __future__ import annotations

from pathlib import Path

from logscope.core import kinds, user_cache
from logscope.pipeline.parse.signatures.loader import signature_files

_PARSE = Path(__file__).resolve().parent


def literal_files() -> list[Path]:
    return [*sorted(_PARSE.rglob("*.py")), Path(kinds.__file__).resolve(), *signature_files()]


def cached_literals() -> tuple[str, ...]:
    """prefilter.all_literals(), without importing the prefilter when the cache holds them."""

    def compute() -> tuple[str, ...]:
        from logscope.pipeline.parse import prefilter

        return prefilter.all_literals()

    return user_cache.cached(
        "literals",
        user_cache.content_key(literal_files(), ()),
        compute,
        lambda value: isinstance(value, tuple) and bool(value) and all(isinstance(x, str) for x in value),
    )
