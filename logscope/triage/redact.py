"""Make text from an issue safe to echo: secrets, e-mail addresses, user names in home paths, IP addresses
and host names replaced (the comment styling neutralises @mentions and #123 links). Applied to every block before it is
analysed, so nothing unredacted reaches the findings, the evidence or the JSON."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from logscope.credentials import REDACTED, is_credential

# (kind, pattern, replacement); order matters: whole headers before the tokens inside them
_RULES: tuple[tuple[str, re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    ("token", re.compile(r"(?i)(authorization\s*[:=]\s*)(?:bearer|token|basic)?\s*\S+"), r"\1<redacted>"),
    ("token", re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}"), "Bearer <redacted>"),
    ("token", re.compile(r"\bhf_[A-Za-z0-9]{10,}"), "<redacted:hf-token>"),
    ("token", re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}"),
     "<redacted:github-token>"),
    ("token", re.compile(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}"), "<redacted:api-key>"),
    ("token", re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"), "<redacted:aws-key-id>"),
    ("token", re.compile(r"(?i)(aws_secret_access_key\s*[=:]\s*)\S+"), r"\1<redacted>"),
    # NAME=value where NAME is a credential's (logscope.credentials: the rule the launch facts use too)
    ("token", re.compile(r"\b([A-Za-z][A-Za-z0-9_]*)(\s*[=:]\s*)['\"]?[^\s'\"]{6,}"),
     lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}" if is_credential(m.group(1)) else m.group(0)),
    ("email", re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b"), "<redacted:email>"),
    ("path", re.compile(r"(/home/|/Users/|C:\\Users\\)[^/\\\s]+"), r"\1<user>"),
    ("ip", re.compile(r"(?<![\w.])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![\w.])"),
     "<redacted:ip>"),
    ("ip", re.compile(r"(?<![\w:])(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}(?![\w:])"), "<redacted:ip>"),
    ("host", re.compile(r"\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:com|net|org|io|ai|dev|cloud|internal|local"
                        r"|lan|corp|cluster\.local)\b(?![\w/.-]*\.(?:py|cpp|cc|cu|h|so|log|txt|json|yaml))"),
     "<redacted:host>"),
)
KINDS = ("token", "email", "path", "ip", "host")
_KEEP_HOSTS = ("github.com", "docs.sglang.ai", "pytorch.org", "docs.pytorch.org", "huggingface.co", "nvidia.com")


def redact(text: str, skip: Iterable[str] = ()) -> str:
    """`text` with every secret and personal detail of the kinds not in `skip` replaced."""
    skipped = set(skip)
    for kind, pattern, replacement in _RULES:
        if kind in skipped:
            continue
        if kind == "host":
            text = pattern.sub(lambda m: m.group(0) if m.group(0).endswith(_KEEP_HOSTS) else "<redacted:host>", text)
        else:
            text = pattern.sub(replacement, text)
    return text

