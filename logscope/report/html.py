"""The HTML styling of the view-model: one self-contained page (inline CSS and SVG, no script run, no request
other than the file itself) with the verdict, the findings, and per launch a stacked bar of every rank's
ledger, the startup phases of every rank on a time axis, a heat map of free GiB by rank and phase, the
group x mechanism cells, then the GPUs and the coverage. The logscope/1 document is embedded as JSON
(escaped for HTML) so that a reader, or a test, can take the numbers from the page."""

from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import json
import math
from html import escape
from typing import Any

from logscope.report import view as v
from logscope.report.compare_view import CompareView, build_compare_view
from logscope.report.view import GPU_COLUMNS, build_view, fmt_gib, plural

WIDTH = 960  # every chart's viewBox width: charts in hidden or printed pages keep their geometry
_BAR_AREA = 260
_PALETTE = {
    "other_processes": "#8c564b",
    "cuda_context": "#7f7f7f",
    "comm_eager": "#d62728",
    "before_first_reading": "#bcbd22",
    "weights": "#1f77b4",
    "kv_pool": "#2ca02c",
    "before_capture": "#9467bd",
    "cuda_graphs": "#ff7f0e",
    "after_capture": "#e377c2",
    "free": "#c7e9c0",
    "unexplained": "#fdd0a2",
    "weights and pools": "#1f77b4",
    "graphs and lazy cells": "#ff7f0e",
    "margin": "#c7e9c0",  # the plan's bars
}
_FALLBACK = ("#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#c5b0d5", "#c49c94")
_CSS = """
:root { --bg: #ffffff; --fg: #1b1f24; --muted: #5b6470; --line: #d0d7de; --card: #f6f8fa;
  --error: #c62828; --warning: #b26a00; --info: #0b6bcb; --ok: #1a7f37; }
@media (prefers-color-scheme: dark) { :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9da7b3; --line: #30363d;
  --card: #161b22; --error: #ff7b72; --warning: #e3b341; --info: #79c0ff; --ok: #56d364; } }
body { background: var(--bg); color: var(--fg); font: 14px/1.45 system-ui, sans-serif; margin: 24px auto;
  max-width: 1000px; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 8px; } h2 { font-size: 18px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
.verdict { font-size: 16px; font-weight: 600; padding: 10px 12px; border-left: 4px solid var(--ok); background: var(--card); }
.verdict.error { border-color: var(--error); } .verdict.warning { border-color: var(--warning); }
.verdict.info { border-color: var(--info); }
.cases ul { margin: 4px 0; }
.finding { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; margin: 8px 0; }
.sev { font-weight: 700; text-transform: uppercase; font-size: 12px; margin-right: 6px; }
.sev.error { color: var(--error); } .sev.warning { color: var(--warning); } .sev.info { color: var(--info); }
code, pre { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
pre { background: var(--bg); border: 1px solid var(--line); padding: 6px 8px; overflow-x: auto; white-space: pre-wrap; }
table { border-collapse: collapse; margin: 6px 0 12px; font-size: 13px; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.muted { color: var(--muted); }
figure { margin: 10px 0 18px; } figcaption { color: var(--muted); font-size: 12px; margin-top: 4px; }
svg { width: 100%; height: auto; } svg text { fill: var(--fg); font: 11px system-ui, sans-serif; }
svg .axis { stroke: var(--muted); } svg .grid { stroke: var(--line); stroke-dasharray: 2 3; }
svg .axis-title, svg .row-title { fill: var(--muted); font-weight: 600; }
.legend span { display: inline-block; margin-right: 12px; font-size: 12px; }
.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: -1px; }
@media print { body { max-width: none; margin: 0; } .finding, pre { break-inside: avoid; } figure { break-inside: avoid; } }
@media (max-width: 600px) { body { margin: 12px auto; padding: 0 8px; overflow-wrap: break-word; }
  table { display: block; max-width: 100%; overflow-x: auto; } th, td { padding: 2px 4px; }
  td:last-child { min-width: 14em; } }
"""
_TIMELINE_COLOURS = ("#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf")
_OTHER_SEGMENT = "#7f7f7f"
_STEP_COLOURS = {"total": "#1f77b4", "unattributed": "#7f7f7f", "inferred": "#bcbd22"}
_GAIN, _LOSS = "#2ca02c", "#d62728"
# every colour a chart or legend may use: each is a class of the one <style> element, so a page whose policy
# admits that element by its hash (and no style attribute) shows all of them
_SWATCHES = tuple(
    dict.fromkeys((*_PALETTE.values(), *_FALLBACK, *_TIMELINE_COLOURS, _OTHER_SEGMENT, *_STEP_COLOURS.values(), _GAIN, _LOSS))
)
HEAT_STEPS = 10  # the heat map's neutral scale: 11 shades, darker for less free memory
_CSS += "".join(f".k-{c[1:]} {{ background: {c}; }}\n" for c in _SWATCHES)
_CSS += "".join(
    f"td.heat-{k} {{ background: hsl(210, 14%, {34 + k * 50 // HEAT_STEPS}%); color: {'#fff' if k < 5 else '#1b1f24'}; }}\n"
    for k in range(HEAT_STEPS + 1)
)
_CSS += "td.unexpected { background: hsl(0, 72%, 44%); color: #fff; }\n"
# the policy of the file: only its own <style> element, no script, no request (the JSON data block is inert)
STYLE_SOURCE = f"'sha256-{base64.b64encode(hashlib.sha256(_CSS.encode()).digest()).decode()}'"
CSP = f"default-src 'none'; style-src {STYLE_SOURCE}; base-uri 'none'; form-action 'none'"


