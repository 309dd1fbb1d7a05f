"""Diff and plan documents: schema logscope/1 with a `diff` or `plan` section. report/ styles them (the format
table in report/formats.py), as it styles the analyze document."""

from __future__ import annotations

from typing import Any

from logscope import SCHEMA_ID, __version__
from logscope.compare.diff import Diff
from logscope.compare.plan import Plan


def diff_document(d: Diff) -> dict[str, Any]:
    return {"schema": SCHEMA_ID, "logscope_version": __version__, "diff": d.to_json()}


def plan_document(p: Plan) -> dict[str, Any]:
    return {"schema": SCHEMA_ID, "logscope_version": __version__, "plan": p.to_json()}
