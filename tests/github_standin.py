"""A stand-in for the GitHub REST API on 127.0.0.1: issues and comments in memory, every request recorded,
and scripted faults (a number of answers of a given status) to test the bot's waiting.

As a GitHub App's API (`app_key` given): `GET /app` and `POST /app/installations/<id>/access_tokens` take
only a JWT signed RS256 with the app's key (iss the app id, exp at most 10 minutes after iat); the tokens it
issues last `token_lifetime` seconds, belong to one installation, and every repository call needs a live
token of the installation the repository is installed on (401 "Bad credentials" otherwise, 404 for another
installation's token, as GitHub answers). `revoke()` makes every token issued so far expire now."""

from __future__ import annotations

import base64
import json
import re
import secrets
import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

BOT = "logscope-bot"
APP_ID = "4242"
APP_SLUG = "logscope-triage"


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class StandIn:
    def __init__(
        self,
        app_key: Any = None,
        token_lifetime: float = 3600.0,
        installations: dict[str, int] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.clock = clock  # GitHub's clock: JWT times and token expiry are read against it
        self.app_key = app_key  # the app's private key (cryptography); its public half verifies the JWTs
        self.token_lifetime = token_lifetime
        self.installations = installations or {}  # repository full name -> installation id
        self.tokens: dict[str, tuple[int, float]] = {}  # token -> (installation, expiry, epoch seconds)
        self.issued: list[tuple[int, float]] = []  # (installation, when) per token issued
        self.refused: list[str] = []  # why each request with bad credentials was refused
        self.issues: dict[int, dict[str, Any]] = {}
        self.comments: dict[int, list[dict[str, Any]]] = {}
        self.requests: list[tuple[str, str, float]] = []
        self.faults: list[tuple[int, dict[str, str], str]] = []  # answers to give to the next mutations
        self.next_id = 1000
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> StandIn:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def add_issue(self, number: int, body: str, title: str = "startup fails") -> dict[str, Any]:
        issue = {"number": number, "title": title, "body": body, "user": {"login": "reporter", "type": "User"}}
        with self.lock:
            self.issues[number] = issue
            self.comments.setdefault(number, [])
        return issue

    def add_comment(self, number: int, body: str, login: str = "someone", kind: str = "User") -> dict[str, Any]:
        with self.lock:
            self.next_id += 1
            comment = {"id": self.next_id, "body": body, "user": {"login": login, "type": kind}}
            self.comments[number].append(comment)
        return comment

    def bot_comments(self, number: int) -> list[dict[str, Any]]:
        login = f"{APP_SLUG}[bot]" if self.app_key is not None else BOT
        with self.lock:
            return [c for c in self.comments.get(number, []) if c["user"]["login"] == login]

    def revoke(self) -> None:
        with self.lock:
            self.tokens = {token: (inst, min(expiry, self.clock())) for token, (inst, expiry) in self.tokens.items()}

    def _jwt_error(self, authorization: str) -> str | None:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding

        parts = authorization.removeprefix("Bearer ").split(".")
        if len(parts) != 3:
            return "not a JWT"
        header, claims = json.loads(_unb64(parts[0])), json.loads(_unb64(parts[1]))
        if header != {"alg": "RS256", "typ": "JWT"}:
            return f"header {header}"
        try:
            self.app_key.public_key().verify(
                _unb64(parts[2]), f"{parts[0]}.{parts[1]}".encode(), padding.PKCS1v15(), hashes.SHA256()
            )
        except InvalidSignature:
            return "bad signature"
        now = self.clock()
        if claims.get("iss") != APP_ID or not claims["iat"] <= now < claims["exp"] or claims["exp"] - claims["iat"] > 660:
            return f"claims {claims}"
        return None

    def _token_error(self, authorization: str, repo: str) -> tuple[int, str] | None:
        token = authorization.removeprefix("Bearer ")
        with self.lock:
            installation, expiry = self.tokens.get(token, (0, 0.0))
        if not installation or self.clock() >= expiry:
            return 401, "Bad credentials" + (" (expired)" if installation else "")
        if self.installations.get(repo) != installation:
            return 404, "Not Found"
        return None

    def _issue_token(self, installation: int) -> dict[str, str]:
        token = "ghs_" + secrets.token_hex(18)
        expiry = self.clock() + self.token_lifetime
        with self.lock:
            self.tokens[token] = (installation, expiry)
            self.issued.append((installation, self.clock()))
        stamp = datetime.fromtimestamp(expiry, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        return {"token": token, "expires_at": stamp}

    def mutations(self) -> list[tuple[str, str, float]]:
        with self.lock:
            return [r for r in self.requests if r[0] != "GET"]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def _route(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                payload = json.loads(self.rfile.read(length)) if length else None
                with standin.lock:
                    standin.requests.append((method, self.path, time.monotonic()))
                    fault = (
                        standin.faults.pop(0) if method != "GET" and standin.faults and self.path.startswith("/repos/") else None
                    )
                if fault is not None:
                    self._send(fault[0], {"message": fault[2]}, fault[1])
                    return
                path = self.path.split("?")[0]
                authorization = self.headers.get("Authorization", "")
                if standin.app_key is not None:
                    m = re.fullmatch(r"/app/installations/(\d+)/access_tokens", path)
                    if path == "/app" or m:
                        error = standin._jwt_error(authorization)
                        if error is not None:
                            standin.refused.append(f"JWT: {error}")
                            return self._send(401, {"message": "A JSON web token could not be decoded"})
                        if path == "/app":
                            return self._send(200, {"id": int(APP_ID), "slug": APP_SLUG})
                        if method != "POST" or int(m.group(1)) not in standin.installations.values():
                            return self._send(404, {"message": "Not Found"})
                        return self._send(201, standin._issue_token(int(m.group(1))))
                    repo = re.match(r"/repos/([^/]+/[^/]+)/", path)
                    refusal = standin._token_error(authorization, repo.group(1) if repo else "")
                    if refusal is not None:
                        standin.refused.append(f"{method} {path}: {refusal[1]}")
                        return self._send(refusal[0], {"message": refusal[1]})
                login = f"{APP_SLUG}[bot]" if standin.app_key is not None else BOT
                if method == "GET" and path == "/user":
                    return self._send(200, {"login": BOT, "type": "Bot"})
                m = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/(\d+)", path)
                if method == "GET" and m:
                    issue = standin.issues.get(int(m.group(1)))
                    return self._send(200 if issue else 404, issue or {"message": "Not Found"})
                m = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/(\d+)/comments", path)
                if m and method == "GET":
                    page = int(m_page.group(1)) if (m_page := re.search(r"[?&]page=(\d+)", self.path)) else 1
                    with standin.lock:
                        return self._send(200, standin.comments.get(int(m.group(1)), [])[(page - 1) * 100 : page * 100])
                if m and method == "POST":
                    return self._send(201, standin.add_comment(int(m.group(1)), payload["body"], login, "Bot"))
                m = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/comments/(\d+)", path)
                if m and method == "PATCH":
                    with standin.lock:
                        for comments in standin.comments.values():
                            for comment in comments:
                                if comment["id"] == int(m.group(1)):
                                    comment["body"] = payload["body"]
                                    self._send(200, comment)
                                    return None
                return self._send(404, {"message": "Not Found"})

            def do_GET(self) -> None:  # noqa: N802 - http.server's names
                self._route("GET")

            def do_POST(self) -> None:  # noqa: N802
                self._route("POST")

            def do_PATCH(self) -> None:  # noqa: N802
                self._route("PATCH")

        return Handler
