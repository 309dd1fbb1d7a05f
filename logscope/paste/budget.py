"""The budget of one request (the paste page) or one job (the bot's worker): the input's size (capped where it
is read), the analysis's time, what the answer draws (report/shown.py), and how many analyses run at once.

Each analysis runs in a child process forked from a forkserver that preloaded the pipeline: the server's
own memory never holds a paste's analysis, and a child that runs past the budget is killed. Within the
budget the child reads the input for `read_share` of the time left
(pipeline/analyze.py: ReadDeadline) and reports on the lines read by then, saying where it stopped; the
stages after reading take two to three times as long as reading, so the answer comes inside the budget.
The kill is the backstop for what reading alone does not bound."""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing import forkserver
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from logscope.core.errors import LogscopeError
from logscope.core.redact import redact_document
from logscope.pipeline.analyze import ReadDeadline, analyze_sources
from logscope.pipeline.ingest.ingest import Source, rank_hint_from_name
from logscope.report.comment import render_comment
from logscope.report.html import render_html
from logscope.report.shown import DrawLimits, within
from logscope.triage.run import triage_text

MAX_PASTE = 8 << 20  # bytes of one paste page submission, files and text together
T = TypeVar("T")
_PRELOAD = ["logscope.paste.budget", "logscope.pipeline.stages", "logscope.pipeline.parse.classify"]


@dataclass(frozen=True)
class Budget:
    max_bytes: int = MAX_PASTE
    seconds: float = 15.0  # one analysis, start to answer; its child is killed after it
    read_share: float = 0.2  # reading stops at this share of what is left: the stages after it take the rest
    concurrent: int = 2  # analyses at once; one more request is answered 503 with Retry-After
    retry_after_s: int = 15
    upload_seconds: float = 20.0  # the whole body of one request must arrive within it (a stalled upload holds a slot)
    draw: DrawLimits = field(default_factory=DrawLimits)

    def describe(self) -> str:
        return (
            f"{size(self.max_bytes)} a request, {self.seconds:g} s an analysis (reading stops at "
            f"{self.read_share:g} of it), {self.concurrent} at once, drawn: {self.draw.launches} launches, "
            f"{self.draw.ranks} ranks a launch, {self.draw.findings} findings"
        )


def size(n: int) -> str:
    return f"{n / (1 << 20):g} MiB" if n >= 1 << 20 else f"{n / 1024:g} KiB"


class OverTime(LogscopeError):
    """The child ran past the budget and was killed: there is nothing to show."""


@dataclass(frozen=True)
class Part:
    """One part of a paste page submission as sent (the text field, or an uploaded file's safe name)."""

    name: str
    data: bytes


def paste_source(part: Part) -> Source:
    return Source(name=part.name, path=None, data=part.data, rank_hint=rank_hint_from_name(part.name), uploaded=True)


def _deadline(budget: Budget, started: float) -> ReadDeadline:
    """Reading gets `read_share` of what is left of the budget once the child runs: the stages after it take
    the rest."""
    now = time.monotonic()
    return ReadDeadline(now + max(budget.seconds - (now - started), 0.0) * budget.read_share, budget.seconds)


def report_page(parts: list[Part], budget: Budget, started: float) -> str:
    """(In the child) the paste page's answer: the parts analysed until the read deadline, drawn within the
    budget, redacted whole as every command's document is (core/redact.py says why there and not on the
    lines), then styled."""
    document = analyze_sources([paste_source(part) for part in parts], deadline=_deadline(budget, started))
    return render_html(redact_document(within(document, budget.draw)))


@dataclass(frozen=True)
class Comment:
    """(From the child) the bot's comment on a thread, and a shorter one for when GitHub refuses it as too long."""

    recognised: bool  # False: logscope read nothing in the thread and found nothing (no comment is posted)
    body: str
    shorter: str


def thread_comment(thread_json: str, source: str, budget: Budget, started: float) -> Comment:
    document = within(triage_text(thread_json, source, deadline=_deadline(budget, started)), budget.draw)
    recognised = document["coverage"]["recognized_lines"] > 0 or bool(document["findings"])
    body = render_comment(document)
    return Comment(recognised, body, render_comment(document, max_chars=len(body) // 2))


def _child(send: Connection, job: Callable[..., Any], args: tuple[Any, ...]) -> None:
    try:
        answer: tuple[str, Any] = ("ok", job(*args))
    except LogscopeError as exc:
        answer = ("error", str(exc))
    except BaseException as exc:  # noqa: BLE001 - told to the parent, which answers with it in one line
        answer = ("internal", f"{type(exc).__name__}: {exc}")
    send.send(answer)
    send.close()


def _context() -> Any:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOAD)
    return context


def start_forkserver() -> None:
    """Start the forkserver (it imports the pipeline once) before the first request, which would wait for it."""
    _context()
    forkserver.ensure_running()


def run_job(job: Callable[..., T], args: tuple[Any, ...], seconds: float) -> T:
    """`job(*args)` in a child process, its answer within `seconds` or OverTime (the child killed); a
    LogscopeError in the child is raised here with its message, any other failure as a RuntimeError."""
    receive, send = multiprocessing.Pipe(duplex=False)
    child = _context().Process(target=_child, args=(send, job, args), daemon=True)
    started = time.monotonic()
    child.start()
    send.close()
    try:
        if not receive.poll(max(seconds - (time.monotonic() - started), 0.0)):
            raise OverTime(f"the analysis ran past its budget of {seconds:g} s and was stopped: paste less")
        try:
            kind, value = receive.recv()
        except EOFError:
            child.join(1)
            raise RuntimeError(f"the analysis process ended without an answer (exit code {child.exitcode})") from None
    finally:
        receive.close()
        child.join(1)  # a child that answered is ending; one past the budget is killed
        if child.is_alive():
            child.kill()
            child.join(5)
    if kind == "error":
        raise LogscopeError(value)
    if kind == "internal":
        raise RuntimeError(value)
    return value  # type: ignore[no-any-return]
