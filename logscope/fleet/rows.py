"""A job's rows for every table, built from the document `analyze` returns (schema logscope/1), in the column
order of schema.TABLES. Plain tuples: a worker process (or a Ray task) sends them back without polars."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from logscope.core import kinds
from logscope.core.cell import Cell
from logscope.fleet.schema import TABLE_NAMES, column_names
from logscope.report.view import build_view

Row = tuple[Any, ...]
_SEVERITY_ORDER = ("error", "warning", "info")
_PARALLEL = ("tp_size", "ep_size", "dp_size", "pp_size")


@dataclass(frozen=True, slots=True)
class JobFiles:
    """What a job's files were on disk when it was analysed (what an incremental scan compares)."""

    bytes: int
    newest_mtime_ns: int
    fingerprint: str


@dataclass(slots=True)
class JobRows:
    """One job's rows; `error` says why the job, or a file of it, was not analysed (None when all was)."""

    job: str
    verdict: str
    error: str | None
    tables: dict[str, list[Row]] = field(default_factory=lambda: {name: [] for name in TABLE_NAMES})


@dataclass(frozen=True, slots=True)
class RankMemory:
    launch: int
    rank: str
    cells: list[Cell]
    ledger: list[dict[str, Any]]


def rank_memory(document: dict[str, Any]) -> Iterator[RankMemory]:
    """Every rank's communication cells and ledger. The one place the fleet reads them: it reads the document's
    launches[].ranks[].cells and .ledger (the JSON contract) and can be pointed at the typed memory library."""
    for launch in document["launches"]:
        for rank in launch["ranks"]:
            cells = [Cell.from_json(c) for c in rank.get("cells", [])]
            yield RankMemory(launch["id"], rank["rank"], cells, rank.get("ledger", []))


def rows_from_document(
    job: str, document: dict[str, Any], files: JobFiles, error: str | None, exit_code: int, file_count: int
) -> JobRows:
    job_row = _job_row(job, document, files, error, exit_code, file_count)
    rows = JobRows(job, job_row["verdict"], error)
    rows.tables["jobs"].append(_in_order("jobs", job_row))
    for launch in document["launches"]:
        for rank in launch["ranks"]:
            for p in rank.get("phases", []):
                rows.tables["phases"].append(
                    (
                        job,
                        launch["id"],
                        rank["rank"],
                        p["phase"],
                        p.get("model"),
                        p.get("graph"),
                        p.get("time"),
                        p.get("avail_gib"),
                        p.get("usage_gib"),
                        p.get("drop_gib"),
                        p.get("drop_since"),
                        p.get("tokens"),
                        p.get("elapsed_s"),
                        p.get("source"),
                        p.get("line"),
                    )
                )
    for f in document["findings"]:
        evidence = f.get("evidence") or []
        first = f"{evidence[0]['source']}:{evidence[0]['line']}" if evidence else None
        rows.tables["findings"].append(
            (
                job,
                f.get("launch"),
                f["rule"],
                f["severity"],
                [str(r) for r in f.get("ranks", [])],
                f.get("phase"),
                f.get("mechanism"),
                f.get("signature"),
                f["message"],
                f.get("hint"),
                first,
                len(evidence),
            )
        )
    for memory in rank_memory(document):
        for c in memory.cells:
            rows.tables["cells"].append((job, memory.launch, memory.rank, c.group, c.mechanism, c.gib, c.kind, c.timing))
        for item in memory.ledger:
            rows.tables["ledger"].append((job, memory.launch, memory.rank, item["item"], item["gib"], item["kind"]))
    return rows


def unanalysed_rows(job: str, files: JobFiles, error: str, file_count: int) -> JobRows:
    """A job that could not be analysed at all: its jobs row, with the error, and nothing else."""
    rows = JobRows(job, "unanalysed", error)
    row = {"job": job, "verdict": "unanalysed", "exit": 2, "summary": f"not analysed: {error}", "error": error}
    row |= {"launches": 0, "ranks": 0, "findings": 0, "files": file_count, "bytes": files.bytes, "ready": False}
    row |= {"newest_mtime_ns": files.newest_mtime_ns, "fingerprint": files.fingerprint, "logscope_version": _version()}
    rows.tables["jobs"].append(_in_order("jobs", row))
    return rows


def _in_order(table: str, row: dict[str, Any]) -> Row:
    """The row's values in the table's column order (a column the row lacks is null)."""
    unknown = set(row) - set(column_names(table))
    assert not unknown, f"not columns of {table}: {unknown}"
    return tuple(row.get(name) for name in column_names(table))


def _version() -> str:
    from logscope import __version__

    return __version__


