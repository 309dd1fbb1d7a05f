"""Two launches side by side: provenance, the settings that differ, each phase's free memory, the ledgers and
cells of matched ranks, and the change in KV tokens split into its causes.

The token change is split in two parts that add up, plus what cannot be attributed:
  budget  (at A's cell size): free before weights x mem_fraction_static, weights, mem_fraction_static, reservations
  cell    (at B's budget):    budget_B / cell_B - budget_B / cell_A
  rest:   page floor, caps and the print rounding of the readings, shown on its own line, never folded in."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from logscope.core import kinds, phases
from logscope.core.cell import Cell, Timing
from logscope.core.model import Analysis, Launch, RankTimeline
from logscope.memory_model.fraction import auto_fraction, uses_mla
from logscope.memory_model.kv_pool import GIB, PRINT_HALF_STEP, Figure, KvSizing, dtype_bytes, kv_sizing, target_reading
from logscope.memory_model.releases import launch_release

# settings that identify a run rather than configure it: never reported as a difference
RUN_IDENTITY = frozenset(
    {
        "port",
        "host",
        "nccl_port",
        "random_seed",
        "dist_init_addr",
        "file_storage_path",
        "served_model_name",
        "log_requests",
        "log_level",
        "log_level_http",
        "api_key",
        "admin_api_key",
        "decrypted_config_file",
        "decrypted_draft_config_file",
        "metrics_http_port",
        "bootstrap_port",
        "disaggregation_bootstrap_port",
        "node_rank",
        "model_loader_extra_config",
        "download_dir",
        "tokenizer_path",
    }
)
VERSION_KEYS = ("sglang", "torch", "nccl", "cuda", "driver", "flashinfer", "transformers", "sgl_kernel", "triton")


@dataclass
class Part:
    """One cause of the KV token change: its size in GiB of budget (when it is one), in tokens, and why."""

    name: str
    tokens: float
    gib: float | None
    kind: str  # measured | derived | inferred | unattributed
    evidence: str
    lines: list[str] = field(default_factory=list)  # "A source:line" of the readings the part comes from

    def to_json(self) -> dict[str, Any]:
        return {
            "part": self.name,
            "tokens": round(self.tokens, 1),
            "gib": None if self.gib is None else round(self.gib, 4),
            "kind": self.kind,
            "evidence": self.evidence,
            "lines": self.lines,
        }


def _lines(*pairs: tuple[str, Figure | None]) -> list[str]:
    return [f"{side} {fig.source}:{fig.line}" for side, fig in pairs if fig is not None and fig.source and fig.line]


@dataclass
class Attribution:
    tokens_a: int | None
    tokens_b: int | None
    parts: list[Part] = field(default_factory=list)
    unattributed_reason: str | None = None
    rounding_bound_tokens: float | None = None

    @property
    def change(self) -> int | None:
        return None if self.tokens_a is None or self.tokens_b is None else self.tokens_b - self.tokens_a

    def to_json(self) -> dict[str, Any]:
        return {
            "tokens_a": self.tokens_a,
            "tokens_b": self.tokens_b,
            "change": self.change,
            "parts": [p.to_json() for p in self.parts],
            "unattributed_reason": self.unattributed_reason,
            "rounding_bound_tokens": None if self.rounding_bound_tokens is None else round(self.rounding_bound_tokens, 1),
        }


@dataclass
class Side:
    label: str  # the inputs as given
    analysis: Analysis
    launch: Launch
    sizing: KvSizing


@dataclass
class Diff:
    a: Side
    b: Side
    provenance: list[dict[str, Any]]
    settings: list[dict[str, Any]]
    settings_one_side: list[dict[str, Any]]
    matching: str
    pairs: list[tuple[str | None, str | None]]
    phases: list[dict[str, Any]]
    ledger: list[dict[str, Any]]
    cells: list[CellRow]
    attribution: Attribution

    def headline(self) -> str:
        n = len(self.settings)
        if n == 0:
            changed = "no stated setting differs"
        elif n == 1:
            s = self.settings[0]
            changed = f"single variable: {s['key']} {s['a']} -> {s['b']}"
        else:
            changed = f"{n} settings differ"
        causes = [f"{s['key']}: {s['cause']}" for s in self.settings if s.get("cause")]
        if causes:
            changed += " (" + "; ".join(causes) + ")"
        t = self.attribution
        if t.change is None:
            return f"{changed}; KV tokens not comparable ({t.unattributed_reason})"
        return f"{changed}; KV tokens {t.tokens_a:,} -> {t.tokens_b:,} ({t.change:+,})"

    def to_json(self) -> dict[str, Any]:
        return {
            "a": _side_json(self.a),
            "b": _side_json(self.b),
            "headline": self.headline(),
            "provenance": self.provenance,
            "settings": self.settings,
            "settings_one_side": self.settings_one_side,
            "matching": self.matching,
            "pairs": [list(p) for p in self.pairs],
            "phases": self.phases,
            "ledger": self.ledger,
            "cells": [row.to_json() for row in self.cells],
            "kv_tokens": self.attribution.to_json(),
        }


def _side_json(side: Side) -> dict[str, Any]:
    return {"inputs": side.label, "launch": side.launch.id, "ranks": sorted(side.launch.ranks), "sizing": side.sizing.to_json()}


def side(label: str, analysis: Analysis, launch: Launch, model_config: dict[str, Any] | None = None) -> Side:
    """The KV sizing is the pipeline's (the analysis ran the stage with the same model config)."""
    sizing = analysis.kv_sizing.get(launch.id)
    return Side(label, analysis, launch, sizing if sizing is not None else kv_sizing(launch, model_config))


