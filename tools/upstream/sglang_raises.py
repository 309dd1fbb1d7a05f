"""The messages SGLang's own Python code raises (`raise ValueError("Global server args is not set yet!")`), per
release: an exception line a paste shows without its frames (`ValueError: Global server args is not set yet!`) was
raised by SGLang when its class and message are one of these. The catalogue (catalog/sglang.json) holds the raises of
the memory-relevant areas only; this table holds every module's.

Read from every catalogued release's wheel (tools/upstream/versions.txt) with the catalogue's extractor (messages.py,
kind `raise`), the fields kept as `{}` (library_raises.as_template: a message with less than its MIN_LITERAL
characters of literal text names nothing). A wording that catalog/library_raises.json gives another library is left
out: its owner is not known from the words alone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tools.upstream import messages, sources
from tools.upstream.library_raises import as_template
from tools.upstream.sglang_asserts import release_spans
from tools.upstream.write import CATALOG, write_generated

LIBRARY_RAISES = CATALOG.parent / "library_raises.json"


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
    others = {row["template"] for row in json.loads(LIBRARY_RAISES.read_text())["raises"]}
    versions, seen = release_spans(release_raises)
    rows = [
        {"template": t, "exception": e, "first": first, "last": last}
        for (t, e), (first, last) in sorted(seen.items())
        if t not in others
    ]
    return {"versions": versions, "raises": rows}


def write(path: Path) -> None:
    about = (
        "The messages SGLang's own raise statements give (fields as {}), with the exception class and the first and "
        "last catalogued release holding each, read from the released wheels by tools/upstream/sglang_raises.py "
        "(python -m tools.upstream sglang-raises). Generated: never edit by hand."
    )
    write_generated(path, about, extract(), indent=0)
