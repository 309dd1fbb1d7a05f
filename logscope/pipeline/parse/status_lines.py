"""A status line a shell or a container tool prints of a process it ran: a record of its own, never prose, whatever
status it reports. Bash's job report, docker compose's exit and Rust's panic open with the wording of a signature
marked `status_line` (rules/signatures/process.yaml), after the start that key names; a row of kubectl get pods is one
by its columns."""

from __future__ import annotations

import re
from typing import Final

from logscope.pipeline.parse.signatures.loader import SignatureSet, StatusLineStart, bundled_signatures

_STARTS: Final[dict[StatusLineStart, re.Pattern[str]]] = {
    "after_script": re.compile(r"^\S+: "),  # bash 5.2.15's "%s: line %d: "
    "after_name": re.compile(r"^\S+\s+"),  # docker compose v2's "<container> exited with code %d"
    "at_start": re.compile("^"),
}
# a row of kubectl get pods (NAME READY STATUS RESTARTS AGE: "langflow-0 0/1 CrashLoopBackOff 4 (10s ago) 103s")
_POD_ROW = re.compile(r"^[\w.-]+\s+\d+/\d+\s+[A-Za-z:]+\s+\d+\b")


def is_a_status_line(text: str, signatures: SignatureSet | None = None) -> bool:
    """Whether the text is a status line: a `status_line` signature's wording (of `signatures`, else the bundled set)
    opens it after its start, matched by the pattern engine itself (Pattern.opens: linear in the line, whatever
    captures the wording holds), or it is a row of kubectl get pods."""
    for start, pattern in (bundled_signatures() if signatures is None else signatures).status_lines():
        found = _STARTS[start].match(text)
        if found is not None and pattern.opens(text, found.end()):
            return True
    return bool(_POD_ROW.match(text))
