"""The one redaction of every output: secrets, e-mail addresses, user names in home paths, IP addresses and
host names replaced, in every command's document (analyze, triage, diff, plan; the bot's comment is triage's)
unless `--no-redact` (or triage's `--keep`) says otherwise.

Where it is applied: on the finished document (the dict every format renders), once, just before rendering.
Not at ingest, on the line text: there it would change what the grammars read (a `NAME=value` or an address
is part of a line's shape) and it would miss what does not come from a line (the input paths the user typed,
an issue's title). Not on the rendered text: the terminal view wraps a long cell across lines and HTML escapes
quotes, either of which can split a secret so that no pattern sees it whole. On the document every figure is
already a number (never touched: only strings are rewritten), and each string is whole when redacted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from logscope.core.credentials import REDACTED, is_credential

KINDS = ("token", "email", "path", "ip", "host")
_Replacement = str | Callable[[re.Match[str]], str]

_KEEP_HOSTS = ("github.com", "docs.sglang.ai", "pytorch.org", "docs.pytorch.org", "huggingface.co", "nvidia.com")
# (kind, pattern, replacement); order matters: whole headers before the tokens inside them, a URL's password
# before the e-mail rule would take `user:pass@host` for an address
_RULES: tuple[tuple[str, re.Pattern[str], _Replacement], ...] = (
    ("token", re.compile(r"(?i)(authorization\s*[:=]\s*)(?:bearer|token|basic)?\s*\S+"), r"\1<redacted>"),
    ("token", re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}"), "Bearer <redacted>"),
    ("token", re.compile(r"\bhf_[A-Za-z0-9]{10,}"), "<redacted:hf-token>"),
    (
        "token",
        re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}"),
        "<redacted:github-token>",
    ),
    ("token", re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{10,}|\bxapp-[A-Za-z0-9-]{10,}"), "<redacted:slack-token>"),
    ("token", re.compile(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}"), "<redacted:api-key>"),
    ("token", re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])"), "<redacted:aws-key-id>"),
    ("token", re.compile(r"(?i)(aws_secret_access_key\s*[=:]\s*)\S+"), r"\1<redacted>"),
    # scheme://user:password@host
    ("token", re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^\s/:@]+:)[^\s/@]+@"), r"\1<redacted>@"),
    # password=..., DB_PASSWORD: ..., "pwd": "..." whatever the value's length
    ("token", re.compile(r"(?i)\b([A-Za-z0-9_]*(?:password|passwd|pwd)['\"]?\s*[=:]\s*['\"]?)[^\s'\"&,;]+"), r"\1<redacted>"),
    # NAME=value where NAME is a credential's (logscope.core.credentials: the rule the launch facts use too)
    (
        "token",
        re.compile(r"\b([A-Za-z][A-Za-z0-9_]*)(\s*[=:]\s*)['\"]?([^\s'\"]{6,})"),
        lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}" if _secret(m.group(1), m.group(3)) else m.group(0),
    ),
    ("email", re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b"), "<redacted:email>"),
    ("path", re.compile(r"(/home/|/Users/|C:\\Users\\)[^/\\\s]+"), r"\1<user>"),
    # an address may end a sentence ("from 192.168.1.20."); a fifth number part (a version 1.2.3.4.5) is no address
    (
        "ip",
        re.compile(r"(?<![\w.])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?!\w|\.\w)"),
        "<redacted:ip>",
    ),
    ("ip", re.compile(r"(?<![\w:])(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}(?![\w:])"), "<redacted:ip>"),
    (
        "host",
        re.compile(
            r"\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:com|net|org|io|ai|dev|cloud|internal|local"
            r"|lan|corp|cluster\.local)\b(?![\w/.-]*\.(?:py|cpp|cc|cu|h|so|json|yaml))"
        ),
        lambda m: m.group(0) if m.group(0).endswith(_KEEP_HOSTS) else "<redacted:host>",
    ),
)
# a count of tokens (SGLang's "full_token=1641472", "max_prefill_token: 16384"): a whole number after a snake_case
# name that ends in "token" is a count, not a token (an environment variable holding one is upper case); a
# password or secret is redacted whatever its value
_TOKEN_COUNT_NAME = re.compile(r"^[a-z][a-z0-9_]*token$")  # snake_case, as SGLang prints its fields
_WHOLE_NUMBER = re.compile(r"\d+[,;.]?")


def _secret(name: str, value: str) -> bool:
    if not is_credential(name):
        return False
    return not (_TOKEN_COUNT_NAME.search(name) and _WHOLE_NUMBER.fullmatch(value))


# A string the model cut to a length (evidence keeps 300 characters of a line) may end inside a secret that is
# then too short for its rule: the start of a known token, or of an address, at the very end is removed too.
_CUT: tuple[tuple[str, re.Pattern[str], str], ...] = (
    (
        "token",
        re.compile(
            r"(?:\b(?:hf_|gh[pousr]_|github_pat_|xox[abposre]-|xapp-|sk-)\S+|(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]+"
            r"|\b(?i:bearer)\s+\S+)\Z"
        ),
        "<redacted:cut>",
    ),
    ("email", re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]*\Z"), "<redacted:cut>"),
)


# Every rule above needs one of these in the text (a separator, an address's dot or @, a path's slash, or a
# token's prefix): a string holding none is returned as it is, without running the rules one by one.
_MAY_HOLD = re.compile(r"[.:=@/\\]|hf_|gh[pousr]_|github_pat_|xox[abposre]-|xapp-|sk-|AKIA|ASIA|(?i:bearer)")


def redact(text: str, skip: Iterable[str] = ()) -> str:
    """`text` with every secret and personal detail of the kinds not in `skip` replaced."""
    if not _MAY_HOLD.search(text):
        return text
    return apply_rules(text, set(skip))


def apply_rules(text: str, skipped: set[str]) -> str:
    """Every rule of the kinds not skipped, one after the other (redact's slow path; tests compare the two)."""
    for kind, pattern, replacement in _RULES:
        if kind not in skipped:
            text = pattern.sub(replacement, text)
    for kind, pattern, replacement in _CUT:
        if kind not in skipped:
            text = pattern.sub(replacement, text)
    return text


def redact_document(document: Any, skip: Iterable[str] = ()) -> Any:
    """A copy of a document (dicts, lists, strings, numbers) with every string redacted, keys too. Numbers are
    left as they are. Values under a credential's name were never kept (launch_facts replaces them)."""
    skipped = frozenset(skip)
    if skipped >= set(KINDS):
        return document
    return _Walk(skipped).value(document)


class _Walk:
    """One document's walk: a document repeats its keys and many texts, each redacted once."""

    def __init__(self, skip: frozenset[str]) -> None:
        self.skip = skip
        self.done: dict[str, str] = {}

    def text(self, text: str) -> str:
        out = self.done.get(text)
        if out is None:
            out = self.done[text] = redact(text, self.skip)
        return out

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {(self.text(k) if isinstance(k, str) else k): self.value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self.value(v) for v in value)
        return value
