"""The ticket-comment styling (GitHub Markdown) of the view-model: a hidden marker, the verdict, the findings
with hints, the per-rank phase table, a Mermaid gantt, evidence as `block:line` in a collapsed section,
and what was not recognised. Quoted text goes inside fences long enough that it cannot close them, with
@mentions and #123 links neutralised; the whole comment stays under MAX_CHARS (detail is cut, never the
verdict, and the comment says what was cut)."""

from __future__ import annotations

import re
from html import escape
from typing import Any

from logscope.report.view import LaunchView, ReportView, build_view, fmt_gib, known_cases_line, plural

MARKER = "<!-- logscope:report -->"
MAX_CHARS = 60_000
_ICON = {"error": "🔴", "warning": "🟠", "info": "🔵"}
_MENTION = re.compile(r"(?<![\w`])@(?=[A-Za-z0-9-])")
_ISSUE_LINK = re.compile(r"(?<![\w&`])#(?=\d)")


def _no_links(text: str) -> str:
    """No @mention notifies and no #123 links: a zero-width joiner after the sign."""
    return _ISSUE_LINK.sub("#\u2060", _MENTION.sub("@\u2060", text))


def neutral(text: Any) -> str:
    """Prose from the input, safe outside a fence: no HTML, no table break, no mention, no issue link."""
    return _no_links(escape(str(text), quote=False).replace("|", "\\|").replace("\n", " "))


def fenced(lines: list[str], info: str = "") -> list[str]:
    """Lines inside a fence no line can close (longer than any backtick run), mentions neutralised."""
    lines = [_no_links(line) for line in lines]
    longest = max([len(run) for line in lines for run in re.findall(r"`+", line)] + [2])
    fence = "`" * (longest + 1)
    return [f"{fence}{info}", *lines, fence]


def render_comment(report: dict[str, Any], width: int = 0, max_chars: int = MAX_CHARS) -> str:
    view = build_view(report)
    head = [MARKER, f"**logscope** · {neutral(view.verdict)}", ""]
    if view.shown:
        head += [f"<sub>{neutral(view.shown)}</sub>", ""]
    sections: list[tuple[str, list[str]]] = [("findings", _findings(view) or _what_was_read(view))]
    for launch in view.launches:
        sections.append((f"launch {launch.id} table", _table(launch)))
        if launch.gantt is not None:
            sections.append((f"launch {launch.id} gantt", _gantt(launch)))
    sections.append(("evidence", _evidence(view)))
    sections.append(("unrecognised lines", _unrecognised(view)))
    foot = _footer(view, report)
    kept: list[str] = []
    cut: list[str] = []
    size = sum(len(line) + 1 for line in head + foot) + 200  # room for the note on what was cut
    for name, lines in sections:
        length = sum(len(line) + 1 for line in lines)
        if cut or size + length > max_chars:
            cut.append(name)
            continue
        kept += lines
        size += length
    note = (
        [
            f"<sub>Cut to stay under {max_chars} characters: {', '.join(cut)}. Run `logscope triage` on the issue "
            f"for the whole report.</sub>",
            "",
        ]
        if cut
        else []
    )
    return "\n".join(head + kept + note + foot)


def _findings(view: ReportView) -> list[str]:
    if not view.findings:
        return []
    out = [f"### {plural(len(view.findings), 'finding').capitalize()}", ""]
    for f in view.findings:
        ranks = f" ({', '.join(f.ranks[:8])}{' ...' if len(f.ranks) > 8 else ''})" if f.ranks else ""
        out.append(f"- {_ICON.get(f.severity, '')} **{f.severity}** `{f.rule}`{neutral(ranks)}: {neutral(f.message)}")
        if f.hint:
            out.append(f"  - **Fix:** {neutral(f.hint)}")
        if f.cases or f.cases_note:
            out.append("  - **Known cases:** " + known_cases_line(f, neutral))
    return [*out, ""]


_LAYOUT = ("tp_size", "dp_size", "ep_size", "pp_size", "moe_a2a_backend", "deepep_mode", "disaggregation_mode")


