"""The Markdown styling of the view-model, for tickets (a GitHub comment): findings first, then per launch the
phase table, the ledger, the cells and a Mermaid gantt of the startup phases."""

from __future__ import annotations

from typing import Any

from logscope.report.compare_view import build_compare_view
from logscope.report.view import (
    GPU_COLUMNS,
    LEDGER_RANKS,
    LaunchView,
    ReportView,
    build_view,
    fmt_gib,
    known_cases_line,
    plural,
    prefixed_statement,
)

_ICON = {"error": "🔴", "warning": "🟠", "info": "🔵"}
_GPU_TITLES = (
    "gpu",
    "name",
    "total MiB",
    "reserved MiB",
    "used MiB",
    "card total GiB",
    "outside allocator MiB",
    "processes",
    "ranks (assumed)",
)
_EVIDENCE_LINES = 3


def render_markdown(report: dict[str, Any], width: int = 0) -> str:
    view = build_view(report)
    out: list[str] = ["## logscope report", "", f"**Verdict:** {escape_cell(view.verdict)}", ""]
    out += _findings(view)
    for launch in view.launches:
        out += _launch(launch)
    if view.versions:
        out += ["**Versions:** " + ", ".join(f"{k} {v}" for k, v in view.versions), ""]
    if view.gpus:
        out += _gpus(view)
    out += [f"**GPU {index}:** {line}" for index, line in view.outside_ledgers] + ([""] if view.outside_ledgers else [])
    if view.calibration:
        out += [f"**Calibration:** {view.calibration}", ""]
    cov = view.coverage
    if cov.get("unmatched_failures"):
        out += ["**Lines that read like a failure but match no signature:**", "", "```"]
        out += [f"{m['source'].rsplit('/', 1)[-1]}:{m['line']}: {m['text'][:160]}" for m in cov["unmatched_failures"][:8]]
        out += ["```", ""]
    prefixed = prefixed_statement(cov)
    if prefixed:
        out.append(prefixed)
    out += [
        "",
        f"<sub>logscope {view.version} · {cov['lines']} lines read, "
        f"{cov['recognized_lines']} recognised, {cov['unrecognized_total']} candidate lines unrecognised</sub>",
        "",
    ]
    return "\n".join(out)


def escape_cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _findings(view: ReportView) -> list[str]:
    if not view.findings:
        return [f"No findings; {view.unread_failures}." if view.unread_failures else "No findings.", ""]
    out = ["### Findings", ""]
    for f in view.findings:
        ranks = f" ({', '.join(f.ranks[:8])})" if f.ranks else ""
        out.append(f"- {_ICON.get(f.severity, '')} **{f.severity}** `{f.rule}`{ranks}: {escape_cell(f.message)}")
        if f.hint:
            out.append(f"  - **Fix:** {escape_cell(f.hint)}")
        for ev in f.evidence[:_EVIDENCE_LINES]:
            out.append(f"  - `{ev.name}:{ev.line}` `{escape_cell(ev.text).replace('`', '')}`")
        if f.cases or f.cases_note:
            out.append("  - **Known cases:** " + known_cases_line(f, escape_cell))
    out.append("")
    return out


