"""Each thread's pastes analysed by logscope (the same path as `logscope analyze`, without case matching) → one
KnownCase per thread with a failure: the thread's facts from its yaml, logscope's keys of its failures, and its
outcome. Threads of the held-out list are refused before their text is opened."""

from __future__ import annotations

import datetime as dt
import re
import subprocess
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from logscope.cases.index import INDEX_SCHEMA, KnownCase, Outcome
from logscope.cases.key import MESSAGE_CHARS, CaseKey, finding_keys, gpu_models
from logscope.core.redact import redact
from logscope.pipeline import stages
from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import Source
from tools.cases.corpus import HeldOut, MinedPaste, read_corpus
from tools.cases.outcome import merged, outcome_of

_RELEASE = re.compile(r"(?<![\w.])v?(\d+\.\d+\.\d+(?:\.post\d+|rc\d+)?)(?![\w.])")


@dataclass
class BuildReport:
    threads: int = 0
    cases: int = 0
    held_out_refused: list[str] = field(default_factory=list)
    without_failure: list[str] = field(default_factory=list)


def analyse_paste(paste: MinedPaste) -> tuple[list[CaseKey], dict[str, Any]]:
    """The failure keys of one paste and its document (for the releases and GPUs it states)."""
    source = Source(name=paste.path.name, path=None, data=paste.path.read_bytes())
    analysis = analyze_model([source], parallel=False)
    document = stages.document(analysis, [], cases=False)
    # the quoted message is redacted as every output is (an address, a host or a user name in a public paste stays out)
    keys = [replace(k, quote=redact(k.quote)[:MESSAGE_CHARS]) for _, k in finding_keys(analysis, document["findings"])]
    # a key with no signature, no message and no frame (a traceback's header alone) matches no other failure (match.py
    # never offers an empty message as "the same"): indexed, it would only be a case nothing can find
    return [k for k in keys if k.signature or k.message or k.frames], document


def _stated_releases(pastes: list[MinedPaste], documents: list[dict[str, Any]]) -> tuple[str, ...]:
    found: dict[str, None] = {}
    for paste in pastes:
        labels = paste.meta.get("labels") or {}
        value = (labels.get("versions") or {}).get("sglang") or paste.field("sglang_version")
        for v in value if isinstance(value, list) else [value]:
            for release in _RELEASE.findall(str(v or "")):  # "null (docker image ...)" states none
                found.setdefault(release, None)
    for document in documents:
        for launch in document["launches"]:
            if launch["sglang_version"].get("version"):
                found.setdefault(str(launch["sglang_version"]["version"]), None)
    return tuple(found)


def _hardware(pastes: list[MinedPaste], documents: list[dict[str, Any]]) -> tuple[str, ...]:
    texts = [str(p.field("hardware") or "") for p in pastes]
    texts += [str(row[1]) for p in pastes for row in (p.meta.get("labels") or {}).get("gpus") or [] if len(row) > 1]
    texts += [str(g.get("name") or "") for d in documents for g in d["gpus"]]
    return gpu_models(texts)


def _git_date(path: Path) -> str | None:
    try:
        out = subprocess.run(
            ["git", "log", "-1", "--format=%cs", "--", path.name], cwd=path.parent, capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        return None
    return out or None


def _read_date(paste: MinedPaste) -> str:
    value = paste.field("read_on")
    if value:
        return str(value)[:10]
    return _git_date(paste.path.with_suffix(".yaml")) or dt.date.today().isoformat()


def _date(value: Any) -> str | None:
    return None if value is None else str(value)[:10]


def case_of(pastes: list[MinedPaste], stated: list[Outcome] | None = None) -> tuple[KnownCase | None, list[CaseKey]]:
    keys: list[CaseKey] = []
    documents = []
    for paste in pastes:
        found, document = analyse_paste(paste)
        keys += [k for k in found if k not in keys]
        documents.append(document)
    first = pastes[0]
    if not keys:
        return None, keys
    return (
        KnownCase(
            repo=first.repo,
            number=first.number,
            title=str(first.field("title", "issue_title") or "")[:200],
            date=_date(first.field("date")),
            read=_read_date(first),
            source=str(first.field("source_url") or f"https://github.com/{first.repo}/issues/{first.number}"),
            releases=_stated_releases(pastes, documents),
            hardware=_hardware(pastes, documents),
            keys=tuple(keys),
            outcome=merged([outcome_of(p.meta.get("outcome"), first.repo) for p in pastes] + (stated or [])),
            pastes=tuple(p.id for p in pastes),
        ),
        keys,
    )


def _git(folder: Path, *args: str) -> str | None:
    out = subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, check=False)
    return out.stdout.strip() or None


def _in_repo(folder: Path) -> str:
    """The folder as its checkout names it (fixtures/mined), whichever worktree it was read in."""
    return (_git(folder, "rev-parse", "--show-prefix") or folder.name).rstrip("/")


def corpus_commit(folder: Path) -> str | None:
    """The commit the folder's checkout stands at (its files may be newer when uncommitted: the index says so)."""
    commit = _git(folder, "rev-parse", "HEAD")
    dirty = _git(folder, "status", "--porcelain", "--", ".")
    return None if commit is None else commit + (" + uncommitted files" if dirty else "")


def build_index(
    folders: list[Path], held_out: HeldOut, today: str | None = None, supplement: dict[str, list[Outcome]] | None = None
) -> tuple[dict[str, Any], BuildReport]:
    report = BuildReport()
    threads: dict[str, list[MinedPaste]] = defaultdict(list)
    corpora = []
    for folder in folders:
        pastes = read_corpus(folder)
        corpora.append(
            {"folder": _in_repo(folder), "branch": _git(folder, "rev-parse", "--abbrev-ref", "HEAD"),
             "commit": corpus_commit(folder), "pastes": len(pastes)}
        )  # fmt: skip
        for paste in pastes:
            if held_out.holds(paste.repo, paste.number):
                report.held_out_refused.append(paste.id)  # refused from its yaml: the text is never opened
                continue
            threads[paste.ref].append(paste)
    cases = []
    for ref in sorted(threads):
        report.threads += 1
        case, _ = case_of(sorted(threads[ref], key=lambda p: p.id), (supplement or {}).get(ref))
        if case is None:
            report.without_failure.append(ref)
            continue
        cases.append(case)
    report.cases = len(cases)
    index = {
        "schema": INDEX_SCHEMA,
        "generated": today or dt.date.today().isoformat(),
        "generated_by": "python -m tools.cases build",
        "corpora": corpora,
        "held_out": {"threads": held_out.count, "sha1": held_out.sha1},
        "threads_read": report.threads,
        "cases": [c.to_json() for c in sorted(cases, key=lambda c: (c.repo, c.number))],
    }
    return index, report
