"""What `logscope query` lets SQL read: the scan's tables and nothing else. The statement is tokenised (strings,
quoted names and comments kept whole) and read for its shape: it must be a query (SELECT, WITH, VALUES), and
every table it reads, after FROM, JOIN or a comma of a FROM list, at any depth, must be one of the scan's
tables or a name its WITH clause defines, never a call (polars' `read_csv('/etc/shadow')`, `read_parquet(URL)`)
and never a quoted path. A whitelist of what may stand there, not a list of functions to refuse."""

from __future__ import annotations

import re
from collections.abc import Iterable

from logscope.core.errors import LogscopeError

_TOKEN = re.compile(r"""\s+|--[^\n]*|/\*.*?(?:\*/|\Z)|'(?:[^']|'')*'?|"(?:[^"]|"")*"?|`[^`]*`?|\w+|\S""", re.S)
_STARTS = {"select", "with", "values", "("}
_CLAUSE_ENDS = {
    "where", "group", "order", "limit", "having", "union", "except", "intersect", "on", "using", "window",
    "qualify", "offset", "fetch", "select",
}  # fmt: skip


def _tokens(sql: str) -> list[str]:
    return [t for t in _TOKEN.findall(sql) if not t.isspace() and not t.startswith(("--", "/*"))]


def _name(token: str) -> str | None:
    """A table name as written (bare or double-quoted), lower-cased; None for anything else."""
    if re.fullmatch(r"\w+", token):
        return token.lower()
    if len(token) >= 2 and token[0] == token[-1] == '"':
        return token[1:-1].replace('""', '"').lower()
    return None


def check_sql(sql: str, tables: Iterable[str]) -> None:
    """Raise a one-line LogscopeError unless `sql` reads only `tables` (and its own WITH names)."""
    tokens = _tokens(sql)
    if not tokens or tokens[0].lower() not in _STARTS:
        raise LogscopeError("query: only a query (SELECT ..., WITH ... SELECT ...) runs over the scan's tables")
    if ";" in tokens[:-1]:
        raise LogscopeError("query: one statement at a time")
    lowered = [t.lower() for t in tokens]
    allowed = {t.lower() for t in tables}
    # names defined by WITH: `name AS (` after WITH [RECURSIVE] or after the `,` that follows a definition's `)`
    for at in range(len(tokens) - 2):
        if lowered[at + 1] == "as" and lowered[at + 2] == "(" and (at == 0 or lowered[at - 1] in ("with", "recursive", ",")):
            name = _name(tokens[at])
            if name:
                allowed.add(name)
    from_depths: list[int] = []  # depths at which a FROM list is open
    queries = [True]  # per open parenthesis: does it hold a query (or is it an expression: EXTRACT(x FROM y))
    expect = False
    for at, (token, low) in enumerate(zip(tokens, lowered, strict=True)):
        following = lowered[at + 1] if at + 1 < len(tokens) else ""
        depth = len(queries) - 1
        if expect:
            expect = False
            if token == "(":
                queries.append(True)
                continue
            name = _name(token)
            if name is None or following == "(" or following == ".":
                shown = token + ("(...)" if following == "(" else "")
                raise LogscopeError(
                    f"query: {shown} is not one of the scan's tables ({', '.join(sorted(tables))}): "
                    "SQL reads those tables only, no file, URL or table function"
                )
            if name not in allowed:
                raise LogscopeError(f"query: no table {token} (the scan's tables: {', '.join(sorted(tables))})")
            continue
        if token == "(":
            queries.append(following in ("select", "with", "values", "("))
        elif token == ")":
            if len(queries) > 1:
                queries.pop()
            while from_depths and from_depths[-1] > len(queries) - 1:
                from_depths.pop()
        elif low in ("from", "join") and queries[-1]:
            expect = True
            if low == "from":
                from_depths.append(depth)
        elif token == "," and from_depths and from_depths[-1] == depth:
            expect = True
        elif low in _CLAUSE_ENDS and from_depths and from_depths[-1] == depth:
            from_depths.pop()
    if expect:
        raise LogscopeError("query: the statement ends where a table was expected")
