"""A setting not yet run, projected from a real run: the run's measured intercepts (free before weights, what
loading took, the pool's cell size, what the pool end and capture left) are scaled by what scales with the new
setting, with SGLang's formulas. Every figure says whether it is measured, stated, derived or estimated, and
every assumption is listed. A layout the run cannot size is refused with the reason."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from logscope.core import kinds
from logscope.core.errors import LogscopeError
from logscope.core.model import Launch
from logscope.memory_model.fraction import auto_fraction, default_requests, user_requests, uses_mla
from logscope.memory_model.kv_pool import (
    GIB,
    Figure,
    KvSizing,
    Layout,
    config_cell,
    dtype_bytes,
    free_before_weights,
    layout_of,
)
from logscope.memory_model.releases import ReleaseChoice, launch_release
from logscope.pipeline.sizing.cells import launch_cells
from logscope.pipeline.sizing.mem_fraction import fraction_on_command


class PlanRefused(LogscopeError):
    """The run does not hold what the projection needs; the message says what."""


@dataclass
class Setting:
    """What the user asks to project (None: unchanged from the run)."""

    tp: int | None = None
    dp: int | None = None
    pp: int | None = None
    ep: int | None = None
    dp_attention: bool | None = None
    moe_a2a_backend: str | None = None
    deepep_mode: str | None = None
    mem_fraction_static: float | None = None
    kv_cache_dtype: str | None = None
    page_size: int | None = None
    max_total_tokens: int | None = None
    max_running_requests: int | None = None
    context_length: int | None = None


@dataclass
class PlanRank:
    rank: str
    free_before_weights_gib: float
    free_after_pool_gib: float
    margin_gib: float | None


@dataclass
class Plan:
    run: str
    layout_from: Layout
    layout_to: Layout
    figures: dict[str, Figure]
    tokens: int
    max_running_requests: Figure | None
    ranks: list[PlanRank]
    assumptions: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "from": self.layout_from.describe(),
            "to": self.layout_to.describe(),
            "kv_tokens": self.tokens,
            "max_running_requests": self.max_running_requests.to_json() if self.max_running_requests else None,
            "figures": {k: v.to_json() for k, v in self.figures.items()},
            "ranks": [
                {
                    "rank": r.rank,
                    "free_before_weights_gib": r.free_before_weights_gib,
                    "free_after_pool_gib": r.free_after_pool_gib,
                    "margin_gib": r.margin_gib,
                }
                for r in self.ranks
            ],
            "assumptions": self.assumptions,
        }


def _eager_lazy(launch: Launch) -> tuple[float, float, list[str]]:
    cells = launch_cells(launch)
    eager = sum(c.gib for c in cells if c.timing == "eager" and c.gib is not None)
    lazy = sum(c.gib for c in cells if c.timing == "lazy" and c.gib is not None)
    unknown = [f"{c.group}/{c.mechanism}" for c in cells if c.gib is None]
    return eager, lazy, unknown


def _new_launch(run: Launch, layout: Layout, setting: Setting) -> Launch:
    config = dict(run.config)
    config.update(
        tp_size=layout.tp, dp_size=layout.dp, pp_size=layout.pp, ep_size=layout.ep, enable_dp_attention=layout.dp_attention
    )
    if setting.moe_a2a_backend is not None:
        config["moe_a2a_backend"] = setting.moe_a2a_backend
    if setting.deepep_mode is not None:
        config["deepep_mode"] = setting.deepep_mode
    return Launch(id=0, config=config, environment=dict(run.environment), model=dict(run.model), versions=dict(run.versions))


def _layout_to(run: Layout, setting: Setting) -> Layout:
    to = Layout(
        tp=setting.tp or run.tp,
        dp=setting.dp or run.dp,
        pp=setting.pp or run.pp,
        ep=setting.ep or (setting.tp if setting.tp and run.ep == run.tp and run.ep > 1 else run.ep),
        dp_attention=run.dp_attention if setting.dp_attention is None else setting.dp_attention,
    )
    to.stated = {k: True for k in ("tp", "dp", "pp", "ep", "dp_attention")}
    return to


def plan(
    label: str,
    run: Launch,
    sizing: KvSizing,
    setting: Setting,
    model_config: dict[str, Any] | None = None,
    gpu_mem_mib: float | None = None,
) -> Plan:
    """`gpu_mem_mib`: the card's nvidia-smi memory.total, which SGLang's automatic fraction rule divides by."""
    _refuse_unsizable(sizing)
    assert sizing.pre_gib and sizing.post_gib and sizing.tokens and sizing.cell_bytes and sizing.mem_fraction_static
    src = layout_of(run)
    to = _layout_to(src, setting)
    notes: list[str] = []
    figures: dict[str, Figure] = {}
    if not all(src.stated.get(k) for k in ("tp",)):
        notes.append(f"the run's tp size is not stated; read as {src.tp} from its rank tags")
    eager_a, lazy_a, _ = _eager_lazy(_new_launch(run, src, Setting()))  # the run's cells, on its inferred layout
    new = _new_launch(run, to, setting)
    eager_b, lazy_b, unknown_cells = _eager_lazy(new)
    pre = sizing.pre_gib.value + eager_a - eager_b
    figures["free_before_weights_gib"] = Figure(
        round(pre, 2),
        "estimated",
        f"run's {sizing.pre_gib.value:.2f} GiB + its eager comm cells {eager_a:.2f} - "
        f"the new layout's {eager_b:.2f} GiB (communicator sizes from the H200 probe)",
    )
    shard_a, shard_b = src.tp * src.pp, to.tp * to.pp
    loaded = (sizing.loaded_gib or 0.0) * shard_a / shard_b
    figures["weights_gib"] = Figure(
        round(loaded, 2), "estimated", f"run's {sizing.loaded_gib:.2f} GiB x (tp x pp) {shard_a} / {shard_b}"
    )
    notes.append(
        "weights per rank scale with 1 / (tp x pp): replicated parts (norms; attention under DP attention) are not modelled"
    )
    release = launch_release(run.versions, run.sglang_version)
    mfs = _fraction(run, new, sizing, setting, release, gpu_mem_mib, notes)
    figures["mem_fraction_static"] = mfs
    reserved = sizing.reserved_gib.value if sizing.reserved_gib else 0.0
    post = pre - loaded
    budget = post - pre * (1 - mfs.value) - reserved
    figures["budget_gib"] = Figure(
        round(budget, 2),
        "estimated",
        f"{post:.2f} free after weights - {pre:.2f} x (1 - {mfs.value:g}) - {reserved:.2f} reserved",
    )
    cell, cell_fig = _cell(sizing, src, to, setting, model_config, notes, release)
    figures["cell_bytes"] = cell_fig
    page = setting.page_size or int(sizing.page_size.value if sizing.page_size else 1)
    raw = budget * GIB / cell if budget > 0 else 0.0
    tokens = int(raw // page) * page
    cap = setting.max_total_tokens or (sizing.cap_tokens.value if sizing.cap_tokens else None)
    if cap is not None and tokens > cap:
        notes.append(f"max_total_tokens {cap} caps the profiled {tokens}")
        tokens = int(cap)
    figures["kv_gib"] = Figure(round(tokens * cell / GIB, 2), "estimated", "tokens x cell size")
    if budget <= 0:
        notes.append("no KV budget: the weights leave nothing under mem_fraction_static (SGLang refuses to start)")
    requests = _max_running_requests(run, tokens, setting, to, release, notes)
    ranks = _ranks(run, sizing, to, pre - sizing.pre_gib.value, loaded, tokens * cell / GIB, lazy_b - lazy_a, notes)
    if unknown_cells:
        notes.append(
            "cells with no size estimate (left out of the margin; --model-config sizes DeepEP's): " + ", ".join(unknown_cells)
        )
    figures["lazy_comm_gib"] = Figure(
        round(lazy_b, 3), "estimated", f"lazily created cells of the new layout (the run's: {lazy_a:.3f} GiB)"
    )
    return Plan(label, src, to, figures, tokens, requests, ranks, notes)


def _refuse_unsizable(sizing: KvSizing) -> None:
    if sizing.attention == "hybrid":
        raise PlanRefused(
            "the run has hybrid KV pools (sliding-window or Mamba): their split of the budget "
            "depends on the model's layer layout, which the log does not show"
        )
    needs = [
        (sizing.tokens, "a KV pool size (KV Cache is allocated)"),
        (sizing.cell_bytes, "the KV line's size"),
        (sizing.pre_gib, "free memory before the weights (Load weight begin)"),
        (sizing.post_gib, "free memory after the weights (Load weight end)"),
        (sizing.mem_fraction_static, "mem_fraction_static (stated, or inferable from the pool)"),
    ]
    post_capture = [m for m in sizing.missing if "post-capture" in m]
    if post_capture:
        raise PlanRefused(post_capture[0])
    missing = [what for figure, what in needs if figure is None]
    if missing:
        raise PlanRefused("the run does not show " + ", ".join(missing))


def _cell(
    sizing: KvSizing,
    src: Layout,
    to: Layout,
    setting: Setting,
    model_config: dict[str, Any] | None,
    notes: list[str],
    release: ReleaseChoice,
) -> tuple[float, Figure]:
    assert sizing.cell_bytes is not None
    old_bytes = dtype_bytes(sizing.kv_dtype) or 2
    new_bytes = dtype_bytes(setting.kv_cache_dtype) if setting.kv_cache_dtype else old_bytes
    if new_bytes is None:
        raise PlanRefused(f"KV dtype {setting.kv_cache_dtype}: its scale tensors' layout is not modelled")
    if model_config:
        computed = config_cell(model_config, to, new_bytes, release)
        if computed is None:
            raise PlanRefused("the model config lacks num_hidden_layers or the head sizes")
        target, how = computed
        draft = (sizing.draft_cell_bytes.value * target / sizing.cell_bytes.value) if sizing.draft_cell_bytes else 0.0
        return target + draft, Figure(target + draft, "derived", how + (" + draft pool scaled alike" if draft else ""))
    factor = (src.pp / to.pp) * (new_bytes / old_bytes)
    steps: list[str] = []
    if sizing.attention == "MHA" and src.attention_tp != to.attention_tp:
        factor *= src.attention_tp / to.attention_tp
        steps.append(f"x attention tp {src.attention_tp}/{to.attention_tp}")
        notes.append(
            f"MHA cell scaled by attention tp {src.attention_tp}/{to.attention_tp}: assumes the model has at "
            f"least {to.attention_tp} KV heads (fewer are replicated and cost more); --model-config checks it"
        )
    if src.pp != to.pp:
        steps.append(f"x pp {src.pp}/{to.pp}")
    if new_bytes != old_bytes:
        steps.append(f"x dtype {new_bytes:g}/{old_bytes:g} B")
    cell = (sizing.effective_cell or sizing.cell_bytes.value) * factor
    return cell, Figure(
        round(cell, 1),
        "estimated",
        f"run's {sizing.effective_cell:,.0f} B per token " + (" ".join(steps) if steps else "(unchanged by this setting)"),
    )


def _scheduler_summary(run: Launch) -> dict[str, Any]:
    """The run's first scheduler summary (max_total_num_tokens, max_running_requests, context_len), or {}."""
    summary = run.reading(kinds.SCHEDULER_SUMMARY, model=None)
    return {} if summary is None else summary.values


