"""The `logscope` command's entry point (the console script and `python -m logscope`).

A command is a short-lived process, and Python's cyclic garbage collector, left on, spent about 65 ms of a 2 KB
paste's half second walking the objects that the imports create (two full collections among them) while
freeing next to nothing: the analysis builds few reference cycles. It is off for a command; the two servers
(`serve`, `bot serve`), which run for days, turn it back on (cli.py) before they start serving.
"""

from __future__ import annotations

import gc


def main() -> None:
    gc.disable()  # before the imports below: they are where the collector spent its time
    from logscope.cli import main as run

    run()
