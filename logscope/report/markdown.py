"""Markdown for tickets (a GitHub comment): findings first, then per launch the phase table, the ledger,
the cells and a Mermaid gantt of the startup phases."""

from __future__ import annotations

from typing import Any

from logscope.report.layout import (
    column_stats,
    drop_before,
    fmt_gib,
    last_capture_bs,
    phase_value,
    sorted_findings,
    visible_columns,
)

_ICON = {"error": "🔴", "warning": "🟠", "info": "🔵"}
_GANTT = (
    ("init distributed", "init_distributed_begin", "init_distributed_end"),
    ("load weights", "load_weight_begin", "load_weight_end"),
    ("KV pool", "load_weight_end", "memory_pool_end"),
    ("CUDA graph capture", "capture_begin", "capture_end"),
)


def render_markdown(report: dict[str, Any]) -> str:
    out: list[str] = ["## logscope report", ""]
    out += _findings(report["findings"])
    for launch in report["launches"]:
        if launch["ranks"] or launch["config"] or launch["versions"] or launch["model"] or launch["environment"]:
            out += _launch(launch)
    if report["versions"] and not report["launches"]:
        out += ["**Versions:** " + ", ".join(f"{k} {v}" for k, v in report["versions"].items()), ""]
    if report["gpus"]:
        out += _gpus(report)
    cov = report["coverage"]
    if cov.get("unmatched_failures"):
        out += ["**Lines that read like a failure but match no signature:**", "", "```"]
        out += [f"{m['source'].rsplit('/', 1)[-1]}:{m['line']}: {m['text'][:160]}" for m in cov["unmatched_failures"][:8]]
        out += ["```", ""]
    out += ["", f"<sub>logscope {report['logscope_version']} · {cov['lines']} lines read, "
                f"{cov['recognized_lines']} recognised, {cov['unrecognized_total']} candidate lines unrecognised</sub>", ""]
    return "\n".join(out)