def diff(a: Side, b: Side) -> Diff:
    pairs, matching = match_ranks(a.launch, b.launch)
    settings, one_side = setting_delta(a.launch, b.launch)
    _explain_fraction(a, b, settings)
    attribution = attribute(a.sizing, b.sizing)
    cause = next((s["cause"] for s in settings if s["key"] == "mem_fraction_static" and s.get("cause")), None)
    for part in attribution.parts:
        if cause and part.name == "budget: mem_fraction_static":
            part.evidence += f"; {cause}"
    return Diff(
        a,
        b,
        provenance(a, b),
        settings,
        one_side,
        matching,
        pairs,
        _phase_rows(a.launch, b.launch, pairs),
        _ledger_rows(a, b, pairs),
        _cell_rows(a, b, pairs),
        attribution,
    )


# ---------------------------------------------------------------- provenance and settings
def _versions(side: Side) -> dict[str, str]:
    return {**side.analysis.join.versions, **side.launch.versions}


def provenance(a: Side, b: Side) -> list[dict[str, Any]]:
    va, vb = _versions(a), _versions(b)
    keys = [k for k in VERSION_KEYS if k in va or k in vb] + sorted((set(va) | set(vb)) - set(VERSION_KEYS))
    rows = [{"what": k, "a": va.get(k, "unknown"), "b": vb.get(k, "unknown"), "same": _same(va.get(k), vb.get(k))} for k in keys]
    head = []
    for what, key in (("model", "path"), ("architecture", "architecture")):
        x, y = a.launch.model.get(key), b.launch.model.get(key)
        if x is not None or y is not None:
            head.append({"what": what, "a": x or "unknown", "b": y or "unknown", "same": _same(x, y)})
    return head + rows


def _same(x: Any, y: Any) -> bool | None:
    """True or False when both sides state it; None (unknown) when one does not."""
    return None if x is None or y is None else x == y


def flat_settings(launch: Launch) -> dict[str, Any]:
    """Every stated server argument (the dump's or the command's, else the settings logscope read) and the
    environment, as one flat map."""
    out: dict[str, Any] = {}
    base = launch.server_args or launch.config
    for key, value in base.items():
        if isinstance(value, dict):
            for sub, inner in value.items():
                out[f"{key}.{sub}"] = inner
        else:
            out[key] = value
    for key, value in launch.config.items():
        out.setdefault(key, value)
    for key, value in launch.environment.items():
        out[f"env.{key}"] = value
    return out