def _what_was_read(view: ReportView) -> list[str]:
    """With no finding: what the comment could read (layout, flags, versions, GPUs), and what to paste next."""
    out = ["### What was read", ""]
    for launch in view.launches:
        config = dict((key, value) for key, value, _ in launch.config)
        layout = ", ".join(f"{key.removesuffix('_size')} {config[key]}" for key in _LAYOUT if key in config)
        others = [f"{key}={value}" for key, value, _ in launch.config if key not in _LAYOUT][:12]
        out.append(
            f"- Launch {launch.id}: {plural(launch.rank_count, 'rank')} with phase lines"
            + (f"; layout {neutral(layout)}" if layout else "; no parallel layout given")
            + (f"; flags {neutral(', '.join(others))}" if others else "")
        )
        if launch.versions:
            out.append("  - versions: " + neutral(", ".join(f"{k} {v}" for k, v in launch.versions)))
    if view.versions:
        out.append("- Versions: " + neutral(", ".join(f"{k} {v}" for k, v in view.versions)))
    names = sorted({str(g.get("name")) for g in view.gpus if g.get("name")})
    out.append(f"- GPUs: {plural(len(view.gpus), 'GPU')}" + (f" ({neutral(', '.join(names))})" if names else ""))
    if view.unread_failures:  # said beside what was read: no all-clear
        out.append(f'- Failures: none named, but {neutral(view.unread_failures)} (under "Not recognised" below)')
    out += ["", "**To find a startup or runtime problem, paste next:**", ""]
    out += [f"- {item}" for item in _paste_next(view)]
    return [*out, ""]


def _paste_next(view: ReportView) -> list[str]:
    ranks = sum(launch.rank_count for launch in view.launches)
    wants = []
    if ranks == 0:
        wants.append(
            "the server log from its start to the failure, with its `[time TPn]` prefixes (every rank, or "
            "the first one that failed), including any traceback"
        )
    if not any(launch.config for launch in view.launches):
        wants.append("the launch command (`python -m sglang.launch_server ...`) or the `server_args=` line")
    if not view.gpus:
        wants.append("`nvidia-smi` (better `nvidia-smi -q`) from the machine, and `nvidia-smi topo -m` for TP > 1")
    if not view.versions and not any(launch.versions for launch in view.launches):
        wants.append("`python3 -m sglang.check_env` (SGLang, torch, CUDA, NCCL and driver versions)")
    return wants or ["the lines around the moment it failed, if it did: this input holds no failure logscope knows"]


def _table(launch: LaunchView) -> list[str]:
    timeline = launch.timeline
    if timeline is None:
        return []
    out = [
        f"**Launch {launch.id}** ({plural(launch.rank_count, 'rank')}): free GiB per phase (drop since the previous reading)",
        "",
        "| rank | " + " | ".join(timeline.titles) + " |",
        "|---|" + "---:|" * len(timeline.titles),
    ]
    for row in timeline.rows:
        cells = [
            fmt_gib(c.value)
            + (f" (−{c.drop:.2f})" if c.drop is not None and c.drop >= 0 else f" (+{-c.drop:.2f})" if c.drop is not None else "")
            for c in row.cells
        ]
        out.append(f"| {neutral(row.rank)} | " + " | ".join(cells) + " |")
    return [*out, ""]


def _gantt(launch: LaunchView) -> list[str]:
    assert launch.gantt is not None
    rank, tasks = launch.gantt
    return [
        "```mermaid",
        "gantt",
        f"  title Startup phases ({rank})",
        "  dateFormat YYYY-MM-DD HH:mm:ss",
        "  axisFormat %H:%M:%S",
        *[f"  {name} : {start}, {end}" for name, start, end in tasks],
        "```",
        "",
    ]


def _evidence(view: ReportView) -> list[str]:
    lines = list(dict.fromkeys(f"{ev.source}:{ev.line}: {ev.text}" for f in view.findings for ev in f.evidence))
    if not lines:
        return []
    return [
        f"<details><summary>Evidence ({plural(len(lines), 'line')}, as block:line)</summary>",
        "",
        *fenced(lines),
        "",
        "</details>",
        "",
    ]


def _unrecognised(view: ReportView) -> list[str]:
    cov = view.coverage
    items = [f"{m['source']}:{m['line']}: {m['text'][:160]}" for m in cov.get("unmatched_failures", [])[:8]]
    items += [f"{m['source']}:{m['line']}: {m['text'][:160]}" for m in cov["unrecognized"][:8]]
    if not items:
        return []
    return [
        "<details><summary>Not recognised: lines that look like a failure or a startup line but that no "
        "signature or grammar reads</summary>",
        "",
        *fenced(items),
        "",
        "</details>",
        "",
    ]


def _footer(view: ReportView, report: dict[str, Any]) -> list[str]:
    blocks = (report.get("triage") or {}).get("blocks") or []
    read = (
        ", ".join(
            f"{b['name']} ({b['kind']}, {plural(b['lines'], 'line')}, {b['recognized_lines']} recognised)"
            for b in blocks
            if b["recognized_lines"]
        )
        or "no block with a recognised line"
    )
    cov = view.coverage
    what = f"blocks read: {read}" if blocks else f"{plural(cov['lines'], 'line')} read, {cov['recognized_lines']} recognised"
    return [f"<sub>logscope {view.version} · {neutral(what)}</sub>", ""]
