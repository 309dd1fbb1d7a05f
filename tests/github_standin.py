"""A stand-in for the GitHub REST API on 127.0.0.1: issues and comments in memory, every request recorded,
and scripted faults (a number of answers of a given status) to test the bot's waiting."""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

BOT = "logscope-bot"


class StandIn:
    def __init__(self) -> None:
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
        with self.lock:
            return [c for c in self.comments.get(number, []) if c["user"]["login"] == BOT]

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
                    fault = standin.faults.pop(0) if method != "GET" and standin.faults else None
                if fault is not None:
                    self._send(fault[0], {"message": fault[2]}, fault[1])
                    return
                path = self.path.split("?")[0]
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
                        return self._send(200, standin.comments.get(int(m.group(1)), [])[(page - 1) * 100:page * 100])
                if m and method == "POST":
                    return self._send(201, standin.add_comment(int(m.group(1)), payload["body"], BOT, "Bot"))
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
