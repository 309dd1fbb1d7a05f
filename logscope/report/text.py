"""The terminal styling (rich) of the view-model: a verdict line, the findings, then per launch the
ranks x phases table, config, ledger and cells, the GPUs and the coverage. Tables never cut a number:
a table wider than the terminal is split into parts that repeat the row labels."""

from __future__ import annotations

import io
import os
import shutil
import sys
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from logscope.core import kinds
from logscope.report.view import (
    GPU_COLUMNS,
    LEDGER_RANKS,
    LaunchView,
    LedgerView,
    ReportView,
    Timeline,
    build_view,
    fmt_gib,
    plural,
    prefixed_statement,
)

_SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
PIPED_WIDTH = 160
_WRAPPED_MIN = 24  # a text column (basis) is wrapped, never narrower than this
_EVIDENCE_HANG = 10  # continuation lines of evidence start here (under the finding's text)


def terminal_width(width: int = 0) -> int:
    """--width, else COLUMNS, else the terminal's width, else PIPED_WIDTH when the output is no terminal."""
    if width > 0:
        return width
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if sys.stdout.isatty():
        return shutil.get_terminal_size((PIPED_WIDTH, 24)).columns
    return PIPED_WIDTH


def render_terminal(report: dict[str, Any], width: int = 0) -> str:
    """The whole text report, colour only on a terminal."""
    buffer = io.StringIO()
    tty = sys.stdout.isatty()
    console = Console(
        file=buffer, width=terminal_width(width), force_terminal=tty, color_system="auto" if tty else None, highlight=False
    )
    render_text(report, console)
    return _trimmed(buffer.getvalue())


def _trimmed(text: str) -> str:
    """Without the spaces rich pads wrapped lines and cropped cells with."""
    return "\n".join(line.rstrip() for line in text.split("\n"))


def render_text(report: dict[str, Any], console: Console) -> None:
    view = build_view(report)
    top = view.findings[0].severity if view.findings else ("warning" if view.unread_failures else None)
    console.print(Text("verdict: ", style="bold") + Text(view.verdict, style=_SEVERITY_STYLE.get(top or "", "green")))
    _findings(view, console)
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
    _coverage(view, console)