def _norm(value: Any) -> Any:
    text = str(value).strip().strip("'\"")
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("none", "null"):
        return None
    try:
        number = float(text)
        return int(number) if number.is_integer() else number
    except ValueError:
        return text


def setting_delta(a: Launch, b: Launch) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    fa, fb = flat_settings(a), flat_settings(b)
    differ, one_side = [], []
    for key in sorted(set(fa) | set(fb)):
        if key in RUN_IDENTITY:
            continue
        if key in fa and key in fb:
            if _norm(fa[key]) != _norm(fb[key]):
                differ.append({"key": key, "a": _norm(fa[key]), "b": _norm(fb[key])})
        else:
            one_side.append(
                {
                    "key": key,
                    "a": _norm(fa[key]) if key in fa else "not stated",
                    "b": _norm(fb[key]) if key in fb else "not stated",
                }
            )
    return differ, one_side


def _card_mib(side: Side) -> float | None:
    totals = [g["memory_total_mib"] for g in side.analysis.join.gpus if g.get("memory_total_mib")]
    return min(totals) if totals else None


def _explain_fraction(a: Side, b: Side, settings: list[dict[str, Any]]) -> None:
    """A mem_fraction_static change that the release's automatic rule explains: name the term that moved (the
    DeepEP reserve when one side runs DeepEP), when each side's value is that rule's for its own config."""
    row = next((s for s in settings if s["key"] == "mem_fraction_static"), None)
    if row is None:
        return
    rules = []
    for side in (a, b):
        release = launch_release(side.launch.versions, side.launch.sglang_version)
        rules.append(
            (
                release,
                auto_fraction(side.launch.config, release, _card_mib(side), uses_mla(side.launch.model), side.launch.environment),
            )
        )
    (ra, fa), (rb, fb) = rules
    reserve_a, reserve_b = fa.part(kinds.DEEPEP_RESERVE), fb.part(kinds.DEEPEP_RESERVE)
    if reserve_a == reserve_b:
        return
    deepep_side = "B" if reserve_b > reserve_a else "A"
    release = rb if reserve_b > reserve_a else ra
    text = (
        f"the DeepEP reserve: SGLang {release.version}'s automatic rule reserves "
        f"{abs(reserve_b - reserve_a):g} MiB more on {deepep_side} (moe_a2a_backend deepep, decode graphs on, not "
        f"a prefill node; {release.record.deepep.reserve_mib.at})"
    )
    names = dict.fromkeys(name for name, _, _ in fa.parts + fb.parts if name != kinds.DEEPEP_RESERVE)
    moved = [(name, fb.part(name) - fa.part(name)) for name in names if fb.part(name) != fa.part(name)]
    if moved:
        text += "; with it, B - A: " + ", ".join(f"{name} {mib:+g} MiB" for name, mib in moved)
    if fa.value is not None and fb.value is not None:
        matches = abs(fa.value - float(row["a"])) <= 0.0005 and abs(fb.value - float(row["b"])) <= 0.0005
        text += f"; the rule gives {fa.value:g} -> {fb.value:g}" + (
            ", as logged" if matches else ", not the logged values: a fraction was given by hand"
        )
    else:
        text += "; the card's memory.total is not in the input, so the rule's values are not checked"
    row["cause"] = text


# ---------------------------------------------------------------- ranks, phases, ledgers, cells
def _position(timeline: RankTimeline, label: str) -> tuple[Any, ...]:
    rank = timeline.rank
    return (
        rank.get("pp") or 0,
        rank.get("dp") or 0,
        rank.get("tp") if rank.get("tp") is not None else rank.get("rank") or 0,
        rank.get("ep") or 0,
        label,
    )