def _launch(launch: LaunchView) -> list[str]:
    out = [f"### Launch {launch.id} ({plural(launch.rank_count, 'rank')})", ""]
    if launch.config:
        out.append("**Config:** " + ", ".join(f"`{k}={v}`" for k, v, _source in launch.config))
    if launch.versions:
        out.append("**Versions:** " + ", ".join(f"{k} {v}" for k, v in launch.versions))
    if launch.sglang:
        out.append("**SGLang:** " + launch.sglang)
    if launch.model:
        out.append("**Model:** " + ", ".join(f"{k}={v}" for k, v in launch.model))
    for group in launch.tp_groups:
        out.append(
            f"**TP group** {', '.join(group.ranks)} on GPUs {', '.join(map(str, group.gpus))} "
            f"(assumed): {group.path} ({group.links})"
        )
    out.append("")
    timeline = launch.timeline
    if timeline is not None:
        out.append("| rank | " + " | ".join(timeline.titles) + " | last capture bs |")
        out.append("|---|" + "---:|" * len(timeline.titles) + "---|")
        for row in timeline.rows:
            cells = []
            for cell in row.cells:
                text = fmt_gib(cell.value)
                if cell.drop is not None:
                    text += f" (−{cell.drop:.2f})" if cell.drop >= 0 else f" (+{-cell.drop:.2f})"
                cells.append(text)
            shown = "" if row.last_capture is None else f"bs={row.last_capture[0]} @ {row.last_capture[1]:.2f}"
            out.append(f"| {row.rank} | " + " | ".join(cells) + f" | {shown} |")
        if timeline.spreads is not None:
            out.append(
                "| *min/max/spread* | "
                + " | ".join(
                    ""
                    if s is None
                    else (
                        f"{fmt_gib(s.low)}/{fmt_gib(s.high)}/{s.spread:.2f}" + (f" **({s.pct}%)**" if s.hot else f" ({s.pct}%)")
                    )
                    for s in timeline.spreads
                )
                + " | |"
            )
        out.append("")
    ledger = launch.ledger
    if ledger is not None:
        columns = ledger.ranks[:LEDGER_RANKS]
        total = (
            f"card total {ledger.total_gib:.2f} GiB, {ledger.total_source}"
            if ledger.total_gib is not None
            else f"card total {ledger.total_source}"
        )
        more = f"; first {len(columns)} of {ledger.rank_count} ranks" if ledger.rank_count > len(columns) else ""
        out += [
            f"**Ledger, GiB** ({total}{more})",
            "",
            "| item | kind | " + " | ".join(columns) + " |",
            "|---|---|" + "---:|" * len(columns),
        ]
        for name, kind, values in ledger.rows:
            out.append(
                f"| {name} | {kind} | " + " | ".join("" if v is None else f"{v:.2f}" for v in values[: len(columns)]) + " |"
            )
        out += ["", f"<sub>{escape_cell(ledger.init_note)}</sub>"] if ledger.init_note else []
        out.append("")
    if launch.cells:
        out += [
            f"**Communication cells ({launch.cells_rank})**",
            "",
            "| group | mechanism | GiB | kind | timing |",
            "|---|---|---:|---|---|",
        ]
        out += [
            f"| {c.group} | {c.mechanism} | {'n/a' if c.gib is None else format(c.gib, '.3f')} | {c.kind} | {c.timing} |"
            for c in launch.cells
        ]
        out.append("")
    if launch.gantt is not None:
        rank, tasks = launch.gantt
        out += [
            "```mermaid",
            "gantt",
            f"  title Startup phases ({rank})",
            "  dateFormat YYYY-MM-DD HH:mm:ss",
            "  axisFormat %H:%M:%S",
        ]
        out += [f"  {name} : {start}, {end}" for name, start, end in tasks]
        out += ["```", ""]
    return out


def _gpus(view: ReportView) -> list[str]:
    columns = [(title, get) for title, get in GPU_COLUMNS if title in _GPU_TITLES]
    out = [
        "### GPUs",
        "",
        "| " + " | ".join(title for title, _ in columns) + " |",
        "|" + "|".join("---" if title in ("name", "processes", "ranks (assumed)") else "---:" for title, _ in columns) + "|",
    ]
    for gpu in view.gpus:
        out.append("| " + " | ".join(escape_cell(fmt_gib(get(gpu))) for _title, get in columns) + " |")
    if view.topology:
        out += ["", "**Topology:** " + view.topology]
    out.append("")
    return out


def render_compare_markdown(doc: dict[str, Any], width: int = 0) -> str:
    """A diff or plan document for a ticket: the headline, the facts, then each section as a table."""
    view = build_compare_view(doc)
    out = [
        f"## logscope {view.kind}",
        "",
        f"**{'Verdict' if view.kind == 'plan' else 'Headline'}:** {escape_cell(view.headline)}",
        "",
        *(f"- {escape_cell(fact)}" for fact in view.facts),
        "",
    ]
    for section in view.sections:
        out += [
            f"### {section.title}",
            "",
            "| " + " | ".join(escape_cell(h) or " " for h in section.headers) + " |",
            "|" + "".join("---:|" if i in section.right else "---|" for i in range(len(section.headers))),
            *("| " + " | ".join(escape_cell(c) for c in row) + " |" for row in section.rows),
            "",
        ]
    out += [f"- {escape_cell(note)}" for note in view.notes]
    return "\n".join(out).rstrip() + "\n"
