"""The paste page's routes. The form posts multipart/form-data (a `text` field and any number of `files`),
parsed as it streams in by paste/multipart.py (capped, on a worker thread), under one deadline; each
part becomes one source, the sources are analysed together, within the request's budget, in a child
process (paste/budget.py), and the redacted HTML report is the answer. At most `budget.concurrent` requests are
read or analysed at once, counted from the first byte of the body: one more is answered 503 with
Retry-After before its body is read. Nothing is written anywhere: the text lives in the
request's memory and the child's, and is gone with them."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import re
import sys
import time
from html import escape

from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from logscope.core.errors import LogscopeError
from logscope.paste.budget import Budget, OverTime, Part, report_page, run_job, size
from logscope.paste.multipart import FormError, FormParser, FormPart

_FEED_BYTES = 256 << 10  # the parser runs on a worker thread once this much arrived: the event loop only collects

_CSS = """body{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d232a}
h1{font-size:1.4rem}textarea{width:100%;min-height:18rem;font:13px/1.35 ui-monospace,monospace;box-sizing:border-box}
fieldset{border:1px solid #c9d1d9;border-radius:6px;margin:1rem 0;padding:.75rem 1rem}
button{font-size:1rem;padding:.4rem 1.2rem}.note{color:#57606a;font-size:.9rem}.error{color:#b42318}"""


def _style_hashes(html: str) -> str:
    """The CSP source for every <style> element of the page: its sha256, so no other style applies."""
    hashes = (hashlib.sha256(m.group(1).encode()).digest() for m in re.finditer(r"<style>(.*?)</style>", html, re.S))
    return " ".join(f"'sha256-{base64.b64encode(h).decode()}'" for h in hashes)


def _page(html: str, status: int = 200, headers: dict[str, str] | None = None) -> HTMLResponse:
    styles = _style_hashes(html) or "'none'"
    csp = f"default-src 'none'; style-src {styles}; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    return HTMLResponse(
        html,
        status_code=status,
        headers={
            "Content-Security-Policy": csp,
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
            "Cache-Control": "no-store",
            "X-Frame-Options": "DENY",
            **(headers or {}),
        },
    )


def form_page(budget: Budget, error: str = "") -> str:
    message = f'<p class="error" id="error">{escape(error)}</p>' if error else ""
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>logscope: paste a log</title><style>{_CSS}</style></head><body>\n"
        "<h1>logscope: what happened to the GPU memory at SGLang start-up?</h1>\n"
        + message
        + '<form method="post" action="/" enctype="multipart/form-data">\n'
        '<fieldset><legend>Paste</legend><label for="text">A server log, an issue body, nvidia-smi output, '
        'a launch command:</label>\n<textarea id="text" name="text" spellcheck="false"></textarea></fieldset>\n'
        '<fieldset><legend>or upload</legend><input type="file" id="files" name="files" multiple>'
        ' <span class="note">one file per rank is fine (rank0.log, rank1.log, ...)</span></fieldset>\n'
        '<button type="submit" id="analyze">Analyze</button>\n</form>\n'
        f'<p class="note">At most {size(budget.max_bytes)}. Secrets, e-mail addresses, user names, IP '
        "addresses and host names are redacted from the report; nothing is stored: the report is made "
        f"in memory and sent back. An analysis gets {budget.seconds:g} s: a paste too long to read in that time "
        "is read as far as it fits, and the report says where it stopped.</p>\n</body></html>\n"
    )


def form_parts(parsed: list[FormPart]) -> list[Part]:
    """The submission's non-empty parts (the pasted text, then each uploaded file); the child analyses them and
    redacts the report (paste/budget.py)."""
    parts: list[Part] = []
    for part in parsed:
        if part.name not in ("text", "files") or not part.data.strip():
            continue
        name = "pasted" if part.name == "text" else re.sub(r"[^\w.+-]", "_", part.filename or "upload")[:100]
        parts.append(Part(name, bytes(part.data)))
        part.data.clear()  # freed now, before the parts are pickled for the child: one copy at a time
    return parts


class _Refused(Exception):
    """A request answered before its body was read to the end (its status and one line)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


async def _receive_form(request: Request, budget: Budget, started: float) -> list[Part]:
    """The body read under the request's caps and its one deadline (`budget.upload_seconds` from the first
    byte to the last), parsed as it streams in, off the event loop (paste/multipart.py)."""
    declared = request.headers.get("content-length", "")
    too_large = f"more than {size(budget.max_bytes)} sent: paste less (the failing rank's log is enough)"
    if declared.isdigit() and int(declared) > budget.max_bytes:
        raise _Refused(413, too_large)
    try:
        parser = FormParser(request.headers.get("content-type", ""))
    except FormError as exc:
        raise _Refused(400, str(exc)) from None
    received = 0
    pending = bytearray()
    chunks = request.stream().__aiter__()
    while True:
        left = budget.upload_seconds - (time.monotonic() - started)
        try:
            chunk = await asyncio.wait_for(chunks.__anext__(), timeout=max(left, 0.0))
        except StopAsyncIteration:
            break
        except TimeoutError:
            raise _Refused(408, f"the upload did not arrive within {budget.upload_seconds:g} s: send it again") from None
        received += len(chunk)
        if received > budget.max_bytes:
            raise _Refused(413, too_large)
        pending += chunk
        if len(pending) >= _FEED_BYTES:
            await _feed(parser, bytes(pending))
            pending.clear()
    await _feed(parser, bytes(pending))
    try:
        return form_parts(parser.close())
    except FormError as exc:
        raise _Refused(400, str(exc)) from None


async def _feed(parser: FormParser, data: bytes) -> None:
    try:
        await run_in_threadpool(parser.feed, data)
    except FormError as exc:
        raise _Refused(400, str(exc)) from None


def _log(line: str) -> None:
    sys.stderr.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S%z')} paste {line}\n")
    sys.stderr.flush()


def routes(budget: Budget | None = None) -> list[Route]:
    budget = budget or Budget()
    running = 0  # requests being received or analysed (one event loop: no lock needed between check and count)

    def busy() -> HTMLResponse:
        message = (
            f"{running} pastes are being received or analysed, the most this server takes at once: "
            f"try again in {budget.retry_after_s} s"
        )
        return _page(form_page(budget, message), 503, {"Retry-After": str(budget.retry_after_s)})

    async def show(request: Request) -> HTMLResponse:
        return _page(form_page(budget))

    async def submit(request: Request) -> Response:
        nonlocal running
        started = time.monotonic()
        if running >= budget.concurrent:  # before the body is read: a flood costs no memory
            return busy()
        running += 1  # from the first byte of the body: an upload holds its slot while it arrives
        try:
            try:
                parts = await _receive_form(request, budget, started)
            except _Refused as exc:
                return _page(form_page(budget, str(exc)), exc.status)
            except ClientDisconnect:
                seconds = time.monotonic() - started
                _log(f'status=499 reason="the client closed the connection during the upload" ms={seconds * 1000:.0f}')
                return Response(status_code=499)
            if not parts:
                return _page(form_page(budget, "nothing was pasted or uploaded"), 400)
            try:
                html = await run_in_threadpool(run_job, report_page, (parts, budget, started), budget.seconds)
            except OverTime as exc:
                return _page(form_page(budget, str(exc)), 504)
            except LogscopeError as exc:
                return _page(form_page(budget, str(exc)), 400)
            except RuntimeError as exc:
                return _page(form_page(budget, f"the analysis failed: {exc} (please report this with the input)"), 500)
            return _page(html)
        finally:
            running -= 1

    return [Route("/", show, methods=["GET"]), Route("/", submit, methods=["POST"])]