def match_ranks(a: Launch, b: Launch) -> tuple[list[tuple[str | None, str | None]], str]:
    """Ranks paired by their position in the parallel layout (PP stage, DP replica, TP rank)."""
    ra = [label for label, _ in sorted(a.ranks.items(), key=lambda kv: _position(kv[1], kv[0]))]
    rb = [label for label, _ in sorted(b.ranks.items(), key=lambda kv: _position(kv[1], kv[0]))]
    n = max(len(ra), len(rb))
    pairs = [(ra[i] if i < len(ra) else None, rb[i] if i < len(rb) else None) for i in range(n)]
    if len(ra) == len(rb):
        how = f"{len(ra)} rank(s) on each side, paired by position (PP stage, DP replica, TP rank)"
    else:
        how = (
            f"A has {len(ra)} rank(s), B has {len(rb)}: paired by position (PP stage, DP replica, TP rank); "
            f"the {abs(len(ra) - len(rb))} extra rank(s) of {'A' if len(ra) > len(rb) else 'B'} have no partner"
        )
    return pairs, how


def _avail(timeline: RankTimeline | None, phase: str) -> float | None:
    reading = target_reading(timeline, phase, "avail_gib") if timeline is not None else None
    return reading.values["avail_gib"] if reading is not None else None


def _delta(x: float | None, y: float | None) -> float | None:
    return None if x is None or y is None else round(y - x, 2)


def _phase_rows(a: Launch, b: Launch, pairs: list[tuple[str | None, str | None]]) -> list[dict[str, Any]]:
    rows = []
    for phase in phases.PHASES:
        if phase.progress:
            continue
        for ra, rb in pairs:
            x = _avail(a.ranks.get(ra) if ra else None, phase.id)
            y = _avail(b.ranks.get(rb) if rb else None, phase.id)
            if x is not None or y is not None:
                rows.append({"phase": phase.id, "rank_a": ra, "rank_b": rb, "a_gib": x, "b_gib": y, "delta_gib": _delta(x, y)})
    return rows


def _ledger_rows(a: Side, b: Side, pairs: list[tuple[str | None, str | None]]) -> list[dict[str, Any]]:
    rows = []
    for ra, rb in pairs:
        la = a.analysis.ledgers.get((a.launch.id, ra)) if ra else None
        lb = b.analysis.ledgers.get((b.launch.id, rb)) if rb else None
        ia = {_ledger_key(i): i for i in (la.items if la else [])}
        ib = {_ledger_key(i): i for i in (lb.items if lb else [])}
        for item in list(dict.fromkeys([*ia, *ib])):
            x = ia[item]["gib"] if item in ia else None
            y = ib[item]["gib"] if item in ib else None
            kinds = {i["kind"] for i in (ia.get(item), ib.get(item)) if i}
            rows.append(
                {
                    "item": item,
                    "rank_a": ra,
                    "rank_b": rb,
                    "a_gib": x,
                    "b_gib": y,
                    "delta_gib": _delta(x, y),
                    "kind": "measured" if kinds == {"measured"} else "/".join(sorted(kinds)),
                }
            )
    return rows


def _ledger_key(item: dict[str, Any]) -> str:
    """Items are compared only when they measure the same span: "free" at capture end is not "free" at pool end."""
    if "at" in item:
        return f"{item['item']} (at {item['at']})"
    if "between" in item:
        return f"{item['item']} ({item['between'][0]} -> {item['between'][1]})"
    return str(item["item"])


@dataclass(frozen=True)
class CellRow:
    """One (group, mechanism) cell of the first matched ranks, as A and B hold it (None: that side has none)."""

    group: str
    mechanism: str
    a: Cell | None
    b: Cell | None

    @property
    def a_gib(self) -> float | None:
        return self.a.gib if self.a else None

    @property
    def b_gib(self) -> float | None:
        return self.b.gib if self.b else None

    @property
    def delta_gib(self) -> float | None:
        """B - A, a missing cell counting 0; None where a side's cell has no size."""
        if any(c is not None and c.gib is None for c in (self.a, self.b)):
            return None
        return _delta(self.a_gib or 0.0, self.b_gib or 0.0)

    @property
    def kind(self) -> str:
        return "/".join(sorted({c.kind for c in (self.a, self.b) if c}))

    @property
    def timing(self) -> Timing:
        return cast(Cell, self.a or self.b).timing

    def to_json(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "mechanism": self.mechanism,
            "a_gib": self.a_gib,
            "b_gib": self.b_gib,
            "delta_gib": self.delta_gib,
            "kind": self.kind,
            "timing": self.timing,
        }


