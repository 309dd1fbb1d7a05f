"""The view-model: what people's formats show, computed once from the logscope/1 document. Text, Markdown
(and any later styling) only style these sections; none of them re-derives a number."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from logscope.core import kinds, phases
from logscope.core.cell import Cell
from logscope.core.excerpt import cut_around

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
SPREAD_HIGHLIGHT_PCT = 10.0  # a free-memory spread across ranks above this is highlighted
EVIDENCE_LINES = 4
EVIDENCE_CHARS = 160
LEDGER_RANKS = 8
TOPOLOGY_LINKS = 28
# the ledger items a phase allocates by design: a drop of free memory at their phase is expected
EXPECTED_DROPS = frozenset({"weights", "kv_pool", "cuda_graphs"})
# a drop above this at a phase that allocates nothing by design is unexpected (the unexplained-memory rule's floor)
UNEXPECTED_DROP_GIB = 0.5


@dataclass(frozen=True, slots=True)
class PhaseCell:
    value: Any = None
    drop: float | None = None  # measured drop since the previous reading (free-memory columns)
    tokens: int | None = None  # KV pool column: its token count
    unexpected: bool = False  # a drop above UNEXPECTED_DROP_GIB that the phase does not explain


@dataclass(frozen=True, slots=True)
class Spread:
    low: Any
    high: Any
    spread: float
    pct: float
    hot: bool  # a free-memory column whose spread is above SPREAD_HIGHLIGHT_PCT


@dataclass(frozen=True, slots=True)
class TimelineRow:
    rank: str
    gpu: str  # "3?" when assumed, "" when unknown
    cells: tuple[PhaseCell, ...]
    last_capture: tuple[Any, float] | None  # (batch size or tokens, free GiB) of the last capture reading


@dataclass(frozen=True, slots=True)
class Timeline:
    titles: tuple[str, ...]
    keys: tuple[str, ...]
    rows: tuple[TimelineRow, ...]
    spreads: tuple[Spread | None, ...] | None  # None with a single rank
    explained: tuple[bool, ...] = ()  # per column: the phase allocates by design, so its drop is expected


@dataclass(frozen=True, slots=True)
class LedgerView:
    total_gib: float | None  # the card total when every shown rank has the same one
    total_source: str
    ranks: tuple[str, ...]
    rank_count: int
    rows: tuple[tuple[str, str, tuple[float | None, ...]], ...]  # (item, kind, GiB per shown rank)
    init_note: str | None = None  # the measured mem usage of SGLang's init line, which no single item shows


@dataclass(frozen=True, slots=True)
class TpGroupView:
    ranks: tuple[str, ...]
    gpus: tuple[int, ...]
    path: str
    links: str  # "NV18 x6, ..."


@dataclass(frozen=True, slots=True)
class LaunchView:
    id: int
    rank_count: int
    config: tuple[tuple[str, Any, str], ...]  # (key, value, source)
    lower_bounds: tuple[tuple[str, int, str], ...]
    model: tuple[tuple[str, Any], ...]
    versions: tuple[tuple[str, str], ...]
    sglang: str  # the SGLang release and how it is known ("" when neither stated nor inferable)
    environment: tuple[tuple[str, str], ...]
    tp_groups: tuple[TpGroupView, ...]
    timeline: Timeline | None
    ledger: LedgerView | None
    cells_rank: str | None
    cells: tuple[Cell, ...]
    gantt: tuple[str, tuple[tuple[str, str, str], ...]] | None  # (rank, (segment, start, end) times)
    rank_segments: tuple[tuple[str, tuple[tuple[str, str, str], ...]], ...] = ()  # every rank's timed segments


@dataclass(frozen=True, slots=True)
class Evidence:
    source: str
    name: str  # the file name without its folders
    line: int
    text: str


@dataclass(frozen=True, slots=True)
class CaseLine:
    """A known case a failure finding matched (the document's `known_cases` section)."""

    ref: str  # owner/name#N
    url: str
    title: str
    score: float
    reason: str  # what it shares and how it ended
    release_note: str | None  # "fixed in 0.5.17; this log is 0.5.16 (stated)"

    @property
    def said(self) -> str:
        return f"{self.reason}" + (f" ({self.release_note})" if self.release_note else "") + f"; score {self.score:.2f}"


@dataclass(frozen=True, slots=True)
class FindingView:
    severity: str
    rule: str
    message: str
    hint: str | None
    launch: int | None
    ranks: tuple[str, ...]
    evidence: tuple[Evidence, ...]
    cases: tuple[CaseLine, ...] = ()
    cases_note: str | None = None  # "No known case with signature ..." when none matched


@dataclass(frozen=True, slots=True)
class ReportView:
    version: str
    launches: tuple[LaunchView, ...]
    versions: tuple[tuple[str, str], ...]  # of the inputs, shown when there is no launch
    gpus: tuple[dict[str, Any], ...]
    topology: str | None
    findings: tuple[FindingView, ...]
    coverage: dict[str, Any]
    missing_phases: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = field(default=())  # (launch, ranks, phases)
    calibration: str | None = None  # "h200-ws1.yaml (NVIDIA H200, world size 1; torch ..., NCCL ...)"
    verdict: str = ""  # one line: the top finding with its numbers, or what was read when nothing was found
    outside_ledgers: tuple[tuple[int, str], ...] = ()  # (GPU index, "a + b + ... + unexplained x")
    shown: str | None = None  # what a budget left undrawn (report/shown.py), or None when all is drawn
    # with no finding: the lines that read like a failure and that no signature names (the verdict says so, never an
    # all-clear), else None
    unread_failures: str | None = None


def fmt_gib(value: Any) -> str:
    return "" if value is None else (f"{value:.2f}" if isinstance(value, float) else str(value))


# (title, value) of the GPU table; each styling picks the columns it shows
GPU_COLUMNS: tuple[tuple[str, Callable[[dict[str, Any]], Any]], ...] = (
    ("gpu", lambda g: str(g["index"])),
    ("name", lambda g: g.get("name")),
    ("cc", lambda g: g.get("compute_capability")),
    ("total MiB", lambda g: g.get("memory_total_mib")),
    ("reserved MiB", lambda g: g.get("driver_reserved_mib")),
    ("used MiB", lambda g: g.get("memory_used_mib")),
    ("free MiB", lambda g: g.get("memory_free_mib")),
    ("card total GiB", lambda g: g.get("card_total_gib")),
    ("MiB, columns not named", lambda g: ", ".join(map(str, g.get("unlabelled_mib", []))) or None),
    ("outside allocator MiB", lambda g: g.get("outside_allocator_mib")),
    (
        "processes",
        lambda g: ", ".join(_process_cell(p) for p in g.get("processes", [])) or None,
    ),
    (
        "MIG (gi used/total MiB)",
        lambda g: ", ".join(f"{m['gi']}: {m['memory_used_mib']}/{m['memory_total_mib']}" for m in g.get("mig", [])) or None,
    ),
    ("ranks (assumed)", lambda g: ", ".join(g.get("ranks", [])) or None),
)


def build_view(report: dict[str, Any]) -> ReportView:
    links = report["topology"]["links"]
    topology = None
    if links:
        topology = ", ".join(f"GPU{a}-GPU{b} {k}" for a, b, k in links[:TOPOLOGY_LINKS]) + (
            f" (+{len(links) - TOPOLOGY_LINKS} more)" if len(links) > TOPOLOGY_LINKS else ""
        )
    cov = report["coverage"]
    return ReportView(
        version=report["logscope_version"],
        launches=tuple(_launch(launch) for launch in report["launches"] if _has_content(launch)),
        versions=tuple(report["versions"].items()) if not report["launches"] else (),
        gpus=tuple(report["gpus"]),
        topology=topology,
        findings=tuple(_finding(f, _cases_of(report, f)) for f in sorted(report["findings"], key=finding_order)),
        coverage=cov,
        missing_phases=_missing(cov["missing_phases"]),
        calibration=_calibration(report.get("calibration")),
        verdict=_verdict(report) + _read_limits(report),
        outside_ledgers=tuple((g["index"], _outside_ledger(g)) for g in report["gpus"] if g.get("outside_allocator_ledger")),
        shown=shown_statement(report),
        unread_failures=None if report["findings"] else unread_failures_statement(cov),
    )


def shown_statement(report: dict[str, Any]) -> str | None:
    """The sentence on what a page or comment left undrawn (report/shown.py), or None when it drew it all."""
    shown = report.get("shown")
    if not shown:
        return None
    parts = [f"{shown['launches']:,} of {plural(shown['of_launches'], 'launch')}"]
    if shown["ranks"] < shown["of_ranks"]:
        parts.append(f"{shown['ranks']:,} of {plural(shown['of_ranks'], 'rank')} (at most {shown['ranks_per_launch']} a launch)")
    if shown["findings"] < shown["of_findings"]:
        rules = ", ".join(f"{rule} x{n:,}" for rule, n in shown["findings_left_out"].items())
        parts.append(f"{shown['findings']:,} of {plural(shown['of_findings'], 'finding')} (left out: {rules})")
    return "Drawn within this report's budget: " + "; ".join(parts) + ". logscope run locally on the input draws all of it."


def unread_failures_statement(cov: dict[str, Any]) -> str | None:
    """How many lines read like a failure that no signature names (the coverage lists them), or None when none do."""
    count = len(cov.get("unmatched_failures", []))
    if not count:
        return None
    reads = "reads" if count == 1 else "read"
    return f"{plural(count, 'line')} {reads} like a failure that no signature names"


def plural(count: int, word: str) -> str:
    if count == 1:
        return f"{count} {word}"
    return f"{count} {word}" + ("es" if word.endswith(("ch", "sh", "s", "x")) else "s")


VERDICT_CHARS = 150  # two lines of 80 columns, less what word wrapping loses
# how a message places its failure, which the finding below the verdict says in full
# (a basis may hold one parenthesis of its own: "after line 5, uvicorn up: ... (its warmup request comes next)")
_INNER = r"(?:[^()]|\([^()]*\))*"
_BASIS = re.compile(
    rf" \((?:no phase line of this rank{_INNER}|after the {_INNER}|after line \d+{_INNER}|frame {_INNER}"
    r"|the [\w-]+ signature|Capture cuda graph failed)\)"
)


def _verdict(report: dict[str, Any]) -> str:
    findings = sorted(report["findings"], key=finding_order)
    if findings:
        top = findings[0]
        more = (report.get("shown") or {}).get("of_findings", len(findings)) - 1  # those a budget left undrawn too
        head = f"{top['severity']} [{top['rule']}] "
        tail = f" (+{plural(more, 'more finding')})" if more else ""
        return head + short_sentence(top["message"], VERDICT_CHARS - len(head) - len(tail)) + tail
    ranks = sum(len(launch["ranks"]) for launch in report["launches"])
    cov = report["coverage"]
    unread = unread_failures_statement(cov)
    but = f", but {unread} (listed below)" if unread else ""  # a failure logscope could not name is no all-clear
    if cov["recognized_lines"] == 0:
        return f"no SGLang startup found: none of the {plural(cov['lines'], 'line')} read was recognised{but}"
    launches = plural(len(report["launches"]), "launch")
    if cov.get("repeated_launches"):
        launches = f"{plural(len(report['launches']) + cov['repeated_launches']['launches'], 'launch')}, {launches} in full"
    read = f"{plural(cov['lines'], 'line')} ({launches}, {plural(ranks, 'rank')}, {plural(len(report['gpus']), 'GPU')})"
    if unread:  # say what is known, and what is not
        return f"no known failure or memory problem found in {read}{but}"
    return f"no startup problem found in {read}"


def prefixed_statement(cov: dict[str, Any]) -> str | None:
    """The coverage's sentence on SGLang-prefixed startup lines that no grammar reads (and on where the judging
    stopped), or None when there are none and nothing stopped it early."""
    found = cov.get("prefixed_unread") or {"lines": 0, "catalogued": 0, "uvicorn": 0, "new_wording": 0}
    capped = any(e["why"] == "cap" for e in cov.get("startup_ends", []))
    if not found["lines"] and not capped:
        return None
    by_source: dict[str, list[str]] = {}
    for e in cov.get("startup_ends", []):
        by_source.setdefault(e["source"].rsplit("/", 1)[-1], []).append(
            f"{e['from']}-{e['line'] - 1}" + (" (judging stopped there: too many prefixed lines)" if e["why"] == "cap" else "")
        )
    ends = ", ".join(f"{name} lines {', '.join(spans)}" for name, spans in by_source.items())
    if cov.get("startup_ends_total", 0) > len(cov.get("startup_ends", [])):
        ends += f" (the first {len(cov['startup_ends'])} of {cov['startup_ends_total']:,} listed)"
    explained = [
        plural(n, word) for n, word in ((found["catalogued"], "catalogued wording"), (found["uvicorn"], "uvicorn line")) if n
    ]
    parts = [f"explained: {', '.join(explained)}"] if explained else []
    if found["new_wording"]:
        parts.append(f"listed: {plural(found['new_wording'], 'new wording')} that no catalogued release prints")
    counts = f" ({'; '.join(parts)})" if parts else ""
    return f"startup lines with SGLang's prefix that no grammar reads: {found['lines']}{counts}" + (
        f"; startup parts: {ends}" if ends else ""
    )


def _read_limits(report: dict[str, Any]) -> str:
    """What the bounds on reading left out (logscope/core/limits.py), said with the verdict so no format hides it."""
    parts = [f"{i['path']} {i['stopped']}" for i in report["inputs"] if i.get("stopped")]
    cov = report["coverage"]
    if cov.get("cut_lines"):
        parts.append(f"{plural(cov['cut_lines'], 'line')} longer than {cov['line_cap_bytes'] >> 20} MiB cut there")
    if cov.get("elided_lines"):
        cap, count = cov["read_cap_bytes"] >> 10, cov["elided_lines"]
        their = "its" if count == 1 else "their"
        parts.append(f"{plural(count, 'line')} longer than {2 * cap} KiB read as {their} first and last {cap} KiB")
    if cov.get("repeated_launches"):
        parts.append(repeated_statement(cov["repeated_launches"]))
    if cov.get("left_out"):
        parts.append("left out: " + "; ".join(cov["left_out"]))
    limits = f"; read limits: {'; '.join(parts)}" if parts else ""
    return limits + "".join(_stopped_statement(launch) for launch in report["launches"] if launch.get("stopped_by_user"))


def _stopped_statement(launch: dict[str, Any]) -> str:
    """A launch that `logscope run` stopped at the user's request: what followed is its shutdown, no crash."""
    stop = launch["stopped_by_user"]
    after = f"; {plural(stop['failures_after'], 'failure line')} after it read as the shutdown" if stop["failures_after"] else ""
    return (
        f"; launch {launch['id']} stopped by the user ({stop['signal']} forwarded by logscope run "
        f"{stop['t_s']:.1f} s after the start, after line {stop['line']:,}{after})"
    )


def repeated_statement(repeated: dict[str, Any]) -> str:
    """The sentence on a crash loop's launches that were aggregated rather than kept in full."""
    first, last = repeated["ids"]
    line_from, line_to = repeated["lines"]
    where = f", lines {line_from:,}-{line_to:,} of {', '.join(repeated['sources'])}" if line_from is not None else ""
    failures = "; ".join(f"{n:,}x {text}" for text, n in repeated["failures"].items())
    return (
        f"{plural(repeated['launches'], 'repeated launch')} aggregated (launches {first:,}-{last:,}{where}: "
        f"{repeated['ready']:,} got ready, {repeated['failed']:,} failed{': ' + failures if failures else ''}); "
        f"full detail for the first and last launches and the first of each distinct failure "
        f"({plural(repeated['kept_in_full'], 'launch')})"
    )


_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z(])")  # a sentence ends before a capital, not inside "0.5.23" or "e.g. x"


