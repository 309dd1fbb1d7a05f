"""The GitHub REST calls the bot makes, paced and rate-limit aware. Mutations are serial with at least
`min_interval` seconds between them; an answer that asks to wait (Retry-After, an exhausted rate limit,
a 5xx) raises RetryLater with how long, so the worker reschedules the job in the durable queue instead of
holding it in memory; an answer that will not change on retry (404, 410, 422 other than "too long") raises
Permanent, so the job is parked at once. Each call carries the token of the delivery's installation (see
auth.py); a 401 drops that token and the call is made once more with a fresh one."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Protocol

DEFAULT_WAIT = 60.0  # seconds to wait when GitHub gives no hint (a 5xx, a secondary limit without headers)
USER_AGENT = "logscope-bot"


class RetryLater(Exception):
    def __init__(self, message: str, delay: float) -> None:
        super().__init__(message)
        self.delay = delay


class Permanent(Exception):
    """An answer that retrying will not change: the job is parked with it."""


class BodyTooLong(Exception):
    """422: the comment body is longer than GitHub accepts."""


class Unauthorized(Exception):
    """401: the token was refused (expired or revoked)."""


class Auth(Protocol):
    def token(self, installation: int | None) -> str: ...

    def invalidate(self, installation: int | None) -> None: ...


class StaticToken:
    """A personal or fine-grained token, the same for every installation."""

    def __init__(self, token: str) -> None:
        self._token = token

    def token(self, installation: int | None) -> str:
        return self._token

    def invalidate(self, installation: int | None) -> None:
        pass


def call_json(
    method: str,
    url: str,
    token: str,
    body: dict[str, Any] | None = None,
    timeout: float = 30.0,
    default_wait: float = DEFAULT_WAIT,
) -> Any:
    """One REST call; the answer's JSON, or one of the exceptions above."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url,
        data=data,
        method=method,
        headers={
            "Accept": "application/vnd.github+json",
            "Authorization": f"Bearer {token}",
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": USER_AGENT,
            **({"Content-Type": "application/json"} if data is not None else {}),
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            text = response.read()
            return json.loads(text) if text else None
    except urllib.error.HTTPError as exc:
        _raise_for(exc, default_wait)
    except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
        raise RetryLater(f"{method} {url}: {exc}", default_wait) from None
    return None


def _raise_for(exc: urllib.error.HTTPError, default_wait: float) -> None:
    headers = exc.headers
    text = exc.read().decode(errors="replace")[:300]
    where = f"{exc.code} from {exc.url}: {text}"
    if exc.code == 401:
        raise Unauthorized(where) from None
    if headers.get("Retry-After", "").strip().isdigit():
        raise RetryLater(where, float(headers["Retry-After"])) from None
    if exc.code in (403, 429) and headers.get("x-ratelimit-remaining") == "0":
        reset = headers.get("x-ratelimit-reset", "")
        delay = max(float(reset) - time.time(), 1.0) if reset.isdigit() else default_wait
        raise RetryLater(where, delay) from None
    if exc.code == 429 or exc.code >= 500 or (exc.code == 403 and "rate limit" in text.lower()):
        raise RetryLater(where, default_wait) from None
    if exc.code == 422 and "too long" in text.lower():
        raise BodyTooLong(where) from None
    if exc.code in (404, 410, 422):
        raise Permanent(where) from None
    raise RuntimeError(where) from None


class GitHub:
    def __init__(
        self, base_url: str, auth: Auth, min_interval: float = 1.0, default_wait: float = DEFAULT_WAIT, timeout: float = 30.0
    ) -> None:
        self.base = base_url.rstrip("/")
        self.auth = auth
        self.min_interval = min_interval
        self.default_wait = default_wait
        self.timeout = timeout
        self.last_mutation = 0.0
        self.lock = threading.Lock()

    def _call(self, method: str, path: str, installation: int | None, body: dict[str, Any] | None = None) -> Any:
        if method != "GET":
            with self.lock:
                wait = self.last_mutation + self.min_interval - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                self.last_mutation = time.monotonic()
        for attempt in range(2):
            try:
                return call_json(method, self.base + path, self.auth.token(installation), body, self.timeout, self.default_wait)
            except Unauthorized as exc:
                self.auth.invalidate(installation)  # expired or revoked: one more try with a fresh token
                if attempt:
                    raise RuntimeError(str(exc)) from None
        return None

    def login(self) -> str:
        return str(self._call("GET", "/user", None)["login"])

    def issue(self, repo: str, number: int, installation: int | None = None) -> dict[str, Any]:
        return self._call("GET", f"/repos/{repo}/issues/{number}", installation)

    def comments(self, repo: str, number: int, installation: int | None = None) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        page = 1
        while True:
            batch = self._call("GET", f"/repos/{repo}/issues/{number}/comments?per_page=100&page={page}", installation) or []
            out += batch
            if len(batch) < 100:
                return out
            page += 1

    def create_comment(self, repo: str, number: int, body: str, installation: int | None = None) -> dict[str, Any]:
        return self._call("POST", f"/repos/{repo}/issues/{number}/comments", installation, {"body": body})

    def update_comment(self, repo: str, comment_id: int, body: str, installation: int | None = None) -> dict[str, Any]:
        return self._call("PATCH", f"/repos/{repo}/issues/comments/{comment_id}", installation, {"body": body})
