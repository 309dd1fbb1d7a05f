"""The messages SGLang's own raise statements give, in every module and release (catalog/sglang_raises.json, read
from the released wheels by tools/upstream/sglang_raises.py): an exception line whose class and whole message are one
of them was raised by SGLang, also without its frames."""

from __future__ import annotations

import json
from functools import cache
from typing import NamedTuple

from logscope.core.held_literals import HeldLiterals
from logscope.core.resources import data_dir
from logscope.core.sglang_asserts import anchor_of, first_wording

CATALOG_FILE = "sglang_raises.json"


class RaiseWording(NamedTuple):
    template: str
    exception: str
    first: str
    last: str
    anchor: str  # its longest literal piece: a message without it is not this wording


@cache
def _rows() -> dict[str, list[dict[str, str]]]:
    """The table's rows by exception class (read once, when a failure first asks)."""
    by_class: dict[str, list[dict[str, str]]] = {}
    for row in json.loads((data_dir("catalog") / CATALOG_FILE).read_text(encoding="utf-8"))["raises"]:
        by_class.setdefault(row["exception"], []).append(row)
    return by_class


@cache
def _wordings(exception: str) -> tuple[RaiseWording, ...]:
    rows = _rows().get(exception, [])
    return tuple(RaiseWording(r["template"], r["exception"], r["first"], r["last"], anchor_of(r["template"])) for r in rows)


def sglang_raise_wording(exception: str, message: str) -> RaiseWording | None:
    """The wording of SGLang's that raises this exception class with this whole message (its fields filled), or None
    (compiled only for the wordings of that class whose longest literal piece the message holds)."""
    text = message.strip()
    name = exception.rsplit(".", 1)[-1]
    wordings = _wordings(name)
    return first_wording(wordings, _anchors(name).held(text), text, _template)


def _template(wording: RaiseWording) -> str:
    return wording.template


@cache
def _anchors(exception: str) -> HeldLiterals:
    return HeldLiterals([w.anchor for w in _wordings(exception)])
