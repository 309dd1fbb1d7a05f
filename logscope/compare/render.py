"""Diff and plan documents (schema logscope/1 with a `diff` or `plan` section) and their text, Markdown and
HTML forms. Every renderer reads the document, never the model."""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from typing import Any

from logscope import SCHEMA_ID, __version__
from logscope.compare.diff import Diff
from logscope.compare.formats import COMPARE_FORMATS
from logscope.compare.plan import Plan
from logscope.report.html import json_for_html
from logscope.report.markdown import escape_cell


def diff_document(d: Diff) -> dict[str, Any]:
    return {"schema": SCHEMA_ID, "logscope_version": __version__, "diff": d.to_json()}


def plan_document(p: Plan) -> dict[str, Any]:
    return {"schema": SCHEMA_ID, "logscope_version": __version__, "plan": p.to_json()}


def _gib(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _signed(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{round(value, digits) + 0.0:+.{digits}f}"


def _tokens(value: float | None) -> str:
    return "-" if value is None else f"{round(value) + 0:+,}"


def _figure(fig: dict[str, Any] | None, unit: str = "") -> str:
    if fig is None:
        return "unknown"
    value = fig["value"]
    if isinstance(value, float) and value.is_integer() and unit != " GiB":
        value = int(value)
    shown = f"{value:,.2f}" if isinstance(value, float) else f"{value:,}" if isinstance(value, int) else str(value)
    return f"{shown}{unit} ({fig['kind']})"


# ---------------------------------------------------------------- diff: rows shared by text and Markdown
def _diff_sections(doc: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    d = doc["diff"]
    sections: list[tuple[str, list[str], list[list[str]]]] = []
    sections.append(("Provenance", ["", "A", "B", ""],
                     [[r["what"], str(r["a"]), str(r["b"]), {True: "", False: "differs", None: "one side unknown"}[r["same"]]]
                      for r in d["provenance"]]))
    if d["settings"]:
        sections.append(("Settings that differ", ["setting", "A", "B"],
                         [[s["key"], str(s["a"]), str(s["b"])] for s in d["settings"]]))
    if d["settings_one_side"]:
        sections.append(("Settings stated on one side only", ["setting", "A", "B"],
                         [[s["key"], str(s["a"]), str(s["b"])] for s in d["settings_one_side"][:40]]))
    sa, sb = d["a"]["sizing"], d["b"]["sizing"]
    sizing_rows = []
    for key, label, unit in (("pre_gib", "MIN free before weights", " GiB"), ("post_gib", "MIN free after weights", " GiB"),
                             ("mem_fraction_static", "mem_fraction_static", ""), ("reserved_gib", "reserved", " GiB"),
                             ("budget_gib", "KV budget", " GiB"), ("cell_bytes", "bytes per token", " B"),
                             ("draft_cell_bytes", "draft bytes per token", " B"), ("tokens", "KV tokens", ""),
                             ("kv_gib", "KV pool", " GiB"), ("page_size", "page size", "")):
        if sa.get(key) is None and sb.get(key) is None:
            continue
        sizing_rows.append([label, _figure(sa.get(key), unit), _figure(sb.get(key), unit)])
    sections.append(("KV sizing (SGLang's profile formula)", ["", "A", "B"], sizing_rows))
    kv = d["kv_tokens"]
    if kv["parts"]:
        rows = [[p["part"], _tokens(p["tokens"]), _signed(p["gib"], 3) if p["gib"] is not None else "", p["kind"],
                 p["evidence"] + (f" [{', '.join(p['lines'])}]" if p["lines"] else "")] for p in kv["parts"]]
        total = sum(p["tokens"] for p in kv["parts"])
        rows.append(["total (logged change)", _tokens(kv["change"]), "", "", f"the parts sum to {total:+,.0f}"])
        sections.append(("Why the KV tokens changed", ["part", "tokens", "GiB", "how known", "evidence"], rows))
    phase_rows = [[r["phase"], f"{r['rank_a'] or '-'} / {r['rank_b'] or '-'}", _gib(r["a_gib"]), _gib(r["b_gib"]),
                   _signed(r["delta_gib"])] for r in d["phases"]]
    if phase_rows:
        sections.append(("Free memory by phase (GiB, measured)", ["phase", "ranks A / B", "A", "B", "change"], phase_rows))
    ledger_rows = [[r["item"], f"{r['rank_a'] or '-'} / {r['rank_b'] or '-'}", _gib(r["a_gib"]), _gib(r["b_gib"]),
                    _signed(r["delta_gib"]), r["kind"]] for r in d["ledger"]]
    if ledger_rows:
        sections.append(("Ledger (GiB)", ["item", "ranks A / B", "A", "B", "change", "kind"], ledger_rows))
    if d["cells"]:
        sections.append(("Cells (GiB per rank)", ["group", "mechanism", "A", "B", "change", "kind", "timing"],
                         [[c["group"], c["mechanism"], _gib(c["a_gib"]), _gib(c["b_gib"]), _signed(c["delta_gib"], 3),
                           c["kind"], c["timing"]] for c in d["cells"]]))
    return sections


def _text_table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return [line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)]


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(escape_cell(h) or " " for h in header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(escape_cell(c) for c in r) + " |" for r in rows)]


def _diff_intro(doc: dict[str, Any]) -> list[str]:
    d = doc["diff"]
    return [d["headline"], f"A: {d['a']['inputs']} (launch {d['a']['launch']}, {d['a']['sizing']['layout']})",
            f"B: {d['b']['inputs']} (launch {d['b']['launch']}, {d['b']['sizing']['layout']})",
            f"Ranks: {d['matching']}"]


def _diff_tail(doc: dict[str, Any]) -> list[str]:
    d = doc["diff"]
    out = []
    if d["kv_tokens"]["unattributed_reason"] and not d["kv_tokens"]["parts"]:
        out.append(f"Not attributed: {d['kv_tokens']['unattributed_reason']}")
    for side in ("a", "b"):
        for m in d[side]["sizing"]["missing"]:
            out.append(f"{side.upper()}: {m}")
    return out


def render_diff_text(doc: dict[str, Any], width: int = 0) -> str:
    lines = [f"logscope diff: {_diff_intro(doc)[0]}", *_diff_intro(doc)[1:], ""]
    for title, header, rows in _diff_sections(doc):
        lines += [title, *_text_table(header, rows), ""]
    lines += _diff_tail(doc)
    return "\n".join(lines).rstrip() + "\n"


def render_diff_markdown(doc: dict[str, Any], width: int = 0) -> str:
    intro = _diff_intro(doc)
    lines = [f"### logscope diff: {intro[0]}", "", *(f"- {x}" for x in intro[1:]), ""]
    for title, header, rows in _diff_sections(doc):
        lines += [f"**{title}**", "", *_md_table(header, rows), ""]
    lines += [f"- {x}" for x in _diff_tail(doc)]
    return "\n".join(lines).rstrip() + "\n"


def render_diff_html(doc: dict[str, Any], width: int = 0) -> str:
    """Self-contained page: the token-change waterfall (SVG), then the same tables as the text form."""
    intro = _diff_intro(doc)
    body = [f"<h1>logscope diff</h1><p><b>{html.escape(intro[0])}</b></p>",
            "<ul>" + "".join(f"<li>{html.escape(x)}</li>" for x in intro[1:]) + "</ul>", _waterfall(doc)]
    for title, header, rows in _diff_sections(doc):
        body.append(f"<h2>{html.escape(title)}</h2>" + _html_table(header, rows))
    body.append("<ul>" + "".join(f"<li>{html.escape(x)}</li>" for x in _diff_tail(doc)) + "</ul>")
    return _page("logscope diff", "".join(body), doc)


def _waterfall(doc: dict[str, Any]) -> str:
    kv = doc["diff"]["kv_tokens"]
    if kv["tokens_a"] is None or kv["tokens_b"] is None:
        return "<p>No token waterfall: " + html.escape(kv["unattributed_reason"] or "a pool size is missing") + "</p>"
    steps = [("A", float(kv["tokens_a"]), "total")] + [(p["part"], p["tokens"], p["kind"]) for p in kv["parts"]]
    steps.append(("B", float(kv["tokens_b"]), "total"))
    level, spans = 0.0, []
    for name, value, kind in steps:
        if kind == "total":
            spans.append((name, 0.0, value, kind, value))
            level = value
        else:
            spans.append((name, level, level + value, kind, value))
            level += value
    top = max(max(a, b) for _, a, b, _, _ in spans) or 1.0
    bar_w, gap, height, label_h = 90, 14, 220, 60
    width = len(spans) * (bar_w + gap) + gap
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + label_h + 20}" '
             f'role="img" aria-label="KV token change waterfall">']
    colors = {"total": "#4a6fa5", "unattributed": "#999999", "inferred": "#d9a441"}
    for i, (name, a, b, kind, value) in enumerate(spans):
        x = gap + i * (bar_w + gap)
        y0, y1 = height - max(a, b) / top * height + 10, height - min(a, b) / top * height + 10
        color = colors.get(kind, "#c0504d" if value < 0 else "#5b9b5b")
        parts.append(f'<rect x="{x}" y="{y0:.1f}" width="{bar_w}" height="{max(1.0, y1 - y0):.1f}" fill="{color}">'
                     f"<title>{html.escape(name)}: {value:+,.0f} tokens ({html.escape(kind)})</title></rect>")
        shown = f"{value:,.0f}" if kind == "total" else f"{value:+,.0f}"
        parts.append(f'<text x="{x + bar_w / 2}" y="{height + 28}" font-size="11" text-anchor="middle">'
                     f"{html.escape(shown)}</text>")
        parts.append(f'<text x="{x + bar_w / 2}" y="{height + 44}" font-size="10" text-anchor="middle">'
                     f"{html.escape(name.replace('budget: ', '')[:16])}</text>")
    parts.append("</svg>")
    return "<h2>KV tokens, A to B</h2>" + "".join(parts)


