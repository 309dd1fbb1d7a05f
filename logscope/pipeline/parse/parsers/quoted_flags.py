"""Lines that quote a flag or a name=value pair yet state no setting of the launch the paste shows.

- A flag quoted in prose as something tried ("- `--disable-cuda-graph` → does NOT resolve the issue", "I tried
  `--mem-fraction-static 0.7`, no effect") names an attempt: a form seen in pastes (sglang-24302's "Workarounds tried"
  list), stated by the words around the span.
- bash's xtrace of a variable assignment ("+ model=/workspace/Llama/"): `set -x` prints each command, assignments
  included, after PS4, whose default is "+ " (repeated per level of indirection: "++ "); a shell variable is no flag,
  though "+ " is also a Markdown bullet (mooncake-180).
"""

from __future__ import annotations

import re

_TRIED = re.compile(
    r"(?i)\b(?:tried|trying|try|attempt(?:ed|ing|s)?|workarounds?|"
    r"(?:does|did|do)\s*(?:n[o']t|not)\s+(?:help|resolve|fix|work|change|solve)|no\s+(?:effect|luck|difference|help)|"
    r"(?:not|never)\s+(?:help|resolve|fix|solve)(?:s|ed)?|without\s+success|still\s+(?:fails?|crash(?:es)?|hangs?|ooms?))\b"
)
_SPAN = re.compile(r"`[^`]*`")
_XTRACE_ASSIGNMENT = re.compile(r"^\s*\++ [A-Za-z_]\w*=\S")


def no_setting(text: str) -> bool:
    """The line's flags are an attempt the words outside its code spans report, or it is a traced shell assignment."""
    return bool(_XTRACE_ASSIGNMENT.match(text) or _TRIED.search(_SPAN.sub(" ", text)))
