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

    def get(self, path: str) -> tuple[int, bytes]:
        """(status, body); 404 is returned, every other failure raised as a WatchError."""
        url = self.base.rstrip("/") + path
        request = urllib.request.Request(url, headers={"Accept": "application/json, text/plain", **dict(self.headers)})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:  # noqa: S310 - http(s) only, checked
                return response.status, response.read(MAX_BYTES + 1)
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