def _fraction(
    run: Launch,
    new: Launch,
    sizing: KvSizing,
    setting: Setting,
    release: ReleaseChoice,
    gpu_mem_mib: float | None,
    notes: list[str],
) -> Figure:
    """The new setting's mem_fraction_static: the one asked for; else, when the run's value is what the release's
    automatic rule gives for the run, the rule applied to the new setting (DeepEP reserve included); else the
    run's (a value the user gave is kept)."""
    assert sizing.mem_fraction_static is not None
    if setting.mem_fraction_static is not None:
        return Figure(setting.mem_fraction_static, "stated", "--mem-fraction-static")
    run_mfs = sizing.mem_fraction_static.value
    kept = Figure(run_mfs, sizing.mem_fraction_static.kind, f"the run's ({sizing.mem_fraction_static.basis}), kept")
    if fraction_on_command(run):
        notes.append(
            "mem_fraction_static is the run's: its launch command gives --mem-fraction-static, so SGLang's "
            "automatic rule did not run; pass --mem-fraction-static to plan another value"
        )
        return kept
    if gpu_mem_mib is None:
        notes.append(
            f"mem_fraction_static is the run's: SGLang {release.version}'s automatic rule divides by the "
            "card's memory.total, which the run's inputs do not show (add its nvidia-smi output); pass "
            "--mem-fraction-static to plan the value you will set"
        )
        return kept
    before = auto_fraction(run.config, release, gpu_mem_mib, uses_mla(run.model), run.environment)
    after = auto_fraction(new.config, release, gpu_mem_mib, uses_mla(new.model), new.environment)
    if before.no_rule or after.no_rule:
        notes.append(
            f"mem_fraction_static is the run's: {before.no_rule or after.no_rule}; pass --mem-fraction-static to "
            "plan the value you will set"
        )
        return kept
    if before.missing or after.missing:
        needs = ", ".join(dict.fromkeys(before.missing + after.missing))
        notes.append(f"mem_fraction_static is the run's: the automatic rule needs {needs}, which the run does not state")
        return kept
    rule = f"SGLang {release.version} automatic rule ({release.span}): round(({gpu_mem_mib:g} - reserved) / {gpu_mem_mib:g}, 3)"
    if before.value is None or abs(before.value - run_mfs) > 0.0005:
        notes.append(
            f"the run's mem_fraction_static {run_mfs:g} is not the automatic rule's {before.value:g} for the run "
            f"({before.describe()}): taken as given by the user and kept"
        )
        return kept
    notes.append(
        f"the run's mem_fraction_static {run_mfs:g} is the automatic rule's value for the run ({before.describe()}): "
        "the rule is applied to the new setting (the server_args dump cannot show whether it was given)"
    )
    if after.assumed:
        notes.append(f"the automatic rule assumed the release's defaults the input does not show: {'; '.join(after.assumed)}")
    deepep = after.part(kinds.DEEPEP_RESERVE) - before.part(kinds.DEEPEP_RESERVE)
    extra = f"; DeepEP reserve {deepep:+g} MiB" if deepep else ""
    return Figure(after.value, "derived", f"{rule}, {after.describe()}{extra}")


