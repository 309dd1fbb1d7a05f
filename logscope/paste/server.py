"""`logscope serve`: the paste page alone, on uvicorn, after one start line on stderr that says where it
listens, that nothing is stored, and its budget."""

from __future__ import annotations

import sys
from typing import TextIO

import uvicorn
from starlette.applications import Starlette

from logscope.lifetime import long_running
from logscope.paste.budget import Budget, start_forkserver
from logscope.paste.page import routes


def start_line(host: str, port: int, budget: Budget) -> str:
    return f"logscope serve: the paste page at http://{_host(host)}:{port}/ (no bot, nothing stored); budget: {budget.describe()}"


def _host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def serve(host: str, port: int, budget: Budget, out: TextIO = sys.stderr) -> None:
    out.write(start_line(host, port, budget) + "\n")
    out.flush()
    start_forkserver()
    long_running()  # a server runs for days: the collector and the normal exit a command goes without (entry.py)
    uvicorn.run(Starlette(routes=routes(budget)), host=host, port=port, log_level="warning")
