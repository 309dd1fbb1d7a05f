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

# uvicorn's level prefix: the level name and a colon padded to 9 characters (uvicorn 0.55.0, uvicorn/logging.py
# ColourizedFormatter: levelname + ":" + " " * (8 - len(levelname))), then one space and the message (sglang 0.5.23,
# sglang/srt/utils/common.py sets uvicorn's format to "[%(asctime)s] %(levelprefix)s %(message)s")
_LEVELS = ("TRACE", "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
_UVICORN = re.compile("(?:" + "|".join(f"{level}:{' ' * (9 - len(level))}" for level in _LEVELS) + r")(?=\S)")


_REMEMBERED_CHARS = 1000  # a longer message is judged each time: the cache stays small in a long-running bot


def judge(message: str) -> str:
    """CATALOGUED, UVICORN or NEW_WORDING for the message of a prefixed line (its text after the prefix)."""
    return _judged(message) if len(message) <= _REMEMBERED_CHARS else _judge(message)


@lru_cache(maxsize=4096)  # ranks print the same startup messages
def _judged(message: str) -> str:
    return _judge(message)


def _judge(message: str) -> str:
    if _UVICORN.match(message):
        return UVICORN
    return CATALOGUED if upstream.printed_by_a_release(message) else NEW_WORDING
