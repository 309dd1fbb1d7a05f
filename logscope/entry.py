"""The `logscope` command's entry point (the console script and `python -m logscope`).

A command is a short-lived process, and two of the interpreter's habits cost it more than they give:
- the cyclic garbage collector, left on, spent about 65 ms of a 2 KB paste's half second walking the objects
  that the imports create (two full collections among them) while freeing next to nothing: the analysis builds
  few reference cycles. It is off for a command.
- the interpreter's own exit (a last full collection, every module torn down) took 60-120 ms after the report
  was written. A command ends with `os._exit` once its output is flushed (lifetime.exit_now); its files are
  closed where they are written and its worker processes joined by then.
The servers and the probe (`serve`, `bot serve`, `probe`), which run for long and own sockets, databases and
child processes, call `lifetime.long_running()`: the collector back on and the interpreter's normal exit.
Three start-up costs are paid once rather than per process: the methods `@dataclass` writes and the regular
expressions are compiled once per Python build (method_cache.py, pattern_cache.py), and `analyze` on a plain
argument list runs without importing typer (cli_fast.py).
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from types import ModuleType

from logscope import lifetime


def main() -> None:
    gc.disable()  # before the imports below: they are where the collector spent its time
    caches: tuple[ModuleType, ...] = ()
    if _analyses(sys.argv[1:]):  # before the imports below too: they create the dataclasses and compile the patterns
        from logscope import method_cache, pattern_cache

        caches = (method_cache, pattern_cache)
        for start_up_cache in caches:
            start_up_cache.install()
    from logscope import cli_fast

    run = cli_fast.command(sys.argv[1:]) or _typer_main()  # `analyze` on a plain argument list: no typer

    try:
        run()
        code: object = 0
    except SystemExit as done:
        code = done.code
    for start_up_cache in caches:  # what this run compiled anew kept; the stdlib as it was
        start_up_cache.save()
        start_up_cache.uninstall()
    if lifetime.normal_exit():
        raise SystemExit(code)
    lifetime.exit_now(code)


def _analyses(argv: list[str]) -> bool:
    """Whether the command will analyse something: help, the version and a bare `logscope` load no model, and
    reading the caches' files (about 2 MB) would only slow them."""
    return bool(argv) and not any(arg in ("--help", "-h", "--version") for arg in argv)


def _typer_main() -> Callable[[], None]:
    from logscope.cli import main

    return main
