"""The messages SGLang's own Python code raises (`raise ValueError("Global server args is not set yet!")`), per
release: an exception line a paste shows without its frames (`ValueError: Global server args is not set yet!`) was
raised by SGLang when its class and message are one of these. The catalogue (catalog/sglang.json) holds the raises of
the memory-relevant areas only; this table holds every module's.

Read from every catalogued release's wheel (tools/upstream/versions.txt) with the catalogue's extractor (messages.py,
kind `raise`), the fields kept as `{}` (library_raises.as_template: a message with less than its MIN_LITERAL
characters of literal text names nothing). A wording that catalog/library_raises.json gives another library is left
out: its owner is not known from the words alone, and so is one whose longest literal run is CPython's own words (its
printf formats, the strings of the interpreter's libpython: "'{}' object has no attribute '{}'", which SGLang's module
`__getattr__`s repeat), which any Python code raises, and one of too few words to be SGLang's alone
("{} has shape {}, expected ({}, {})": is_generic_wording).
"""

from __future__ import annotations

import json
import re
import sys
import sysconfig
from pathlib import Path
from typing import Any

from logscope.core.sglang_asserts import anchor_of
from tools.upstream import messages, sources
from tools.upstream.library_raises import as_template
from tools.upstream.sglang_asserts import release_spans
from tools.upstream.write import CATALOG, write_generated

LIBRARY_RAISES = CATALOG.parent / "library_raises.json"
_PRINTABLE = re.compile(rb"[\x20-\x7e\t]{8,}")
_QUOTES = " '\"`"
MIN_LETTERS = 20  # as library_raises.MIN_LITERAL, counted without the spaces and punctuation that pad it
MIN_ANCHOR = 16
_NO_LETTER = re.compile(r"[^A-Za-z0-9]")
_WORD = re.compile(r"[A-Za-z]\w*")


def cpython_strings() -> tuple[str, str]:
    """(the interpreter's version, every printable run of its libpython, or of its executable when built static)."""
    shared = sysconfig.get_config_var("Py_ENABLE_SHARED")
    library = Path(str(sysconfig.get_config_var("LIBDIR"))) / str(sysconfig.get_config_var("LDLIBRARY"))
    binary = library if shared and library.is_file() else Path(sys.executable).resolve()
    runs = (m.group(0).decode("ascii") for m in _PRINTABLE.finditer(binary.read_bytes()))
    return sys.version.split()[0], "\n".join(runs)


def is_cpython_wording(template: str, cpython: str) -> bool:
    """Whether the template's longest literal run, without its quotes, is words of CPython's own strings."""
    return anchor_of(template).strip(_QUOTES) in cpython


def release_raises(wheel: Path) -> set[tuple[str, str]]:
    """(template, exception class) of every raise of a literal message in the wheel's sglang package."""
    out = set()
    for path, text in sources.python_files(wheel):
        if "raise" not in text:
            continue
        found, _ = messages.extract(path, text)
        for message in found:
            template = as_template(message) if message.kind == "raise" else None
            if template is not None:
                out.add((template, message.level))
    return out


def extract() -> dict[str, Any]:
    versions, seen = release_spans(release_raises)
    rows = [{"template": t, "exception": e, "first": first, "last": last} for (t, e), (first, last) in sorted(seen.items())]
    return owned({"versions": versions, "raises": rows})


def is_generic_wording(template: str) -> bool:
    """Whether any Python code could give the message: its literal words hold fewer than MIN_LETTERS letters and
    digits ("{} has shape {}, expected ({}, {})", "`out` must be contiguous."), or its longest literal piece, the one a
    message must hold to be tried, is short and of fewer than three words (" experts in " of "Expected {} experts in
    {}, got {}")."""
    anchor = anchor_of(template).strip(_QUOTES)
    letters = len(_NO_LETTER.sub("", template.replace("{}", "")))
    return letters < MIN_LETTERS or (len(anchor) < MIN_ANCHOR and len(_WORD.findall(anchor)) < 3)


def owned(body: dict[str, Any]) -> dict[str, Any]:
    """The table without the wordings another library or CPython also gives, or any Python code could (run again on
    a written table, the same)."""
    others = {row["template"] for row in json.loads(LIBRARY_RAISES.read_text())["raises"]}
    version, cpython = cpython_strings()
    rows = [
        r
        for r in body["raises"]
        if r["template"] not in others
        and not is_cpython_wording(r["template"], cpython)
        and not is_generic_wording(r["template"])
    ]
    return {"versions": body["versions"], "cpython": version, "raises": rows}


def write(path: Path, body: dict[str, Any] | None = None) -> None:
    """The table, extracted from the wheels (or `body`, a table read before, passed through `owned` again)."""
    about = (
        "The messages SGLang's own raise statements give (fields as {}), with the exception class and the first and "
        "last catalogued release holding each, read from the released wheels by tools/upstream/sglang_raises.py "
        "(python -m tools.upstream sglang-raises), less those another library's raises or CPython's own strings (the "
        "`cpython` release) hold. Generated: never edit by hand."
    )
    write_generated(path, about, extract() if body is None else owned(body), indent=0)
