"""The communication cells of a running server, for splitting the residual of `logscope watch`.

The cells are sized by the pipeline's sizing stage (logscope/memory_model, for the release the server
reports), fed the way a log feeds it: a check_env block naming the release and the GPU, the server's
arguments as a ServerArgs dump and one phase line of TP0. So the arguments are read by the same reader as a
pasted server_args line, and the rank's cells (typed `Cell`s, as the document's cells[] carries them) are the
answer."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from logscope.core.cell import Cell

# the server arguments the cells depend on (DESIGN.md's launch config)
_CELL_ARGS = (
    "model_path",
    "tp_size",
    "dp_size",
    "ep_size",
    "pp_size",
    "moe_a2a_backend",
    "deepep_mode",
    "mem_fraction_static",
    "disable_custom_all_reduce",
    "enable_symm_mem",
    "enable_dp_attention",
    "disaggregation_mode",
    "disaggregation_transfer_backend",
    "enable_nccl_nvls",
    "pre_warm_nccl",
)


def communication_cells(server_info: dict[str, Any], version: str | None, gpu_name: str | None) -> tuple[Cell, ...]:
    args = tuple((k, repr(server_info[k])) for k in _CELL_ARGS if k in server_info and server_info[k] is not None)
    return _cells(args, version, gpu_name)


@lru_cache(maxsize=8)
def _cells(args: tuple[tuple[str, str], ...], version: str | None, gpu_name: str | None) -> tuple[Cell, ...]:
    from logscope.pipeline.analyze import analyze_model
    from logscope.pipeline.ingest.ingest import Source

    lines = ["Python: (logscope watch)", "CUDA available: True"]
    if gpu_name:
        lines.append(f"GPU 0: {gpu_name}")
    if version:
        lines.append(f"sglang: {version}")
    lines.append("server_args=ServerArgs(" + ", ".join(f"{k}={v}" for k, v in args) + ")")
    lines.append("[2026-01-01 00:00:00 TP0] Load weight begin. avail mem=1.00 GB")
    analysis = analyze_model([Source(name="<server_info>", path=None, data=("\n".join(lines) + "\n").encode())])
    if not analysis.launches:
        return ()
    first = analysis.launches[0].id
    ledger = next((ledger for (launch, _), ledger in analysis.ledgers.items() if launch == first), None)
    return tuple(ledger.cells) if ledger is not None else ()
