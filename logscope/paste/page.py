"""The paste page's routes. The form posts multipart/form-data (a `text` field and any number of `files`),
read with the standard library's e-mail parser (no multipart dependency) after the body was capped; each
part becomes one source, the sources are analysed together, within the request's budget, in a child
process (paste/budget.py), and the redacted HTML report is the answer. At most `budget.concurrent` analyses run at
once: one more is answered 503 with Retry-After. Nothing is written anywhere: the text lives in the
request's memory and the child's, and is gone with them."""

from __future__ import annotations

import base64
import hashlib
import re
import time
from email import policy
from email.parser import BytesParser
from html import escape

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from logscope.core.errors import LogscopeError
from logscope.paste.budget import Budget, OverTime, Part, report_page, run_job, size

MAX_PARTS = 32

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


def read_form(content_type: str, body: bytes) -> list[Part]:
    """The submission's non-empty parts (the pasted text, then each uploaded file); the child analyses them and
    redacts the report (paste/budget.py)."""
    if not content_type.lower().startswith("multipart/form-data"):
        raise ValueError("the form is sent as multipart/form-data")
    message = BytesParser(policy=policy.HTTP).parsebytes(b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + body)
    if not message.is_multipart():
        raise ValueError("the body is not multipart")
    parts: list[Part] = []
    for part in list(message.iter_parts())[:MAX_PARTS]:
        field_name = part.get_param("name", header="content-disposition")
        data = part.get_payload(decode=True)
        if field_name not in ("text", "files") or not isinstance(data, bytes) or not data.strip():
            continue
        name = "pasted" if field_name == "text" else re.sub(r"[^\w.+-]", "_", part.get_filename() or "upload")[:100]
        parts.append(Part(name, data))
    return parts


def routes(budget: Budget | None = None) -> list[Route]:
    budget = budget or Budget()
    running = 0  # analyses under way (one event loop: no lock needed between the checks and the counts)

    def busy() -> HTMLResponse:
        message = f"{running} analyses are running, the most this server runs at once: try again in {budget.retry_after_s} s"
        return _page(form_page(budget, message), 503, {"Retry-After": str(budget.retry_after_s)})

    async def show(request: Request) -> HTMLResponse:
        return _page(form_page(budget))

    async def submit(request: Request) -> HTMLResponse:
        nonlocal running
        started = time.monotonic()
        if running >= budget.concurrent:  # before the body is read: a flood costs no memory
            return busy()
        declared = request.headers.get("content-length", "")
        too_large = f"more than {size(budget.max_bytes)} sent: paste less (the failing rank's log is enough)"
        if declared.isdigit() and int(declared) > budget.max_bytes:
            return _page(form_page(budget, too_large), 413)
        body = bytearray()  # appended in place: `bytes +=` copied the whole body at every chunk
        async for chunk in request.stream():
            body += chunk
            if len(body) > budget.max_bytes:
                return _page(form_page(budget, too_large), 413)
        try:
            parts = read_form(request.headers.get("content-type", ""), bytes(body))
        except ValueError as exc:
            return _page(form_page(budget, str(exc)), 400)
        del body
        if not parts:
            return _page(form_page(budget, "nothing was pasted or uploaded"), 400)
        if running >= budget.concurrent:
            return busy()
        running += 1
        try:
            html = await run_in_threadpool(run_job, report_page, (parts, budget, started), budget.seconds)
        except OverTime as exc:
            return _page(form_page(budget, str(exc)), 504)
        except LogscopeError as exc:
            return _page(form_page(budget, str(exc)), 400)
        except RuntimeError as exc:
            return _page(form_page(budget, f"the analysis failed: {exc} (please report this with the input)"), 500)
        finally:
            running -= 1
        return _page(html)

    return [Route("/", show, methods=["GET"]), Route("/", submit, methods=["POST"])]