def _html_table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _page(title: str, body: str, doc: dict[str, Any]) -> str:
    data = json_for_html(doc)
    style = ("body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse;"
             "margin-bottom:1em}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;font-size:13px}"
             "th{background:#f2f2f2}")
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{style}</style></head><body>{body}"
            f"<script type=\"application/json\" id=\"logscope-data\">{data}</script></body></html>\n")


# ---------------------------------------------------------------- plan
def _plan_sections(doc: dict[str, Any]) -> tuple[list[str], list[tuple[str, list[str], list[list[str]]]]]:
    p = doc["plan"]
    req = p["max_running_requests"]
    intro = [f"KV tokens per rank: {p['kv_tokens']:,} (estimated)",
             f"From the run {p['run']} ({p['from']}) to {p['to']}",
             "max_running_requests: " + (f"{req['value']:,} ({req['kind']}: {req['basis']})" if req else "not projected")]
    figures = [[name, _figure(fig), fig["basis"]] for name, fig in p["figures"].items()]
    ranks = [[r["rank"], _gib(r["free_before_weights_gib"]), _gib(r["free_after_pool_gib"]), _gib(r["margin_gib"])]
             for r in p["ranks"]]
    return intro, [("Figures", ["figure", "value", "how"], figures),
                   ("Per rank (GiB, estimated)", ["rank", "free before weights", "free after the KV pool",
                                                  "margin after graphs and lazy cells"], ranks),
                   ("Assumptions", ["#", "assumption"], [[str(i + 1), a] for i, a in enumerate(p["assumptions"])])]


