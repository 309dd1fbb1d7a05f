"""A model's config.json given with --model-config (hidden_size, heads, layers, experts), read as one JSON object."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from logscope.core.errors import LogscopeError


def read_model_config(path: Path | None) -> dict[str, Any] | None:
    if path is None:
        return None
    import json  # only with --model-config: --help and a plain analysis do not pay for it

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LogscopeError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise LogscopeError(f"{path}: not a JSON model config ({exc})") from None
    if not isinstance(data, dict):
        raise LogscopeError(f"{path}: a model config.json is a JSON object")
    return data