def short_sentence(message: str, budget: int) -> str:
    """A finding's message for the verdict: its own words with their numbers, less the phase basis; when longer
    than `budget`, its first sentences that fit, else the first sentence cut at a clause boundary (then a word).
    Never at a colon: what a colon introduces (the phases seen, the error text) is the point of the sentence."""
    text = _BASIS.sub("", message)
    if len(text) <= budget:
        return text
    budget -= len(" [...]")
    ends = [m.end() for m in _SENTENCE_END.finditer(text) if m.end() <= budget]
    if ends:
        return text[: ends[-1]].rstrip() + " [...]"
    for mark in ("; ", ", "):
        cut = text.rfind(mark, budget // 2, budget - 1)
        if cut > 0:
            return text[:cut] + " [...]"
    cut = text.rfind(" ", budget // 2, budget - 1)
    return text[: cut if cut > 0 else budget - 1] + " [...]"


def _calibration(summary: dict[str, Any] | None) -> str | None:
    if summary is None:
        return None
    name = summary["path"].rsplit("/", 1)[-1]
    return (
        f"{name} ({summary.get('gpu') or 'unknown GPU'}, world size {summary['world_size']}; "
        f"torch {summary.get('torch') or 'unknown'}, NCCL {summary.get('nccl') or 'unknown'})"
    )


def _outside_ledger(gpu: dict[str, Any]) -> str:
    items = gpu["outside_allocator_ledger"]
    parts = " + ".join(f"{i['item']} {i['mib']:.2f}" for i in items if i["item"] != "unexplained")
    residual = next((i["mib"] for i in items if i["item"] == "unexplained"), None)
    return f"{gpu['outside_allocator_mib']:.2f} MiB outside the PyTorch allocator = {parts} (probe, MiB)" + (
        "" if residual is None else f", unexplained {residual:+.2f} MiB"
    )


def _has_content(launch: dict[str, Any]) -> bool:
    return bool(launch["ranks"] or launch["config"] or launch["versions"] or launch["model"] or launch["environment"])


def finding_order(finding: dict[str, Any]) -> tuple[int, int, str]:
    return SEVERITY_ORDER.get(finding["severity"], 9), finding.get("launch") or 0, finding["rule"]


def known_cases_line(finding: FindingView, quote: Callable[[str], str]) -> str:
    """One line of a finding's known cases for Markdown (links; `quote` makes the prose safe for the styling)."""
    if not finding.cases:
        return quote(finding.cases_note or "")
    return "; ".join(f"[{c.ref}]({c.url}) {quote(c.said)}" for c in finding.cases)


def _cases_of(report: dict[str, Any], finding: dict[str, Any]) -> dict[str, Any] | None:
    """The `known_cases` entry of a failure finding (same rule, launch and signature), or None."""
    section = report.get("known_cases") or {}
    return next(
        (
            e
            for e in section.get("findings", [])
            if (e["rule"], e.get("launch"), e.get("signature"))
            == (finding["rule"], finding.get("launch"), finding.get("signature"))
        ),
        None,
    )


def _case_lines(entry: dict[str, Any] | None) -> tuple[CaseLine, ...]:
    if entry is None:
        return ()
    return tuple(
        CaseLine(m["case"], m["url"], m["title"], m["score"], m["reason"], m.get("release_note")) for m in entry["matches"]
    )


def _finding(finding: dict[str, Any], cases: dict[str, Any] | None = None) -> FindingView:
    evidence = tuple(
        Evidence(
            ev["source"],
            ev["source"].rsplit("/", 1)[-1],
            ev["line"],
            cut_around(ev["text"], ev.get("focus"), EVIDENCE_CHARS).rstrip(),
        )
        for ev in finding.get("evidence", [])[:EVIDENCE_LINES]
    )
    return FindingView(
        finding["severity"],
        finding["rule"],
        finding["message"],
        finding.get("hint"),
        finding.get("launch"),
        tuple(finding.get("ranks") or ()),
        evidence,
        _case_lines(cases),
        None if cases is None else cases.get("statement"),
    )


def _missing(per_launch: dict[str, dict[str, list[str]]]) -> tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]:
    out = []
    for launch_id, per_rank in per_launch.items():
        groups: dict[tuple[str, ...], list[str]] = {}
        for rank, missing in per_rank.items():
            groups.setdefault(tuple(missing), []).append(rank)
        out += [(launch_id, tuple(ranks), missing) for missing, ranks in groups.items()]
    return tuple(out)


def sglang_statement(found: dict[str, Any]) -> str:
    """ "0.5.23 (stated by check_env ...)" / "0.5.22 to 0.5.23 (inferred from ...)"; "" when unknown."""
    if found.get("version"):
        text = f"{found['version']} ({found['how']})"
        if found.get("disagrees"):
            text += f"; {found['disagrees']}"
        return text
    if found.get("range"):
        low, high = found["range"]
        span = low if low == high else f"{low} to {high}"
        return f"{span} among the catalogued releases ({found['how']})"
    return ""


def _launch(launch: dict[str, Any]) -> LaunchView:
    ranks = launch["ranks"]
    with_ledger = [r for r in ranks if r["ledger"]]
    first_cells = ranks[0]["cells"] if ranks else []
    return LaunchView(
        id=launch["id"],
        rank_count=len(ranks),
        config=tuple((k, v, launch["config_source"][k]) for k, v in launch["config"].items()),
        lower_bounds=tuple((k, v["at_least"], v["basis"]) for k, v in launch.get("config_lower_bounds", {}).items()),
        model=tuple(launch["model"].items()),
        versions=tuple(launch["versions"].items()),
        sglang=sglang_statement(launch.get("sglang_version", {})),
        environment=tuple(launch["environment"].items()),
        tp_groups=tuple(
            TpGroupView(
                tuple(g["ranks"]),
                tuple(g["gpus"]),
                g["path"],
                ", ".join(f"{kind} x{count}" for kind, count in g["links"].items()),
            )
            for g in launch.get("tp_groups", [])
        ),
        timeline=_timeline(ranks) if ranks else None,
        ledger=_ledger(with_ledger, len(with_ledger)) if with_ledger else None,
        cells_rank=ranks[0]["rank"] if first_cells else None,
        cells=tuple(Cell.from_json(c) for c in first_cells),
        gantt=_gantt(ranks),
        rank_segments=tuple((r["rank"], tasks) for r in ranks if (tasks := _segments(r))),
    )


def _reading(rank: dict[str, Any], phase_id: str, graph: str | None) -> list[dict[str, Any]]:
    return [
        p
        for p in rank["phases"]
        if p["phase"] == phase_id and p["model"] == "target" and (graph is None or p.get("graph") in (graph, "verify"))
    ]


def _value(rank: dict[str, Any], phase_id: str, graph: str | None, key: str) -> Any:
    return next((p[key] for p in _reading(rank, phase_id, graph) if key in p), None)


def _timeline(ranks: list[dict[str, Any]]) -> Timeline:
    shown = [
        (phase, column)
        for phase, column in phases.columns()
        if any(_value(r, phase.id, column.graph, column.key) is not None for r in ranks)
    ]
    explained = tuple(phase.ledger is not None and phase.ledger.item in EXPECTED_DROPS for phase, _ in shown)
    rows = []
    for rank in ranks:
        cells = []
        for (phase, column), expected in zip(shown, explained, strict=True):
            value = _value(rank, phase.id, column.graph, column.key)
            drop = tokens = since = None
            if value is not None and column.key == "avail_gib":
                reading = next(iter(_reading(rank, phase.id, column.graph)), {})
                drop, since = reading.get("drop_gib"), reading.get("drop_since")
            if value is not None and column.key == "kv_gib":
                tokens = _value(rank, phase.id, column.graph, "tokens")
            unexpected = (
                drop is not None and drop > UNEXPECTED_DROP_GIB and not expected and not allocates_between(since, phase.id)
            )
            cells.append(PhaseCell(value, drop, tokens, unexpected))
        gpu = "" if rank["gpu"] is None else f"{rank['gpu']}{'?' if rank['gpu_assumed'] else ''}"
        rows.append(TimelineRow(rank["rank"], gpu, tuple(cells), _last_capture(rank)))
    spreads = None
    if len(ranks) > 1:
        spreads = tuple(_spread(ranks, phase.id, column.graph, column.key) for phase, column in shown)
    return Timeline(tuple(c.title for _, c in shown), tuple(c.key for _, c in shown), tuple(rows), spreads, explained)


def _last_capture(rank: dict[str, Any]) -> tuple[Any, float] | None:
    progress = [p for p in rank["phases"] if p["phase"] == kinds.CAPTURE_PROGRESS and p["model"] == "target"]
    if not progress:
        return None
    last = progress[-1]
    step = last.get("bs") or last.get("num_tokens")
    return "?" if step is None else step, last["avail_gib"]  # 0.4.x before 0.4.8 print no batch size


def _spread(ranks: list[dict[str, Any]], phase_id: str, graph: str | None, key: str) -> Spread | None:
    values = [v for v in (_value(r, phase_id, graph, key) for r in ranks) if isinstance(v, (int, float))]
    if len(values) < 2:
        return None
    low, high = min(values), max(values)
    spread = round(high - low, 2)
    pct = round(spread / high * 100, 1) if high > 0 else 0.0
    return Spread(low, high, spread, pct, key == "avail_gib" and pct > SPREAD_HIGHLIGHT_PCT)


def _ledger(ranks: list[dict[str, Any]], count: int) -> LedgerView:
    totals = {r.get("card_total_gib") for r in ranks}
    total = next(iter(totals)) if len(totals) == 1 else None
    names = merged_order([[item["item"] for item in r["ledger"]] for r in ranks])
    rows = []
    for name in names:
        found = [next((i for i in r["ledger"] if i["item"] == name), None) for r in ranks]
        kind = next((i["kind"] for i in found if i), "")
        rows.append((name, kind, tuple(None if i is None else i["gib"] for i in found)))
    return LedgerView(
        total,
        ranks[0].get("card_total_source", ""),
        tuple(r["rank"] for r in ranks),
        count,
        tuple(rows),
        _init_note(ranks[:LEDGER_RANKS]),
    )


def _init_note(ranks: list[dict[str, Any]]) -> str | None:
    usage = [(r["rank"], v) for r in ranks if (v := _value(r, kinds.INIT_DISTRIBUTED_END, None, "usage_gib")) is not None]
    if not usage:
        return None
    values = {v for _, v in usage}
    shown = (
        f"{usage[0][1]:.2f} GiB on {'every rank' if len(usage) == len(ranks) else ', '.join(r for r, _ in usage)}"
        if len(values) == 1
        else ", ".join(f"{r} {v:.2f}" for r, v in usage) + " GiB"
    )
    if any(i["item"] == "outside_allocator" for r in ranks for i in r.get("ledger", [])):
        return (
            f"init distributed mem usage (measured, SGLang's init line): {shown}; outside_allocator is what NVML measured "
            "of the launch's processes before the weights (logscope run's samples)"
        )
    return (
        f"init distributed mem usage (measured, SGLang's init line): {shown}; comm_eager is the eager cells' "
        "estimate within it, the rest of it counts as unexplained"
    )


def allocates_between(since: str | None, phase_id: str) -> bool:
    """A phase after `since` and up to `phase_id` allocates by design (a drop spanning unprinted phases, such as
    load begin to capture begin, holds the weights and the KV pool)."""
    if since is None or since not in phases.by_id():
        return False
    low, high = phases.order_of(since), phases.order_of(phase_id)
    return any(
        p.ledger is not None and p.ledger.item in EXPECTED_DROPS and low < phases.order_of(p.id) <= high for p in phases.PHASES
    )


def merged_order(orders: list[list[str]]) -> list[str]:
    """One order of every item that keeps each rank's own order (startup order): an item a rank has and an
    earlier rank lacks goes before the next item of that rank already placed, not after `free`."""
    merged: list[str] = []
    for order in orders:
        for index, item in enumerate(order):
            if item in merged:
                continue
            following = next((merged.index(n) for n in order[index + 1 :] if n in merged), len(merged))
            merged.insert(following, item)
    return merged


def _segments(rank: dict[str, Any]) -> tuple[tuple[str, str, str], ...]:
    """(segment title, start time, end time) of the startup segments this rank's timed readings bound."""
    times: dict[str, str] = {}
    for phase in rank["phases"]:
        if phase["model"] == "target" and phase.get("time") and len(phase["time"]) >= 19:
            times.setdefault(phase["phase"], phase["time"][:19])
    return tuple(
        (title, times[a], times[b])
        for title, a, b in phases.gantt_segments()
        if a in times and b in times and times[b] >= times[a]
    )


def _gantt(ranks: list[dict[str, Any]]) -> tuple[str, tuple[tuple[str, str, str], ...]] | None:
    """The rank with the most timed segments (the Mermaid gantt shows one rank)."""
    best: tuple[str, tuple[tuple[str, str, str], ...]] | None = None
    for rank in ranks:
        tasks = _segments(rank)
        if tasks and (best is None or len(tasks) > len(best[1])):
            best = (rank["rank"], tasks)
    return best


def _process_cell(process: dict[str, Any]) -> str:
    """A process as the dump shows it: only the fields it printed (gpustat may give no pid or no command)."""
    who = process.get("name") or process.get("user_or_command") or process.get("user")
    parts = [str(process["pid"]) if process.get("pid") is not None else None, who]
    used = f"{process['used_mib']} MiB" if process.get("used_mib") is not None else None
    return " ".join(p for p in (*parts, used) if p)
