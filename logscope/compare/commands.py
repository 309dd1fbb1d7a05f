"""`logscope diff` and `logscope plan` from their options: each side loaded and analysed once (the pipeline's
own KV sizing stage sizes it), then the comparison or the projection as a logscope/1 document."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from logscope.compare.diff import diff, side
from logscope.compare.document import diff_document, plan_document
from logscope.compare.load import load, split_spec
from logscope.compare.plan import Setting, plan
from logscope.core.errors import InputError
from logscope.pipeline.ingest.model_config import read_model_config


@dataclass(frozen=True, slots=True)
class Compared:
    document: dict[str, Any]
    stopped: list[tuple[str, str | None]] = field(default_factory=list)  # inputs not read to their end: (path, why)
    risky: bool = False  # a plan whose margin is negative on some rank


def diff_runs(a: str, b: str, model_config: Path | None = None) -> Compared:
    if all("-" in split_spec(spec)[0] for spec in (a, b)):
        raise InputError("-: stdin is named for both runs (it can be read only once)")
    config = read_model_config(model_config)
    loaded = [load(spec, config) for spec in (a, b)]
    sides = [side(spec, analysis, launch, config) for spec, (analysis, launch) in zip((a, b), loaded)]
    stopped = [(i.path, i.stopped) for analysis, _launch in loaded for i in analysis.inputs]
    return Compared(diff_document(diff(*sides)), stopped)


def plan_run(run: str, setting: Setting, model_config: Path | None = None) -> Compared:
    config = read_model_config(model_config)
    analysis, launch = load(run, config)
    totals = [g["memory_total_mib"] for g in analysis.join.gpus if g.get("memory_total_mib")]
    result = plan(run, launch, analysis.kv_sizing[launch.id], setting, config, min(totals) if totals else None)
    risky = any(r.margin_gib is not None and r.margin_gib < 0 for r in result.ranks)
    return Compared(plan_document(result), [(i.path, i.stopped) for i in analysis.inputs], risky)
