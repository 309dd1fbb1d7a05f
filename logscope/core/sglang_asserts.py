"""SGLang's own assert messages (catalog/sglang_asserts.json, read from the released wheels by
tools/upstream/sglang_asserts.py): an `AssertionError: <message>` whose message is one of them was raised by SGLang."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import NamedTuple, TypeVar

from logscope.core.resources import data_dir

CATALOG_FILE = "sglang_asserts.json"
_FIELD = re.compile(r"(\{\})")
Row = TypeVar("Row")


class AssertWording(NamedTuple):
    template: str
    first: str
    last: str
    anchor: str  # its longest literal piece: a message without it is not this wording


def _literal(piece: str) -> str:
    return piece.replace("{{", "{").replace("}}", "}")


def pieces(template: str) -> list[str]:
    """The template cut at its fields: its literal pieces (literal braces single) and its fields (`{}`)."""
    return [p if p == "{}" else _literal(p) for p in _FIELD.split(template)]


def anchor_of(template: str) -> str:
    """The longest literal piece of a template whose fields are `{}`: a message without it is not that wording."""
    return max((_literal(p) for p in _FIELD.split(template) if p != "{}"), key=len)


@cache
def wording_regex(template: str) -> re.Pattern[str]:
    """A template whose fields are `{}` (literal braces doubled) as a pattern, each field any text."""
    return re.compile("".join(".*?" if p == "{}" else re.escape(_literal(p)) for p in _FIELD.split(template)), re.S)


def first_wording(
    rows: Sequence[Row], held: Iterable[int], text: str, template: Callable[[Row], str], starts: tuple[int, ...] | None = None
) -> Row | None:
    """The first row, of those at the positions `held` (the rows whose anchor the text holds, in the table's order),
    whose template (`template(row)`; "" for none) is the whole text when `starts` is None, else matches the text from
    one of `starts`: the one matching shape of every table of raised wordings (package_raises, library_raises,
    sglang_raises), each regex compiled only for the rows the anchor index gave."""
    for at in held:
        row = rows[at]
        wording = template(row)
        if not wording:
            continue
        regex = wording_regex(wording)
        if regex.fullmatch(text) if starts is None else any(regex.match(text, start) for start in starts):
            return row
    return None


@cache
def _wordings() -> tuple[AssertWording, ...]:
    rows = json.loads((data_dir("catalog") / CATALOG_FILE).read_text(encoding="utf-8"))["asserts"]
    return tuple(AssertWording(r["template"], r["first"], r["last"], anchor_of(r["template"])) for r in rows)


def sglang_assert(message: str) -> AssertWording | None:
    """The SGLang assert wording the whole message is (its fields filled), or None (compiled only for the wordings
    whose longest literal piece the message holds)."""
    text = message.strip()
    return next((w for w in _wordings() if w.anchor in text and wording_regex(w.template).fullmatch(text)), None)
