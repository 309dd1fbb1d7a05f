"""The view-model of a diff or plan document (logscope/1 with a `diff` or `plan` section): a headline, a few
facts, titled tables and notes, computed once; report/text, markdown and html only style it, as they style
the analyze page's view-model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from logscope.report.view import LedgerView


@dataclass(frozen=True, slots=True)
class Section:
    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    right: tuple[int, ...] = ()  # numeric columns, right-aligned
    wrapped: tuple[int, ...] = ()  # prose columns, wrapped to the width instead of kept on one line


@dataclass(frozen=True, slots=True)
class WaterfallStep:
    name: str
    start: float  # tokens where the bar starts
    end: float  # tokens where it ends
    value: float  # the step's own value (the total for the two totals)
    kind: str  # "total", or how the part is known (measured, inferred, unattributed, ...)


@dataclass(frozen=True, slots=True)
class CompareView:
    kind: str  # "diff" or "plan"
    headline: str
    severity: str  # "ok", or "error" when a planned rank has no margin left
    facts: tuple[str, ...]
    sections: tuple[Section, ...]
    notes: tuple[str, ...]
    waterfall: tuple[WaterfallStep, ...] | None = None  # diff only: A's KV tokens, each part, B's
    waterfall_missing: str | None = None  # why there is no waterfall
    ledger: LedgerView | None = None  # plan only: per rank, the projected memory stacked as the ledger chart draws it


def build_compare_view(doc: dict[str, Any]) -> CompareView:
    return _diff(doc["diff"]) if "diff" in doc else _plan(doc["plan"])


def gib(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def signed(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{round(value, digits) + 0.0:+.{digits}f}"


def tokens(value: float | None) -> str:
    return "-" if value is None else f"{round(value) + 0:+,}"


def figure(fig: dict[str, Any] | None, unit: str = "") -> str:
    if fig is None:
        return "unknown"
    value = fig["value"]
    if isinstance(value, float) and value.is_integer() and unit != " GiB":
        value = int(value)
    shown = f"{value:,.2f}" if isinstance(value, float) else f"{value:,}" if isinstance(value, int) else str(value)
    return f"{shown}{unit} ({fig['kind']})"


_SIZING_ROWS = (
    ("pre_gib", "MIN free before weights", " GiB"),
    ("post_gib", "MIN free after weights", " GiB"),
    ("mem_fraction_static", "mem_fraction_static", ""),
    ("reserved_gib", "reserved", " GiB"),
    ("budget_gib", "KV budget", " GiB"),
    ("cell_bytes", "bytes per token", " B"),
    ("draft_cell_bytes", "draft bytes per token", " B"),
    ("tokens", "KV tokens", ""),
    ("kv_gib", "KV pool", " GiB"),
    ("page_size", "page size", ""),
)
_SAME = {True: "", False: "differs", None: "one side unknown"}


def _diff(d: dict[str, Any]) -> CompareView:
    sections = [
        Section(
            "Provenance",
            ("", "A", "B", ""),
            tuple((r["what"], str(r["a"]), str(r["b"]), _SAME[r["same"]]) for r in d["provenance"]),
            wrapped=(1, 2),
        )
    ]
    if d["settings"]:
        caused = any(s.get("cause") for s in d["settings"])  # a setting SGLang changed because of another
        sections.append(
            Section(
                "Settings that differ",
                ("setting", "A", "B") + (("cause",) if caused else ()),
                tuple((s["key"], str(s["a"]), str(s["b"])) + ((s.get("cause", ""),) if caused else ()) for s in d["settings"]),
                wrapped=(1, 2, 3) if caused else (1, 2),
            )
        )
    if d["settings_one_side"]:
        sections.append(
            Section(
                "Settings stated on one side only",
                ("setting", "A", "B"),
                tuple((s["key"], str(s["a"]), str(s["b"])) for s in d["settings_one_side"][:40]),
                wrapped=(1, 2),
            )
        )
    sa, sb = d["a"]["sizing"], d["b"]["sizing"]
    sizing = tuple(
        (label, figure(sa.get(key), unit), figure(sb.get(key), unit))
        for key, label, unit in _SIZING_ROWS
        if sa.get(key) is not None or sb.get(key) is not None
    )
    sections.append(Section("KV sizing (SGLang's profile formula)", ("", "A", "B"), sizing))
    kv = d["kv_tokens"]
    if kv["parts"]:
        rows = [
            (
                p["part"],
                tokens(p["tokens"]),
                signed(p["gib"], 3) if p["gib"] is not None else "",
                p["kind"],
                p["evidence"] + (f" [{', '.join(p['lines'])}]" if p["lines"] else ""),
            )
            for p in kv["parts"]
        ]
        total = sum(p["tokens"] for p in kv["parts"])
        rows.append(("total (logged change)", tokens(kv["change"]), "", "", f"the parts sum to {total:+,.0f}"))
        sections.append(
            Section(
                "Why the KV tokens changed",
                ("part", "tokens", "GiB", "how known", "evidence"),
                tuple(rows),
                right=(1, 2),
                wrapped=(0, 4),
            )
        )
    phases = tuple(
        (r["phase"], f"{r['rank_a'] or '-'} / {r['rank_b'] or '-'}", gib(r["a_gib"]), gib(r["b_gib"]), signed(r["delta_gib"]))
        for r in d["phases"]
    )
    if phases:
        sections.append(
            Section("Free memory by phase (GiB, measured)", ("phase", "ranks A / B", "A", "B", "change"), phases, right=(2, 3, 4))
        )
    ledger = tuple(
        (
            r["item"],
            f"{r['rank_a'] or '-'} / {r['rank_b'] or '-'}",
            gib(r["a_gib"]),
            gib(r["b_gib"]),
            signed(r["delta_gib"]),
            r["kind"],
        )
        for r in d["ledger"]
    )
    if ledger:
        sections.append(
            Section("Ledger (GiB)", ("item", "ranks A / B", "A", "B", "change", "kind"), ledger, right=(2, 3, 4), wrapped=(0,))
        )
    if d["cells"]:
        sections.append(
            Section(
                "Cells (GiB per rank)",
                ("group", "mechanism", "A", "B", "change", "kind", "timing"),
                tuple(
                    (
                        c["group"],
                        c["mechanism"],
                        gib(c["a_gib"]),
                        gib(c["b_gib"]),
                        signed(c["delta_gib"], 3),
                        c["kind"],
                        c["timing"],
                    )
                    for c in d["cells"]
                ),
                right=(2, 3, 4),
            )
        )
    notes = []
    if kv["unattributed_reason"] and not kv["parts"]:
        notes.append(f"Not attributed: {kv['unattributed_reason']}")
    notes += [f"{side.upper()}: {m}" for side in ("a", "b") for m in d[side]["sizing"]["missing"]]
    facts = (
        f"A: {d['a']['inputs']} (launch {d['a']['launch']}, {d['a']['sizing']['layout']})",
        f"B: {d['b']['inputs']} (launch {d['b']['launch']}, {d['b']['sizing']['layout']})",
        f"Ranks: {d['matching']}",
    )
    steps, missing = _waterfall(kv)
    return CompareView("diff", d["headline"], "ok", facts, tuple(sections), tuple(notes), steps, missing)


def _waterfall(kv: dict[str, Any]) -> tuple[tuple[WaterfallStep, ...] | None, str | None]:
    if kv["tokens_a"] is None or kv["tokens_b"] is None:
        return None, kv["unattributed_reason"] or "a pool size is missing"
    a, b = float(kv["tokens_a"]), float(kv["tokens_b"])
    steps, level = [WaterfallStep("A", 0.0, a, a, "total")], a
    for part in kv["parts"]:
        steps.append(WaterfallStep(part["part"], level, level + part["tokens"], part["tokens"], part["kind"]))
        level += part["tokens"]
    steps.append(WaterfallStep("B", 0.0, b, b, "total"))
    return tuple(steps), None


def _plan(p: dict[str, Any]) -> CompareView:
    req = p["max_running_requests"]
    facts = (
        f"From the run {p['run']} ({p['from']}) to {p['to']}",
        "max_running_requests: " + (f"{req['value']:,} ({req['kind']}: {req['basis']})" if req else "not projected"),
    )
    figures = tuple((name, figure(fig), fig["basis"]) for name, fig in p["figures"].items())
    ranks = tuple(
        (r["rank"], gib(r["free_before_weights_gib"]), gib(r["free_after_pool_gib"]), gib(r["margin_gib"])) for r in p["ranks"]
    )
    sections = (
        Section("Figures", ("figure", "value", "how"), figures, wrapped=(2,)),
        Section(
            "Per rank (GiB, estimated)",
            ("rank", "free before weights", "free after the KV pool", "margin after graphs and lazy cells"),
            ranks,
            right=(1, 2, 3),
        ),
        Section(
            "Assumptions",
            ("#", "assumption"),
            tuple((str(i + 1), a) for i, a in enumerate(p["assumptions"])),
            right=(0,),
            wrapped=(1,),
        ),
    )
    risky = any(r["margin_gib"] is not None and r["margin_gib"] < 0 for r in p["ranks"])
    return CompareView(
        "plan",
        f"KV tokens per rank: {p['kv_tokens']:,} (estimated)",
        "error" if risky else "ok",
        facts,
        sections,
        (),
        ledger=_plan_ledger(p["ranks"]),
    )


def _plan_ledger(ranks: list[dict[str, Any]]) -> LedgerView | None:
    """free before weights = (weights and pools) + (graphs and lazy cells) + margin, per rank."""
    shown = [r for r in ranks if None not in (r["free_before_weights_gib"], r["free_after_pool_gib"], r["margin_gib"])]
    if not shown:
        return None
    rows = (
        (
            "weights and pools",
            "estimated",
            tuple(round(r["free_before_weights_gib"] - r["free_after_pool_gib"], 2) for r in shown),
        ),
        ("graphs and lazy cells", "estimated", tuple(round(r["free_after_pool_gib"] - r["margin_gib"], 2) for r in shown)),
        ("margin", "estimated", tuple(r["margin_gib"] for r in shown)),
    )
    return LedgerView(None, "", tuple(r["rank"] for r in shown), len(shown), rows)
