"""Two launches side by side: provenance, the settings that differ, each phase's free memory, the ledgers and
cells of matched ranks, and the change in KV tokens split into its causes.

The token change is split in two parts that add up, plus what cannot be attributed:
  budget  (at A's cell size): free before weights x mem_fraction_static, weights, mem_fraction_static, reservations
  cell    (at B's budget):    budget_B / cell_B - budget_B / cell_A
  rest:   page floor, caps and the print rounding of the readings, shown on its own line, never folded in."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from logscope import phases
from logscope.compare.sizing import GIB, PRINT_HALF_STEP, Figure, KvSizing, kv_sizing
from logscope.model import Analysis, Launch, RankTimeline

# settings that identify a run rather than configure it: never reported as a difference
RUN_IDENTITY = frozenset({
    "port", "host", "nccl_port", "random_seed", "dist_init_addr", "file_storage_path", "served_model_name",
    "log_requests", "log_level", "log_level_http", "api_key", "admin_api_key", "decrypted_config_file",
    "decrypted_draft_config_file", "metrics_http_port", "bootstrap_port", "disaggregation_bootstrap_port",
    "node_rank", "model_loader_extra_config", "download_dir", "tokenizer_path",
})
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
        return {"part": self.name, "tokens": round(self.tokens, 1), "gib": None if self.gib is None else round(self.gib, 4),
                "kind": self.kind, "evidence": self.evidence, "lines": self.lines}


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
        return {"tokens_a": self.tokens_a, "tokens_b": self.tokens_b, "change": self.change,
                "parts": [p.to_json() for p in self.parts], "unattributed_reason": self.unattributed_reason,
                "rounding_bound_tokens": None if self.rounding_bound_tokens is None
                else round(self.rounding_bound_tokens, 1)}


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
    cells: list[dict[str, Any]]
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
        t = self.attribution
        if t.change is None:
            return f"{changed}; KV tokens not comparable ({t.unattributed_reason})"
        return f"{changed}; KV tokens {t.tokens_a:,} -> {t.tokens_b:,} ({t.change:+,})"

    def to_json(self) -> dict[str, Any]:
        return {
            "a": _side_json(self.a), "b": _side_json(self.b), "headline": self.headline(),
            "provenance": self.provenance, "settings": self.settings, "settings_one_side": self.settings_one_side,
            "matching": self.matching, "pairs": [list(p) for p in self.pairs], "phases": self.phases,
            "ledger": self.ledger, "cells": self.cells, "kv_tokens": self.attribution.to_json(),
        }


def _side_json(side: Side) -> dict[str, Any]:
    return {"inputs": side.label, "launch": side.launch.id, "ranks": sorted(side.launch.ranks),
            "sizing": side.sizing.to_json()}


def side(label: str, analysis: Analysis, launch: Launch, model_config: dict[str, Any] | None = None) -> Side:
    return Side(label, analysis, launch, kv_sizing(analysis, launch, model_config))


def diff(a: Side, b: Side) -> Diff:
    pairs, matching = match_ranks(a.launch, b.launch)
    settings, one_side = setting_delta(a.launch, b.launch)
    return Diff(a, b, provenance(a, b), settings, one_side, matching, pairs,
                _phase_rows(a.launch, b.launch, pairs), _ledger_rows(a, b, pairs), _cell_rows(a, b, pairs),
                attribute(a.sizing, b.sizing))


# ---------------------------------------------------------------- provenance and settings
def _versions(side: Side) -> dict[str, str]:
    return {**side.analysis.join.versions, **side.launch.versions}


def provenance(a: Side, b: Side) -> list[dict[str, Any]]:
    va, vb = _versions(a), _versions(b)
    keys = [k for k in VERSION_KEYS if k in va or k in vb] + sorted((set(va) | set(vb)) - set(VERSION_KEYS))
    rows = [{"what": k, "a": va.get(k, "unknown"), "b": vb.get(k, "unknown"), "same": _same(va.get(k), vb.get(k))}
            for k in keys]
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
            one_side.append({"key": key, "a": _norm(fa[key]) if key in fa else "not stated",
                             "b": _norm(fb[key]) if key in fb else "not stated"})
    return differ, one_side


# ---------------------------------------------------------------- ranks, phases, ledgers, cells
def _position(timeline: RankTimeline, label: str) -> tuple:
    rank = timeline.rank
    return (rank.get("pp") or 0, rank.get("dp") or 0, rank.get("tp") if rank.get("tp") is not None
            else rank.get("rank") or 0, rank.get("ep") or 0, label)


def match_ranks(a: Launch, b: Launch) -> tuple[list[tuple[str | None, str | None]], str]:
    """Ranks paired by their position in the parallel layout (PP stage, DP replica, TP rank)."""
    ra = [label for label, _ in sorted(a.ranks.items(), key=lambda kv: _position(kv[1], kv[0]))]
    rb = [label for label, _ in sorted(b.ranks.items(), key=lambda kv: _position(kv[1], kv[0]))]
    n = max(len(ra), len(rb))
    pairs = [(ra[i] if i < len(ra) else None, rb[i] if i < len(rb) else None) for i in range(n)]
    if len(ra) == len(rb):
        how = f"{len(ra)} rank(s) on each side, paired by position (PP stage, DP replica, TP rank)"
    else:
        how = (f"A has {len(ra)} rank(s), B has {len(rb)}: paired by position (PP stage, DP replica, TP rank); "
               f"the {abs(len(ra) - len(rb))} extra rank(s) of {'A' if len(ra) > len(rb) else 'B'} have no partner")
    return pairs, how


def _avail(timeline: RankTimeline | None, phase: str) -> float | None:
    if timeline is None:
        return None
    reading = next((p for p in timeline.phases if p.phase == phase and p.model == "target"
                    and "avail_gib" in p.values), None)
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
                rows.append({"phase": phase.id, "rank_a": ra, "rank_b": rb, "a_gib": x, "b_gib": y,
                             "delta_gib": _delta(x, y)})
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
            rows.append({"item": item, "rank_a": ra, "rank_b": rb, "a_gib": x, "b_gib": y, "delta_gib": _delta(x, y),
                         "kind": "measured" if kinds == {"measured"} else "/".join(sorted(kinds))})
    return rows


def _ledger_key(item: dict[str, Any]) -> str:
    """Items are compared only when they measure the same span: "free" at capture end is not "free" at pool end."""
    if "at" in item:
        return f"{item['item']} (at {item['at']})"
    if "between" in item:
        return f"{item['item']} ({item['between'][0]} -> {item['between'][1]})"
    return item["item"]


def _cell_rows(a: Side, b: Side, pairs: list[tuple[str | None, str | None]]) -> list[dict[str, Any]]:
    ra = next((p[0] for p in pairs if p[0]), None)
    rb = next((p[1] for p in pairs if p[1]), None)
    ca = a.analysis.ledgers[(a.launch.id, ra)].cells if ra else []
    cb = b.analysis.ledgers[(b.launch.id, rb)].cells if rb else []
    key = lambda c: (c["group"], c["mechanism"])  # noqa: E731
    ma, mb = {key(c): c for c in ca}, {key(c): c for c in cb}
    rows = []
    for k in list(dict.fromkeys([*ma, *mb])):
        x, y = ma.get(k), mb.get(k)
        rows.append({"group": k[0], "mechanism": k[1], "a_gib": x["gib"] if x else None, "b_gib": y["gib"] if y else None,
                     "delta_gib": _delta(x["gib"] if x else 0.0, y["gib"] if y else 0.0)
                     if (x is None or x["gib"] is not None) and (y is None or y["gib"] is not None) else None,
                     "kind": "/".join(sorted({c["kind"] for c in (x, y) if c})),
                     "timing": (x or y)["timing"]})
    return rows


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
        out.unattributed_reason = "; ".join(f"{side}: {m}" for side, s in (("A", a), ("B", b)) for m in s.missing[:1]) \
            or "a KV pool size is missing"
        return out
    change = tb - ta
    if a.budget_gib is None or b.budget_gib is None or a.effective_cell is None or b.effective_cell is None:
        reasons = [f"{side}: {'; '.join(s.missing) or 'budget unknown'}" for side, s in (("A", a), ("B", b))
                   if s.budget_gib is None or s.effective_cell is None]
        out.unattributed_reason = "; ".join(reasons)
        out.parts.append(Part("not attributable", change, None, "unattributed", out.unattributed_reason))
        return out
    cell_a, cell_b = a.effective_cell, b.effective_cell
    assert a.pre_gib and b.pre_gib and a.post_gib and b.post_gib and a.mem_fraction_static and b.mem_fraction_static
    mfs_a, mfs_b = a.mem_fraction_static.value, b.mem_fraction_static.value
    pre_a, pre_b = a.pre_gib.value, b.pre_gib.value
    res_a = a.reserved_gib.value if a.reserved_gib else 0.0
    res_b = b.reserved_gib.value if b.reserved_gib else 0.0
    mfs_kind = "inferred" if "inferred" in (a.mem_fraction_static.kind, b.mem_fraction_static.kind) else "derived"
    budget_parts = [
        ("free before weights", mfs_a * (pre_b - pre_a), "measured",
         f"MIN free before weights {pre_a:.2f} -> {pre_b:.2f} GiB ({a.pre_gib.rank} -> {b.pre_gib.rank}) x "
         f"mem_fraction_static {mfs_a:g}" + _init_note(a, b)),
        ("weights (MIN free after loading)", -((pre_b - b.post_gib.value) - (pre_a - a.post_gib.value)), "measured",
         f"loading took {a.loaded_gib:.2f} -> {b.loaded_gib:.2f} GiB on the limiting ranks "
         f"(MIN free after weights {a.post_gib.value:.2f} -> {b.post_gib.value:.2f} GiB)"),
        ("mem_fraction_static", pre_b * (mfs_b - mfs_a), mfs_kind,
         f"{mfs_a:g} ({a.mem_fraction_static.kind}) -> {mfs_b:g} ({b.mem_fraction_static.kind}) x "
         f"free before weights {pre_b:.2f} GiB"),
        ("reservations", -(res_b - res_a), "measured" if "measured" in (
            a.reserved_gib.kind if a.reserved_gib else "", b.reserved_gib.kind if b.reserved_gib else "") else "assumed",
         f"{res_a:.2f} -> {res_b:.2f} GiB reserved from the KV budget"),
    ]
    lines = [_lines(("A", a.pre_gib), ("B", b.pre_gib), ("A", a.init_usage_gib), ("B", b.init_usage_gib)),
             _lines(("A", a.post_gib), ("B", b.post_gib)), [], _lines(("A", a.reserved_gib), ("B", b.reserved_gib))]
    for (name, gib, kind, evidence), cited in zip(budget_parts, lines, strict=True):
        out.parts.append(Part(f"budget: {name}", gib * GIB / cell_a, gib, kind, evidence, cited))
    budget_b = b.budget_gib.value
    cell_tokens = budget_b * GIB * (1 / cell_b - 1 / cell_a)
    out.parts.append(Part("cell size", cell_tokens, None, "derived",
                          f"{cell_a:,.0f} -> {cell_b:,.0f} B per token at B's budget {budget_b:.2f} GiB"
                          + _cell_cause(a, b), _lines(("A", a.cell_bytes), ("B", b.cell_bytes),
                                                      ("A", a.draft_cell_bytes), ("B", b.draft_cell_bytes))))
    implied_a, implied_b = a.implied_tokens or 0.0, b.implied_tokens or 0.0
    rest = change - (implied_b - implied_a)
    capped = [side for side, s, t, i in (("A", a, ta, implied_a), ("B", b, tb, implied_b))
              if s.cap_tokens is not None and t == s.cap_tokens.value and t < i - (s.page_size.value if s.page_size else 1)]
    out.rounding_bound_tokens = _rounding_bound(a) + _rounding_bound(b)
    if capped:
        out.parts.append(Part("caps", rest, None, "stated",
                              f"max_total_tokens caps {' and '.join(capped)} below the profiled size"))
    else:
        within = abs(rest) <= out.rounding_bound_tokens
        out.parts.append(Part("page floor and print rounding" if within else "unexplained", rest, None, "unattributed",
                              f"logged minus implied tokens; the readings' rounding allows +/- "
                              f"{out.rounding_bound_tokens:,.0f}" + ("" if within else
                              ": beyond it (a reservation, cap or version difference the inputs do not show)")))
    return out


def _init_note(a: KvSizing, b: KvSizing) -> str:
    if a.init_usage_gib is None or b.init_usage_gib is None:
        return ""
    return (f"; of it, Init torch distributed mem usage {a.init_usage_gib.value:.2f} -> {b.init_usage_gib.value:.2f} "
            "GiB (eager communicators)")


def _cell_cause(a: KvSizing, b: KvSizing) -> str:
    causes = []
    la, lb = a.layout, b.layout
    if la.attention_tp != lb.attention_tp:
        causes.append(f"attention tp {la.attention_tp} -> {lb.attention_tp}" +
                      (" (MLA: not divided by TP)" if a.attention == "MLA" else ""))
    if la.pp != lb.pp:
        causes.append(f"pp {la.pp} -> {lb.pp} (layers per stage)")
    if (a.kv_dtype or "") != (b.kv_dtype or ""):
        causes.append(f"KV dtype {a.kv_dtype or 'unknown'} -> {b.kv_dtype or 'unknown'}")
    if (a.draft_cell_bytes is None) != (b.draft_cell_bytes is None):
        causes.append("draft model pool " + ("added" if b.draft_cell_bytes else "removed"))
    if a.attention != b.attention:
        causes.append(f"attention {a.attention} -> {b.attention}")
    return ("; with " + ", ".join(causes)) if causes else ""
