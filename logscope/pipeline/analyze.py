"""The pipeline's entry: the input's large files are handed to the byte-range workers first, and only then
are the stages imported and run (logscope/pipeline/stages.py), so the workers scan while this process loads
its grammars, signatures and rules; a paste starts no worker and pays for none of this.

sources → scan (ingest) → the stages → Analysis → the document (schema logscope/1)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from logscope.pipeline.ingest.ingest import Source, scan_sources
from logscope.pipeline.parse import serving
from logscope.pipeline.parse.literal_set import cached_literals

if TYPE_CHECKING:
    from logscope.core.model import Analysis
    from logscope.pipeline.sizing.calibration import Calibration


def analyze_sources(
    sources: list[Source],
    rules_dirs: list[str] | None = None,
    model_config: dict[str, Any] | None = None,
    calibration: Calibration | None = None,
    parallel: bool = True,
) -> dict[str, Any]:
    """`parallel=False`: large files are read on this thread too (a caller that is itself one of a pool of workers)."""
    analysis = analyze_model(sources, model_config, calibration, parallel)
    from logscope.pipeline import stages  # imported by analyze_model, once the workers started

    return stages.document(analysis, rules_dirs or [])


def analyze_model(
    sources: list[Source],
    model_config: dict[str, Any] | None = None,
    calibration: Calibration | None = None,
    parallel: bool = True,
) -> Analysis:
    with scan_sources(sources, cached_literals(), serving.SERVING_BYTES, serving.STARTUP, parallel) as chunks:
        from logscope.pipeline import stages  # after the workers started: importing the stages takes a while

        return stages.analysis(sources, chunks, model_config, calibration)