def _cell_rows(a: Side, b: Side, pairs: list[tuple[str | None, str | None]]) -> list[CellRow]:
    ra = next((p[0] for p in pairs if p[0]), None)
    rb = next((p[1] for p in pairs if p[1]), None)
    ca = a.analysis.ledgers[(a.launch.id, ra)].cells if ra else []
    cb = b.analysis.ledgers[(b.launch.id, rb)].cells if rb else []
    ma, mb = {(c.group, c.mechanism): c for c in ca}, {(c.group, c.mechanism): c for c in cb}
    return [CellRow(k[0], k[1], ma.get(k), mb.get(k)) for k in dict.fromkeys([*ma, *mb])]


# ---------------------------------------------------------------- the KV token change
def _rounding_bound(s: KvSizing) -> float:
    """Tokens the printed readings can move the implied count by: each GiB printed to 0.01, the budget built
    from two of them (pre weighted by 1 - mem_fraction_static), plus the page floor and the cell's rounding."""
    mfs = s.mem_fraction_static.value if s.mem_fraction_static else 0.0
    cell = s.effective_cell or 1.0
    budget_gib = PRINT_HALF_STEP * (1 + (1 - mfs)) * GIB / cell
    tokens = s.implied_tokens or 0.0
    return budget_gib + (tokens * s.cell_half_width / cell) + (s.page_size.value if s.page_size else 1)


def attribute(a: KvSizing, b: KvSizing) -> Attribution:
    ta = int(a.tokens.value) if a.tokens else None
    tb = int(b.tokens.value) if b.tokens else None
    out = Attribution(ta, tb)
    if ta is None or tb is None:
        out.unattributed_reason = (
            "; ".join(f"{side}: {m}" for side, s in (("A", a), ("B", b)) for m in s.missing[:1]) or "a KV pool size is missing"
        )
        return out
    change = tb - ta
    if a.budget_gib is None or b.budget_gib is None or a.effective_cell is None or b.effective_cell is None:
        reasons = [
            f"{side}: {'; '.join(s.missing) or 'budget unknown'}"
            for side, s in (("A", a), ("B", b))
            if s.budget_gib is None or s.effective_cell is None
        ]
        out.unattributed_reason = "; ".join(reasons)
        out.parts.append(Part("not attributable", change, None, "unattributed", out.unattributed_reason))
        return out
    out.parts += _budget_parts(a, b)
    out.parts += _cell_parts(a, b)
    out.rounding_bound_tokens = _rounding_bound(a) + _rounding_bound(b)
    out.parts.append(_rest_part(a, b, change, out.rounding_bound_tokens))
    return out