def _max_running_requests(
    run: Launch, tokens: int, setting: Setting, to: Layout, release: ReleaseChoice, notes: list[str]
) -> Figure | None:
    """SGLang's request cap: min(min(max(tokens / context_len x 512, 2048), 4096), tokens // 2); a value the user
    sets is divided by the (attention) DP size and clamped by the rule's pool."""
    summary = _scheduler_summary(run)
    ctx = setting.context_length or (int(summary["context_len"]) if summary.get("context_len") is not None else None)
    by = release.record.requests.user_divided_by.value
    dp = to.dp if by == "dp_size" or to.dp_attention else 1
    if setting.max_running_requests is not None:
        value, how = user_requests(setting.max_running_requests, dp, release)
        return Figure(min(value, tokens // 2), "derived", f"{how}, clamped by tokens // 2")
    if ctx is None:
        notes.append(
            "max_running_requests not projected: context length unknown (the run printed no scheduler "
            "summary; pass --context-length)"
        )
        return None
    logged = summary.get("max_running_requests")
    if logged is not None and summary.get("tokens"):
        expect, _ = default_requests(int(summary["tokens"]), ctx, release)
        if expect != int(logged):
            notes.append(
                f"the run logged max_running_requests={logged}, not the default rule's {expect}: set by a "
                "flag or another version; the projection keeps the run's value, clamped by tokens // 2"
            )
            return Figure(min(int(logged), tokens // 2), "derived", f"the run's {logged}, clamped by tokens // 2")
    value, how = default_requests(tokens, ctx, release)
    return Figure(value, "derived", f"SGLang {release.version}: {how}")


def _ranks(
    run: Launch, sizing: KvSizing, to: Layout, pre_shift: float, loaded: float, kv_gib: float, lazy_extra: float, notes: list[str]
) -> list[PlanRank]:
    """One row per rank of the new layout: its own free memory (the run's rank at the same TP position, else the
    lowest), what the pool leaves, and the margin after the run's graph memory and the new lazy cells."""
    assert sizing.pre_gib and sizing.post_gib
    own: dict[int, float] = {}
    for timeline in run.ranks.values():
        reading = free_before_weights(timeline)
        tp = timeline.rank.get("tp")
        if reading is not None and tp is not None:
            own[tp] = reading[0]
    kv_run = sizing.kv_gib.value if sizing.kv_gib else 0.0
    other = None
    if sizing.pool_end_gib is not None:  # what the run's pool init took besides the KV pool (req-to-token map, ...)
        other = max(0.0, sizing.post_gib.value - kv_run - sizing.pool_end_gib.value)
    else:
        notes.append("the run printed no Memory pool end: the free memory after the pool leaves out the request pool")
    graphs = sizing.graphs_gib.value if sizing.graphs_gib else None
    if graphs is None:
        notes.append("the run shows no finished CUDA graph capture: the margin is before graphs")
    else:
        notes.append(f"CUDA graphs take what they took in the run ({graphs:.2f} GiB), assumed unchanged")
    rows = []
    world = to.tp * to.pp
    for index in range(world):
        tp_rank = index % to.tp
        free_pre = own.get(tp_rank, sizing.pre_gib.value) + pre_shift
        after_pool = free_pre - loaded - kv_gib - (other or 0.0)
        margin = after_pool - (graphs or 0.0) - lazy_extra
        label = f"PP{index // to.tp} TP{tp_rank}" if to.pp > 1 else f"TP{tp_rank}"
        rows.append(PlanRank(label, round(free_pre, 2), round(after_pool, 2), round(margin, 2)))
    if not own:
        notes.append("the run's per-rank free memory is unknown: every rank is given the lowest reading")
    return rows
