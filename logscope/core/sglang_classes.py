"""The classes SGLang's own code defines (catalog/sglang_classes.json, read from the released wheels by
tools/upstream/sglang_classes.py): CPython's AttributeError on an object of one of them is SGLang's code using its
own object (a model class that lacks a hook the release's speculative decoding calls, a ServerArgs of another
release)."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import NamedTuple

from logscope.core.resources import data_dir

CATALOG_FILE = "sglang_classes.json"
# CPython 3.11 Objects/object.c PyObject_GenericGetAttr / _PyObject_LookupAttr: "'%.100s' object has no attribute
# '%U'"; Objects/typeobject.c type_getattro: "type object '%.100s' has no attribute '%U'" (strings of libpython3.11.so)
_NO_ATTRIBUTE = re.compile(r"^(?:type object '([A-Za-z_]\w*)'|'([A-Za-z_]\w*)' object) has no attribute '\w+'")


class SGLangClass(NamedTuple):
    name: str
    first: str
    last: str


@cache
def _classes() -> dict[str, SGLangClass]:
    rows = json.loads((data_dir("catalog") / CATALOG_FILE).read_text(encoding="utf-8"))["classes"]
    return {name: SGLangClass(name, first, last) for name, first, last in rows}


def sglang_object(message: str) -> SGLangClass | None:
    """The SGLang class whose object (or type object) an AttributeError's message says lacks the attribute, or None."""
    m = _NO_ATTRIBUTE.match(message.strip())
    return _classes().get(m.group(1) or m.group(2)) if m else None
