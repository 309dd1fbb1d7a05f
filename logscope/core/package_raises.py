"""The messages the Python packages a server runs raise (catalog/package_raises.json: transformers', huggingface_hub's
and FlashInfer's public wrappers', read from their released wheels by tools/upstream/package_raises.py): a bare
exception line of a builtin class whose message is one of them, of the same class, was raised by that package."""

from __future__ import annotations

import json
from functools import cache
from typing import NamedTuple

from logscope.core import sglang_asserts, user_cache
from logscope.core.held_literals import HeldLiterals
from logscope.core.resources import data_dir
from logscope.core.sglang_asserts import anchor_of, first_wording, pieces

CATALOG_FILE = "package_raises.json"
# the literal text a message's start must hold to name a wording by its start alone (the table's MIN_LITERAL,
# tools/upstream/library_raises.py)
HEAD_LITERAL = 24
# a wording that a field or a few words open (`{} must be a positive integer, got {}`, `{} must be contiguous, got
# stride={}`: a parameter's name, then the words of every package's argument checks, SGLang's and a user's script's
# too) names its package only by this much literal text (review14a item 1)
OPENED_LITERAL = 2 * HEAD_LITERAL


class PackageRaise(NamedTuple):
    template: str
    package: str
    exception: str  # the class its raise statement names
    releases: str  # the first and last release read that hold it ("transformers 4.57.1-5.25.0")
    where: str  # the file and line of the first of them that raise it
    anchor: str  # its longest literal piece: a message without it is not this wording
    head: str  # its first line up to the end of that line's longest literal piece ("" when too short to name it)
    head_anchor: str  # that piece
    named: bool  # its literal text names it: HEAD_LITERAL characters open it, else OPENED_LITERAL in all


def _literal_length(template: str) -> int:
    return len("".join(p for p in pieces(template) if p != "{}").strip())


def _lead(template: str) -> str:
    """The literal text before the template's first field (all of it when it has none)."""
    return pieces(template)[0].strip()


def _opened_head(first: str) -> str:
    """The shortest start of a line (a field or a short lead opens it) that holds OPENED_LITERAL characters of literal
    text and ends at the end of a literal piece; "" when the whole line holds less."""
    cut = first.split("{}")
    for end in range(1, len(cut) + 1):
        head = "{}".join(cut[:end])
        if cut[end - 1] and _literal_length(head) >= OPENED_LITERAL:
            return head
    return ""


def _row(r: dict[str, str]) -> PackageRaise:
    # CPython prints a message's first line on the exception line and the rest under it, which a copy may leave out or
    # a later release word otherwise: a message that starts as the first line does, up to the end of its longest
    # literal piece, is that wording, when that start holds HEAD_LITERAL characters of literal text; a line that a field
    # or a short lead opens names it by its shortest start that holds OPENED_LITERAL characters of literal text
    first = r["template"].split("\n", 1)[0]
    if len(_lead(first)) >= HEAD_LITERAL:
        head_anchor = anchor_of(first)
        head = first[: first.find(head_anchor) + len(head_anchor)]
    else:
        head = _opened_head(first)
        head_anchor = anchor_of(head) if head else ""
    named = len(_lead(r["template"])) >= HEAD_LITERAL or _literal_length(r["template"]) >= OPENED_LITERAL
    releases = f"{r['package']} {r['first']}-{r['last']}" if r["first"] != r["last"] else f"{r['package']} {r['first']}"
    anchor = anchor_of(r["template"])
    return PackageRaise(r["template"], r["package"], r["exception"], releases, r["where"], anchor, head, head_anchor, named)


@cache
def _wordings() -> tuple[PackageRaise, ...]:
    """Kept in the user cache under the file's size and time and the code that builds the rows (4,041 rows cost a
    paste 28 ms to read and cut, their pickle about 5)."""
    path = data_dir("catalog") / CATALOG_FILE
    key = user_cache.stamp_key([path], (__file__, sglang_asserts.__file__))

    def build() -> tuple[PackageRaise, ...]:
        rows = json.loads(path.read_text(encoding="utf-8"))["raises"]
        return tuple(_row(r) for r in rows)

    return user_cache.cached("package-raises", key, build, lambda value: isinstance(value, tuple))


def package_raise(exception: str, message: str) -> tuple[PackageRaise, bool] | None:
    """The wording of the same exception class that the message is: its whole template first (the whole message, a
    wording whose literal text names it), else the start of its first line (_row); with whether the whole template
    matched. Compiled only for the wordings whose anchor the message holds."""
    name = exception.rsplit(".", 1)[-1]
    text = message.strip()
    rows, anchors, head_anchors = _of_class(name)
    whole = first_wording(rows, anchors.held(text), text, _named_template)
    if whole is not None:
        return whole, True
    start = first_wording(rows, head_anchors.held(text), text, _head, starts=(0,))
    return (start, False) if start is not None else None


def _named_template(wording: PackageRaise) -> str:
    return wording.template if wording.named else ""


def _head(wording: PackageRaise) -> str:
    return wording.head


@cache
def _of_class(name: str) -> tuple[tuple[PackageRaise, ...], HeldLiterals, HeldLiterals]:
    """The wordings of one exception class, in the table's order, with their anchors' and head anchors' index."""
    rows = tuple(w for w in _wordings() if w.exception == name)
    return rows, HeldLiterals([w.anchor for w in rows]), HeldLiterals([w.head_anchor for w in rows])
