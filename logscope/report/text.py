"""The terminal styling (rich) of the view-model: per launch, ranks x phases with drops and a cross-rank row,
config and versions, ledger and cells, then GPUs, findings with evidence, coverage."""

from __future__ import annotations

import io
import sys
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from logscope.report.view import GPU_COLUMNS, LaunchView, LedgerView, ReportView, Timeline, build_view, fmt_gib

_SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def render_terminal(report: dict[str, Any], width: int = 0) -> str:
    """The whole text report: the terminal's width on a terminal, else `width` or 160 columns, no colour."""
    buffer = io.StringIO()
    tty = sys.stdout.isatty()
    console = Console(file=buffer, width=width or (None if tty else 160), force_terminal=tty,
                      color_system="auto" if tty else None, highlight=False)
    render_text(report, console)
    return buffer.getvalue()


def render_text(report: dict[str, Any], console: Console) -> None:
    view = build_view(report)
    if view.nothing_recognised:
        console.print("[bold]No SGLang startup found[/bold] in the inputs (no line was recognised).")
    for launch in view.launches:
        _launch(launch, console)
    if view.versions:
        console.print(_labelled("versions: ", ", ".join(f"{k} {v}" for k, v in view.versions)))
    if view.gpus:
        _gpus(view, console)
    for index, line in view.outside_ledgers:
        console.print(_labelled(f"GPU {index}: ", line))
    if view.calibration:
        console.print(_labelled("calibration: ", view.calibration))
    _findings(view, console)
    _coverage(view, console)


def _labelled(label: str, text: str) -> Text:
    return Text(label, style="bold") + Text(text)


def _launch(launch: LaunchView, console: Console) -> None:
    console.rule(f"[bold]Launch {launch.id}[/bold]  ({launch.rank_count} ranks)")
    config = [f"{k}={v}" + ("" if source == "server_args" else f" ({source})")
              for k, v, source in launch.config if k != "model_path"]
    if launch.config:
        console.print(_labelled("config: ", ", ".join(config)))
    if launch.lower_bounds:
        console.print(_labelled("inferred from rank tags: ",
                                ", ".join(f"{k} >= {at_least} ({basis})" for k, at_least, basis in launch.lower_bounds)))
    if launch.model:
        console.print(_labelled("model: ", ", ".join(f"{k}={v}" for k, v in launch.model)))
    if launch.versions:
        console.print(_labelled("versions: ", ", ".join(f"{k} {v}" for k, v in launch.versions)))
    if launch.environment:
        console.print(_labelled("environment: ", " ".join(f"{k}={v}" for k, v in launch.environment)))
    for group in launch.tp_groups:
        console.print(_labelled("TP group: ", f"{', '.join(group.ranks)} on GPUs {', '.join(map(str, group.gpus))} "
                                              f"(assumed): {group.path} ({group.links})"))
    if launch.timeline is not None:
        console.print(_phase_table(launch.timeline))
    if launch.ledger is not None:
        console.print(_ledger_table(launch.ledger))
    if launch.cells:
        console.print(_cells_table(launch))


def _phase_table(timeline: Timeline) -> Table:
    table = Table(title="free GiB per phase (drop since the previous reading)", title_justify="left")
    table.add_column("rank", style="bold")
    table.add_column("gpu", justify="right")
    for title in timeline.titles:
        table.add_column(title, justify="right")
    table.add_column("last bs", justify="right")
    for row in timeline.rows:
        out: list[Any] = [row.rank, row.gpu]
        for cell in row.cells:
            text = Text(fmt_gib(cell.value))
            if cell.drop is not None:
                text.append(f" (-{cell.drop:.2f})" if cell.drop >= 0 else f" (+{-cell.drop:.2f})", style="dim")
            if cell.tokens is not None:
                text.append(f" [{cell.tokens} tok]", style="dim")
            out.append(text)
        out.append("" if row.last_capture is None else f"bs={row.last_capture[0]} @ {row.last_capture[1]:.2f}")
        table.add_row(*out)
    if timeline.spreads is not None:
        stats: list[Any] = [Text("min/max/spread", style="italic"), ""]
        for spread in timeline.spreads:
            if spread is None:
                stats.append("")
                continue
            stats.append(Text(f"{fmt_gib(spread.low)}/{fmt_gib(spread.high)}/{spread.spread:.2f} ({spread.pct}%)",
                              style="bold red" if spread.hot else "dim"))
        stats.append("")
        table.add_row(*stats)
    return table


