"""The judge of an SGLang-prefixed startup line that no grammar reads: a wording a catalogued release prints
(known: explained, not listed), a line of uvicorn (the HTTP server SGLang runs, whose log format SGLang gives
its prefix: `[time] INFO:     Started server process [1]`), or a new wording that no catalogued release prints
(listed in the coverage: a newer release, a fork, a paste artefact, another library logging through SGLang's
format)."""

from __future__ import annotations

import re
from functools import lru_cache

from logscope.core import upstream
from logscope.core.model import CATALOGUED, NEW_WORDING, UVICORN

# uvicorn's level prefix: the level name, a colon, padded to 9 characters, then the message (uvicorn/logging.py
# ColourizedFormatter; SGLang sets its format to "[%(asctime)s] %(levelprefix)s %(message)s")
_UVICORN = re.compile(r"(?:TRACE|DEBUG|INFO|WARNING|ERROR|CRITICAL):\s+\S")


@lru_cache(maxsize=4096)  # ranks print the same startup messages
def judge(message: str) -> str:
    """CATALOGUED, UVICORN or NEW_WORDING for the message of a prefixed line (its text after the prefix)."""
    if _UVICORN.match(message):
        return UVICORN
    return CATALOGUED if upstream.printed_by_a_release(message) else NEW_WORDING
