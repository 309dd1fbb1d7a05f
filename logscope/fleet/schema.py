"""The tables `logscope scan` writes: one tuple of columns per table, the one place their names, types and units
are spelt (tables.py builds the Parquet schema from it, docs/fleet.md documents it, tests check both). Names are
the JSON contract's (schema logscope/1) where it has one. No polars here: the workers build plain rows."""

from __future__ import annotations

from dataclasses import dataclass

# bump when a column changes meaning or type (adding a column at the end keeps the version); an incremental
# scan reuses earlier rows only when the version matches
SCHEMA_VERSION = "logscope-fleet/2"  # 2: jobs.comm_eager_gib, jobs.comm_eager_kv_tokens


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    type: str  # str | int | float | bool | list[str]
    unit: str  # "" where it has none
    doc: str


def _c(name: str, type_: str, doc: str, unit: str = "") -> Column:
    return Column(name, type_, unit, doc)


JOB = _c("job", "str", "the job's folder (or file), as walked from the scanned path")
LAUNCH = _c("launch", "int", "launch id within the job (restarts are launches), as in the JSON contract")
RANK = _c("rank", "str", 'rank as printed, e.g. "TP3" or "DP0 TP3 EP3"')

TABLES: dict[str, tuple[Column, ...]] = {
    "jobs": (
        JOB,
        _c("verdict", "str", "error | warning | info | ok (the most severe finding), or unanalysed (the error column says why)"),
        _c("exit", "int", "the exit code `logscope analyze` gives this job: 0 none, 1 an error finding, 2 unreadable"),
        _c("top_rule", "str", "stable finding id of the top finding (DESIGN.md), null without findings"),
        _c("top_mechanism", "str", "the top finding's mechanism (memory, nccl, custom_all_reduce, pd_transfer, ...), or null"),
        _c("top_phase", "str", "the top finding's phase (startup phase, serving or unknown), or null"),
        _c("summary", "str", "the one-line verdict `logscope analyze` prints for the job"),
        _c("sglang_version", "str", 'the SGLang version stated in the input, or the inferred range "A to B"'),
        _c("sglang_version_how", "str", "stated | inferred | null (not found)"),
        _c("tp_size", "int", "tp_size of the last launch (server args, launch command or check_env), null when not found"),
        _c("ep_size", "int", "ep_size of the last launch, null when not found"),
        _c("dp_size", "int", "dp_size of the last launch, null when not found"),
        _c("pp_size", "int", "pp_size of the last launch, null when not found"),
        _c("parallel_inferred", "bool", "true when one of the four sizes is inferred (config_source inferred), not stated"),
        _c("gpu_model", "str", "the GPU name nvidia-smi or check_env shows (the first GPU), null when none"),
        _c(
            "kv_tokens", "int", "KV cache capacity of the last launch: the smallest max_total_num_tokens over its ranks", "tokens"
        ),
        _c(
            "comm_eager_gib",
            "float",
            "last launch: the eager communication cells of its rank that holds most (taken out of the KV budget before "
            "the pool is sized); null when no eager cell is sized",
            "GiB",
        ),
        _c(
            "comm_eager_kv_tokens",
            "int",
            "the KV tokens comm_eager_gib costs at that rank's bytes per token (its KV Cache is allocated line: K + V "
            "size / #tokens, within the print rounding); null when either is unknown",
            "tokens",
        ),
        _c("ready", "bool", "the last launch reached server_ready (the server fired up)"),
        _c("startup_s", "float", "last launch: from its first phase line to server_ready; null when not ready", "s"),
        _c("launches", "int", "launches found in the job"),
        _c("ranks", "int", "ranks of the last launch"),
        _c("findings", "int", "findings of the job, every severity"),
        _c("files", "int", "files read for the job"),
        _c("bytes", "int", "size of those files on disk", "bytes"),
        _c("lines", "int", "physical lines read"),
        _c("recognized_lines", "int", "lines a grammar recognised"),
        _c("error", "str", "why the job, or a file of it, was not analysed (files left out are named); null when all was"),
        _c("newest_mtime_ns", "int", "modification time of the job's newest file (what --since compares)", "ns since the epoch"),
        _c("fingerprint", "str", "hash of every file's (path, size, mtime_ns): an incremental scan reuses rows when it matches"),
        _c("logscope_version", "str", "the logscope version that analysed the job"),
    ),
    "phases": (
        JOB,
        LAUNCH,
        RANK,
        _c("phase", "str", "phase id (DESIGN.md: init_distributed_begin ... server_ready)"),
        _c("model", "str", "target | draft"),
        _c("graph", "str", "the CUDA graph captured (decode, ...), null for other phases"),
        _c("time", "str", "the log line's time as printed"),
        _c("avail_gib", "float", "free device memory the line prints", "GiB"),
        _c("usage_gib", "float", "memory usage the line prints", "GiB"),
        _c("drop_gib", "float", "fall in avail_gib since the phase in drop_since", "GiB"),
        _c("drop_since", "str", "the phase the drop is measured from"),
        _c("tokens", "int", "#tokens (kv_cache_allocated) or max_total_num_tokens (scheduler_summary)", "tokens"),
        _c("elapsed_s", "float", "elapsed time the line prints", "s"),
        _c("source", "str", "file the line is in"),
        _c("line", "int", "1-based line number in that file"),
    ),
    "findings": (
        JOB,
        LAUNCH,
        _c("rule", "str", "stable finding id (DESIGN.md)"),
        _c("severity", "str", "error | warning | info"),
        _c("ranks", "list[str]", "the ranks the finding names"),
        _c("phase", "str", "where the failure happened (startup phase, serving, unknown), null where not a failure"),
        _c("mechanism", "str", "the failure's mechanism (memory, nccl, custom_all_reduce, pd_transfer, ...), or null"),
        _c("signature", "str", "the failure signature matched, or null"),
        _c("message", "str", "the finding's message, with its numbers"),
        _c("hint", "str", "the fix it suggests"),
        _c("evidence", "str", 'first evidence line as "source:line"'),
        _c("evidence_lines", "int", "evidence lines the finding quotes"),
    ),
    "cells": (
        JOB,
        LAUNCH,
        RANK,
        _c("group", "str", "communication group (tp, attn_tp, moe_ep, moe_tp, pp, dp, ...)"),
        _c("mechanism", "str", "torch_nccl, pynccl, custom_ar, custom_ar_v2, symm_mem, deepep_normal, ..."),
        _c("gib", "float", "the cell's size", "GiB"),
        _c("kind", "str", "read | measured | estimated"),
        _c("timing", "str", "eager (before the pre-model-load reading) | lazy (after KV allocation)"),
    ),
    "ledger": (
        JOB,
        LAUNCH,
        RANK,
        _c("item", "str", "ledger item (cuda_context, comm_eager, weights, kv_pool, cuda_graphs, free, unexplained, ...)"),
        _c("gib", "float", "the item's size; the items of a rank sum to its card total", "GiB"),
        _c("kind", "str", "measured | estimated"),
    ),
}

TABLE_NAMES = tuple(TABLES)


def column_names(table: str) -> tuple[str, ...]:
    return tuple(column.name for column in TABLES[table])
