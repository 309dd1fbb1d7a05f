"""Which release's rules a launch follows: a stated version picks the newest release read at or below it; an
inferred range [low, high] picks the newest release in the range and keeps the others in it, so a figure whose
rule changes inside the range is given for both ends; with neither, the newest release read is assumed and
said. A release outside the input's range is never used."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from logscope.core import user_cache
from logscope.core.resources import PACKAGE_DATA
from logscope.core.yamlfile import safe_loader, yaml
from logscope.memory_model.allocator import AllocatorChoice, TorchAllocator, allocator_for, torch_allocator
from logscope.memory_model.nccl import NcclChoice, NcclSource, nccl_for, nccl_source
from logscope.memory_model.record import DeepEpSource, ReleaseRecord, Sourced, deepep_source, record

T = TypeVar("T")

CATALOGUE = PACKAGE_DATA / "cell_constants.yaml"


@cache  # called for every pair of releases a range's figures compare: tens of thousands of times a scan job
def version_key(version: str) -> tuple[int, ...]:
    """0.5.12.post1 -> (0, 5, 12, 1); a release sorts after its pre-post form."""
    return tuple(int(p) for p in re.findall(r"\d+", version)[:4])


@cache  # records, NCCL, torch and DeepEP each read it
def _load() -> Any:
    return user_cache.cached(
        "data-cell_constants-yaml",
        user_cache.content_key([CATALOGUE], ()),
        lambda: yaml.load(CATALOGUE.read_text(encoding="utf-8"), Loader=safe_loader()),  # noqa: S506 - a safe loader
        lambda v: isinstance(v, dict),
    )


def _typed_section(key: str, read: Callable[[Any], T | None]) -> tuple[T, ...]:
    """A catalogue list typed entry by entry; an entry the reader cannot type is left out."""
    found = (read(raw) for raw in _load().get(key) or [])
    return tuple(x for x in found if x is not None)


@cache
def records() -> tuple[ReleaseRecord, ...]:
    """Every release read, oldest first (typed once per catalogue and code, then read from the user cache)."""
    return user_cache.cached("release-records", _records_key(), _typed_records, _are_records)


@cache
def nccl_ranges() -> tuple[NcclSource, ...]:
    """NCCL's connection-buffer constants per range of releases with equal values, oldest first."""
    return _typed_section("nccl_sources", nccl_source)


def nccl(nccl_version: str | None) -> NcclChoice:
    """The constants of the NCCL release the input states (the newest read, assumed, where it states none)."""
    return nccl_for(nccl_ranges(), nccl_version)


@cache
def torch_allocators() -> tuple[TorchAllocator, ...]:
    """PyTorch's caching allocator constants per torch release read, oldest first."""
    return _typed_section("torch_allocators", torch_allocator)


def torch_caching_allocator(torch_version: str | None) -> AllocatorChoice:
    """The caching allocator of the torch release the input states (the newest read, assumed, where it states none)."""
    return allocator_for(torch_allocators(), torch_version)


@cache
def deepep() -> DeepEpSource | None:
    """DeepEP's normal-mode buffer constants, with their commit."""
    return deepep_source(_load().get("deepep_source"))


def _holds_for(chosen: ReleaseRecord) -> str:
    """The releases a record's rules hold for: it and the patch releases up to the next release read."""
    later = [r.version for r in records() if version_key(r.version) > version_key(chosen.version)]
    return f"SGLang {chosen.version} to before {later[0]}" if later else f"SGLang >= {chosen.version}"


@dataclass(frozen=True)
class ReleaseChoice:
    """The release whose rules a launch follows, how it was chosen, and the other releases the input allows."""

    record: ReleaseRecord
    span: str  # the releases this choice's figures hold for
    known: bool  # the input states a version
    note: str  # why this release
    candidates: tuple[ReleaseRecord, ...]  # the releases the input allows, oldest first (the chosen one last)

    @property
    def version(self) -> str:
        return self.record.version

    def older(self) -> ReleaseChoice | None:
        """The next older release the input allows (None: the input allows no other)."""
        before = [r for r in self.candidates if version_key(r.version) < version_key(self.record.version)]
        if not before:
            return None
        prior = before[-1]
        return ReleaseChoice(prior, _holds_for(prior), self.known, self.note, tuple(before))


def release_for(version: str | None, inferred: tuple[str, str] | None = None) -> ReleaseChoice:
    ordered = records()
    newest = ordered[-1]
    if version and re.match(r"\d+\.\d+", version):
        fit = [r for r in ordered if version_key(r.version) <= version_key(version)]
        if not fit:
            oldest = ordered[0]
            return ReleaseChoice(
                oldest,
                _holds_for(oldest),
                True,
                f"SGLang {version} is older than every release read; {oldest.version}'s rule",
                (oldest,),
            )
        chosen = fit[-1]
        span = _holds_for(chosen)
        return ReleaseChoice(chosen, span, True, f"SGLang {version} (stated): {span}", (chosen,))
    if inferred is not None:
        low, high = (version_key(v) for v in inferred)
        inside = tuple(r for r in ordered if low <= version_key(r.version) <= high)
        if inside:
            chosen = inside[-1]
            span = f"SGLang {inferred[0]} to {inferred[1]} (inferred from the wordings)"
            if len(inside) == 1:
                span = f"SGLang {chosen.version} (inferred from the wordings)"
            note = f"{span}: {chosen.version}'s rules, and where a rule changes inside the range, each run of releases' figure"
            return ReleaseChoice(chosen, span, False, note, inside)
    return ReleaseChoice(
        newest,
        _holds_for(newest),
        False,
        f"SGLang version not in the input: the newest release read ({newest.version}) is assumed",
        ordered,
    )


def launch_release(versions: dict[str, Any], sglang_version: dict[str, Any]) -> ReleaseChoice:
    """The release for a launch: its stated version, else the range its wordings imply."""
    stated = versions.get("sglang") or sglang_version.get("version")
    found = sglang_version.get("range")
    inferred = (str(found[0]), str(found[1])) if isinstance(found, (list, tuple)) and len(found) == 2 else None
    return release_for(str(stated) if stated else None, inferred)


def inherited(chosen: ReleaseRecord, field: Callable[[ReleaseRecord], Sourced[T]]) -> Sourced[T]:
    """A field of this release, else of the newest older release that has it (the extractor reads a line by its
    pattern, and a release whose line moved or was reworded gives none): said in `at`. None only when no release
    up to this one has it."""
    own = field(chosen)
    if own.value is not None:
        return own
    for older in reversed([r for r in records() if version_key(r.version) < version_key(chosen.version)]):
        found = field(older)
        if found.value is not None:
            return Sourced(found.value, f"{found.at} (SGLang {older.version}; not matched in {chosen.version})", own.absent)
    return own


def _typed_records() -> tuple[ReleaseRecord, ...]:
    rows = _load()["versions"]
    return tuple(record(str(v), rows[v]) for v in sorted(rows, key=lambda v: version_key(str(v))))


def _records_key() -> str | None:
    """The catalogue's bytes and those of the memory model's modules (the record types and how they are read)."""
    return user_cache.content_key([CATALOGUE], tuple(str(p) for p in sorted(Path(__file__).parent.glob("*.py"))))


def _are_records(value: Any) -> bool:
    return isinstance(value, tuple) and bool(value) and all(isinstance(r, ReleaseRecord) for r in value)
