"""The upstream catalogue as a reader: a line that no grammar reads, read through the catalogued wordings of every
SGLang release, found anywhere in it (after any level / source / rank prefix, inside an issue title or a sentence).

The wording found is read by the SGLang grammar where it knows it (so a phase line after an unusual prefix gives
its typed reading); any other wording gives a `catalogued_line` event: its placeholder values as named fields,
typed (int, float, bool), with the units the template prints and the releases that print it."""

from __future__ import annotations

import re
from typing import Any

from logscope.core import kinds, upstream
from logscope.core.events import RankId
from logscope.pipeline.parse.parsers import sglang_line
from logscope.pipeline.parse.parsers.base import Parsed, prefix_of

_SGLANG_LITERALS = kinds.line_literals(kinds.SGLANG)
# a rank tag group without a time ("[TP0]", "[DP0 TP3 EP3]"), where SGLang's whole prefix is not there
_RANK_TAGS = re.compile(r"\[((?:(?:DP|PP|ATTN_CP|MOE_DP|TP|EP|CP|DCP)\d+ ?)+)\]")


def parse(text: str) -> Parsed | None:
    """The best catalogued wording of the line (the most literal text), read; None when none is found."""
    return _read(text, through_grammar=True)


def parse_quoted(text: str) -> Parsed | None:
    """A wording quoted in prose: a read fact only, never a phase reading (a line in a sentence is no log record,
    and a lone quoted phase line would read as a startup that stopped there)."""
    return _read(text, through_grammar=False)


def _read(text: str, through_grammar: bool) -> Parsed | None:
    found = upstream.find_wordings(text)
    if not found:
        return None
    best = found[0]
    prefix = _prefix(text[: best.start])
    # a wording the SGLang grammar knows holds one of its literals (the grammar is not tried on the others: each parse
    # that fails can build the lexer of a parser state the log never needed, which costs a paste milliseconds)
    if through_grammar and any(literal in text for literal in _SGLANG_LITERALS):
        for span in (text[best.start :], text[best.start : best.end]):
            result = sglang_line.parse_line(span)
            if result is not None and result[1] != kinds.EXCEPTION:
                return Parsed(result[1], result[2], prefix)
    # its rank stays in its data: a wording is a read fact of the launch, no rank's timeline
    time = {"time": prefix.get("time"), "rank": None} if prefix else None
    # the releases of every wording that reads the same values there (a cut line fits the older and newer wordings)
    releases = frozenset().union(*(w.releases for w in found if w.start == best.start and w.fields == best.fields))
    return Parsed(kinds.CATALOGUED_LINE, _data(best._replace(releases=releases), prefix), time)


def _prefix(before: str) -> dict[str, Any] | None:
    prefix = prefix_of(before)
    if prefix is not None:
        return prefix
    tags = _RANK_TAGS.search(before)
    return {"time": None, "rank": RankId.from_tags(tags.group(1).split())} if tags else None


def _data(match: upstream.WordingMatch, prefix: dict[str, Any] | None) -> dict[str, Any]:
    ordered = sorted(match.releases, key=upstream.catalogued_versions().index)
    data: dict[str, Any] = {
        "wording": match.template,
        "module": match.module,
        "level": match.level if match.kind != "raise" else "raise",  # an exception class's wording says "raise"
        "releases": [ordered[0], ordered[-1]],
        "fields": match.fields,
    }
    if match.units:
        data["units"] = match.units
    if not match.at_start:
        data["in_sentence"] = True
    if match.cut:
        data["cut"] = True
    if prefix is not None and prefix.get("rank") is not None:
        data["rank"] = prefix["rank"].label
    return data
