"""Wording coverage: every message that the memory-relevant areas of a catalogued SGLang release print is
either read by a grammar / signature, or explained (catalog/explained.yaml: one table, a reason per row).

A message is tried as the line its format string prints: each placeholder gets a sample value of the kind
its format spec and the words around it call for (`{x:.2f} GB` → `1.25 GB`, `bs={...}` → `[1, 2, 4]`), the
line gets SGLang's prefix (a raise becomes `RuntimeError: <message>`, as a traceback ends). Used by
tests/test_upstream_coverage.py (committed catalogue only, no network) and by `python -m tools.upstream`
(docs/upstream-coverage.md)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from typing import Any

import yaml

from logscope.core import kinds, upstream
from logscope.core.resources import data_dir
from logscope.pipeline.parse import prefilter
from logscope.pipeline.parse.parsers.registry import LINE_GRAMMARS
from logscope.pipeline.parse.signatures.loader import bundled_signatures

PREFIX = "[2026-10-01 12:00:00 TP0] "
_GRAMMARS = {grammar.name: grammar for grammar in LINE_GRAMMARS}
_FSTRING = re.compile(r"\{([^{}:!]*(?:\{[^{}]*\}[^{}:!]*)*)(![rsa])?(?::([^{}]*))?\}")
_PRINTF = re.compile(r"%([-+ #0]*\d*)(\.\d+)?([sdifrxgeEu%])")
_WORDY = re.compile(r"(?i)name|type|dtype|backend|device|label|mode|platform|algo|method|reason|kind|role|arch|cls")


@dataclass(frozen=True, slots=True)
class Verdict:
    status: str  # "read", "explained", "unexplained"
    how: str  # grammar kind / signature id, or the reason


def _sample(expr: str, spec: str, before: str, after: str) -> str:
    """A value of the kind this placeholder prints."""
    key = before.rstrip().rsplit(" ", 1)[-1].lower()
    choice = re.fullmatch(r"\s*'[^']*' if .+ else '([^']*)'\s*", expr)
    if choice:  # {'VA upper bound' if post_capture else 'is allocated'}: the default branch
        return choice.group(1)
    if re.search(r" if .+ else ''\s*$", expr):  # {quant_str + ', ' if quant_str else ''}: absent
        return ""
    named = {"cache_name": "KV Cache", "capture_name": "target decode", "role": "target"}
    if expr in named:
        return named[expr]
    if expr.startswith("graph_backend"):
        return "CUDA graph"
    if key.endswith(("bs=", "num_tokens=", "capture_bs=")) or "capture_bs" in expr:
        return "[1, 2, 4, 8]"
    if "dtype" in expr or key.endswith("dtype:"):
        return "torch.bfloat16"
    decimals = re.search(r"\.(\d+)[fe%]", spec or "")
    if decimals:
        return f"{1.23456:.{int(decimals.group(1))}f}"
    if spec and spec.endswith(("d", "n")):
        return "12"
    if re.match(r"\s*(GB|GiB|MB|MiB|s\b|bytes|%)", after):
        return "12"
    if _WORDY.search(expr) or key.endswith(("type=", "backend=", "device=")):
        return "Qwen3ForCausalLM" if "type" in expr else "cuda"
    return "12"


def render(template: str, style: str) -> str:
    """The line a template prints with sample values."""
    if style == "f" or (style == "format" and "{" in template):
        out, pos = [], 0
        for m in _FSTRING.finditer(template):
            out.append(template[pos : m.start()])
            out.append(_sample(m.group(1), m.group(3) or "", template[: m.start()], template[m.end() :]))
            pos = m.end()
        out.append(template[pos:])
        text = "".join(out).replace("{{", "{").replace("}}", "}")
    elif style == "%" or (style == "plain" and _PRINTF.search(template)):  # logger.info("...%s", x)

        def value(m: re.Match[str]) -> str:
            if m.group(3) == "%":
                return "%"
            spec = (m.group(2) or "") + m.group(3)
            return _sample("", spec, template[: m.start()], template[m.end() :])

        text = _PRINTF.sub(value, template)
    else:
        text = template
    return text.strip().splitlines()[0] if text.strip() else text


def _exception_read(line: str, message: str, level: str) -> str | None:
    """How the exception line is read: a grammar's specific kind, or an exception signature."""
    from logscope.pipeline.parse.parsers.sglang_line import parse_line

    parsed = parse_line(line)
    if parsed is not None:
        _, kind, data = parsed
        if data.get("body_kind") or kind == kinds.OOM:
            return f"exception → {data.get('body_kind') or kind}"
    for sig in bundled_signatures().on("exception"):
        if sig.matches_exception(level) and sig.pattern.match(message) is not None:
            return f"signature {sig.id}"
    for sig in bundled_signatures().on("line"):
        if sig.pattern.match(line) is not None:
            return f"signature {sig.id}"
    return None