def _job_row(
    job: str, doc: dict[str, Any], files: JobFiles, error: str | None, exit_code: int, file_count: int
) -> dict[str, Any]:
    findings = sorted(doc["findings"], key=lambda f: _SEVERITY_ORDER.index(f["severity"]))
    top = findings[0] if findings else None
    last = doc["launches"][-1] if doc["launches"] else None
    config = last["config"] if last else {}
    sources = last.get("config_source", {}) if last else {}
    version, how = _sglang_version(doc, last)
    cov = doc["coverage"]
    return {
        "job": job,
        "verdict": top["severity"] if top else "ok",
        "exit": exit_code,
        "top_rule": top["rule"] if top else None,
        "top_mechanism": top.get("mechanism") if top else None,
        "top_phase": top.get("phase") if top else None,
        "summary": build_view(doc).verdict,
        "sglang_version": version,
        "sglang_version_how": how,
        **{key: _int(config.get(key)) for key in _PARALLEL},
        "parallel_inferred": any(sources.get(key) == "inferred" for key in _PARALLEL),
        "gpu_model": next((g["name"] for g in doc["gpus"] if g.get("name")), None),
        "kv_tokens": _kv_tokens(last),
        **_comm_eager(last),
        "ready": bool(last.get("ready")) if last else False,
        "startup_s": _startup_s(last),
        "launches": len(doc["launches"]),
        "ranks": len(last["ranks"]) if last else 0,
        "findings": len(doc["findings"]),
        "files": file_count,
        "bytes": files.bytes,
        "lines": cov["lines"],
        "recognized_lines": cov["recognized_lines"],
        "error": error,
        "newest_mtime_ns": files.newest_mtime_ns,
        "fingerprint": files.fingerprint,
        "logscope_version": doc["logscope_version"],
    }


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _sglang_version(doc: dict[str, Any], launch: dict[str, Any] | None) -> tuple[str | None, str | None]:
    stated = (launch or {}).get("versions", {}).get("sglang") or doc["versions"].get("sglang")
    if stated:
        return str(stated), "stated"
    inferred = (launch or {}).get("sglang_version") or {}
    if inferred.get("version"):
        return str(inferred["version"]), "stated"
    span = inferred.get("range")
    if span:
        return (span[0] if span[0] == span[1] else f"{span[0]} to {span[1]}"), "inferred"
    return None, None


def _kv_tokens(launch: dict[str, Any] | None) -> int | None:
    counts = [
        p["tokens"]
        for rank in (launch or {}).get("ranks", [])
        for p in rank.get("phases", [])
        if p["phase"] == kinds.SCHEDULER_SUMMARY and isinstance(p.get("tokens"), int)
    ]
    return min(counts) if counts else None


def _comm_eager(launch: dict[str, Any] | None) -> dict[str, Any]:
    """The eager communication cells of the launch's rank that holds most, and the KV tokens they cost at that
    rank's bytes per token (K + V size over #tokens of its pool line); null where unknown, never 0."""
    best: tuple[float, dict[str, Any]] | None = None
    for rank in (launch or {}).get("ranks", []):
        cells = [Cell.from_json(c) for c in rank.get("cells", [])]
        sized = [c.gib for c in cells if c.timing == "eager" and c.gib is not None]
        if sized and (best is None or sum(sized) > best[0]):
            best = (sum(sized), rank)
    if best is None:
        return {"comm_eager_gib": None, "comm_eager_kv_tokens": None}
    gib, rank = best
    pool = next(
        (
            p
            for p in rank.get("phases", [])
            if p["phase"] == kinds.KV_CACHE_ALLOCATED and p.get("kv_gib") and isinstance(p.get("tokens"), int) and p["tokens"]
        ),
        None,
    )
    tokens = None if pool is None else int(gib * 2**30 / (pool["kv_gib"] * 2**30 / pool["tokens"]))
    return {"comm_eager_gib": round(gib, 3), "comm_eager_kv_tokens": tokens}


def _startup_s(launch: dict[str, Any] | None) -> float | None:
    if not launch or not launch.get("ready"):
        return None
    times = [(p["phase"], _time(p.get("time"))) for rank in launch["ranks"] for p in rank.get("phases", []) if p.get("time")]
    stamps = [t for _, t in times if t is not None]
    ready = [t for phase, t in times if phase == kinds.SERVER_READY and t is not None]
    ready_at = _time((launch.get("ready_at") or {}).get("time"))  # the ready line: the launch's, no rank tag
    if ready_at is not None:
        ready.append(ready_at)
    if not stamps or not ready:
        return None
    return round((max(ready) - min(stamps)).total_seconds(), 3)


def _time(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None
