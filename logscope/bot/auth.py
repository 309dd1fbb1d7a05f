"""GitHub App authentication: a JWT signed with the app's private key (RS256) is exchanged for an
installation token per installation (the delivery's `installation.id`); each token is kept until shortly
before it expires (a quarter of its life, at most 5 minutes, before), then fetched anew.

The JWT is built with `cryptography` alone: the bot only ever signs one fixed shape of token (header
`{"alg": "RS256", "typ": "JWT"}`, claims iat/exp/iss) and verifies none, so a JWT library would add a
dependency for ten lines while the RSA signature itself needs `cryptography` either way."""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from logscope.bot.github import DEFAULT_WAIT, call_json

JWT_LIFETIME = 540  # GitHub accepts at most 10 minutes; 9 leaves room for clock drift
CLOCK_SKEW = 60  # iat a minute in the past, as GitHub's documentation advises
MAX_MARGIN = 300.0


def load_private_key(path: Path) -> rsa.RSAPrivateKey:
    """The app's private key (the .pem GitHub lets you download: PKCS#1 or PKCS#8). ValueError when it is none."""
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{path}: not an unencrypted PEM private key ({exc})") from None
    if not isinstance(key, rsa.RSAPrivateKey):
        raise ValueError(f"{path}: not an RSA key (GitHub Apps sign with RS256)")
    return key


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def app_jwt(app_id: str, key: rsa.RSAPrivateKey, now: float) -> str:
    header = _b64(json.dumps({"alg": "RS256", "typ": "JWT"}, separators=(",", ":")).encode())
    claims = _b64(
        json.dumps({"iat": int(now) - CLOCK_SKEW, "exp": int(now) + JWT_LIFETIME, "iss": app_id}, separators=(",", ":")).encode()
    )
    signature = key.sign(f"{header}.{claims}".encode(), padding.PKCS1v15(), hashes.SHA256())
    return f"{header}.{claims}.{_b64(signature)}"


def _expiry(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


class AppAuth:
    def __init__(
        self,
        base_url: str,
        app_id: str,
        key: rsa.RSAPrivateKey,
        timeout: float = 30.0,
        default_wait: float = DEFAULT_WAIT,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.base = base_url.rstrip("/")
        self.app_id = app_id
        self.key = key
        self.timeout = timeout
        self.default_wait = default_wait
        self.clock = clock
        self.tokens: dict[int, tuple[str, float]] = {}  # installation -> (token, when to fetch a new one)
        self.fetched = 0  # installation tokens fetched (the tests read it)
        self.lock = threading.Lock()

    def jwt(self) -> str:
        return app_jwt(self.app_id, self.key, self.clock())

    def slug(self) -> str:
        """The app's slug: its comments are signed `<slug>[bot]`."""
        return str(call_json("GET", f"{self.base}/app", self.jwt(), None, self.timeout, self.default_wait)["slug"])

    def token(self, installation: int | None) -> str:
        if installation is None:
            raise RuntimeError("the delivery names no installation: a GitHub App token is per installation")
        with self.lock:
            cached = self.tokens.get(installation)
            now = self.clock()
            if cached is not None and now < cached[1]:
                return cached[0]
            answer = call_json(
                "POST",
                f"{self.base}/app/installations/{installation}/access_tokens",
                self.jwt(),
                None,
                self.timeout,
                self.default_wait,
            )
            expires = _expiry(str(answer["expires_at"]))
            margin = min(MAX_MARGIN, max(expires - now, 0.0) / 4)
            self.tokens[installation] = (str(answer["token"]), expires - margin)
            self.fetched += 1
            return str(answer["token"])

    def invalidate(self, installation: int | None) -> None:
        with self.lock:
            if installation is not None:
                self.tokens.pop(installation, None)
