"""`logscope probe` from its options: the probe run once per NCCL environment asked for, the calibration
written, and one summary line per stage measured or skipped."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from logscope.core.errors import LogscopeError
from logscope.pipeline.sizing.calibration import dump_calibration
from logscope.probe.launcher import merge_calibrations, probe
from logscope.probe.stages import NCCL_ENVIRONMENTS


@dataclass(frozen=True, slots=True)
class Calibrated:
    document: dict[str, Any]
    summary: list[str]


def calibrate(
    world_size: int,
    groups: str,
    stage_timeout: float,
    symm_mib: int,
    dumps: Path | None,
    nccl_env: str,
    env_matrix: bool,
    out: Path,
    command: str,
) -> Calibrated:
    """Measure under `nccl_env` (or every environment, with `env_matrix`), write the calibration to `out`."""
    if nccl_env not in NCCL_ENVIRONMENTS:
        raise LogscopeError(f"--nccl-env {nccl_env}: expected one of {', '.join(NCCL_ENVIRONMENTS)}")
    names = list(NCCL_ENVIRONMENTS) if env_matrix else [nccl_env]
    runs = {
        name: probe(
            world_size,
            [g for g in groups.split(",") if g],
            stage_timeout,
            symm_mib,
            dumps if index == 0 else None,
            command,
            NCCL_ENVIRONMENTS[name],
        )
        for index, name in enumerate(names)
    }
    document = merge_calibrations(runs) if env_matrix else runs[nccl_env]
    try:
        out.write_text(dump_calibration(document), encoding="utf-8")
    except OSError as exc:
        raise LogscopeError(f"{out}: cannot write: {exc.strerror or exc}") from None
    return Calibrated(document, [*_summary(document), f"calibration written to {out}"])


def _summary(document: dict[str, Any]) -> list[str]:
    lines = []
    for entry in document["mechanisms"]:
        under = " ".join(
            f"{k}={v}" for k, v in entry.get("environment", {}).items() if k.startswith("NCCL_") and k != "NCCL_NVLS_ENABLE"
        )
        lines.append(
            f"{entry['stage']:26} {entry['group']:8} size {entry['group_size']:<3} {entry['mib']:9.2f} MiB "
            f"({entry['outside_allocator_mib']:.2f} outside the allocator){'  ' + under if under else ''}"
        )
    lines += [f"{entry['stage']:26} not measured: {entry['reason']}" for entry in document["skipped"]]
    return lines