def render_html(report: dict[str, Any], width: int = 0) -> str:
    view = build_view(report)
    top = view.findings[0].severity if view.findings else ("warning" if view.unread_failures else "ok")
    body = [f'<header><h1>logscope report</h1><p class="verdict {top}" id="verdict">{escape(view.verdict)}</p></header>']
    if view.shown:
        body.append(f'<p class="muted" id="shown">{escape(view.shown)}</p>')
    body += _findings(view.findings, view.unread_failures)
    for launch in view.launches:
        body += _launch(launch)
    if view.versions:
        body.append(f"<p><b>Versions:</b> {escape(', '.join(f'{k} {v}' for k, v in view.versions))}</p>")
    body += _gpus(view)
    if view.calibration:
        body.append(f'<p id="calibration"><b>Calibration:</b> {escape(view.calibration)}</p>')
    body += _coverage(view)
    return page("logscope report", body, report)


def page(title: str, body: list[str], document: dict[str, Any]) -> str:
    """The one page shell of every document (report, diff, plan): the same style, the document embedded."""
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>\n"
        + "\n".join(body)
        + f'\n<script type="application/json" id="logscope-data">{json_for_html(document)}</script>\n</body></html>\n'
    )


def nice_ticks(high: float, count: int = 5) -> tuple[float, list[float]]:
    """(axis maximum, tick values from 0): steps of 1, 2, 2.5 or 5 times a power of ten, the top tick >= high."""
    if high <= 0:
        return 1.0, [0.0, 1.0]
    raw = high / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    top = math.ceil(high / step - 1e-9) * step
    return top, [round(i * step, 6) for i in range(round(top / step) + 1)]


def _y_axis(left: float, top: float, base: float, scale: float, ticks: list[float], unit: str) -> list[str]:
    """A vertical axis at x=left from `base` (0) up, a labelled tick and a dashed grid line per tick value."""
    out = [f'<g class="y-axis" data-unit="{escape(unit)}"><line class="axis" x1="{left}" y1="{top}" x2="{left}" y2="{base}"/>']
    for value in ticks:
        y = base - value * scale
        out.append(
            f'<g class="tick" data-value="{value:g}"><line class="grid" x1="{left}" y1="{y:.3f}" '
            f'x2="{WIDTH - 10}" y2="{y:.3f}"/><line class="axis" x1="{left - 4}" y1="{y:.3f}" x2="{left}" '
            f'y2="{y:.3f}"/><text x="{left - 7}" y="{y + 4:.3f}" text-anchor="end">{tick_label(value)}</text></g>'
        )
    out.append(f'<text class="axis-title" x="{left}" y="{top - 10}" text-anchor="middle">{escape(unit)}</text></g>')
    return out


