"""The terminal view (rich): per launch, ranks x phases with deltas, a cross-rank row, config and
versions, ledger and cells, findings with evidence, coverage."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from logscope.report.layout import (
    column_stats,
    drop_before,
    fmt_gib,
    last_capture_bs,
    phase_value,
    sorted_findings,
    visible_columns,
)

_SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
SPREAD_HIGHLIGHT_PCT = 10.0


def render_text(report: dict[str, Any], console: Console) -> None:
    if report["coverage"]["recognized_lines"] == 0 and not report["findings"]:
        console.print("[bold]No SGLang startup found[/bold] in the inputs (no line was recognised).")
    for launch in report["launches"]:
        if launch["ranks"] or launch["config"] or launch["versions"] or launch["model"] or launch["environment"]:
            _launch(report, launch, console)
    if report["versions"] and not report["launches"]:
        console.print(Text("versions: ", style="bold") + Text(", ".join(f"{k} {v}" for k, v in report["versions"].items())))
    if report["gpus"]:
        _gpus(report, console)
    _findings(report["findings"], console)
    _coverage(report, console)


def _launch(report: dict[str, Any], launch: dict[str, Any], console: Console) -> None:
    console.rule(f"[bold]Launch {launch['id']}[/bold]  ({len(launch['ranks'])} ranks)")
    if launch["config"]:
        parts = [f"{k}={v}" + ("" if launch["config_source"][k] == "server_args" else f" ({launch['config_source'][k]})")
                 for k, v in launch["config"].items() if k != "model_path"]
        console.print(Text("config: ", style="bold") + Text(", ".join(parts)))
    if launch.get("config_lower_bounds"):
        bounds = [f"{k} >= {v['at_least']} ({v['basis']})" for k, v in launch["config_lower_bounds"].items()]
        console.print(Text("inferred from rank tags: ", style="bold") + Text(", ".join(bounds)))
    if launch["model"]:
        console.print(Text("model: ", style="bold") + Text(", ".join(f"{k}={v}" for k, v in launch["model"].items())))
    if launch["versions"]:
        console.print(Text("versions: ", style="bold") + Text(", ".join(f"{k} {v}" for k, v in launch["versions"].items())))
    if launch["environment"]:
        console.print(Text("environment: ", style="bold") + Text(" ".join(f"{k}={v}" for k, v in launch["environment"].items())))
    for group in launch.get("tp_groups", []):
        links = ", ".join(f"{kind} x{count}" for kind, count in group["links"].items())
        console.print(Text("TP group: ", style="bold") + Text(
            f"{', '.join(group['ranks'])} on GPUs {', '.join(map(str, group['gpus']))} (assumed): {group['path']} ({links})"))
    ranks = launch["ranks"]
    if ranks:
        console.print(_phase_table(ranks))
    with_ledger = [r for r in ranks if r["ledger"]]
    if with_ledger:
        console.print(_ledger_table(with_ledger[:8], len(with_ledger)))
    if ranks and ranks[0]["cells"]:
        console.print(_cells_table(ranks[0]))


def _phase_table(ranks: list[dict[str, Any]]) -> Table:
    columns = visible_columns(ranks)
    table = Table(title="free GiB per phase (drop since the previous reading)", title_justify="left")
    table.add_column("rank", style="bold")
    table.add_column("gpu", justify="right")
    for title, *_ in columns:
        table.add_column(title, justify="right")
    table.add_column("last bs", justify="right")
    for rank in ranks:
        row = [rank["rank"], _gpu_cell(rank)]
        for _title, phase_id, graph, key in columns:
            value = phase_value(rank, phase_id, graph, key)
            cell = Text(fmt_gib(value))
            if key == "avail_gib" and value is not None:
                drop = drop_before(rank, phase_id, graph)
                if drop is not None:
                    cell.append(f" (-{drop:.2f})" if drop >= 0 else f" (+{-drop:.2f})", style="dim")
            if key == "kv_gib" and value is not None:
                tokens = phase_value(rank, phase_id, graph, "tokens")
                cell.append(f" [{tokens} tok]", style="dim")
            row.append(cell)
        last = last_capture_bs(rank)
        row.append("" if last is None else f"bs={last[0]} @ {last[1]:.2f}")
        table.add_row(*row)
    if len(ranks) > 1:
        stats_row: list[Any] = [Text("min/max/spread", style="italic"), ""]
        for _title, phase_id, graph, key in columns:
            stats = column_stats(ranks, phase_id, graph, key)
            if stats is None:
                stats_row.append("")
                continue
            style = "bold red" if key == "avail_gib" and stats["spread_pct"] > SPREAD_HIGHLIGHT_PCT else "dim"
            stats_row.append(Text(f"{fmt_gib(stats['min'])}/{fmt_gib(stats['max'])}/{stats['spread']:.2f}"
                                  f" ({stats['spread_pct']}%)", style=style))
        stats_row.append("")
        table.add_row(*stats_row)
    return table


def _gpu_cell(rank: dict[str, Any]) -> str:
    if rank["gpu"] is None:
        return ""
    return f"{rank['gpu']}{'?' if rank['gpu_assumed'] else ''}"


def _ledger_table(ranks: list[dict[str, Any]], count: int) -> Table:
    totals = {r["card_total_gib"] for r in ranks}
    total = next(iter(totals)) if len(totals) == 1 else None
    source = ranks[0].get("card_total_source", "")
    title = (f"ledger, GiB (card total {total:.2f} GiB: {source})" if total is not None
             else f"ledger, GiB (card total {source})")
    if count > len(ranks):
        title += f"; first {len(ranks)} of {count} ranks"
    table = Table(title=title, title_justify="left")
    table.add_column("item")
    table.add_column("kind")
    for rank in ranks:
        table.add_column(rank["rank"], justify="right")
    names: list[str] = []
    for rank in ranks:
        for item in rank["ledger"]:
            if item["item"] not in names:
                names.append(item["item"])
    for name in names:
        cells = []
        kind = ""
        for rank in ranks:
            item = next((i for i in rank["ledger"] if i["item"] == name), None)
            cells.append("" if item is None else f"{item['gib']:.2f}")
            kind = kind or ("" if item is None else item["kind"])
        style = "bold yellow" if name == "unexplained" else ""
        table.add_row(Text(name, style=style), kind, *cells)
    return table


def _cells_table(rank: dict[str, Any]) -> Table:
    table = Table(title=f"communication cells per rank (group x mechanism; {rank['rank']} shown, same on every rank)",
                  title_justify="left")
    for col in ("group", "mechanism", "GiB", "kind", "timing", "basis"):
        table.add_column(col, justify="right" if col == "GiB" else "left")
    for cell in rank["cells"]:
        gib = "n/a" if cell["gib"] is None else f"{cell['gib']:.3f}"
        table.add_row(cell["group"], cell["mechanism"], gib, cell["kind"], cell["timing"], cell.get("basis", ""))
    return table


_GPU_COLUMNS = (
    ("gpu", lambda g: str(g["index"])),
    ("name", lambda g: g.get("name")),
    ("cc", lambda g: g.get("compute_capability")),
    ("total MiB", lambda g: g.get("memory_total_mib")),
    ("reserved MiB", lambda g: g.get("driver_reserved_mib")),
    ("used MiB", lambda g: g.get("memory_used_mib")),
    ("free MiB", lambda g: g.get("memory_free_mib")),
    ("card total GiB", lambda g: g.get("card_total_gib")),
    ("outside allocator MiB", lambda g: g.get("outside_allocator_mib")),
    ("processes", lambda g: ", ".join(f"{p.get('pid')} {p.get('name', '')} {p.get('used_mib', '')}MiB".strip()
                                      for p in g.get("processes", [])) or None),
    ("MIG (gi used/total MiB)", lambda g: ", ".join(f"{m['gi']}: {m['memory_used_mib']}/{m['memory_total_mib']}"
                                                    for m in g.get("mig", [])) or None),
    ("ranks (assumed)", lambda g: ", ".join(g.get("ranks", [])) or None),
)


def _gpus(report: dict[str, Any], console: Console) -> None:
    gpus = report["gpus"]
    columns = [(title, get) for title, get in _GPU_COLUMNS if any(get(g) not in (None, "") for g in gpus)]
    table = Table(title="GPUs (nvidia-smi / check_env)", title_justify="left")
    for title, _get in columns:
        table.add_column(title)
    for gpu in gpus:
        table.add_row(*[fmt_gib(get(gpu)) for _title, get in columns])
    console.print(table)
    links = report["topology"]["links"]
    if links:
        console.print(Text("topology: ", style="bold") + Text(", ".join(f"GPU{a}-GPU{b} {k}" for a, b, k in links[:28])
                                                              + (f" (+{len(links) - 28} more)" if len(links) > 28 else "")))


def _findings(findings: list[dict[str, Any]], console: Console) -> None:
    if not findings:
        console.print(Text("findings: none", style="green"))
        return
    console.rule("[bold]Findings[/bold]")
    for finding in sorted_findings(findings):
        style = _SEVERITY_STYLE.get(finding["severity"], "")
        head = Text(f"{finding['severity']:<7} ", style=style) + Text(f"[{finding['rule']}] ", style="bold")
        where = f"launch {finding['launch']}" if finding.get("launch") else ""
        if finding.get("ranks"):
            where += f" ranks {', '.join(finding['ranks'][:8])}{' ...' if len(finding['ranks']) > 8 else ''}"
        console.print(head + Text(finding["message"]) + Text(f"  ({where.strip()})" if where.strip() else "", style="dim"))
        if finding.get("hint"):
            console.print(Text("        fix: ", style="bold") + Text(finding["hint"]))
        for ev in finding.get("evidence", [])[:4]:
            console.print(Text(f"        {ev['source']}:{ev['line']}: ", style="dim") + Text(ev["text"][:160]))


def _coverage(report: dict[str, Any], console: Console) -> None:
    cov = report["coverage"]
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
    for launch_id, per_rank in cov["missing_phases"].items():
        groups: dict[tuple, list[str]] = {}
        for rank, phases in per_rank.items():
            groups.setdefault(tuple(phases), []).append(rank)
        for phases, ranks in groups.items():
            console.print(Text(f"launch {launch_id}: {', '.join(ranks)} missing: {', '.join(phases)}", style="dim"))
