"""Per-rank memory ledger: every GiB of the card from the readings SGLang printed.

Items are the drops between consecutive free-memory readings (measured, +-0.01 GiB print rounding each),
the part of the pre-existing use and of the init-distributed delta that the estimates explain (CUDA
context, eager communication cells), the free memory left, and the `unexplained` residual, so the items
always sum to the card total when it is known. Without a card total the ledger starts at the first
reading and says so.
"""

from __future__ import annotations

from typing import Any

from logscope.core import kinds, phases
from logscope.core.cell import Cell
from logscope.core.model import GpuJoin, Launch, PhaseReading, RankLedger, RankPlacement, RankTimeline
from logscope.memory_model.interconnect import interconnect
from logscope.memory_model.kv_pool import KvSizing, target_reading
from logscope.pipeline.sizing.calibration import Calibration
from logscope.pipeline.sizing.cell_rules import measured_on, same_gpu
from logscope.pipeline.sizing.cells import launch_cells

MEMORY_BASELINE = kinds.MEMORY_BASELINE  # the reading label sglang_line.py gives the 0.5.21+ line
CUDA_CONTEXT_GIB = 0.5  # torch + CUDA 12/13 context on Hopper; the H200 probe measured 527 MiB
# GiB as torch reports it for cards whose dump gives no Reserved; assumed when used
KNOWN_CAPACITY_GIB = {"NVIDIA H200": 139.80, "NVIDIA A100-SXM4-80GB": 79.15, "NVIDIA A100-SXM4-40GB": 39.39}


def _post_capture(timeline: RankTimeline) -> bool:
    return any(p.values.get("sized_after_capture") for p in timeline.readings(kinds.KV_CACHE_ALLOCATED, model=None))


def _readings(timeline: RankTimeline, links: tuple[tuple[str, str | None, str], ...]) -> list[tuple[str, float, PhaseReading]]:
    target = [p for p in timeline.phases if p.model == "target" and "avail_gib" in p.values]
    out: list[tuple[str, float, PhaseReading]] = []
    for phase_id, _item, pick_which in links:
        hits = [p for p in target if p.phase == phase_id]
        if not hits:
            continue
        pick = hits[-1] if pick_which == "last" else hits[0]
        out.append((phase_id, pick.values["avail_gib"], pick))
    return out


def _card_total(gpus: list[dict[str, Any]], placement: RankPlacement) -> tuple[float | None, str]:
    if placement.card_total_gib is not None:
        gpu = next((g for g in gpus if g["index"] == placement.gpu), {})
        return placement.card_total_gib, gpu.get("card_total_source", "nvidia-smi")
    totals = [g["card_total_gib"] for g in gpus if g.get("card_total_gib")]
    if totals and len(set(totals)) == 1:
        return totals[0], "nvidia-smi / OOM total (same on every GPU)"
    names = {g.get("name") for g in gpus}
    for name in names:
        if name in KNOWN_CAPACITY_GIB:
            return KNOWN_CAPACITY_GIB[name], f"assumed: known capacity of {name}"
    return None, "unknown (no nvidia-smi -q dump, OOM text or known GPU model)"


def _item(item: str, gib: float, kind: str, **extra: Any) -> dict[str, Any]:
    return {"item": item, "gib": round(gib, 2), "kind": kind, **extra}


def _capture_split(delta: float, cells: list[Cell]) -> dict[str, Any]:
    """Reconcile the capture delta with the lazily created cells (DeepEP, NCCL P2P, symmetric memory are
    allocated at the first dispatch, i.e. inside capture): the rest is the graph pool and its buffers."""
    lazy = sum(c.gib for c in cells if c.timing == "lazy" and c.gib is not None)
    if lazy <= 0:
        return {}
    if lazy > delta + 0.01:
        return {
            "lazy_comm_estimate_gib": round(lazy, 2),
            "note": "the capture delta is smaller than the lazy cells: they were not (all) allocated during capture",
        }
    return {"lazy_comm_estimate_gib": round(lazy, 2), "graph_pool_estimate_gib": round(delta - lazy, 2)}


