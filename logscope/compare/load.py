"""One side of a comparison from the command line: files, globs or directories (comma-separated), and an
optional `#N` that picks launch N of them (`run.log#2`); without it the inputs must hold one launch with ranks."""

from __future__ import annotations

import re
from typing import Any

from logscope.core.errors import InputError
from logscope.core.model import Analysis, Launch
from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import expand_inputs

_LAUNCH_SUFFIX = re.compile(r"^(?P<inputs>.+)#(?P<launch>\d+)$")


def split_spec(spec: str) -> tuple[list[str], int | None]:
    m = _LAUNCH_SUFFIX.match(spec)
    inputs, launch = (m.group("inputs"), int(m.group("launch"))) if m else (spec, None)
    return [part for part in inputs.split(",") if part], launch


def load(spec: str, model_config: dict[str, Any] | None = None) -> tuple[Analysis, Launch]:
    paths, wanted = split_spec(spec)
    if not paths:
        raise InputError(f"{spec}: names no input")
    analysis = analyze_model(expand_inputs(paths), model_config)
    with_ranks = [launch for launch in analysis.launches if launch.has_phases()]
    if wanted is not None:
        found = next((launch for launch in analysis.launches if launch.id == wanted), None)
        if found is None:
            raise InputError(f"{spec}: no launch {wanted} (the inputs hold {len(analysis.launches)})")
        return analysis, found
    if not with_ranks:
        raise InputError(f"{spec}: no launch with phase readings (Load weight / KV Cache lines) in these inputs")
    if len(with_ranks) > 1:
        ids = ", ".join(f"#{launch.id}" for launch in with_ranks)
        raise InputError(f"{spec}: holds {len(with_ranks)} launches ({ids}); pick one with {paths[0]}#N")
    return analysis, with_ranks[0]
