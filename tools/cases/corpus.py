"""Mined pastes as the index reads them: `<id>.txt` (the pasted text) beside `<id>.yaml` (provenance, labels,
outcome; fixtures/mined/README.md), grouped by thread; the held-out list read and applied."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

_REF = re.compile(r"^(?:(?P<owner>[\w.-]+)/)?(?P<name>[\w.-]+)#(?P<number>\d+)$")
_URL = re.compile(r"github\.com/(?P<repo>[\w.-]+/[\w.-]+)/(?:issues|pull|discussions)/(?P<number>\d+)")


@dataclass(frozen=True)
class MinedPaste:
    id: str
    path: Path  # the .txt
    meta: dict[str, Any]
    repo: str
    number: int

    @property
    def ref(self) -> str:
        return f"{self.repo}#{self.number}"

    def field(self, *names: str) -> Any:
        for name in names:
            value = self.meta.get(name)
            if value not in (None, "", []):
                return value
        return None


def thread_of(meta: dict[str, Any], paste_id: str) -> tuple[str, int]:
    """(owner/name, number) from the yaml's repository and number, else its source address."""
    repo = meta.get("repository") or meta.get("repo")
    number = meta.get("number") or meta.get("issue")
    url = str(meta.get("source_url") or meta.get("url") or meta.get("source") or "")
    m = _URL.search(url)
    if m is not None:
        repo, number = repo or m.group("repo"), number or m.group("number")
    if not repo or not number or "/" not in str(repo):
        raise ValueError(f"{paste_id}.yaml: no repository (owner/name) and number, and no GitHub address to read them from")
    return str(repo), int(number)


def read_corpus(folder: Path) -> list[MinedPaste]:
    pastes = []
    for meta_path in sorted(folder.glob("*.yaml")):
        # the paste beside its yaml: <id>.txt (fixtures/mined), or <id>.log (fixtures/real, the older corpus)
        text_path = next((p for p in (meta_path.with_suffix(".txt"), meta_path.with_suffix(".log")) if p.exists()), None)
        if meta_path.name == "README.yaml" or text_path is None:
            continue
        meta = yaml.safe_load(meta_path.read_text(encoding="utf-8")) or {}
        if not isinstance(meta, dict):
            raise ValueError(f"{meta_path}: not a mapping")
        repo, number = thread_of(meta, meta_path.stem)
        pastes.append(MinedPaste(meta_path.stem, text_path, meta, repo, number))
    return pastes


def split_of(repo: str, number: int) -> str:
    """MINED-CORPUS.md's rule: heldback when sha1("owner/name#N") is 0 mod 3."""
    return "heldback" if int(hashlib.sha1(f"{repo}#{number}".encode()).hexdigest(), 16) % 3 == 0 else "built"


@dataclass(frozen=True)
class HeldOut:
    """The threads kept for independent evaluation: `owner/name#N`, or `name#N` for any owner."""

    full: frozenset[str]
    by_name: frozenset[str]
    sha1: str
    count: int

    def holds(self, repo: str, number: int) -> bool:
        name = repo.rsplit("/", 1)[-1]
        return f"{repo}#{number}".lower() in self.full or f"{name}#{number}".lower() in self.by_name


def read_held_out(path: Path) -> HeldOut:
    raw = path.read_bytes()
    full, by_name = set(), set()
    for line in raw.decode("utf-8").splitlines():
        line = line.strip()
        m = _REF.match(line)
        if not line or line.startswith("#") or m is None:
            continue
        number = m.group("number")
        if m.group("owner"):
            full.add(f"{m.group('owner')}/{m.group('name')}#{number}".lower())
        else:
            by_name.add(f"{m.group('name')}#{number}".lower())
    return HeldOut(frozenset(full), frozenset(by_name), hashlib.sha1(raw).hexdigest(), len(full) + len(by_name))
