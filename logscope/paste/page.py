"""The paste page's routes. The form posts multipart/form-data (a `text` field and any number of `files`),
read with the standard library's e-mail parser (no multipart dependency) after the body was capped; each
part becomes one redacted source, the sources are analysed together and the HTML report is the answer.
Nothing is written anywhere: the text lives in the request's memory and is gone with it."""

from __future__ import annotations

import base64
import hashlib
import re
from email import policy
from email.parser import BytesParser
from html import escape

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from logscope.core.errors import LogscopeError
from logscope.core.redact import redact
from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import Source, rank_hint_from_name
from logscope.report.html import render_html

MAX_PASTE = 8 << 20  # bytes of one submission, files and text together
MAX_PARTS = 32

_CSS = """body{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d232a}
h1{font-size:1.4rem}textarea{width:100%;min-height:18rem;font:13px/1.35 ui-monospace,monospace;box-sizing:border-box}
fieldset{border:1px solid #c9d1d9;border-radius:6px;margin:1rem 0;padding:.75rem 1rem}
button{font-size:1rem;padding:.4rem 1.2rem}.note{color:#57606a;font-size:.9rem}.error{color:#b42318}"""


def _size(n: int) -> str:
    return f"{n / (1 << 20):g} MiB" if n >= 1 << 20 else f"{n / 1024:g} KiB"


def _style_hashes(html: str) -> str:
    """The CSP source for every <style> element of the page: its sha256, so no other style applies."""
    hashes = (hashlib.sha256(m.group(1).encode()).digest() for m in re.finditer(r"<style>(.*?)</style>", html, re.S))
    return " ".join(f"'sha256-{base64.b64encode(h).decode()}'" for h in hashes)


def _page(html: str, status: int = 200) -> HTMLResponse:
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
        },
    )


def form_page(max_bytes: int, error: str = "") -> str:
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
        f'<p class="note">At most {_size(max_bytes)}. Secrets, e-mail addresses, user names, IP '
        "addresses and host names are redacted before anything is read; nothing is stored: the report is made "
        "in memory and sent back.</p>\n</body></html>\n"
    )


def _redacted(text: str) -> str:
    """The one place the paste page redacts (the triage redaction, also applied to issue text)."""
    return redact(text)


def read_form(content_type: str, body: bytes) -> list[Source]:
    """The submission's non-empty parts as redacted sources: the pasted text, then each uploaded file."""
    if not content_type.lower().startswith("multipart/form-data"):
        raise ValueError("the form is sent as multipart/form-data")
    message = BytesParser(policy=policy.HTTP).parsebytes(b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + body)
    if not message.is_multipart():
        raise ValueError("the body is not multipart")
    sources: list[Source] = []
    for part in list(message.iter_parts())[:MAX_PARTS]:
        field_name = part.get_param("name", header="content-disposition")
        data = part.get_payload(decode=True)
        if field_name not in ("text", "files") or not isinstance(data, bytes) or not data.strip():
            continue
        name = "pasted" if field_name == "text" else re.sub(r"[^\w.+-]", "_", part.get_filename() or "upload")[:100]
        text = _redacted(data.decode("utf-8", errors="replace"))
        sources.append(Source(name=name, path=None, data=text.encode(), rank_hint=rank_hint_from_name(name)))
    return sources


def routes(max_bytes: int = MAX_PASTE) -> list[Route]:
    async def show(request: Request) -> HTMLResponse:
        return _page(form_page(max_bytes))

    async def submit(request: Request) -> HTMLResponse:
        declared = request.headers.get("content-length", "")
        too_large = f"more than {_size(max_bytes)} sent: paste less (the failing rank's log is enough)"
        if declared.isdigit() and int(declared) > max_bytes:
            return _page(form_page(max_bytes, too_large), 413)
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > max_bytes:
                return _page(form_page(max_bytes, too_large), 413)
        try:
            sources = read_form(request.headers.get("content-type", ""), body)
        except ValueError as exc:
            return _page(form_page(max_bytes, str(exc)), 400)
        if not sources:
            return _page(form_page(max_bytes, "nothing was pasted or uploaded"), 400)
        try:
            report = await run_in_threadpool(analyze_sources, sources)
        except LogscopeError as exc:
            return _page(form_page(max_bytes, str(exc)), 400)
        return _page(await run_in_threadpool(render_html, report))

    return [Route("/", show, methods=["GET"]), Route("/", submit, methods=["POST"])]
