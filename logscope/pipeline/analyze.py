"""The pipeline's entry: the input's large files are handed to the byte-range workers first, and only then
are the stages imported and run (logscope/pipeline/stages.py), so the workers scan while this process loads
its grammars, signatures and rules; a paste starts no worker and pays for none of this.

sources → scan (ingest) → the stages → Analysis → the document (schema logscope/1)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from logscope.pipeline.ingest.ingest import Source, scan_sources
from logscope.pipeline.parse import serving
from logscope.pipeline.parse.literal_set import cached_literals

if TYPE_CHECKING:
    from logscope.core.model import Analysis
    from logscope.pipeline.sizing.calibration import Calibration


def analyze_inputs(
    inputs: list[str], rules_dirs: list[str], model_config: Path | None = None, calibration: Path | None = None
) -> dict[str, Any]:
    """`logscope analyze`: the named inputs (files, quoted globs, directories, - for stdin), with the files its
    options name (a calibration, a model's config.json) read first."""
    from logscope.pipeline.ingest.ingest import expand_inputs
    from logscope.pipeline.ingest.model_config import read_model_config
    from logscope.pipeline.sizing.calibration import load_calibration

    calib = load_calibration(calibration) if calibration is not None else None
    sources = expand_inputs(inputs)
    return analyze_sources(sources, rules_dirs, read_model_config(model_config), calib)


def analyze_sources(
    sources: list[Source],
    rules_dirs: list[str] | None = None,
    model_config: dict[str, Any] | None = None,
    calibration: Calibration | None = None,
) -> dict[str, Any]:
    analysis = analyze_model(sources, model_config, calibration)
    from logscope.pipeline import stages  # imported by analyze_model, once the workers started

    return stages.document(analysis, rules_dirs or [])


def analyze_model(
    sources: list[Source], model_config: dict[str, Any] | None = None, calibration: Calibration | None = None
) -> Analysis:
    with scan_sources(sources, cached_literals(), serving.SERVING_BYTES, serving.STARTUP) as chunks:
        from logscope.pipeline import stages  # after the workers started: importing the stages takes a while

        return stages.analysis(sources, chunks, model_config, calibration)
