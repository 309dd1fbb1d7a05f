"""The classes SGLang's own code defines, per release: CPython's AttributeError on an object of one of them
("'Glm4vMoeForConditionalGeneration' object has no attribute 'capture_aux_hidden_states'", "'ServerArgs' object has no
attribute ...") is SGLang's code using its own object, when no frame of another package shows under it.

Read from every catalogued release's wheel (tools/upstream/versions.txt): each `class <Name>` statement of a .py file
under sglang/. A name that is no distinctive identifier (fewer than MIN_LENGTH characters, or fewer than two capitals:
`Config`, `Request`, `Timer`) or that Python's builtins define names no package and is left out.
"""

from __future__ import annotations

import builtins
import re
from pathlib import Path
from typing import Any

from tools.upstream import sources
from tools.upstream.sglang_asserts import release_spans
from tools.upstream.write import write_generated

MIN_LENGTH = 8
_CLASS = re.compile(r"^[ \t]*class[ \t]+([A-Za-z_]\w*)[ \t]*[(:]", re.M)


def distinctive(name: str) -> bool:
    capitals = sum(c.isupper() for c in name)
    # a unit test's class (unittest.TestCase subclasses under sglang/test/) is no object of a running server
    test = name.startswith("Test")
    return len(name) >= MIN_LENGTH and capitals >= 2 and name[0].isupper() and not test and not hasattr(builtins, name)


def release_classes(wheel: Path) -> set[str]:
    out: set[str] = set()
    for _, text in sources.python_files(wheel):
        out.update(name for name in _CLASS.findall(text) if distinctive(name))
    return out


def extract() -> dict[str, Any]:
    versions, seen = release_spans(release_classes)
    rows = [[name, first, last] for name, (first, last) in sorted(seen.items())]
    return {"versions": versions, "classes": rows}


def write(path: Path) -> None:
    about = (
        "The classes SGLang's code defines ([name, first release, last release] of the catalogued releases holding "
        "it), read from the released wheels by tools/upstream/sglang_classes.py (python -m tools.upstream classes). "
        "Generated: never edit by hand."
    )
    write_generated(path, about, extract(), indent=0)
