"""The webhook endpoint (starlette, served by uvicorn). A delivery is accepted only with a valid
X-Hub-Signature-256 (HMAC-SHA256 of the raw body with the shared secret, compared in constant time; a
sha1-only signature is not accepted), at most `max_body` bytes, a payload of the shape the bot needs
(payload.py: 400 with the reason otherwise), from an allowed repository (403 otherwise), and is stored in the
durable queue before the 2xx; the analysis runs in the worker, off the request path. Each delivery gets one
access-log line; `GET /metrics` counts them; `GET /healthz` says only "ok"."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time
from collections.abc import Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import BaseRoute, Route

from logscope.bot.metrics import Metrics
from logscope.bot.payload import Delivery, Ignored, PayloadError, decode_body, read_delivery
from logscope.bot.queue import JobQueue
from logscope.bot.worker import Worker, is_bot

MAX_BODY = 1 << 20  # GitHub caps payloads at 25 MB; an issue event is far smaller
ACCESS = logging.getLogger("logscope.bot.access")


@dataclass
class Settings:
    secret: bytes
    login: str
    max_body: int = MAX_BODY
    repos: tuple[str, ...] = ()  # allowed repositories: owner/name or owner/*; empty: any
    labels: tuple[str, ...] = ()  # act only on issues with one of these labels; empty: any issue
    needs_installation: bool = False  # GitHub App auth: the token is per installation
    metrics: Metrics = field(default_factory=Metrics)

    def allows(self, repo: str) -> bool:
        owner = repo.split("/")[0].lower()
        return not self.repos or any(p.lower() in (repo.lower(), f"{owner}/*") for p in self.repos)


def signature_ok(secret: bytes, body: bytes, header: str) -> bool:
    expected = "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode(), header.strip().encode())


def _printable(text: str, limit: int = 80) -> str:
    return "".join(c if c.isprintable() and not c.isspace() else "?" for c in text[:limit]) or "-"


def create_app(settings: Settings, queue: JobQueue, worker: Worker | None, extra_routes: Sequence[BaseRoute] = ()) -> Starlette:
    metrics = settings.metrics

    async def webhook(request: Request) -> JSONResponse:
        started = time.monotonic()
        status, result, answer, delivery = await _handle(request)
        elapsed = time.monotonic() - started
        metrics.delivery(result, elapsed)
        where = f" repo={delivery.repo} issue={delivery.issue}" if delivery else ""
        ACCESS.info(
            "delivery=%s event=%s%s status=%d result=%s%s ms=%.1f",
            _printable(request.headers.get("x-github-delivery", "")),
            _printable(request.headers.get("x-github-event", "")),
            where,
            status,
            result,
            f" reason={json.dumps(answer.get('error') or answer.get('ignored'))}"
            if "error" in answer or "ignored" in answer
            else "",
            elapsed * 1000,
        )
        return JSONResponse(answer, status_code=status)

    async def _handle(request: Request) -> tuple[int, str, dict, Delivery | None]:
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > settings.max_body:
            return 413, "too_large", {"error": "body too large"}, None
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > settings.max_body:
                return 413, "too_large", {"error": "body too large"}, None
        signature = request.headers.get("x-hub-signature-256")
        if not signature:
            reason = "sha1 signatures are not accepted" if request.headers.get("x-hub-signature") else "unsigned"
            return 401, "unauthorized", {"error": f"{reason}: X-Hub-Signature-256 required"}, None
        if not signature_ok(settings.secret, body, signature):
            return 403, "unauthorized", {"error": "signature does not match"}, None
        event = request.headers.get("x-github-event", "")
        delivery_id = request.headers.get("x-github-delivery", "")
        if not delivery_id or len(delivery_id) > 200:
            return 400, "invalid", {"error": "X-GitHub-Delivery required (at most 200 characters)"}, None
        try:
            payload = decode_body(request.headers.get("content-type", ""), body)
            if event == "ping":
                return 200, "ping", {"pong": True}, None
            read = read_delivery(event, payload)
        except PayloadError as exc:
            return 400, "invalid", {"error": str(exc)}, None
        if isinstance(read, Ignored):
            return 202, "ignored", {"ignored": read.reason}, None
        if not settings.allows(read.repo):
            return 403, "refused", {"error": f"repository {read.repo} is not in the allowlist"}, read
        if settings.needs_installation and read.installation is None:
            return 400, "invalid", {"error": "installation.id required: the bot authenticates as a GitHub App"}, read
        if settings.labels and not set(read.labels) & set(settings.labels):
            return 202, "ignored", {"ignored": f"no label of {', '.join(settings.labels)}"}, read
        if read.event == "issue_comment" and is_bot(read.comment_user, settings.login):
            return 202, "ignored", {"ignored": "a bot's comment"}, read
        stored = await run_in_threadpool(
            queue.enqueue, delivery_id, read.event, read.action, read.repo, read.issue, read.installation, json.dumps(read.thread)
        )
        if stored:
            return 202, "queued", {"queued": True, "duplicate": False}, read
        return 200, "duplicate", {"queued": False, "duplicate": True}, read

    async def healthz(request: Request) -> PlainTextResponse:
        return PlainTextResponse("ok")

    async def metrics_page(request: Request) -> PlainTextResponse:
        counts = await run_in_threadpool(queue.counts)
        return PlainTextResponse(metrics.render(counts), media_type="text/plain; version=0.0.4")

    @asynccontextmanager
    async def lifespan(app: Starlette):  # noqa: ANN202 - starlette's lifespan protocol
        if worker is not None:
            worker.start()
        yield
        if worker is not None:
            worker.stopping.set()

    return Starlette(
        routes=[
            Route("/webhook", webhook, methods=["POST"]),
            Route("/healthz", healthz),
            Route("/metrics", metrics_page),
            *extra_routes,
        ],
        lifespan=lifespan,
    )
