"""The webhook endpoint (starlette, served by uvicorn). A delivery is accepted only with a valid
X-Hub-Signature-256 (HMAC-SHA256 of the raw body with the shared secret, compared in constant time; a
sha1-only signature is not accepted), at most `max_body` bytes, and is stored in the durable queue before
the 2xx; the analysis runs in the worker, off the request path."""

from __future__ import annotations

import hashlib
import hmac
import json
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from logscope.bot.queue import JobQueue
from logscope.bot.worker import Worker, is_bot

ACCEPTED = {("issues", "opened"), ("issues", "edited"), ("issue_comment", "created"), ("issue_comment", "edited")}
MAX_BODY = 1 << 20  # GitHub caps payloads at 25 MB; an issue event is far smaller


@dataclass
class Settings:
    secret: bytes
    login: str
    max_body: int = MAX_BODY


def signature_ok(secret: bytes, body: bytes, header: str) -> bool:
    expected = "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode(), header.strip().encode())


def create_app(settings: Settings, queue: JobQueue, worker: Worker | None) -> Starlette:
    async def webhook(request: Request) -> JSONResponse:
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > settings.max_body:
            return JSONResponse({"error": "body too large"}, status_code=413)
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > settings.max_body:
                return JSONResponse({"error": "body too large"}, status_code=413)
        signature = request.headers.get("x-hub-signature-256")
        if not signature:
            reason = "sha1 signatures are not accepted" if request.headers.get("x-hub-signature") else "unsigned"
            return JSONResponse({"error": f"{reason}: X-Hub-Signature-256 required"}, status_code=401)
        if not signature_ok(settings.secret, body, signature):
            return JSONResponse({"error": "signature does not match"}, status_code=403)
        event = request.headers.get("x-github-event", "")
        delivery = request.headers.get("x-github-delivery", "")
        if not delivery:
            return JSONResponse({"error": "X-GitHub-Delivery required"}, status_code=400)
        try:
            payload: dict[str, Any] = json.loads(body)
        except ValueError:
            return JSONResponse({"error": "body is not JSON"}, status_code=400)
        if event == "ping":
            return JSONResponse({"pong": True})
        action = str(payload.get("action", ""))
        issue = payload.get("issue") or {}
        if (event, action) not in ACCEPTED or "pull_request" in issue or not issue.get("number"):
            return JSONResponse({"ignored": f"{event}.{action}"}, status_code=202)
        if event == "issue_comment" and is_bot((payload.get("comment") or {}).get("user"), settings.login):
            return JSONResponse({"ignored": "a bot's comment"}, status_code=202)
        repo = str((payload.get("repository") or {}).get("full_name", ""))
        stored = await run_in_threadpool(queue.enqueue, delivery, event, action, repo, int(issue["number"]))
        return JSONResponse({"queued": stored, "duplicate": not stored}, status_code=202 if stored else 200)

    async def healthz(request: Request) -> JSONResponse:
        counts = await run_in_threadpool(queue.counts)
        return JSONResponse({"status": "ok", "jobs": counts})

    @asynccontextmanager
    async def lifespan(app: Starlette):  # noqa: ANN202 - starlette's lifespan protocol
        if worker is not None:
            worker.start()
        yield
        if worker is not None:
            worker.stopping.set()

    return Starlette(routes=[Route("/webhook", webhook, methods=["POST"]), Route("/healthz", healthz)],
                     lifespan=lifespan)
