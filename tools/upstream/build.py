"""Walk every catalogued SGLang release and merge what each prints into version-ranged rows."""

from __future__ import annotations

import hashlib
import json
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from typing import Any

from tools.upstream import constants, envvars, messages, scope, sources


def _extractor_digest() -> str:
    """Changes whenever an extractor changes, so a cached extraction is never stale."""
    digest = hashlib.sha256()
    for name in ("messages.py", "envvars.py", "constants.py", "scope.py", "build.py"):
        digest.update((sources.HERE / name).read_bytes())
    return digest.hexdigest()[:12]


def _one_version(version: str) -> dict[str, Any]:
    cached = sources.cache_dir() / "extracted" / f"sglang-{version}-{_extractor_digest()}.json"
    if cached.is_file():
        return json.loads(cached.read_text())
    found = _extract_version(version)
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(found))
    return found


def _extract_version(version: str) -> dict[str, Any]:
    wheel = sources.download("sglang", version)
    found: dict[str, Any] = {"messages": [], "env": [], "constants": []}
    dynamic = 0
    for path, text in sources.python_files(wheel):
        module = sources.module_of(path)
        msgs, dyn = messages.extract(module, text)
        dynamic += dyn
        found["messages"] += [asdict(m) for m in msgs]
        found["env"] += [asdict(e) for e in envvars.extract(module, text)]
        if any(module.startswith(prefix) for _, prefix, _ in scope.AREAS):
            found["constants"] += [asdict(c) for c in constants.extract(module, text)]
    found["dynamic_messages"] = dynamic
    found["file"] = wheel.name
    return found


def _merge(rows_by_version: list[tuple[str, list[dict]]], key_fields: tuple[str, ...], versions: list[str]) -> list[dict]:
    """One row per distinct key, with the first and last release printing it (and the releases in between
    that do not, if any); the location is the newest one's."""
    merged: dict[tuple, dict] = {}
    seen: dict[tuple, set[str]] = {}
    for version, rows in rows_by_version:
        for row in rows:
            key = tuple(json.dumps(row[f], sort_keys=True) for f in key_fields)
            merged[key] = dict(row)
            seen.setdefault(key, set()).add(version)
    out = []
    for key, row in merged.items():
        present = [v for v in versions if v in seen[key]]
        first, last = versions.index(present[0]), versions.index(present[-1])
        row["first"], row["last"] = present[0], present[-1]
        gaps = [v for v in versions[first : last + 1] if v not in seen[key]]
        if gaps:
            row["missing"] = gaps
        out.append(row)
    return out


def build(versions: list[str], workers: int = 2) -> dict[str, Any]:
    with ProcessPoolExecutor(max_workers=workers) as pool:
        results = dict(zip(versions, pool.map(_one_version, versions)))
    msgs = _merge([(v, results[v]["messages"]) for v in versions], ("module", "function", "kind", "level", "template"), versions)
    for row in msgs:
        area = scope.area_of(row["module"], row["function"])
        if area:
            row["area"] = area
    env = _merge([(v, results[v]["env"]) for v in versions], ("name", "default", "declared_by", "module"), versions)
    consts = _merge([(v, results[v]["constants"]) for v in versions], ("module", "name", "condition", "value"), versions)
    return {
        "versions": [
            {
                "version": v,
                "wheel": results[v]["file"],
                "messages": len(results[v]["messages"]),
                "dynamic_messages": results[v]["dynamic_messages"],
            }
            for v in versions
        ],
        "messages": sorted(msgs, key=lambda r: (r["module"], r["function"], r["line"], r["template"])),
        "env": sorted(env, key=lambda r: (r["name"], r["module"], r["first"])),
        "constants": sorted(consts, key=lambda r: (r["module"], r["name"], r["condition"], r["line"])),
    }