def _ledger_table(ledger: LedgerView) -> Table:
    title = (f"ledger, GiB (card total {ledger.total_gib:.2f} GiB: {ledger.total_source})" if ledger.total_gib is not None
             else f"ledger, GiB (card total {ledger.total_source})")
    if ledger.rank_count > len(ledger.ranks):
        title += f"; first {len(ledger.ranks)} of {ledger.rank_count} ranks"
    table = Table(title=title, title_justify="left")
    table.add_column("item")
    table.add_column("kind")
    for rank in ledger.ranks:
        table.add_column(rank, justify="right")
    for name, kind, values in ledger.rows:
        table.add_row(Text(name, style="bold yellow" if name == "unexplained" else ""), kind,
                      *["" if v is None else f"{v:.2f}" for v in values])
    return table


def _cells_table(launch: LaunchView) -> Table:
    table = Table(title=f"communication cells per rank (group x mechanism; {launch.cells_rank} shown, same on every rank)",
                  title_justify="left")
    for col in ("group", "mechanism", "GiB", "kind", "timing", "basis"):
        table.add_column(col, justify="right" if col == "GiB" else "left")
    for cell in launch.cells:
        gib = "n/a" if cell["gib"] is None else f"{cell['gib']:.3f}"
        table.add_row(cell["group"], cell["mechanism"], gib, cell["kind"], cell["timing"], cell.get("basis", ""))
    return table


def _gpus(view: ReportView, console: Console) -> None:
    columns = [(title, get) for title, get in GPU_COLUMNS if any(get(g) not in (None, "") for g in view.gpus)]
    table = Table(title="GPUs (nvidia-smi / check_env)", title_justify="left")
    for title, _get in columns:
        table.add_column(title)
    for gpu in view.gpus:
        table.add_row(*[fmt_gib(get(gpu)) for _title, get in columns])
    console.print(table)
    if view.topology:
        console.print(_labelled("topology: ", view.topology))


def _findings(view: ReportView, console: Console) -> None:
    if not view.findings:
        console.print(Text("findings: none", style="green"))
        return
    console.rule("[bold]Findings[/bold]")
    for finding in view.findings:
        head = Text(f"{finding.severity:<7} ", style=_SEVERITY_STYLE.get(finding.severity, ""))
        head += Text(f"[{finding.rule}] ", style="bold")
        where = f"launch {finding.launch}" if finding.launch else ""
        if finding.ranks:
            where += f" ranks {', '.join(finding.ranks[:8])}{' ...' if len(finding.ranks) > 8 else ''}"
        console.print(head + Text(finding.message) + Text(f"  ({where.strip()})" if where.strip() else "", style="dim"))
        if finding.hint:
            console.print(_labelled("        fix: ", finding.hint))
        for ev in finding.evidence:
            console.print(Text(f"        {ev.source}:{ev.line}: ", style="dim") + Text(ev.text))


def _coverage(view: ReportView, console: Console) -> None:
    cov = view.coverage
    console.rule("[bold]Coverage[/bold]")
    unmatched = cov.get("unmatched_failures", [])
    if unmatched:  # first: what reads like a failure but no signature names
        console.print(Text(f"lines that read like a failure but match no signature: {len(unmatched)}", style="bold"))
        for item in unmatched[:8]:
            console.print(Text(f"  {item['source']}:{item['line']}: ", style="dim") + Text(item["text"][:140]))
    grammars = ", ".join(f"{name} {g['recognized']}/{g['seen']}" for name, g in cov["grammars"].items())
    console.print(f"lines read: {cov['lines']}, recognised: {cov['recognized_lines']}; candidates per grammar: "
                  f"{grammars or 'none'}")
    if cov["unrecognized_total"]:
        console.print(f"unrecognised candidate lines: {cov['unrecognized_total']} (cut or unknown variants)")
        for item in cov["unrecognized"][:6]:
            console.print(Text(f"  {item['source']}:{item['line']}: ", style="dim") + Text(item["text"][:140]))
    for launch_id, ranks, missing in view.missing_phases:
        console.print(Text(f"launch {launch_id}: {', '.join(ranks)} missing: {', '.join(missing)}", style="dim"))
