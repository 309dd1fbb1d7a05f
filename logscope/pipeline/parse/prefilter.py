"""The cheap literal prefilter: only lines holding one of these literals reach a grammar or a block reader.

Built from the parser registry (each grammar and reader declares its literals) and the failure signatures,
so a parser can never accept a line the prefilter dropped. `logscope literals` prints the list so the
benchmark can run `grep -F -f` with exactly the same set.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import cache, lru_cache

from logscope.core import kinds, user_cache
from logscope.pipeline.ingest.unwrap import failing_level_literals
from logscope.pipeline.parse.parsers.registry import BLOCK_READERS, LINE_GRAMMARS
from logscope.pipeline.parse.signatures.loader import bundled_signatures

# failure wording of the signatures (rules/signatures/*.yaml), and words that make a line look like a failure
SIGNATURE_LITERALS = (
    *bundled_signatures().line_literals(),
    *("failed", "Failed", "FAILED", "FAILURE", "Fatal", "FATAL", "WARN", "Error", "ERROR", "error: ", "CRITICAL"),
    # spdlog's failing levels in its default pattern (ingest.py _SPDLOG)
    *("] [error] ", "] [critical] "),
    # a structured record's failing level (unwrap.FAILING_RECORDS: zap / slog / logrus JSON, logfmt)
    *failing_level_literals(),
    # a response's status line with a server error, as curl -i / -v prints it (classify._SERVER_ERROR_STATUS)
    *("HTTP/1.1 5", "HTTP/1.0 5", "HTTP/2 5"),
)

# line grammar → literals whose presence makes a line a candidate for it ("signature": the failure-line matcher)
LINE_LITERALS: dict[str, tuple[str, ...]] = {
    **{grammar.name: grammar.literals for grammar in LINE_GRAMMARS},
    "signature": SIGNATURE_LITERALS,
}
BLOCK_LITERALS: tuple[str, ...] = tuple(literal for reader in BLOCK_READERS for literal in reader.literals)


@cache
def all_literals() -> tuple[str, ...]:
    """Every literal once, in registry order, less those that hold another literal (a line holding one holds
    the other, so the search finds the same lines with fewer patterns). Also the set `logscope literals`
    prints for grep -F -f."""
    return _shortest(tuple(dict.fromkeys([*(lit for lits in LINE_LITERALS.values() for lit in lits), *BLOCK_LITERALS])))


_PROSE_ONLY = frozenset({kinds.TIME_CUE_GRAMMAR, kinds.STATED_FAILURE_GRAMMAR})


@cache
def heads() -> tuple[str, ...]:
    """Every literal once: a line that starts with one is a record (classify), whether or not a shorter literal
    inside it made `all_literals` drop it ("- SGLang:" holds "SGLang:")."""
    # (not the time cues' nor the stated failures': a sentence's failure word, "Timeout ...", "Failed ..." or "OOM
    # errors happened during prefill.", opens no message of a record)
    own = (lits for name, lits in LINE_LITERALS.items() if name not in _PROSE_ONLY)
    return tuple(dict.fromkeys([*(lit for lits in own for lit in lits), *BLOCK_LITERALS]))


def _shortest(literals: tuple[str, ...]) -> tuple[str, ...]:
    """The literals that hold no other one, in their order."""
    kept: set[str] = set()
    for lit in sorted(literals, key=len):  # a literal can only hold a shorter one, already decided
        if not any(other in lit for other in kept):
            kept.add(lit)
    return tuple(lit for lit in literals if lit in kept)


def _shortest_of(groups: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """`_shortest` of each group, kept in the user cache under a hash of the groups themselves (a pure function of
    them; the stated_env and flag_list sets alone cost a paste about 3 ms)."""
    key = hashlib.sha256(repr(list(groups.items())).encode()).hexdigest()[:24]
    return user_cache.cached(
        "prefilter-groups",
        key,
        lambda: {name: _shortest(tuple(dict.fromkeys(lits))) for name, lits in groups.items()},
        lambda value: isinstance(value, dict) and list(value) == list(groups),
    )


# `in` tests rather than compiled alternations: a paste tests a few dozen lines, and compiling the alternations
# would cost it more than the tests (an alternation of literals is no faster in `re`: it tries them one by one)
_BY_GRAMMAR = _shortest_of(LINE_LITERALS)
# the ~1,200 `in` tests cost a line 60-230 us whatever it holds; past this many distinct lines asked (a large log's
# candidates, a pip log's every line) the lines are asked through one Hyperscan pass each instead (a few us; importing
# Hyperscan and loading the stored database: about 15 ms, compiling it once: about 60 ms)
NATIVE_AFTER = 256
_asked = 0
_native: Callable[[str], tuple[str, ...]] | None = None


def grammars_for(text: str) -> list[str]:
    """The line grammars whose literals the line holds, in the order they should be tried (a new list: callers add
    to it)."""
    return list(_grammars_of(text))


@lru_cache(maxsize=4096)  # the classifier asks several times per line, and a crash loop repeats its lines
def _grammars_of(text: str) -> tuple[str, ...]:
    global _asked, _native
    if _native is not None:
        return _native(text)
    _asked += 1
    if _asked == NATIVE_AFTER:
        from logscope.pipeline.ingest.linescan import group_search

        _native = group_search(tuple(_BY_GRAMMAR.items()))
    return tuple(name for name, literals in _BY_GRAMMAR.items() if any(literal in text for literal in literals))
