"""How the process ends: a command exits at once when its output is flushed, without the interpreter's teardown
(entry.py says why); a command that runs for long (a server, the probe) calls `long_running()` for the garbage
collector and the interpreter's normal exit."""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from typing import NoReturn

_normal_exit = False


def long_running() -> None:
    """The collector back on, and the interpreter's own exit (atexit handlers, module teardown) at the end; the
    start-up caches (entry.py) keep what the start compiled and are put away: what a server compiles while it
    serves (perhaps from what it was sent) is never stored."""
    global _normal_exit
    _normal_exit = True
    gc.enable()
    for name in ("logscope.method_cache", "logscope.pattern_cache"):
        start_up_cache = sys.modules.get(name)
        if start_up_cache is not None:
            start_up_cache.save()
            start_up_cache.uninstall()


def normal_exit() -> bool:
    return _normal_exit


def exit_now(code: object) -> NoReturn:
    """Flush the output and end the process with `code` read as SystemExit reads it (None: 0, an int: itself,
    anything else: printed on stderr, 1), without the interpreter's teardown."""
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        print(code, file=sys.stderr)
        status = 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader that closed the pipe early, a stream closed
            stream.flush()
    os._exit(status)