def _gpu_name(gpus: list[dict[str, Any]], placement: RankPlacement) -> str | None:
    named = [g for g in gpus if g.get("name")]
    mine = next((g for g in named if g.get("index") == placement.gpu), named[0] if named else None)
    return None if mine is None else str(mine["name"])


def _context(calibration: Calibration | None, gpu_name: str | None = None) -> tuple[float, str, str]:
    """(GiB, kind, basis) of the CUDA context: the probe's measurement on this GPU model, else the typical size."""
    usable = calibration is not None and same_gpu(calibration.gpu, gpu_name)
    measured = calibration.lookup("cuda_context") if calibration is not None and usable else None
    if measured is None or calibration is None:
        other = "" if same_gpu("NVIDIA H200", gpu_name) else f"; not measured on {gpu_name}"
        return CUDA_CONTEXT_GIB, "estimated", f"typical CUDA context (H200 probe: 527 MiB{other})"
    return (
        measured.mib / 1024,
        "measured (probe)",
        f"probe on {measured_on(calibration.gpu, gpu_name)}: cuda_context {measured.mib:.0f} MiB ({calibration.label()})",
    )


def _eager_kind(cells: list[Cell]) -> str:
    eager_kinds = {c.kind for c in cells if c.timing == "eager" and c.gib}
    return "measured (probe)" if eager_kinds == {"measured (probe)"} else "estimated"


def _others_and_context(
    pre: float, placement: RankPlacement, calibration: Calibration | None, gpu_name: str | None
) -> tuple[list[dict[str, Any]], float]:
    """The memory taken before the first reading (`pre`): other processes on the GPU, then the CUDA context, each
    capped at what is left of it; (their ledger items, what they leave of `pre`, unrounded)."""
    items = []
    others = min((placement.other_process_mib or 0) / 1024, max(pre, 0.0))
    if others:
        items.append(_item("other_processes", others, "measured", basis=placement.other_process_source))
    context_gib, context_kind, context_basis = _context(calibration, gpu_name)
    context = min(context_gib, max(pre - others, 0.0))
    items.append(_item("cuda_context", context, context_kind, basis=context_basis, measured_pre_existing_gib=round(pre, 2)))
    return items, pre - others - context


def _pre_weights(
    pre: float,
    placement: RankPlacement,
    cells: list[Cell],
    calibration: Calibration | None,
    baseline_gib: float,
    gpu_name: str | None,
) -> list[dict[str, Any]]:
    """0.5.21+: the memory taken before weights (card minus `Load weight begin`), split into other processes,
    the CUDA context and the eager communication cells; what they leave is the residual's."""
    items, left = _others_and_context(pre, placement, calibration, gpu_name)
    eager = sum(c.gib for c in cells if c.timing == "eager" and c.gib is not None)
    if eager > 0:
        capped = min(eager, max(left, 0.0))
        cap = f"the cells sum to {eager:.3f} GiB, capped" if capped < eager else "capped"
        items.append(
            _item(
                "comm_eager",
                capped,
                _eager_kind(cells),
                basis=f"eager communication cells, {cap} at the memory taken before weights (card - Load weight begin) "
                "less the context; 'Memory baseline taken' is measured after the groups are built (SGLang >= 0.5.21 "
                "distributed/bootstrap.py measure_pre_model_load_memory), so it holds none of them",
                cells_gib=round(eager, 3),
                measured_pre_weights_gib=round(pre, 2),
                measured_baseline_gib=baseline_gib,
            )
        )
    return items