def tick_label(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:g}"


def json_for_html(report: dict[str, Any]) -> str:
    """The document as JSON that cannot end the script element or start markup (as jinja2's htmlsafe_json_dumps)."""
    text = json.dumps(report, ensure_ascii=False, sort_keys=False)
    return (
        text.replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("'", "\\u0027")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _findings(findings: tuple[v.FindingView, ...], unread: str | None = None) -> list[str]:
    title = plural(len(findings), "finding").capitalize() if findings else "No findings" + (f"; {unread}" if unread else "")
    out = [f'<section id="findings"><h2>{escape(title)}</h2>']
    for f in findings:
        where = f"launch {f.launch}" if f.launch else ""
        if f.ranks:
            where += f" · {'rank' if len(f.ranks) == 1 else 'ranks'} {', '.join(f.ranks[:16])}"
        out.append(
            f'<div class="finding" data-rule="{escape(f.rule)}"><span class="sev {escape(f.severity)}">'
            f"{escape(f.severity)}</span><code>{escape(f.rule)}</code> {escape(f.message)}"
            + (f' <span class="muted">({escape(where.strip(" ·"))})</span>' if where else "")
        )
        if f.hint:
            out.append(f"<p><b>Fix:</b> {escape(f.hint)}</p>")
        if f.evidence:
            out.append("<pre>" + "\n".join(escape(f"{ev.name}:{ev.line}: {ev.text}") for ev in f.evidence) + "</pre>")
        out += _known_cases(f)
        out.append("</div>")
    return [*out, "</section>"]


def _known_cases(f: v.FindingView) -> list[str]:
    """The page requests and links nothing (it is self-contained): each case's address is shown as text."""
    if not f.cases and not f.cases_note:
        return []
    items = [
        f'<li><b>{escape(c.ref)}</b> {escape(c.title)}: {escape(c.said)} <span class="muted">{escape(c.url)}</span></li>'
        for c in f.cases
    ]
    if f.cases_note:
        items.append(f"<li>{escape(f.cases_note)}</li>")
    return ['<div class="cases"><b>Known cases</b><ul>', *items, "</ul></div>"]


def _launch(launch: v.LaunchView) -> list[str]:
    out = [
        f'<section class="launch" id="launch-{launch.id}"><h2>Launch {launch.id} '
        f"({escape(plural(launch.rank_count, 'rank'))})</h2>"
    ]
    facts = [
        ("Config", ", ".join(f"{k}={v}" for k, v, _ in launch.config)),
        ("Model", ", ".join(f"{k}={v}" for k, v in launch.model)),
        ("Versions", ", ".join(f"{k} {v}" for k, v in launch.versions)),
        ("Inferred from rank tags", ", ".join(f"{k} >= {n}" for k, n, _ in launch.lower_bounds)),
    ]
    out += [f"<p><b>{label}:</b> {escape(text)}</p>" for label, text in facts if text]
    for group in launch.tp_groups:
        out.append(
            f"<p><b>TP group</b> {escape(', '.join(group.ranks))} on GPUs "
            f"{escape(', '.join(map(str, group.gpus)))} (assumed): {escape(group.path)} ({escape(group.links)})</p>"
        )
    if launch.ledger is not None:
        out += _ledger_chart(launch.id, launch.ledger)
    if launch.rank_segments:
        out += _timeline_chart(launch.id, launch.rank_segments)
    if launch.timeline is not None:
        out += _heatmap(launch.id, launch.timeline)
    if launch.cells:
        out.append(
            f"<h3>Communication cells (group x mechanism, {escape(launch.cells_rank or '')})</h3>"
            f'<table class="cells" id="cells-{launch.id}"><tr><th>group</th><th>mechanism</th><th>GiB</th>'
            "<th>measured / estimated</th><th>eager / lazy</th><th>basis</th></tr>"
        )
        for c in launch.cells:
            gib = "n/a" if c.gib is None else f"{c.gib:.3f}"
            out.append(
                f'<tr data-mechanism="{escape(c.mechanism)}"><td>{escape(c.group)}</td>'
                f'<td>{escape(c.mechanism)}</td><td class="num">{gib}</td><td>{escape(c.kind)}</td>'
                f"<td>{escape(c.timing)}</td><td>{escape(c.basis)}</td></tr>"
            )
        out.append("</table>")
    return [*out, "</section>"]


def _color(item: str, index: int) -> str:
    return _PALETTE.get(item, _FALLBACK[index % len(_FALLBACK)])


def _swatch(colour: str) -> str:
    """The class that paints a legend swatch `colour` (one of _SWATCHES)."""
    return f"k-{colour[1:]}"


def _ledger_chart(launch_id: int | str, ledger: v.LedgerView, head: str = "", title: str = "Where the memory went") -> list[str]:
    """Per rank a stacked bar of its ledger items, bottom to top in the ledger's (startup) order, on a GiB axis
    with ticks; under each bar its rank and the sum of the items drawn (negative items are listed instead)."""
    names = [name for name, _, _ in ledger.rows]
    totals = [sum(v for _, _, values in ledger.rows if (v := values[i]) is not None and v > 0) for i in range(len(ledger.ranks))]
    axis_max, ticks = nice_ticks(max(totals, default=0.0))
    scale = _BAR_AREA / axis_max
    left, top = 64, 24
    base = top + _BAR_AREA
    step = (WIDTH - left - 10) / max(len(ledger.ranks), 1)
    bar = max(min(step * 0.7, 60), 2)
    height = base + 62
    svg = [
        f'<svg viewBox="0 0 {WIDTH} {height}" role="img" aria-label="ledger per rank" data-scale="{scale:.6f}">',
        *_y_axis(left, top, base, scale, ticks, "GiB"),
    ]
    svg.append(f'<line class="axis" x1="{left}" y1="{base}" x2="{WIDTH - 10}" y2="{base}"/>')
    svg.append(
        f'<text class="row-title" x="{left - 7}" y="{base + 16}" text-anchor="end">rank</text>'
        f'<text class="row-title" x="{left - 7}" y="{base + 32}" text-anchor="end">sum, GiB</text>'
    )
    negatives = []
    for i, rank in enumerate(ledger.ranks):
        x = left + i * step + (step - bar) / 2
        y = float(base)
        svg.append(f'<g class="bar" data-rank="{escape(rank)}">')
        for index, (name, _kind, values) in enumerate(ledger.rows):
            value = values[i]
            if value is None:
                continue
            if value <= 0:
                if value < 0:
                    negatives.append(f"{rank} {name} {value:.2f}")
                continue
            h = value * scale
            y -= h
            svg.append(
                f'<rect x="{x:.2f}" y="{y:.3f}" width="{bar:.2f}" height="{h:.3f}" fill="{_color(name, index)}" '
                f'data-item="{escape(name)}" data-gib="{value:.2f}"><title>{escape(rank)} {escape(name)}: '
                f"{value:.2f} GiB</title></rect>"
            )
        svg.append(f'<text x="{x + bar / 2:.2f}" y="{base + 16}" text-anchor="middle">{escape(rank)}</text>')
        svg.append(f'<text class="bar-sum" x="{x + bar / 2:.2f}" y="{base + 32}" text-anchor="middle">{totals[i]:.2f}</text></g>')
    svg.append("</svg>")
    legend = "".join(f'<span><i class="{_swatch(_color(n, k))}"></i>{escape(n)}</span>' for k, n in enumerate(names))
    total = (
        f"card total {ledger.total_gib:.2f} GiB ({ledger.total_source})"
        if ledger.total_gib is not None
        else f"card total {ledger.total_source}"
    )
    caption = head or (f"Ledger per rank in GiB, each bar bottom to top in startup order (the legend's order); {escape(total)}.")
    caption += " The number under each bar is the sum of the items drawn in it."
    if ledger.init_note:
        caption += f" {escape(ledger.init_note[0].upper() + ledger.init_note[1:])}."
    if negatives:
        caption += " Negative items, not drawn: " + escape("; ".join(negatives)) + " GiB."
    return [
        f'<h3>{escape(title)}</h3><figure class="chart ledger-chart" id="ledger-{launch_id}">',
        *svg,
        f'<div class="legend">{legend}</div><figcaption>{caption}</figcaption></figure>',
    ]


def _seconds(text: str) -> float:
    return _dt.datetime.fromisoformat(text.replace(" ", "T")).timestamp()


def _timeline_chart(launch_id: int, rank_segments: tuple[tuple[str, tuple[tuple[str, str, str], ...]], ...]) -> list[str]:
    """Each rank's startup segments on one time axis (seconds since the first segment began)."""
    starts = [_seconds(s) for _, tasks in rank_segments for _, s, _ in tasks]
    ends = [_seconds(e) for _, tasks in rank_segments for _, _, e in tasks]
    origin, span = min(starts), max(max(ends) - min(starts), 1.0)
    left, row = 60, 18
    scale = (WIDTH - left - 10) / span
    height = 20 + row * len(rank_segments) + 20
    titles = list(dict.fromkeys(t for _, tasks in rank_segments for t, _, _ in tasks))
    colors = dict(zip(titles, _TIMELINE_COLOURS))
    svg = [
        f'<svg viewBox="0 0 {WIDTH} {height}" role="img" aria-label="startup phases per rank" '
        f'data-origin="{escape(_dt.datetime.fromtimestamp(origin).isoformat(sep=" "))}" data-scale="{scale:.6f}">'
    ]
    for r, (rank, tasks) in enumerate(rank_segments):
        y = 10 + r * row
        svg.append(f'<g data-rank="{escape(rank)}"><text x="4" y="{y + 12}">{escape(rank)}</text>')
        for title, start, end in tasks:
            offset, seconds = _seconds(start) - origin, _seconds(end) - _seconds(start)
            svg.append(
                f'<rect x="{left + offset * scale:.2f}" y="{y + 2}" width="{max(seconds * scale, 1.5):.2f}" '
                f'height="{row - 5}" fill="{colors.get(title, _OTHER_SEGMENT)}" data-segment="{escape(title)}" '
                f'data-start="{escape(start)}" data-seconds="{seconds:.0f}"><title>{escape(rank)} {escape(title)}: '
                f"{escape(start)} to {escape(end)} ({seconds:.0f} s)</title></rect>"
            )
        svg.append("</g>")
    axis_y = 10 + row * len(rank_segments)
    axis_max, ticks = nice_ticks(span)
    svg.append(f'<g class="x-axis" data-unit="s"><line class="axis" x1="{left}" y1="{axis_y}" x2="{WIDTH - 10}" y2="{axis_y}"/>')
    for value in ticks:
        if value > span:
            break
        x = left + value * scale
        svg.append(
            f'<g class="tick" data-value="{value:g}"><line class="axis" x1="{x:.2f}" y1="{axis_y}" x2="{x:.2f}" '
            f'y2="{axis_y + 4}"/><text x="{x:.2f}" y="{axis_y + 15}" text-anchor="middle">{tick_label(value)}'
            "</text></g>"
        )
    svg.append(f'<text class="axis-title" x="{left - 6}" y="{axis_y + 15}" text-anchor="end">s</text></g></svg>')
    legend = "".join(f'<span><i class="{_swatch(c)}"></i>{escape(t)}</span>' for t, c in colors.items())
    return [
        "<h3>Startup phases over time</h3>",
        f'<figure class="chart timeline-chart" id="timeline-{launch_id}">',
        *svg,
        f'<div class="legend">{legend}</div><figcaption>From the log\'s timestamps (to the second); '
        f"0 s is {escape(_dt.datetime.fromtimestamp(origin).isoformat(sep=' '))}.</figcaption></figure>",
    ]


def _heat_class(value: float, low: float, high: float) -> str:
    """A neutral blue-grey scale, darker for less free memory: the amount alone is no alarm."""
    t = 0.5 if high <= low else (value - low) / (high - low)
    return f"heat-{round(t * HEAT_STEPS)}"


def _heatmap(launch_id: int, timeline: v.Timeline) -> list[str]:
    columns = [i for i, key in enumerate(timeline.keys) if key == "avail_gib"]
    if not columns:
        return []
    values = [row.cells[i].value for row in timeline.rows for i in columns if row.cells[i].value is not None]
    low, high = (min(values), max(values)) if values else (0.0, 0.0)
    explained = [timeline.titles[i] for i in columns if timeline.explained and timeline.explained[i]]
    out = [
        "<h3>Free GiB by rank and phase</h3>",
        f'<figure class="chart heatmap"><table class="heatmap" id="heatmap-{launch_id}"><tr><th>rank</th>'
        + "".join(
            f'<th data-explained="{str(bool(timeline.explained and timeline.explained[i])).lower()}">'
            f"{escape(timeline.titles[i])}</th>"
            for i in columns
        )
        + "</tr>",
    ]
    for row in timeline.rows:
        cells = []
        for i in columns:
            cell = row.cells[i]
            if cell.value is None:
                cells.append('<td class="num"></td>')
                continue
            shade = "unexpected" if cell.unexpected else _heat_class(cell.value, low, high)
            drop = "" if cell.drop is None else f' data-drop="{cell.drop:.2f}"'
            note = (
                (
                    f' title="{cell.drop:.2f} GiB less free than at the reading before, which this phase does not '
                    'allocate by design"'
                )
                if cell.unexpected
                else ""
            )
            cells.append(
                f'<td class="num {shade}" data-phase="{escape(timeline.titles[i])}" '
                f'data-gib="{fmt_gib(cell.value)}"{drop}{note}>'
                f"{fmt_gib(cell.value)}</td>"
            )
        out.append(f'<tr data-rank="{escape(row.rank)}"><th>{escape(row.rank)}</th>{"".join(cells)}</tr>')
    expected = (
        f" The drops at {escape(', '.join(explained))} are what those phases allocate (weights, KV pool, "
        "CUDA graphs) and stay neutral."
        if explained
        else ""
    )
    out.append(
        f"</table><figcaption>Free memory SGLang printed at each phase (GiB), darker for less "
        f"({fmt_gib(low)} to {fmt_gib(high)}). Red marks a drop of more than {v.UNEXPECTED_DROP_GIB} GiB since "
        f"the reading before at a phase that allocates nothing by design.{expected}</figcaption></figure>"
    )
    return out


def _gpus(view: v.ReportView) -> list[str]:
    if not view.gpus:
        return []
    columns = [(title, get) for title, get in GPU_COLUMNS if any(get(g) not in (None, "") for g in view.gpus)]
    out = ['<section id="gpus"><h2>GPUs</h2><table><tr>' + "".join(f"<th>{escape(t)}</th>" for t, _ in columns) + "</tr>"]
    out += ["<tr>" + "".join(f"<td>{escape(fmt_gib(get(g)))}</td>" for _, get in columns) + "</tr>" for g in view.gpus]
    out.append("</table>")
    if view.topology:
        out.append(f"<p><b>Topology:</b> {escape(view.topology)}</p>")
    out += [f"<p><b>GPU {index}:</b> {escape(line)}</p>" for index, line in view.outside_ledgers]
    return [*out, "</section>"]


def _coverage(view: v.ReportView) -> list[str]:
    cov = view.coverage
    out = [
        '<section id="coverage"><h2>Coverage</h2>',
        f"<p>{plural(cov['lines'], 'line')} read, {cov['recognized_lines']} recognised, "
        f"{plural(cov['unrecognized_total'], 'candidate line')} unrecognised.</p>",
    ]
    prefixed = v.prefixed_statement(cov)
    if prefixed:
        out.append(f"<p>{escape(prefixed)}.</p>")
    unmatched = cov.get("unmatched_failures", [])
    if unmatched:
        out.append(
            "<p>Lines that read like a failure but match no signature:</p><pre>"
            + "\n".join(escape(f"{m['source'].rsplit('/', 1)[-1]}:{m['line']}: {m['text'][:160]}") for m in unmatched[:8])
            + "</pre>"
        )
    for launch_id, ranks, missing in view.missing_phases:
        out.append(
            f'<p class="muted">launch {escape(launch_id)}: {escape(", ".join(ranks))} missing: {escape(", ".join(missing))}</p>'
        )
    return [*out, "</section>"]


def render_compare_html(doc: dict[str, Any], width: int = 0) -> str:
    """A diff or plan document as a page in the analyze page's style: the headline as the verdict, the facts,
    the KV token waterfall (diff) on a token axis, then every section as a table."""
    view = build_compare_view(doc)
    body = [
        f'<header><h1>logscope {view.kind}</h1><p class="verdict {view.severity}" id="verdict">'
        f"{escape(view.headline)}</p></header>",
        '<section id="facts">',
        *(f"<p>{escape(fact)}</p>" for fact in view.facts),
        "</section>",
    ]
    if view.kind == "diff":
        body += _waterfall(view)
    if view.ledger is not None:
        body += _ledger_chart(
            "plan",
            view.ledger,
            "Projected memory per rank in GiB, bottom to top: weights and pools "
            "(free before weights minus free after the KV pool), CUDA graphs and lazily created "
            "cells, and the margin left (estimated).",
            "Projected memory per rank",
        )
    for number, section in enumerate(view.sections):
        body.append(
            f'<section class="table" id="section-{number}"><h2>{escape(section.title)}</h2><table><tr>'
            + "".join(f"<th>{escape(h)}</th>" for h in section.headers)
            + "</tr>"
        )
        body += [
            "<tr>" + "".join(f"<td{_NUM if i in section.right else ''}>{escape(c)}</td>" for i, c in enumerate(row)) + "</tr>"
            for row in section.rows
        ]
        body.append("</table></section>")
    if view.notes:
        body.append('<section id="notes">' + "".join(f'<p class="muted">{escape(n)}</p>' for n in view.notes) + "</section>")
    return page(f"logscope {view.kind}", body, doc)


_NUM = ' class="num"'


def _short(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[: max(chars - 1, 1)] + "…"


def _waterfall(view: CompareView) -> list[str]:
    if view.waterfall is None:
        return [f'<p id="waterfall-missing">No token waterfall: {escape(view.waterfall_missing or "")}</p>']
    steps = view.waterfall
    axis_max, ticks = nice_ticks(max(max(s.start, s.end) for s in steps))
    area, left, top = 240, 80, 24
    base = top + area
    scale = area / axis_max
    step_w = (WIDTH - left - 10) / len(steps)
    bar = min(step_w * 0.7, 90)
    svg = [
        f'<svg viewBox="0 0 {WIDTH} {base + 62}" role="img" aria-label="KV token change waterfall" data-scale="{scale:.9f}">',
        *_y_axis(left, top, base, scale, ticks, "KV tokens"),
    ]
    svg.append(
        f'<line class="axis" x1="{left}" y1="{base}" x2="{WIDTH - 10}" y2="{base}"/>'
        f'<text class="row-title" x="{left - 7}" y="{base + 16}" text-anchor="end">change</text>'
        f'<text class="row-title" x="{left - 7}" y="{base + 32}" text-anchor="end">part</text>'
    )
    for i, s in enumerate(steps):
        x = left + i * step_w + (step_w - bar) / 2
        low, high = min(s.start, s.end), max(s.start, s.end)
        colour = _STEP_COLOURS.get(s.kind, _LOSS if s.value < 0 else _GAIN)
        shown = f"{s.value:,.0f}" if s.kind == "total" else f"{s.value:+,.0f}"
        svg.append(
            f'<g class="step" data-name="{escape(s.name)}" data-kind="{escape(s.kind)}">'
            f'<rect x="{x:.2f}" y="{base - high * scale:.3f}" width="{bar:.2f}" '
            f'height="{max((high - low) * scale, 1.0):.3f}" fill="{colour}" data-tokens="{s.value:.0f}">'
            f"<title>{escape(s.name)}: {shown} tokens ({escape(s.kind)})</title></rect>"
            f'<text x="{x + bar / 2:.2f}" y="{base + 16}" text-anchor="middle">{escape(shown)}</text>'
            f'<text x="{x + bar / 2:.2f}" y="{base + 32}" text-anchor="middle">'
            f"{escape(_short(s.name.replace('budget: ', ''), int(step_w / 6.5)))}</text></g>"
        )
    svg.append("</svg>")
    return [
        '<h3>KV tokens, A to B</h3><figure class="chart waterfall" id="waterfall">',
        *svg,
        "<figcaption>A's KV tokens, each part of the change (green adds, red removes, grey unattributed), then "
        "B's; under each bar its tokens and the part's name.</figcaption></figure>",
    ]
