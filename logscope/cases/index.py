"""The index of known cases (logscope/data/known_cases.json, schema logscope-known-cases/1), read once per process
and only when a failure finding needs matching: a paste without a failure never opens it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Final

from logscope.cases import key as key_module
from logscope.cases.key import CaseKey
from logscope.core import user_cache
from logscope.core.errors import InputError
from logscope.core.resources import PACKAGE_DATA

INDEX_SCHEMA: Final = "logscope-known-cases/1"
INDEX_PATH = PACKAGE_DATA / "known_cases.json"


@dataclass(frozen=True)
class Outcome:
    """How a thread ended, as it says so (fixtures/mined/README.md's `outcome`): its state (open, closed, merged,
    unknown), the pull requests and release that fixed it, a workaround (a flag or an environment variable), the
    thread it duplicates, or that it was closed without a fix. Nothing the thread does not say."""

    state: str = "unknown"
    fixed_by: tuple[str, ...] = ()  # "owner/name#N"
    fixed_in: str | None = None  # a release, without its "v"
    workaround: str | None = None
    duplicate_of: str | None = None  # "owner/name#N"
    closed_without_fix: bool = False

    @property
    def fixed(self) -> bool:
        return bool(self.fixed_by or self.fixed_in)

    def to_json(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "fixed_by": list(self.fixed_by),
            "fixed_in": self.fixed_in,
            "workaround": self.workaround,
            "duplicate_of": self.duplicate_of,
            "closed_without_fix": self.closed_without_fix,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Outcome:
        data = data or {}
        return cls(
            str(data.get("state") or "unknown"),
            tuple(str(r) for r in data.get("fixed_by") or ()),
            data.get("fixed_in"),
            data.get("workaround"),
            data.get("duplicate_of"),
            bool(data.get("closed_without_fix")),
        )


@dataclass(frozen=True)
class KnownCase:
    repo: str  # owner/name
    number: int
    title: str
    date: str | None  # the thread's date (opened)
    read: str  # the date its paste was read
    source: str  # the thread's address
    releases: tuple[str, ...]  # the SGLang (or library) releases the thread states
    hardware: tuple[str, ...]  # the GPU models it states
    keys: tuple[CaseKey, ...]  # logscope's analysis of its pasted text: one key per failure finding
    outcome: Outcome
    pastes: tuple[str, ...] = field(default=())  # the mined paste ids it was built from

    @property
    def ref(self) -> str:
        return f"{self.repo}#{self.number}"

    def to_json(self) -> dict[str, Any]:
        return {
            "repo": self.repo,
            "number": self.number,
            "title": self.title,
            "date": self.date,
            "read": self.read,
            "source": self.source,
            "releases": list(self.releases),
            "hardware": list(self.hardware),
            "analysis": [k.to_json() for k in self.keys],
            "outcome": self.outcome.to_json(),
            "pastes": list(self.pastes),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> KnownCase:
        return cls(
            data["repo"],
            int(data["number"]),
            data.get("title") or "",
            data.get("date"),
            data["read"],
            data["source"],
            tuple(data.get("releases") or ()),
            tuple(data.get("hardware") or ()),
            tuple(CaseKey.from_json(k) for k in data.get("analysis") or ()),
            Outcome.from_json(data.get("outcome")),
            tuple(data.get("pastes") or ()),
        )


@dataclass(frozen=True)
class CaseIndex:
    generated: str
    corpora: tuple[dict[str, Any], ...]
    cases: tuple[KnownCase, ...]

    def summary(self) -> dict[str, Any]:
        return {"schema": INDEX_SCHEMA, "generated": self.generated, "cases": len(self.cases), "corpora": list(self.corpora)}


def read_index(path: Path) -> CaseIndex:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot read the known-cases index: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not a known-cases index (bad JSON: {exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict) or data.get("schema") != INDEX_SCHEMA:
        raise InputError(f"{path}: not a known-cases index (schema is not {INDEX_SCHEMA})")
    return CaseIndex(
        data.get("generated") or "", tuple(data.get("corpora") or ()), tuple(KnownCase.from_json(c) for c in data["cases"])
    )


@cache
def bundled_index() -> CaseIndex:
    """The index shipped with logscope; an empty one when the package carries none. Kept in the user cache under
    the file's size and time and this module's text (its JSON and 651 cases cost a failure's paste 13 ms, the
    pickle 3 ms)."""
    if not INDEX_PATH.is_file():
        return CaseIndex("", (), ())
    key = user_cache.stamp_key([INDEX_PATH], (__file__, key_module.__file__))  # type: ignore[arg-type]
    return user_cache.cached("known-cases", key, lambda: read_index(INDEX_PATH), lambda value: isinstance(value, CaseIndex))