def rank_ledger(
    timeline: RankTimeline,
    placement: RankPlacement,
    gpus: list[dict[str, Any]],
    cells: list[Cell],
    calibration: Calibration | None = None,
) -> RankLedger:
    eager_gib = round(sum(c.gib or 0 for c in cells if c.timing == "eager"), 3)
    lazy_gib = round(sum(c.gib or 0 for c in cells if c.timing == "lazy"), 3)
    links = phases.ledger_links(_post_capture(timeline))
    readings = _readings(timeline, links)
    init_reading = target_reading(timeline, kinds.INIT_DISTRIBUTED_END, "usage_gib")
    init = None if init_reading is None else init_reading.values
    if not readings and init is None:
        return RankLedger([], cells, placement.card_total_gib, None, eager_gib, lazy_gib, has_readings=False)
    total, total_source = _card_total(gpus, placement)
    items: list[dict[str, Any]] = []
    unexplained = 0.0
    reconciled = False  # whether anything measured was reconciled into `unexplained` (else it is unknown)
    starts_at_load = bool(readings) and readings[0][0] == kinds.LOAD_WEIGHT_BEGIN
    # 0.5.21+ (distributed/bootstrap.py measure_pre_model_load_memory): both readings behind "Memory baseline
    # taken" come after init_parallel_runtime built every group, so it holds neither the context nor the
    # communicators; the memory taken before weights is the card minus the first avail reading.
    baseline = init is not None and init.get("reading") == MEMORY_BASELINE
    first_free = None
    if starts_at_load and init is not None and not baseline:
        first_free = readings[0][1] + init["usage_gib"]
    elif readings:
        first_free = readings[0][1]
    if baseline and init is not None:
        if total is not None and first_free is not None and starts_at_load:
            items += _pre_weights(
                total - first_free, placement, cells, calibration, init["usage_gib"], _gpu_name(gpus, placement)
            )
    elif total is not None and first_free is not None and (init is not None or starts_at_load):
        pre = total - first_free
        found, left = _others_and_context(pre, placement, calibration, _gpu_name(gpus, placement))
        items += found
        unexplained += left
        reconciled = True
    if init is not None and starts_at_load and not baseline:
        eager = sum(c.gib for c in cells if c.timing == "eager" and c.gib is not None)
        explained = min(eager, max(init["usage_gib"], 0.0))
        if eager > 0:
            basis = "eager communication cells, capped at the measured init-distributed delta"
            if explained < eager:  # the cap binds: say by how much, never silently
                basis = (
                    f"eager communication cells sum to {eager:.3f} GiB; capped at the measured init-distributed delta "
                    f"{init['usage_gib']:.2f} GiB (the rest of the cells is not in this delta)"
                )
            items.append(
                _item(
                    "comm_eager",
                    explained,
                    _eager_kind(cells),
                    basis=basis,
                    measured_init_gib=init["usage_gib"],
                    cells_gib=round(eager, 3),
                )
            )
        unexplained += init["usage_gib"] - explained
        reconciled = True
    elif total is not None and first_free is not None and readings and not starts_at_load:
        items.append(
            _item(
                "before_first_reading",
                total - first_free - sum(i["gib"] for i in items),
                "measured",
                basis=f"card total - first reading ({readings[0][0]})",
            )
        )
    order = [phase_id for phase_id, _, _ in links]
    item_of = {phase_id: item for phase_id, item, _ in links}
    pools = timeline.readings(kinds.KV_CACHE_ALLOCATED, "kv_gib")
    for (prev_phase, prev_free, prev_reading), (phase, free, reading) in zip(readings, readings[1:]):
        consecutive = order.index(phase) == order.index(prev_phase) + 1
        name = (item_of[phase] or phase) if consecutive else f"{prev_phase}..{phase}"
        extra: dict[str, Any] = {"between": [prev_phase, phase]}
        if not consecutive:
            extra["basis"] = "the readings between these two are missing from the log"
        if phase == kinds.MEMORY_POOL_END and pools:
            extra["reported_kv_gib"] = round(sum(p.values["kv_gib"] for p in pools), 2)
            if len(pools) > 1:
                extra["reported_pools"] = [
                    {"pool": p.values.get("pool"), "gib": p.values["kv_gib"], "tokens": p.values.get("tokens")} for p in pools
                ]
        if name == "cuda_graphs":
            extra.update(_capture_split(prev_free - free, cells))
        parts = _pool_parts(timeline) if name == "kv_pool" else []
        if name == "kv_pool" and parts:
            full = [p for p in pools if p.values.get("pool") != "swa"]
            extra.pop("reported_kv_gib", None)
            if full:
                extra["reported_kv_gib"] = round(sum(p.values["kv_gib"] for p in full), 2)
        draft = _draft_parts(timeline, prev_reading, reading) if name == "before_capture" else []
        items += draft
        rest = prev_free - free - sum(i["gib"] for i in parts + draft)
        if parts or draft:
            extra["basis"] = f"the drop between the two readings less the {', '.join(i['item'] for i in parts + draft)} item(s)"
        items.append(_item(name, rest, "measured", **extra))
        items += parts
    if readings:
        items.append(_item("free", readings[-1][1], "measured", at=readings[-1][0]))
    if total is not None:
        residual = total - sum(i["gib"] for i in items)
        items.append(
            _item("unexplained", residual, "measured" if not cells else "estimated", basis="card total minus every other item")
        )
    elif reconciled:
        items.append(_item("unexplained", unexplained, "estimated", basis="card total unknown: init delta minus estimates"))
    else:  # nothing to reconcile: unknown, never 0 (docs/design.md)
        items.append(
            {
                "item": "unexplained",
                "gib": None,
                "kind": "estimated",
                "basis": "unknown: no card total and no init-distributed reading to reconcile against",
            }
        )
    return RankLedger(items, cells, total, total_source, eager_gib, lazy_gib, has_readings=True)