def read_by(row: dict[str, Any]) -> str | None:
    """The grammar or signature that reads the line this message prints, or None."""
    message = render(row["template"], row["style"])
    if not message.strip():
        return None
    if row["kind"] in ("raise", "assert"):
        return _exception_read(f"{row['level']}: {message}", message, row["level"])
    line = PREFIX + message
    for name in prefilter.grammars_for(line):
        grammar = _GRAMMARS.get(name)
        if grammar is None or not grammar.fits(line):
            continue
        parsed = grammar.parse(line)
        if parsed is not None and not (parsed.kind == kinds.EXCEPTION and not parsed.data.get("body_kind")):
            return f"{name} → {parsed.kind}"
    for sig in bundled_signatures().on("line"):
        if sig.pattern.match(line) is not None:
            return f"signature {sig.id}"
    return None


@dataclass(frozen=True, slots=True)
class Explanation:
    reason: str
    kinds: tuple[str, ...]
    levels: tuple[str, ...]
    module: str
    template: re.Pattern[str] | None
    unless_memory: bool
    unless_figure: bool


@cache
def explanations() -> tuple[tuple[Explanation, ...], re.Pattern[str], re.Pattern[str]]:
    doc = yaml.safe_load((data_dir("catalog") / "explained.yaml").read_text(encoding="utf-8"))
    rows = tuple(
        Explanation(
            row["reason"],
            tuple(row.get("kinds", ())),
            tuple(row.get("levels", ())),
            row.get("module", ""),
            re.compile(row["template"]) if "template" in row else None,
            bool(row.get("unless_memory", False)),
            bool(row.get("unless_figure", False)),
        )
        for row in doc["explained"]
    )
    return rows, re.compile(doc["memory_words"]), re.compile(doc["figure"])


def explained_by(row: dict[str, Any]) -> str | None:
    rows, memory_words, figure = explanations()
    names_memory = bool(memory_words.search(row["template"]))
    prints_figure = bool(figure.search(row["template"]))
    for entry in rows:
        if entry.kinds and row["kind"] not in entry.kinds:
            continue
        if entry.levels and row["level"] not in entry.levels:
            continue
        if entry.module and not row["module"].startswith(entry.module):
            continue
        if entry.template is not None and not entry.template.search(row["template"]):
            continue
        if entry.unless_memory and names_memory:
            continue
        if entry.unless_figure and prints_figure:
            continue
        return entry.reason
    return None


def verdict(row: dict[str, Any]) -> Verdict:
    how = read_by(row)
    if how is not None:
        return Verdict("read", how)
    reason = explained_by(row)
    if reason is not None:
        return Verdict("explained", reason)
    return Verdict("unexplained", "")


@cache
def verdicts() -> dict[int, Verdict]:
    """Every memory-relevant row of the catalogue (by index) → its verdict."""
    return {i: verdict(row) for i, row in enumerate(upstream.catalog()["messages"]) if row.get("area")}


def figures() -> list[dict[str, Any]]:
    """Per catalogued release: relevant messages, read, explained, unexplained, and the reasons' counts."""
    rows = upstream.catalog()["messages"]
    out = []
    for version in upstream.versions():
        counts: Counter[str] = Counter()
        reasons: Counter[str] = Counter()
        for index, found in verdicts().items():
            if version in upstream.present_in(rows[index]):
                counts[found.status] += 1
                if found.status == "explained":
                    reasons[found.how] += 1
        out.append(
            {
                "version": version,
                "relevant": sum(counts.values()),
                "read": counts["read"],
                "explained": counts["explained"],
                "unexplained": counts["unexplained"],
                "reasons": dict(reasons),
            }
        )
    return out


def unexplained(version: str) -> list[dict[str, Any]]:
    rows = upstream.catalog()["messages"]
    return [
        rows[i] for i, found in verdicts().items() if found.status == "unexplained" and version in upstream.present_in(rows[i])
    ]
