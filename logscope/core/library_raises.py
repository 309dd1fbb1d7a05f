"""The messages FlashInfer's, sgl-kernel's and NIXL's own Python code raises (catalog/library_raises.json, read from the
released wheels by tools/upstream/library_raises.py): a message that is one of them, also behind a wrapper's words
(SGLang's `Capture cuda graph failed: {e}`), was raised by that library."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import NamedTuple

from logscope.core.held_literals import HeldLiterals
from logscope.core.resources import data_dir
from logscope.core.sglang_asserts import anchor_of, first_wording
from logscope.core.text_memo import short_text_memo

CATALOG_FILE = "library_raises.json"
_WRAPPED = re.compile(r": ")  # where a wrapper's words end and the message it wraps begins


class LibraryRaise(NamedTuple):
    template: str
    library: str
    where: str  # the wheel's file and line that raise it
    anchor: str  # its longest literal piece: a message without it is not this wording


@cache
def _wordings() -> tuple[LibraryRaise, ...]:
    rows = json.loads((data_dir("catalog") / CATALOG_FILE).read_text(encoding="utf-8"))["raises"]
    return tuple(LibraryRaise(r["template"], r["library"], r["where"], anchor_of(r["template"])) for r in rows)


@cache
def _anchors() -> HeldLiterals:
    return HeldLiterals([w.anchor for w in _wordings()])


@short_text_memo(1024)  # a crash loop raises one message many times: the 953 anchors are tested once for it
def library_raise(message: str) -> LibraryRaise | None:
    """The library wording the message starts with, or the message a wrapper's words hold after a `: ` (compiled
    only for the wordings whose longest literal piece the message holds)."""
    text = message.strip()
    held = _anchors().held(text)
    if not held:
        return None
    starts = (0, *(m.end() for m in _WRAPPED.finditer(text)))
    return first_wording(_wordings(), held, text, _template, starts=starts)


def _template(wording: LibraryRaise) -> str:
    return wording.template
