"""`logscope watch` against a hostile server (logscope/measure/endpoints.py, watch.py): deep JSON, NaN, text or
booleans where counts go, numbers that overflow, malformed HTTP headers are each one line (exit 2), never an
internal error; `--format json` is always valid JSON; escape codes from the server never reach the terminal."""

from __future__ import annotations

import copy
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from logscope.measure import server_schema as schema
from logscope.measure.endpoints import WatchError
from logscope.measure.watch import Options, read_watch
from tests.sglang_standin import metrics, server_info

GOOD = server_info("0.5.23")


@contextmanager
def hostile(info: bytes, metrics_text: str = "") -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802
            data = info if self.path in ("/server_info", "/get_server_info") else metrics_text.encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def raw(answer: bytes) -> Iterator[str]:
    """A server that answers every connection with these bytes as they are."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                return
            with conn:
                conn.recv(65536)
                conn.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        stop.set()
        sock.close()


def _with(**changes: Any) -> bytes:
    info = copy.deepcopy(GOOD)
    info.update(changes)
    return json.dumps(info).encode()


def _run(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "logscope", "watch", url, "--once", "--no-nvml", "--timeout", "5", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "nested deeper than 32 levels"),
        (b'{"a":' * 40 + b"1" + b"}" * 40, "nested deeper than 32 levels"),
        (_with(tp_size=float("nan")), "NaN is not a JSON number"),
        (_with(tp_size="text"), "tp_size is 'text', not a count"),
        (_with(tp_size=True), "tp_size is True, not a count"),
        (_with(pp_size=-3), "pp_size is -3, not a count"),
        (_with(mem_fraction_static=0.5).replace(b": 0.5", b": 1e400"), "1e400 is out of range"),
        (_with(model_path=["a"]), "model_path is ['a'], not text"),
        (_with(version="0.5.23\x1b]0;pwned\x07\x1b[2J"), "version '0.5.23\\\\x1b]0;pwned"),
    ],
)
def test_every_bad_answer_is_one_line(body, message):
    with hostile(body) as url:
        with pytest.raises(WatchError, match=message.replace("[", r"\[").replace("(", r"\(")):
            read_watch(Options(url, nvml=False))
        done = _run(url)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "internal error" not in done.stderr and "\x1b" not in done.stderr


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 200 OK\r\n" + b"X-A: " + b"a" * 70_000 + b"\r\n\r\n{}",
        b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-%d: a\r\n" % i for i in range(200)) + b"\r\n{}",
        b"NOT HTTP AT ALL\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{}",
    ],
)
def test_malformed_http_is_one_line(answer):
    with raw(answer) as url:
        done = _run(url)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "internal error" not in done.stderr


def test_figures_that_are_not_finite_never_reach_the_json_and_escapes_never_the_terminal():
    info = copy.deepcopy(GOOD)
    info["model_path"] = "/models/\x1b[31mred\x1b[0m"
    info["internal_states"][0]["memory_usage"]["weight"] = 1e300
    info["internal_states"][0]["memory_usage"]["graph"] = {"decode": "x", "prefill": 0.5}
    nan_metrics = metrics("0.5.23") + f'{schema.GAUGE_WEIGHT}{{tp_rank="5"}} NaN\n{schema.GAUGE_KV}{{tp_rank="5"}} +Inf\n'
    with hostile(json.dumps(info).encode(), nan_metrics) as url:
        as_json = _run(url, "--format", "json")
        as_markdown = _run(url, "--format", "markdown")
        as_text = _run(url, "--format", "text")
    assert as_json.returncode == 0, as_json.stderr
    document = json.loads(as_json.stdout, parse_constant=lambda name: pytest.fail(f"{name} in the JSON"))
    assert document["config"]["model_path"] == "/models/\x1b[31mred\x1b[0m"  # JSON escapes it: \u001b
    assert "\x1b" not in as_json.stdout
    for done in (as_markdown, as_text):
        assert done.returncode == 0, done.stderr
        assert "\x1b[31m" not in done.stdout
