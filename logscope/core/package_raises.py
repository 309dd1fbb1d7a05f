"""The messages the Python packages a server runs raise (catalog/package_raises.json: transformers', huggingface_hub's
and FlashInfer's public wrappers', read from their released wheels by tools/upstream/package_raises.py): a bare
exception line of a builtin class whose message is one of them, of the same class, was raised by that package."""

from __future__ import annotations

import json
from functools import cache
from typing import NamedTuple

from logscope.core.resources import data_dir
from logscope.core.sglang_asserts import anchor_of, wording_regex

CATALOG_FILE = "package_raises.json"


class PackageRaise(NamedTuple):
    template: str
    package: str
    exception: str  # the class its raise statement names
    releases: str  # the first and last release read that hold it ("transformers 4.57.1-5.25.0")
    where: str  # the file and line of the first of them that raise it
    anchor: str  # its longest literal piece: a message without it is not this wording


@cache
def _wordings() -> tuple[PackageRaise, ...]:
    rows = json.loads((data_dir("catalog") / CATALOG_FILE).read_text(encoding="utf-8"))["raises"]
    return tuple(
        PackageRaise(
            r["template"],
            r["package"],
            r["exception"],
            f"{r['package']} {r['first']}-{r['last']}" if r["first"] != r["last"] else f"{r['package']} {r['first']}",
            r["where"],
            anchor_of(r["template"]),
        )
        for r in rows
    )


def package_raise(exception: str, message: str) -> PackageRaise | None:
    """The wording of the same exception class that the message is, from its start (compiled only for the wordings
    whose longest literal piece the message holds)."""
    name = exception.rsplit(".", 1)[-1]
    text = message.strip()
    return next(
        (w for w in _wordings() if w.exception == name and w.anchor in text and wording_regex(w.template).match(text)),
        None,
    )