def _budget_parts(a: KvSizing, b: KvSizing) -> list[Part]:
    """budget_B - budget_A = mfs_A (pre_B - pre_A) - (loaded_B - loaded_A) + pre_B (mfs_B - mfs_A) - (res_B - res_A),
    each converted to tokens at A's cell size. Free before weights splits further, on the limiting ranks, into
    what init distributed took (eager communicators) and the free memory before it (card, context, others)."""
    assert a.pre_gib and b.pre_gib and a.post_gib and b.post_gib and a.mem_fraction_static and b.mem_fraction_static
    cell_a = a.effective_cell or 1.0
    mfs_a, mfs_b = a.mem_fraction_static.value, b.mem_fraction_static.value
    pre_a, pre_b = a.pre_gib.value, b.pre_gib.value
    res_a = a.reserved_gib.value if a.reserved_gib else 0.0
    res_b = b.reserved_gib.value if b.reserved_gib else 0.0
    parts: list[tuple[str, float, str, str, list[str]]] = []
    limiting = f"({a.pre_gib.rank} -> {b.pre_gib.rank})"
    if a.limiting_init_gib is not None and b.limiting_init_gib is not None:
        ua, ub = a.limiting_init_gib.value, b.limiting_init_gib.value
        parts.append(
            (
                "eager communicators (init distributed)",
                -mfs_a * (ub - ua),
                "measured",
                f"Init torch distributed mem usage {ua:.2f} -> {ub:.2f} GiB on the limiting ranks {limiting} x "
                f"mem_fraction_static {mfs_a:g}",
                _lines(("A", a.limiting_init_gib), ("B", b.limiting_init_gib)),
            )
        )
        parts.append(
            (
                "free before init (card, context, other processes)",
                mfs_a * ((pre_b + ub) - (pre_a + ua)),
                "measured",
                f"free before init distributed {pre_a + ua:.2f} -> {pre_b + ub:.2f} GiB (MIN free "
                f"before weights + init mem usage) x {mfs_a:g}",
                _lines(("A", a.pre_gib), ("B", b.pre_gib)),
            )
        )
    else:
        parts.append(
            (
                "free before weights",
                mfs_a * (pre_b - pre_a),
                "measured",
                f"MIN free before weights {pre_a:.2f} -> {pre_b:.2f} GiB {limiting} x mem_fraction_static {mfs_a:g} "
                "(no init mem usage on both sides to split off the communicators)",
                _lines(("A", a.pre_gib), ("B", b.pre_gib)),
            )
        )
    parts.append(
        (
            "weights (MIN free after loading)",
            -((pre_b - b.post_gib.value) - (pre_a - a.post_gib.value)),
            "measured",
            f"loading took {a.loaded_gib:.2f} -> {b.loaded_gib:.2f} GiB on the limiting ranks "
            f"(MIN free after weights {a.post_gib.value:.2f} -> {b.post_gib.value:.2f} GiB)",
            _lines(("A", a.post_gib), ("B", b.post_gib)),
        )
    )
    parts.append(
        (
            "mem_fraction_static",
            pre_b * (mfs_b - mfs_a),
            "inferred" if "inferred" in (a.mem_fraction_static.kind, b.mem_fraction_static.kind) else "stated",
            f"{mfs_a:g} ({a.mem_fraction_static.kind}) -> {mfs_b:g} ({b.mem_fraction_static.kind}) x "
            f"free before weights {pre_b:.2f} GiB",
            [],
        )
    )
    kinds = {a.reserved_gib.kind if a.reserved_gib else "assumed", b.reserved_gib.kind if b.reserved_gib else "assumed"}
    parts.append(
        (
            "reservations",
            -(res_b - res_a),
            "measured" if kinds == {"measured"} else "assumed",
            f"{res_a:.2f} -> {res_b:.2f} GiB reserved from the KV budget",
            _lines(("A", a.reserved_gib), ("B", b.reserved_gib)),
        )
    )
    return [Part(f"budget: {name}", gib * GIB / cell_a, gib, kind, evidence, cited) for name, gib, kind, evidence, cited in parts]


def _cell_parts(a: KvSizing, b: KvSizing) -> list[Part]:
    """The bytes-per-token change at B's budget, one step per cause: each step multiplies the cell by a factor the
    stated settings give (draft pool, KV heads per rank, layers per PP stage, dtype); what the settings do not
    explain is its own step. Step k is worth budget_B x (1 / cell_k - 1 / cell_k-1) tokens; the steps telescope
    to budget_B x (1 / cell_B - 1 / cell_A)."""
    assert a.cell_bytes and b.cell_bytes and a.budget_gib and b.budget_gib
    budget = b.budget_gib.value * GIB
    target_a, target_b = a.cell_bytes.value, b.cell_bytes.value
    draft_a = a.draft_cell_bytes.value if a.draft_cell_bytes else 0.0
    draft_b = b.draft_cell_bytes.value if b.draft_cell_bytes else 0.0
    cited = _lines(("A", a.cell_bytes), ("B", b.cell_bytes), ("A", a.draft_cell_bytes), ("B", b.draft_cell_bytes))
    steps: list[tuple[str, float, str, str]] = []  # (name, effective cell after the step, kind, evidence)
    current = target_a + draft_a
    if draft_a != draft_b:  # the draft pool, at A's target layout
        scaled = draft_b * target_a / target_b
        steps.append(
            (
                "cell: draft model pool",
                target_a + scaled,
                "derived",
                f"draft bytes per token {draft_a:,.0f} -> {draft_b:,.0f} (draft pools share the budget)",
            )
        )
        current = target_a + scaled
    for name, factor, kind, evidence in _cell_factors(a, b):
        current *= factor
        steps.append((name, current, kind, evidence))
    final = target_b + draft_b
    if abs(current - final) > 0.5:
        steps.append(
            (
                "cell: not explained by the stated settings",
                final,
                "unattributed",
                f"bytes per token {current:,.0f} after the steps above, {final:,.0f} logged (model, quantisation "
                "or a setting the inputs do not state)",
            )
        )
    parts = []
    previous = target_a + draft_a
    for name, cell, kind, evidence in steps:
        parts.append(Part(name, budget * (1 / cell - 1 / previous), None, kind, evidence, cited))
        previous = cell
    if not parts:
        parts.append(Part("cell size", 0.0, None, "derived", f"{target_a:,.0f} B per token on both sides", cited))
    else:
        parts[-1].tokens += budget * (1 / final - 1 / previous)  # rounding of the last step's cell to the logged one
    return parts