def render_plan_text(doc: dict[str, Any], width: int = 0) -> str:
    intro, sections = _plan_sections(doc)
    lines = [f"logscope plan: {intro[0]}", *intro[1:], ""]
    for title, header, rows in sections:
        lines += [title, *_text_table(header, rows), ""]
    return "\n".join(lines).rstrip() + "\n"


def render_plan_markdown(doc: dict[str, Any], width: int = 0) -> str:
    intro, sections = _plan_sections(doc)
    lines = [f"### logscope plan: {intro[0]}", "", *(f"- {x}" for x in intro[1:]), ""]
    for title, header, rows in sections:
        lines += [f"**{title}**", "", *_md_table(header, rows), ""]
    return "\n".join(lines).rstrip() + "\n"


def render_plan_html(doc: dict[str, Any], width: int = 0) -> str:
    intro, sections = _plan_sections(doc)
    body = [f"<h1>logscope plan</h1><p><b>{html.escape(intro[0])}</b></p>",
            "<ul>" + "".join(f"<li>{html.escape(x)}</li>" for x in intro[1:]) + "</ul>"]
    body += [f"<h2>{html.escape(t)}</h2>" + _html_table(h, r) for t, h, r in sections]
    return _page("logscope plan", "".join(body), doc)


def _json(doc: dict[str, Any], width: int = 0) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


# format → renderer, one table for each document kind (the CLI's --format choices come from here)
DIFF_RENDERERS: dict[str, Callable[[dict[str, Any], int], str]] = dict(zip(
    COMPARE_FORMATS, (render_diff_text, _json, render_diff_markdown, render_diff_html), strict=True))
PLAN_RENDERERS: dict[str, Callable[[dict[str, Any], int], str]] = dict(zip(
    COMPARE_FORMATS, (render_plan_text, _json, render_plan_markdown, render_plan_html), strict=True))
