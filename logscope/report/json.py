"""The logscope/1 document as JSON text (the document itself is built by logscope.document)."""

from __future__ import annotations

import json
from typing import Any


def render_json(report: dict[str, Any], width: int = 0) -> str:
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"
