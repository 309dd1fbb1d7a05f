"""Evaluate rules over the assembled report."""

from __future__ import annotations

from typing import Any


def run_rules(report: dict[str, Any], launches: list, global_events: list, extra_dirs: list[str]) -> list[dict]:
    return []