def _cell_factors(a: KvSizing, b: KvSizing) -> list[tuple[str, float, str, str]]:
    la, lb = a.layout, b.layout
    out = []
    if la.attention_tp != lb.attention_tp:
        if a.attention == "MLA":
            pass  # MLA's latent cache is not divided by TP: no factor
        elif a.kv_heads is not None:
            ha, hb = max(1, a.kv_heads // la.attention_tp), max(1, a.kv_heads // lb.attention_tp)
            out.append(
                (
                    "cell: KV heads per rank",
                    hb / ha,
                    "derived",
                    f"max(1, {a.kv_heads} KV heads // attention tp) {ha} -> {hb} (attention tp "
                    f"{la.attention_tp} -> {lb.attention_tp}; config.json)",
                )
            )
        else:
            out.append(
                (
                    "cell: KV heads per rank",
                    la.attention_tp / lb.attention_tp,
                    "assumed",
                    f"attention tp {la.attention_tp} -> {lb.attention_tp}, heads not replicated (no config.json)",
                )
            )
    if la.pp != lb.pp:
        if a.layers is not None:
            sa, sb = -(-a.layers // la.pp), -(-a.layers // lb.pp)
            out.append(
                ("cell: layers per PP stage", sb / sa, "derived", f"{sa} -> {sb} layers per stage (pp {la.pp} -> {lb.pp})")
            )
        else:
            out.append(("cell: layers per PP stage", la.pp / lb.pp, "assumed", f"pp {la.pp} -> {lb.pp}, layers split evenly"))
    ba, bb = dtype_bytes(a.kv_dtype), dtype_bytes(b.kv_dtype)
    if ba and bb and ba != bb:
        out.append(("cell: KV dtype", bb / ba, "derived", f"{a.kv_dtype} -> {b.kv_dtype} ({ba:g} -> {bb:g} B per element)"))
    return out


def _rest_part(a: KvSizing, b: KvSizing, change: int, bound: float) -> Part:
    implied_a, implied_b = a.implied_tokens or 0.0, b.implied_tokens or 0.0
    rest = change - (implied_b - implied_a)
    capped = [
        side
        for side, s, t, i in (("A", a, a.tokens, implied_a), ("B", b, b.tokens, implied_b))
        if s.cap_tokens is not None
        and t is not None
        and t.value == s.cap_tokens.value
        and t.value < i - (s.page_size.value if s.page_size else 1)
    ]
    if capped:
        return Part("caps", rest, None, "stated", f"max_total_tokens caps {' and '.join(capped)} below the profiled size")
    within = abs(rest) <= bound
    return Part(
        "page floor and print rounding" if within else "unexplained",
        rest,
        None,
        "unattributed",
        f"logged minus implied tokens; the readings' rounding allows +/- {bound:,.0f}"
        + ("" if within else ": beyond it (a reservation, cap or version difference the inputs do not show)"),
    )
