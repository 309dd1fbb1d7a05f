"""HTTP reads of a running SGLang server (standard library only): /server_info (or the deprecated
/get_server_info) as JSON and /metrics as Prometheus text. Every failure is one line: unreachable, timeout,
TLS, refused (401/403), not SGLang."""

from __future__ import annotations

import http.client
import json
import math
import re
import socket
import ssl
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from logscope.core.errors import LogscopeError

MAX_BYTES = 16 << 20  # a server_info or metrics page is kilobytes; a larger answer is not SGLang's
MAX_DEPTH = 32  # server_info nests a few levels; deeper is no SGLang answer (and recursion is not for strangers)


class WatchError(LogscopeError):
    """The server could not be read; the message says why, in one line."""


@dataclass(frozen=True, slots=True)
class Client:
    base: str
    headers: tuple[tuple[str, str], ...] = ()
    timeout_s: float = 5.0

    def get(self, path: str, cap: int = MAX_BYTES) -> tuple[int, bytes]:
        """(status, body: at most cap + 1 bytes, so a caller can tell a larger answer); 404 is returned, every
        other failure raised as a WatchError. One deadline, `timeout_s`, bounds the whole request: connecting,
        the headers and the body (a server that sends a byte now and then is cut off there, not waited for)."""
        url = self.base.rstrip("/") + path
        deadline = time.monotonic() + self.timeout_s
        answer: list[tuple[int, bytes]] = []
        failure: list[BaseException] = []

        def fetch() -> None:
            try:
                answer.append(self._fetch(url, deadline, cap))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
                failure.append(exc)

        worker = threading.Thread(target=fetch, name="watch-request", daemon=True)
        worker.start()
        worker.join(self.timeout_s)
        if worker.is_alive() or not (answer or failure):
            raise WatchError(f"{url}: timed out after {self.timeout_s:g} s (connecting, headers and body together)")
        if failure:
            raise failure[0]
        return answer[0]

    def _fetch(self, url: str, deadline: float, cap: int) -> tuple[int, bytes]:
        request = urllib.request.Request(url, headers={"Accept": "application/json, text/plain", **dict(self.headers)})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:  # noqa: S310 - http(s) only, checked
                return response.status, _body_until(response, deadline, cap, url, self.timeout_s)
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                return 404, b""
            if exc.code in (401, 403):
                raise WatchError(
                    f"{url}: HTTP {exc.code}: the server wants an API key (--header 'Authorization: Bearer KEY')"
                ) from None
            raise WatchError(f"{url}: HTTP {exc.code} {exc.reason}") from None
        except urllib.error.URLError as exc:
            raise WatchError(f"{url}: {_why(exc.reason)}") from None
        except TimeoutError:
            raise WatchError(f"{url}: timed out after {self.timeout_s:g} s") from None
        except ssl.SSLError as exc:
            raise WatchError(f"{url}: TLS error: {exc.reason or exc}") from None
        except http.client.HTTPException as exc:  # a malformed status line or header, a body cut short
            raise WatchError(f"{url}: not a valid HTTP answer ({type(exc).__name__}): not an SGLang server") from None
        except (ConnectionError, OSError) as exc:
            raise WatchError(f"{url}: unreachable: {exc.strerror or exc}") from None

    def json(self, path: str) -> Any | None:
        status, body = self.get(path)
        if status == 404:
            return None
        if len(body) > MAX_BYTES:
            raise WatchError(f"{self.base}{path}: answer larger than {MAX_BYTES >> 20} MiB: not an SGLang server")
        return parse_json(body, f"{self.base}{path}")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range")
    return value


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_json(body: bytes, where: str) -> Any:
    """JSON as a server may send it, checked: no NaN or Infinity (nor a number that overflows to one), nested at
    most MAX_DEPTH deep; anything else is a one-line WatchError."""
    try:
        value = json.loads(body, parse_constant=_refuse_constant, parse_float=_finite)
    except RecursionError:
        raise WatchError(f"{where}: JSON nested deeper than {MAX_DEPTH} levels: not an SGLang server") from None
    except ValueError as exc:
        detail = str(exc) if "JSON number" in str(exc) or "out of range" in str(exc) else "not JSON"
        raise WatchError(f"{where}: {detail}: not an SGLang server") from None
    if _depth(value) > MAX_DEPTH:
        raise WatchError(f"{where}: JSON nested deeper than {MAX_DEPTH} levels: not an SGLang server")
    return value


def _depth(value: Any) -> int:
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            return depth
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return deepest


def _body_until(response: Any, deadline: float, cap: int, url: str, timeout_s: float) -> bytes:
    """The body as it arrives (read1: what is there, never waiting for a full buffer), up to cap + 1 bytes, while
    the request's deadline lasts."""
    body = bytearray()
    while len(body) <= cap:
        if time.monotonic() > deadline:
            raise WatchError(f"{url}: timed out after {timeout_s:g} s (connecting, headers and body together)")
        chunk = response.read1(min(1 << 16, cap + 1 - len(body)))
        if not chunk:
            break
        body += chunk
    return bytes(body)


def _why(reason: object) -> str:
    if isinstance(reason, ssl.SSLCertVerificationError):
        return f"TLS certificate not trusted: {reason.verify_message}"
    if isinstance(reason, ssl.SSLError):
        return f"TLS error: {reason.reason or reason}"
    if isinstance(reason, (TimeoutError, socket.timeout)):
        return "timed out"
    if isinstance(reason, socket.gaierror):
        return f"unreachable: host not found ({reason.strerror})"
    if isinstance(reason, OSError):
        return f"unreachable: {reason.strerror or reason}"
    return f"unreachable: {reason}"


def check_url(url: str) -> str:
    if not re.match(r"^https?://[^/\s]+", url):
        raise WatchError(f"{url}: not an http:// or https:// URL of an SGLang server")
    return url


_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


@dataclass(frozen=True, slots=True)
class Gauge:
    name: str
    labels: dict[str, str]
    value: float


def parse_metrics(text: str, names: tuple[str, ...]) -> list[Gauge]:
    """The samples of the named metrics in a Prometheus text page."""
    out = []
    for line in text.splitlines():
        if not line.startswith(names):
            continue
        m = _SAMPLE.match(line)
        if m is None or m.group(1) not in names:
            continue
        try:
            value = float(m.group(3))
        except ValueError:
            continue
        if not math.isfinite(value):  # NaN, +Inf: no memory figure (and no valid JSON)
            continue
        out.append(Gauge(m.group(1), dict(_LABEL.findall(m.group(2) or "")), value))
    return out
