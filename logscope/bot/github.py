"""The GitHub REST calls the bot makes, paced and rate-limit aware. Mutations are serial with at least
`min_interval` seconds between them; an answer that asks to wait (Retry-After, an exhausted rate limit,
a 5xx) raises RetryLater with how long, so the worker reschedules the job in the durable queue instead of
holding it in memory."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from typing import Any

DEFAULT_WAIT = 60.0  # seconds to wait when GitHub gives no hint (a 5xx, a secondary limit without headers)


class RetryLater(Exception):
    def __init__(self, message: str, delay: float) -> None:
        super().__init__(message)
        self.delay = delay


class BodyTooLong(Exception):
    """422: the comment body is longer than GitHub accepts."""


class GitHub:
    def __init__(self, base_url: str, token: str, min_interval: float = 1.0, default_wait: float = DEFAULT_WAIT,
                 timeout: float = 30.0) -> None:
        self.base = base_url.rstrip("/")
        self.token = token
        self.min_interval = min_interval
        self.default_wait = default_wait
        self.timeout = timeout
        self.last_mutation = 0.0
        self.lock = threading.Lock()

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        if method != "GET":
            with self.lock:
                wait = self.last_mutation + self.min_interval - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                self.last_mutation = time.monotonic()
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method, headers={
            "Accept": "application/vnd.github+json", "Authorization": f"Bearer {self.token}",
            "X-GitHub-Api-Version": "2022-11-28", "User-Agent": "logscope-bot",
            **({"Content-Type": "application/json"} if data is not None else {})})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                text = response.read()
                return json.loads(text) if text else None
        except urllib.error.HTTPError as exc:
            self._raise_for(exc)
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            raise RetryLater(f"{method} {path}: {exc}", self.default_wait) from None
        return None

    def _raise_for(self, exc: urllib.error.HTTPError) -> None:
        headers = exc.headers
        text = exc.read().decode(errors="replace")[:300]
        where = f"{exc.code} from {exc.url}: {text}"
        if headers.get("Retry-After", "").strip().isdigit():
            raise RetryLater(where, float(headers["Retry-After"])) from None
        if exc.code in (403, 429) and headers.get("x-ratelimit-remaining") == "0":
            reset = headers.get("x-ratelimit-reset", "")
            delay = max(float(reset) - time.time(), 1.0) if reset.isdigit() else self.default_wait
            raise RetryLater(where, delay) from None
        if exc.code == 429 or exc.code >= 500 or (exc.code == 403 and "rate limit" in text.lower()):
            raise RetryLater(where, self.default_wait) from None
        if exc.code == 422 and "too long" in text.lower():
            raise BodyTooLong(where) from None
        raise RuntimeError(where) from None

    def login(self) -> str:
        return str(self._call("GET", "/user")["login"])

    def issue(self, repo: str, number: int) -> dict[str, Any]:
        return self._call("GET", f"/repos/{repo}/issues/{number}")

    def comments(self, repo: str, number: int) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        page = 1
        while True:
            batch = self._call("GET", f"/repos/{repo}/issues/{number}/comments?per_page=100&page={page}") or []
            out += batch
            if len(batch) < 100:
                return out
            page += 1

    def create_comment(self, repo: str, number: int, body: str) -> dict[str, Any]:
        return self._call("POST", f"/repos/{repo}/issues/{number}/comments", {"body": body})

    def update_comment(self, repo: str, comment_id: int, body: str) -> dict[str, Any]:
        return self._call("PATCH", f"/repos/{repo}/issues/comments/{comment_id}", {"body": body})
