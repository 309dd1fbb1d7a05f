"""What SGLang's code does after it logs a wording at error or critical level (catalog/error_outcomes.json, read from
the released wheels by tools/upstream/error_outcomes.py): the process dies there (a raise, an exit, a kill of the
process tree follows the call) or goes on (the record is logged and the code carries on: a request aborted, a retry,
an optional part skipped). SGLang prints no level, so only its code tells a fatal record from one it carries on after."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Final

from logscope.core.resources import data_dir

CATALOG_FILE = "error_outcomes.json"
DIES: Final = "dies"
GOES_ON: Final = "goes_on"
# a wording whose longest literal run is shorter names no call site of SGLang's ("error: {e}" is any program's words);
# as tools/upstream/sglang_raises.py MIN_ANCHOR
MIN_ANCHOR = 16
_FIELD = re.compile(r"\{[^{}]*\}|%[-#0 +]*\d*(?:\.\d+)?[sdifrxXeEgGc]")


@cache
def _outcomes() -> dict[tuple[str, str], str]:
    """(wording, module) -> the outcome every call site of every release agrees on (`unsure` where they differ)."""
    rows = json.loads((data_dir("catalog") / CATALOG_FILE).read_text(encoding="utf-8"))["records"]
    return {(row["template"], row["module"]): row["outcome"] for row in rows}


def outcome(template: str, module: str) -> str | None:
    """DIES, GOES_ON, `unsure`, or None when no release logs this wording at error or critical level in that module."""
    if max((len(piece.strip()) for piece in _FIELD.split(template)), default=0) < MIN_ANCHOR:
        return None
    return _outcomes().get((template, module))