def _pool_parts(timeline: RankTimeline) -> list[dict[str, Any]]:
    """The target's pools besides the full-attention KV pool, each with the size its own line states (read): the
    sliding-window KV pool ("KV Cache is allocated" of the pool the SWA line or SWAKVPool total names), the Mamba
    state pool (the GB figures of "Mamba Cache is allocated"), a draft's pool sized after capture (its
    "Post-capture KV sizing: draft KV cache allocated"), DeepSeek V4's pools (the available_bytes budget of
    "DSV4 memory calculation", which the configurator divides among them)."""
    parts = []
    swa = [p for p in timeline.readings(kinds.KV_CACHE_ALLOCATED, "kv_gib") if p.values.get("pool") == "swa"]
    if swa:
        gib = sum(p.values["kv_gib"] for p in swa)
        parts.append(_item("swa_kv_pool", gib, "read", basis="KV Cache is allocated (sliding-window pool)", line=swa[0].line))
    mamba = [p for p in timeline.readings(kinds.OTHER_POOL_ALLOCATED, "pool_gib") if p.values.get("pool") == "mamba"]
    if mamba:
        parts.append(
            _item(
                "mamba_pool",
                sum(p.values["pool_gib"] for p in mamba),
                "read",
                basis="Mamba Cache is allocated",
                line=mamba[0].line,
            )
        )
    drafts = [e for e in timeline.events if e.kind == kinds.POST_CAPTURE_DRAFT_KV]
    if drafts:  # sized after capture: backed before the target's reading that ends this item (kv_pool_runtime.py)
        gib = sum(e.data["kv_gib"] for e in drafts)
        parts.append(
            _item("draft_kv_pool", gib, "read", basis="Post-capture KV sizing: draft KV cache allocated", line=drafts[0].line)
        )
    dsv4 = [e for e in timeline.events if e.kind == kinds.DSV4_MEMORY and e.data.get("available_bytes_gib") is not None]
    if dsv4:
        parts.append(
            _item(
                "dsv4_pools",
                dsv4[-1].data["available_bytes_gib"],
                "read",
                basis="DSV4 memory calculation: available_bytes, the budget the DeepSeek V4 pools are sized to",
                line=dsv4[-1].line,
            )
        )
    return parts