def _hanging(console: Console, first: Text, indent: int) -> None:
    """`first` wrapped to the console, its continuation lines starting at column `indent` (a hanging indent)."""
    indent = min(indent, console.width // 2)
    lines = first.wrap(console, console.width)
    for line in lines:
        line.rstrip()
    console.print(lines[0], soft_wrap=True)
    if len(lines) == 1:
        return
    rest = first[len(lines[0].plain.rstrip()) :]
    rest = rest[len(rest.plain) - len(rest.plain.lstrip()) :]
    for line in rest.wrap(console, console.width - indent):
        line.rstrip()
        console.print(Text(" " * indent) + line, soft_wrap=True)


def _labelled(label: str, text: str) -> Text:
    return Text(label, style="bold") + Text(text)


def print_table(
    console: Console,
    title: str,
    headers: Sequence[str],
    rows: Sequence[Sequence[Any]],
    keep: int = 1,
    right: Sequence[int] = (),
    wrapped: Sequence[int] = (),
) -> None:
    """A table that fits the console without cutting a cell: columns are packed into parts no wider than the
    console, each part repeating the first `keep` columns; `wrapped` columns (prose) wrap instead."""
    cells = [[c if isinstance(c, Text) else Text(str(c)) for c in row] for row in rows]
    widths = [max([len(headers[i])] + [row[i].cell_len for row in cells]) for i in range(len(headers))]
    shown = [i for i in range(len(headers)) if i < keep or any(row[i].plain.strip() for row in cells)]

    def need(i: int) -> int:
        return (min(widths[i], _WRAPPED_MIN) if i in wrapped else widths[i]) + 3

    base = 1 + sum(need(i) for i in range(keep))
    parts: list[list[int]] = []
    current: list[int] = []
    used = base
    for i in shown[keep:]:
        if current and used + need(i) > console.width:
            parts.append(current)
            current, used = [], base
        current.append(i)
        used += need(i)
    parts.append(current)
    console.print(Text(title, style="bold"))
    for number, part in enumerate(parts):
        if len(parts) > 1 and number:
            console.print(Text(f"(continued, {number + 1} of {len(parts)})", style="dim"))
        table = Table(show_edge=True, expand=False)
        for i in [*range(keep), *part]:
            if i in wrapped:
                table.add_column(headers[i], overflow="fold", min_width=min(widths[i], _WRAPPED_MIN), ratio=1)
            else:
                table.add_column(headers[i], justify="right" if i in right else "left", no_wrap=True, min_width=widths[i])
        for row in cells:
            table.add_row(*[row[i] for i in [*range(keep), *part]])
        console.print(table)


def _launch(launch: LaunchView, console: Console) -> None:
    console.rule(f"[bold]Launch {launch.id}[/bold]  ({plural(launch.rank_count, 'rank')})")
    config = [
        f"{k}={v}" + ("" if source == kinds.SERVER_ARGS else f" ({source})")
        for k, v, source in launch.config
        if k != "model_path"
    ]
    if config:
        console.print(_labelled("config: ", ", ".join(config)))
    if launch.lower_bounds:
        console.print(
            _labelled(
                "inferred from rank tags: ",
                ", ".join(f"{k} >= {at_least} ({basis})" for k, at_least, basis in launch.lower_bounds),
            )
        )
    if launch.model:
        console.print(_labelled("model: ", ", ".join(f"{k}={v}" for k, v in launch.model)))
    if launch.versions:
        console.print(_labelled("versions: ", ", ".join(f"{k} {v}" for k, v in launch.versions)))
    if launch.sglang:
        console.print(_labelled("SGLang: ", launch.sglang))
    if launch.environment:
        console.print(_labelled("environment: ", " ".join(f"{k}={v}" for k, v in launch.environment)))
    for group in launch.tp_groups:
        console.print(
            _labelled(
                "TP group: ",
                f"{', '.join(group.ranks)} on GPUs {', '.join(map(str, group.gpus))} (assumed): {group.path} ({group.links})",
            )
        )
    if launch.timeline is not None:
        _phase_table(launch.timeline, console)
    if launch.ledger is not None:
        _ledger_table(launch.ledger, console)
    if launch.cells:
        rows = [
            [
                c.group,
                c.mechanism,
                "n/a" if c.gib is None else f"{c.gib:.3f}",
                c.kind,
                c.timing,
                c.basis,
            ]
            for c in launch.cells
        ]
        print_table(
            console,
            f"communication cells per rank (group x mechanism; {launch.cells_rank} shown, the same on every rank)",
            ("group", "mechanism", "GiB", "kind", "timing", "basis"),
            rows,
            keep=2,
            right=(2,),
            wrapped=(5,),
        )


def _phase_table(timeline: Timeline, console: Console) -> None:
    rows: list[list[Any]] = []
    for row in timeline.rows:
        out: list[Any] = [Text(row.rank, style="bold"), row.gpu]
        for cell in row.cells:
            text = Text(fmt_gib(cell.value))
            if cell.drop is not None:
                text.append(
                    f" (-{cell.drop:.2f})" if cell.drop >= 0 else f" (+{-cell.drop:.2f})",
                    style="bold red" if cell.unexpected else "dim",
                )
            if cell.tokens is not None:
                text.append(f" [{cell.tokens} tok]", style="dim")
            out.append(text)
        out.append("" if row.last_capture is None else f"bs={row.last_capture[0]} @ {row.last_capture[1]:.2f}")
        rows.append(out)
    if timeline.spreads is not None:
        stats: list[Any] = [Text("min/max/spread", style="italic"), ""]
        for spread in timeline.spreads:
            stats.append(
                ""
                if spread is None
                else Text(
                    f"{fmt_gib(spread.low)}/{fmt_gib(spread.high)}/{spread.spread:.2f} ({spread.pct}%)",
                    style="bold red" if spread.hot else "dim",
                )
            )
        rows.append([*stats, ""])
    headers = ("rank", "gpu", *timeline.titles, "last bs")
    print_table(
        console,
        "free GiB per phase (in brackets: the drop since the previous reading)",
        headers,
        rows,
        keep=1,
        right=tuple(range(1, len(headers))),
    )


def _ledger_table(ledger: LedgerView, console: Console) -> None:
    shown = ledger.ranks[:LEDGER_RANKS]
    total = (
        f"card total {ledger.total_gib:.2f} GiB: {ledger.total_source}"
        if ledger.total_gib is not None
        else f"card total {ledger.total_source}"
    )
    title = f"ledger, GiB ({total})"
    if ledger.rank_count > len(shown):
        title += f"; first {len(shown)} of {ledger.rank_count} ranks"
    rows = [
        [
            Text(name, style="bold yellow" if name == "unexplained" else ""),
            kind,
            *["" if v is None else f"{v:.2f}" for v in values[: len(shown)]],
        ]
        for name, kind, values in ledger.rows
    ]
    print_table(console, title, ("item", "kind", *shown), rows, keep=2, right=tuple(range(2, 2 + len(shown))))
    if ledger.init_note:
        _hanging(console, Text(ledger.init_note, style="dim"), 2)


def _gpus(view: ReportView, console: Console) -> None:
    columns = [(title, get) for title, get in GPU_COLUMNS if any(get(g) not in (None, "") for g in view.gpus)]
    rows = [[fmt_gib(get(gpu)) for _title, get in columns] for gpu in view.gpus]
    wrapped = tuple(i for i, (title, _) in enumerate(columns) if title in ("processes", "MIG (gi used/total MiB)"))
    print_table(console, "GPUs (nvidia-smi / check_env)", [t for t, _ in columns], rows, keep=1, wrapped=wrapped)
    if view.topology:
        console.print(_labelled("topology: ", view.topology))


def _findings(view: ReportView, console: Console) -> None:
    if not view.findings:
        return
    console.rule(f"[bold]{plural(len(view.findings), 'finding').capitalize()}[/bold]")
    for finding in view.findings:
        head = Text(f"{finding.severity:<7} ", style=_SEVERITY_STYLE.get(finding.severity, ""))
        head += Text(f"[{finding.rule}] ", style="bold")
        where = f"launch {finding.launch}" if finding.launch else ""
        if finding.ranks:
            where += f" {'rank' if len(finding.ranks) == 1 else 'ranks'} {', '.join(finding.ranks[:8])}"
            where += " ..." if len(finding.ranks) > 8 else ""
        _hanging(console, head + Text(finding.message) + Text(f"  ({where.strip()})" if where.strip() else "", style="dim"), 8)
        if finding.hint:
            _hanging(console, _labelled("        fix: ", finding.hint), len("        fix: "))
        for ev in finding.evidence:
            _hanging(console, Text(f"        {ev.source}:{ev.line}: ", style="dim") + Text(ev.text), _EVIDENCE_HANG)
        for case in finding.cases:
            _hanging(console, _labelled("        known: ", f"{case.ref} {case.said} ({case.title})"), len("        known: "))
        if finding.cases_note:
            _hanging(console, _labelled("        known: ", finding.cases_note), len("        known: "))


def _coverage(view: ReportView, console: Console) -> None:
    cov = view.coverage
    console.rule("[bold]Coverage[/bold]")
    unmatched = cov.get("unmatched_failures", [])
    if unmatched:  # first: what reads like a failure but no signature names
        console.print(Text(f"lines that read like a failure but match no signature: {len(unmatched)}", style="bold"))
        for item in unmatched[:8]:
            console.print(Text(f"  {item['source']}:{item['line']}: ", style="dim") + Text(item["text"][:140]))
    grammars = ", ".join(f"{name} {g['recognized']}/{g['seen']}" for name, g in cov["grammars"].items())
    console.print(
        f"lines read: {cov['lines']}, recognised: {cov['recognized_lines']}; candidates per grammar: {grammars or 'none'}"
    )
    if cov["unrecognized_total"]:
        console.print(f"unrecognised candidate lines: {cov['unrecognized_total']} (cut, unknown variants or new wordings)")
        for item in cov["unrecognized"][:6]:
            console.print(Text(f"  {item['source']}:{item['line']}: ", style="dim") + Text(item["text"][:140]))
    prefixed = prefixed_statement(cov)
    if prefixed:
        console.print(prefixed)
    for launch_id, ranks, missing in view.missing_phases:
        console.print(Text(f"launch {launch_id}: {', '.join(ranks)} missing: {', '.join(missing)}", style="dim"))


def render_compare_terminal(doc: dict[str, Any], width: int = 0) -> str:
    """A diff or plan document in the terminal: the same tables as the analyze report, fitted to the width."""
    from logscope.report.compare_view import build_compare_view  # diff and plan only, not an analysis

    view = build_compare_view(doc)
    buffer = io.StringIO()
    tty = sys.stdout.isatty()
    console = Console(
        file=buffer, width=terminal_width(width), force_terminal=tty, color_system="auto" if tty else None, highlight=False
    )
    _hanging(
        console,
        Text(f"logscope {view.kind}: ", style="bold") + Text(view.headline, style="bold red" if view.severity == "error" else ""),
        2,
    )
    for fact in view.facts:
        _hanging(console, Text(fact), 2)
    for section in view.sections:
        console.print()
        print_table(console, section.title, section.headers, section.rows, keep=1, right=section.right, wrapped=section.wrapped)
    if view.notes:
        console.print()
    for note in view.notes:
        _hanging(console, Text(note), 2)
    return _trimmed(buffer.getvalue())
