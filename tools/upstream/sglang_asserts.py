"""The messages of SGLang's own `assert` statements, per release: an `AssertionError: <message>` a paste shows without
its frames is SGLang's when its message is one of these (the catalogue, catalog/sglang.json, holds log lines and
raises, not asserts).

Read from every catalogued release's wheel (tools/upstream/versions.txt): `assert <condition>, "<message>"` and
`assert <condition>, f"<message>"` on one line or over a parenthesised continuation, the f-string's fields kept as
`{}`. A message with less than MIN_LITERAL characters of literal text names nothing and is left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from tools.upstream import sources
from tools.upstream.write import write_generated

K = TypeVar("K", bound=Hashable)
MIN_LITERAL = 16
# the message after the condition's comma: a string literal, an f-string, implicit concatenations over lines
_MESSAGE = r"\s*,\s*\(?\s*((?:[fF]?(?:\"[^\"\n]*\"|'[^'\n]*')\s*)+)"
_ASSERT = re.compile(
    r"^[ \t]*assert\b(?:\s*\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)|[^\n]*?)" + _MESSAGE,  # a condition in (...) over lines
    re.M,
)
_PIECE = re.compile(r"([fF]?)(\"[^\"\n]*\"|'[^'\n]*')")
_FIELD = re.compile(r"\{[^{}]*\}")


def _template(literals: str) -> str | None:
    out = []
    for prefix, quoted in _PIECE.findall(literals):
        text = quoted[1:-1]
        out.append(_FIELD.sub("{}", text) if prefix else text.replace("{", "{{").replace("}", "}}"))
    joined = "".join(out)
    literal = _FIELD.sub("", joined) if any(p for p, _ in _PIECE.findall(literals)) else joined
    return joined if len(literal.strip()) >= MIN_LITERAL else None


def release_asserts(wheel: Path) -> set[str]:
    out = set()
    for _, text in sources.python_files(wheel):
        if "assert" not in text:
            continue
        for m in _ASSERT.finditer(text):
            template = _template(m.group(1))
            if template is not None:
                out.add(template)
    return out


def release_spans(read: Callable[[Path], Iterable[K]]) -> tuple[list[str], dict[K, list[str]]]:
    """The catalogued releases, and what `read` finds in their wheels, each with the first and last release holding it."""
    versions = sources.sglang_versions()
    seen: dict[K, list[str]] = {}
    for version in versions:
        print(f"reading sglang {version}", flush=True)
        for key in read(sources.download("sglang", version)):
            seen.setdefault(key, [version, version])[1] = version
    return versions, seen


def extract() -> dict[str, Any]:
    versions, seen = release_spans(release_asserts)
    rows = [{"template": t, "first": first, "last": last} for t, (first, last) in sorted(seen.items())]
    return {"versions": versions, "asserts": rows}


def write(path: Path) -> None:
    about = (
        "The messages of SGLang's assert statements (f-string fields as {}), with the first and last catalogued "
        "release holding each, read from the released wheels by tools/upstream/sglang_asserts.py "
        "(python -m tools.upstream asserts). Generated: never edit by hand."
    )
    write_generated(path, about, extract(), indent=0)