def _draft_parts(timeline: RankTimeline, before: PhaseReading, after: PhaseReading) -> list[dict[str, Any]]:
    """A speculative draft model loaded between the target's two readings (its weights, then its KV pool): the
    drops between the draft's own readings, as measured items, so they are not taken for the target's."""

    def within(phase: str) -> PhaseReading | None:
        found = [
            p
            for p in timeline.readings(phase, "avail_gib", model="draft")
            if p.source == before.source == after.source and before.line < p.line < after.line
        ]
        return found[0] if found else None

    begin, end, pool_end = (within(p) for p in (kinds.LOAD_WEIGHT_BEGIN, kinds.LOAD_WEIGHT_END, kinds.MEMORY_POOL_END))
    parts = []
    if begin is not None and end is not None:
        parts.append(
            _item(
                "draft_weights",
                begin.values["avail_gib"] - end.values["avail_gib"],
                "measured",
                between=[kinds.LOAD_WEIGHT_BEGIN, kinds.LOAD_WEIGHT_END],
                model="draft",
            )
        )
    if end is not None and pool_end is not None:
        kv = [
            p.values["kv_gib"]
            for p in timeline.readings(kinds.KV_CACHE_ALLOCATED, "kv_gib", model="draft")
            if end.line < p.line < pool_end.line
        ]
        extra: dict[str, Any] = {"reported_kv_gib": round(sum(kv), 2)} if kv else {}
        parts.append(
            _item(
                "draft_kv_pool",
                end.values["avail_gib"] - pool_end.values["avail_gib"],
                "measured",
                between=[kinds.LOAD_WEIGHT_END, kinds.MEMORY_POOL_END],
                model="draft",
                **extra,
            )
        )
    return parts


def ledgers(
    launches: list[Launch], join: GpuJoin, calibration: Calibration | None = None, sizing: dict[int, KvSizing] | None = None
) -> dict[tuple[int, str], RankLedger]:
    """Every rank's ledger, keyed by (launch id, rank label); the KV sizing stage gives the cell size that
    sizes PD staging."""
    out: dict[tuple[int, str], RankLedger] = {}
    named = [g for g in join.gpus if g.get("name")]
    links = interconnect(join.topology.get("links", []), [str(g["name"]) for g in named])
    for launch in launches:
        kv = (sizing or {}).get(launch.id)
        cell = kv.effective_cell if kv is not None else None
        cells = launch_cells(launch, calibration, named[0] if named else None, cell, links)
        for label, timeline in launch.ranks.items():
            placement = join.placements.get((launch.id, label), RankPlacement())
            out[(launch.id, label)] = rank_ledger(timeline, placement, join.gpus, cells, calibration)
    return out


def probe_process_ledgers(join: GpuJoin, calibration: Calibration | None) -> dict[int, list[dict[str, Any]]]:
    """For a GPU whose dump shows one of the probe's own processes and whose OOM text splits that process's
    memory: the memory outside the PyTorch allocator, item by item from the probe's stages, and the residual.
    (The process is known by its PID, which the calibration records; nothing is assumed of other processes.)"""
    if calibration is None or not calibration.pids:
        return {}
    out: dict[int, list[dict[str, Any]]] = {}
    for gpu in join.gpus:
        pids = {p.get("pid") for p in gpu.get("processes", [])}
        outside = gpu.get("outside_allocator_mib")
        if outside is None or not pids & calibration.pids:
            continue
        items: list[dict[str, Any]] = [
            {"item": m.stage, "mib": round(m.outside_allocator_mib, 2), "kind": "measured (probe)"}
            for m in calibration.measured
            if m.outside_allocator_mib > 0
        ]
        explained = sum(i["mib"] for i in items)
        items.append(
            {
                "item": "unexplained",
                "mib": round(outside - explained, 2),
                "kind": "measured",
                "basis": f"{outside:.2f} MiB outside the allocator (OOM text) minus the probe's stages",
            }
        )
        out[gpu["index"]] = items
    return out
