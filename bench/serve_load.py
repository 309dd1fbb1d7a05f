"""The paste page under attack and load (by hand: python bench/serve_load.py [--only NAME ...] [--json OUT]).

Starts `logscope bot serve --dry-run` (the webhook bot with the paste page at `/` and `/healthz`) on 127.0.0.1
and, one scenario after the other, measures the latency of `GET /healthz` (polled every 0.1 s) while the
paste page takes:

- `header`: one POST whose part header is `Content-Type: text/plain; a=b;a=b;...` with 120,000 parameters;
- `parts`: one POST of 100,000 parts;
- `nesting`: one POST of multipart parts nested 2,000 deep;
- `burst`: 20 simultaneous 8 MiB pastes (a real log repeated);
- `stalled`: 100 uploads that declare 8 MiB, send 1 MiB and then nothing (held at most --hold seconds).

For each: the answers (status and seconds), /healthz's worst and median latency, and the server process's
RSS (from /proc) at the start, at its peak and 2 s after the scenario. Only loopback traffic, each scenario
bounded in connections and time (--limit seconds).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOG = ROOT / "fixtures" / "real" / "h-019-sglang-17392.log"
MIB = 1 << 20


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _rss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _form(parts: list[tuple[bytes, bytes]], boundary: bytes = b"bench") -> bytes:
    """A multipart body of (part header, data) pairs."""
    out = bytearray()
    for header, data in parts:
        out += b"--" + boundary + b"\r\n" + header + b"\r\n\r\n" + data + b"\r\n"
    return bytes(out + b"--" + boundary + b"--\r\n")


def crafted_header() -> bytes:
    params = b";".join(b"a=b" for _ in range(120_000))
    return _form([(b'Content-Disposition: form-data; name="text"\r\nContent-Type: text/plain; ' + params, b"hello")])


def many_parts() -> bytes:
    return _form([(b'Content-Disposition: form-data; name="x"', b"y")] * 100_000)


def deep_nesting(depth: int = 2000) -> bytes:
    out = bytearray()
    for level in range(depth):
        out += b"--b%d\r\nContent-Type: multipart/mixed; boundary=b%d\r\n\r\n" % (level, level + 1)
    out += b'--b%d\r\nContent-Disposition: form-data; name="text"\r\n\r\nhello\r\n' % depth
    for level in range(depth, -1, -1):
        out += b"--b%d--\r\n" % level
    return bytes(out)


def paste_8mib() -> bytes:
    log = LOG.read_bytes()
    text = log * ((8 * MIB - 4096) // len(log))
    return _form([(b'Content-Disposition: form-data; name="text"', text)])


def _request_head(port: int, length: int, boundary: bytes) -> bytes:
    return (
        f"POST / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {length}\r\n"
        f"Content-Type: multipart/form-data; boundary={boundary.decode()}\r\nConnection: close\r\n\r\n"
    ).encode()


def post(port: int, body: bytes, boundary: bytes, limit: float) -> tuple[int, float]:
    """(status, seconds) of one POST; the status 0 when no answer came within `limit`. The server may answer
    before the body is sent (503, 413): the rest of the body is then not sent."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=limit) as sock:
        with contextlib.suppress(OSError):
            sock.sendall(_request_head(port, len(body), boundary) + body)
        answer = b""
        try:
            while b"\r\n" not in answer:
                data = sock.recv(4096)
                if not data:
                    break
                answer += data
        except OSError:
            pass
    status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0
    return status, time.monotonic() - started


class Probe:
    """Polls /healthz every 0.1 s and the server's RSS every 0.05 s until stopped."""

    def __init__(self, port: int, pid: int) -> None:
        self.port, self.pid = port, pid
        self.latencies: list[float] = []
        self.rss: list[float] = []
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._health), threading.Thread(target=self._memory)]

    def __enter__(self) -> Probe:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()

    def _health(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            with contextlib.suppress(OSError):
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=120).read()
            self.latencies.append(time.monotonic() - started)
            self._stop.wait(0.1)

    def _memory(self) -> None:
        while not self._stop.is_set():
            self.rss.append(_rss_mib(self.pid))
            self._stop.wait(0.05)


def run_scenario(name: str, port: int, pid: int, limit: float, hold: float) -> dict:
    start_rss = _rss_mib(pid)
    answers: list[tuple[int, float]] = []
    lock = threading.Lock()

    def one(body: bytes, boundary: bytes) -> None:
        result = post(port, body, boundary, limit)
        with lock:
            answers.append(result)

    with Probe(port, pid) as probe:
        if name in ("header", "parts", "nesting"):
            make, boundary = {
                "header": (crafted_header, b"bench"),
                "parts": (many_parts, b"bench"),
                "nesting": (deep_nesting, b"b0"),
            }[name]
            one(make(), boundary)
        elif name == "burst":
            body = paste_8mib()
            threads = [threading.Thread(target=one, args=(body, b"bench")) for _ in range(20)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        elif name == "stalled":
            socks = []
            head = b'--bench\r\nContent-Disposition: form-data; name="text"\r\n\r\n'
            started = time.monotonic()
            for _ in range(100):
                sock = socket.create_connection(("127.0.0.1", port), timeout=5)
                with contextlib.suppress(OSError):
                    sock.sendall(_request_head(port, 8 * MIB, b"bench") + head + b"x" * MIB)
                socks.append(sock)
            time.sleep(max(0.0, hold - (time.monotonic() - started)))
            for sock in socks:
                sock.settimeout(0.2)
                try:
                    data = sock.recv(64)
                    answers.append((int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.1 ") else -1, 0.0))
                except OSError:
                    answers.append((0, 0.0))  # still open, no answer
                sock.close()
        time.sleep(2.0)
    latencies = probe.latencies or [0.0]
    statuses: dict[str, int] = {}
    for status, _ in answers:
        statuses[str(status)] = statuses.get(str(status), 0) + 1
    return {
        "scenario": name,
        "answers": statuses,
        "answer_s_max": round(max((s for _, s in answers), default=0.0), 2),
        "healthz_s_max": round(max(latencies), 3),
        "healthz_s_median": round(statistics.median(latencies), 3),
        "rss_mib_start": round(start_rss, 1),
        "rss_mib_peak": round(max(probe.rss or [0.0]), 1),
        "rss_mib_after": round(_rss_mib(pid), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", default=["header", "parts", "nesting", "burst", "stalled"])
    parser.add_argument("--limit", type=float, default=90.0, help="seconds one POST may take before it counts as unanswered")
    parser.add_argument("--hold", type=float, default=20.0, help="seconds the stalled uploads are held open")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    port = _free_port()
    with tempfile.TemporaryDirectory() as data:
        env = {**os.environ, "LOGSCOPE_WEBHOOK_SECRET": "bench"}
        command = [sys.executable, "-m", "logscope", "bot", "serve", "--dry-run", "--data-dir", data, "--port", str(port)]
        server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1).read()
                    break
                except OSError:
                    time.sleep(0.2)
            results = []
            for name in args.only:
                result = run_scenario(name, port, server.pid, args.limit, args.hold)
                print(json.dumps(result), flush=True)
                results.append(result)
        finally:
            server.terminate()
            try:
                _, err = server.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                _, err = server.communicate()
        log_lines = err.decode(errors="replace").splitlines()
        print(f"server stderr: {len(log_lines)} lines; tracebacks: {sum('Traceback' in line for line in log_lines)}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