def _esc(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _findings(findings: list[dict[str, Any]]) -> list[str]:
    if not findings:
        return ["No findings.", ""]
    out = ["### Findings", ""]
    for f in sorted_findings(findings):
        ranks = f" ({', '.join(f['ranks'][:8])})" if f.get("ranks") else ""
        out.append(f"- {_ICON.get(f['severity'], '')} **{f['severity']}** `{f['rule']}`{ranks}: {_esc(f['message'])}")
        if f.get("hint"):
            out.append(f"  - **Fix:** {_esc(f['hint'])}")
        for ev in f.get("evidence", [])[:3]:
            out.append(f"  - `{ev['source'].rsplit('/', 1)[-1]}:{ev['line']}` `{_esc(ev['text'][:150]).replace('`', '')}`")
    out.append("")
    return out


def _launch(launch: dict[str, Any]) -> list[str]:
    out = [f"### Launch {launch['id']} ({len(launch['ranks'])} ranks)", ""]
    if launch["config"]:
        out.append("**Config:** " + ", ".join(f"`{k}={v}`" for k, v in launch["config"].items()))
    if launch["versions"]:
        out.append("**Versions:** " + ", ".join(f"{k} {v}" for k, v in launch["versions"].items()))
    if launch["model"]:
        out.append("**Model:** " + ", ".join(f"{k}={v}" for k, v in launch["model"].items()))
    for group in launch.get("tp_groups", []):
        links = ", ".join(f"{kind} x{count}" for kind, count in group["links"].items())
        out.append(f"**TP group** {', '.join(group['ranks'])} on GPUs {', '.join(map(str, group['gpus']))} "
                   f"(assumed): {group['path']} ({links})")
    out.append("")
    ranks = launch["ranks"]
    if ranks:
        cols = visible_columns(ranks)
        out.append("| rank | " + " | ".join(c[0] for c in cols) + " | last capture bs |")
        out.append("|---|" + "---:|" * len(cols) + "---|")
        for rank in ranks:
            cells = []
            for _t, phase_id, graph, key in cols:
                value = phase_value(rank, phase_id, graph, key)
                cell = fmt_gib(value)
                drop = drop_before(rank, phase_id, graph) if key == "avail_gib" and value is not None else None
                if drop is not None:
                    cell += f" (−{drop:.2f})" if drop >= 0 else f" (+{-drop:.2f})"
                cells.append(cell)
            last = last_capture_bs(rank)
            shown = "" if last is None else f"bs={last[0]} @ {last[1]:.2f}"
            out.append(f"| {rank['rank']} | " + " | ".join(cells) + f" | {shown} |")
        if len(ranks) > 1:
            stats = [(column_stats(ranks, c[1], c[2], c[3]), c[3] == "avail_gib") for c in cols]
            out.append("| *min/max/spread* | " + " | ".join(
                "" if s is None else (f"{fmt_gib(s['min'])}/{fmt_gib(s['max'])}/{s['spread']:.2f}"
                                      + (f" **({s['spread_pct']}%)**" if hot and s["spread_pct"] > 10
                                         else f" ({s['spread_pct']}%)"))
                for s, hot in stats) + " | |")
        out.append("")
    with_ledger = [r for r in ranks if r["ledger"]][:8]
    if with_ledger:
        names = list(dict.fromkeys(i["item"] for r in with_ledger for i in r["ledger"]))
        total = with_ledger[0].get("card_total_gib")
        out += [f"**Ledger, GiB** (card total: {'unknown' if total is None else f'{total:.2f} GiB'}, "
                f"{with_ledger[0].get('card_total_source', '')})", "",
                "| item | kind | " + " | ".join(r["rank"] for r in with_ledger) + " |",
                "|---|---|" + "---:|" * len(with_ledger)]
        for name in names:
            found = [next((i for i in r["ledger"] if i["item"] == name), None) for r in with_ledger]
            kind = next((i["kind"] for i in found if i), "")
            out.append(f"| {name} | {kind} | " + " | ".join("" if i is None else f"{i['gib']:.2f}" for i in found) + " |")
        out.append("")
    cells = ranks[0]["cells"] if ranks else []
    if cells:
        out += [f"**Communication cells ({ranks[0]['rank']})**", "", "| group | mechanism | GiB | kind | timing |",
                "|---|---|---:|---|---|"]
        out += [f"| {c['group']} | {c['mechanism']} | {_cell_gib(c)} "
                f"| {c['kind']} | {c['timing']} |" for c in cells]
        out.append("")
    out += _gantt(ranks)
    return out


def _gantt(ranks: list[dict[str, Any]]) -> list[str]:
    best: tuple[str, list[tuple[str, str, str]]] | None = None
    for rank in ranks:
        tasks = _timed_tasks(rank)
        if tasks and (best is None or len(tasks) > len(best[1])):
            best = (rank["rank"], tasks)
    if best is None:
        return []
    out = ["```mermaid", "gantt", f"  title Startup phases ({best[0]})", "  dateFormat YYYY-MM-DD HH:mm:ss",
           "  axisFormat %H:%M:%S"]
    out += [f"  {name} : {start}, {end}" for name, start, end in best[1]]
    return out + ["```", ""]


def _timed_tasks(rank: dict[str, Any]) -> list[tuple[str, str, str]]:
    times: dict[str, str] = {}
    for phase in rank["phases"]:
        if phase["model"] == "target" and phase.get("time") and len(phase["time"]) >= 19:
            times.setdefault(phase["phase"], phase["time"][:19])
    return [(name, times[a], times[b]) for name, a, b in _GANTT if a in times and b in times and times[b] >= times[a]]


def _gpus(report: dict[str, Any]) -> list[str]:
    out = ["### GPUs", "", "| gpu | name | total MiB | reserved MiB | used MiB | card total GiB | outside allocator MiB "
           "| processes | ranks (assumed) |", "|---:|---|---:|---:|---:|---:|---:|---|---|"]
    for gpu in report["gpus"]:
        procs = ", ".join(f"{p.get('pid')} {p.get('name', '')} {p.get('used_mib', '')} MiB" for p in gpu.get("processes", []))
        out.append(f"| {gpu['index']} | {gpu.get('name') or ''} | {fmt_gib(gpu.get('memory_total_mib'))} | "
                   f"{fmt_gib(gpu.get('driver_reserved_mib'))} | {fmt_gib(gpu.get('memory_used_mib'))} | "
                   f"{fmt_gib(gpu.get('card_total_gib'))} | {fmt_gib(gpu.get('outside_allocator_mib'))} | {_esc(procs)} | "
                   f"{', '.join(gpu.get('ranks', []))} |")
    links = report["topology"]["links"]
    if links:
        out += ["", "**Topology:** " + ", ".join(f"GPU{a}-GPU{b} {k}" for a, b, k in links[:28])
                + (f" (+{len(links) - 28} more)" if len(links) > 28 else "")]
    out.append("")
    return out


def _cell_gib(cell: dict[str, Any]) -> str:
    return "n/a" if cell["gib"] is None else f"{cell['gib']:.3f}"
