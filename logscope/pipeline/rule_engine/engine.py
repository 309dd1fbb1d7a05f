"""Evaluate the YAML rules over the facts of each launch (and once over the global facts)."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from logscope.core.errors import RuleError
from logscope.core.excerpt import cut_around
from logscope.core.model import UNRECOGNIZED, Analysis
from logscope.pipeline.parse.signatures.library import line_library
from logscope.pipeline.rule_engine.facts import global_facts, launch_facts
from logscope.pipeline.rule_engine.loader import SEVERITIES, Rule, load_rules

MAX_EVIDENCE = 12
_PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)(?::([^{}]*))?\}")


@cache
def bundled_rules() -> tuple[Rule, ...]:
    return tuple(load_rules([]))


def run_rules(analysis: Analysis, extra_dirs: list[str]) -> list[dict[str, Any]]:
    """The findings of every rule: launch-scope rules once per launch, global ones once."""
    rules = list(bundled_rules()) if not extra_dirs else load_rules(extra_dirs)
    findings: list[dict[str, Any]] = []
    for launch in analysis.launches:
        facts = launch_facts(analysis, launch)
        for rule in rules:
            if rule.scope == "launch":
                finding = evaluate(rule, facts, launch.id)
                if finding:
                    findings.append(finding)
    facts = global_facts(analysis)
    for rule in rules:
        if rule.scope == "global":
            finding = evaluate(rule, facts, None)
            if finding:
                findings.append(finding)
    return findings


def evaluate(rule: Rule, facts: dict[str, Any], launch_id: int | None) -> dict[str, Any] | None:
    env = {**facts, **rule.texts, "texts": rule.texts}
    try:
        for name, expr in rule.let:
            env[name] = expr.evaluate(env)
        if not rule.when.evaluate(env):
            return None
        severity = rule.severity
        for level in SEVERITIES:
            if level in rule.escalate and rule.escalate[level].evaluate(env):
                severity = level
                break
        ranks = rule.ranks.evaluate(env) if rule.ranks else []
        evidence_items = rule.evidence.evaluate(env) if rule.evidence else []
    except RuleError as exc:
        raise RuleError(f"{rule.path}: evaluation failed: {exc}") from None
    ranks = [str(r) for r in ranks if r is not None] if isinstance(ranks, list) else []
    ranks = sorted(dict.fromkeys(ranks), key=_natural)
    env.update(launch=launch_id, ranks_list=", ".join(ranks) if ranks else "all ranks", n_ranks=len(ranks))
    finding = {
        "rule": rule.id,
        "severity": severity,
        "launch": launch_id,
        "ranks": ranks,
        "message": render_template(rule.message, env),
        "hint": render_template(rule.hint, env),
        "evidence": _evidence(evidence_items),
        "cells": rule.cells,
    }
    failure = _first_failure(evidence_items)
    if failure is not None:  # the attribution behind a failure finding: what the bot and triage show
        finding.update(phase=failure["phase"], mechanism=None, signature=failure["signature"])
        # a notice (info: SGLang's custom all-reduce fallback) is no failure: it names no failure mechanism or library,
        # which bots and the corpus score read as "this failed"; a warning (an unrecognised failure) still is one
        if severity != "info":
            named = _named_failure(evidence_items, failure)
            finding["mechanism"] = named["mechanism"]
            if named.get("library"):  # the native library its frames or source path name (catalog/libraries.json)
                finding["library"] = named["library"]
    elif severity != "info" and _unread_failure(evidence_items):
        # a line that reads like a failure and that nothing attributed (unrecognized-failure): a failure still, of no
        # known mechanism and no step (no signature read it): bots and the corpus score read "this failed", never
        # "nothing found"; while serving when a line of its input before it showed the server serving (a ready line, a
        # served request: stages._unmatched_failures), else at an unknown time
        finding.update(phase="serving" if _unread_while_serving(evidence_items) else "unknown", mechanism=None, signature=None)
        named_by_line = _unread_library(evidence_items)
        if named_by_line is not None:  # the line names a library by its source path, object or JIT module
            finding["library"] = named_by_line
    return finding


# the mechanism of a failure read from a generic wording only (a signal, a loader's "undefined symbol", a glibc abort),
# or from a CUDA check several kernel libraries print alike (kernel_library.yaml's): no library by itself
GENERIC_MECHANISMS = frozenset({"process", "kernel_library"})


def _named_failure(items: Any, first: dict[str, Any]) -> dict[str, Any]:
    """The failure whose mechanism and library the finding names: its first, unless that one names no library (no
    mechanism, or only a generic wording's), or names it only by the innermost frame shown of a traceback cut above its
    exception line, while the finding's other failures name exactly one library between them (the generic line retells
    the failure they name: "undefined symbol: ..." quoted above the ImportError of sgl_kernel's module)."""
    unnamed = not first.get("library") and first.get("mechanism") in (None, *GENERIC_MECHANISMS)
    if not unnamed and not first.get("library_from_cut"):  # a cut traceback's frame does not show what raised it
        return first
    items = [items] if isinstance(items, dict) else items
    # in place of a cut traceback's frame, only a failure that shows what raised it
    others = [
        i
        for i in items
        if isinstance(i, dict)
        and "finding" in i
        and "phase_text" in i
        and i.get("library")
        and i is not first
        and (unnamed or not i.get("library_from_cut"))
    ]
    return others[0] if len({i["library"] for i in others}) == 1 else first


def _unread_failure(items: Any) -> bool:
    items = [items] if isinstance(items, dict) else items
    return isinstance(items, list) and any(isinstance(i, dict) and i.get("kind") == UNRECOGNIZED for i in items)


def _unread_library(items: Any) -> str | None:
    """The one library the unread failure lines name by their own marks (library.py line_library), or None when they
    name none or several."""
    items = [items] if isinstance(items, dict) else items
    if not isinstance(items, list):
        return None
    texts = [str(i.get("text") or "") for i in items if isinstance(i, dict) and i.get("kind") == UNRECOGNIZED]
    named = {library for text in texts if (library := line_library(text)) is not None}
    return named.pop() if len(named) == 1 else None


def _unread_while_serving(items: Any) -> bool:
    """The first unread failure came after a line of its input that showed the server serving."""
    items = [items] if isinstance(items, dict) else items
    first = next((i for i in items if isinstance(i, dict) and i.get("kind") == UNRECOGNIZED), None)
    return first is not None and first.get("serving_after") is not None


def _first_failure(items: Any) -> dict[str, Any] | None:
    items = [items] if isinstance(items, dict) else items
    if not isinstance(items, list):
        return None
    return next((i for i in items if isinstance(i, dict) and "finding" in i and "phase_text" in i), None)


def _natural(label: str) -> list[int | str]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", label)]


def _evidence(items: Any) -> list[dict[str, Any]]:
    if isinstance(items, dict):
        items = [items]
    if not isinstance(items, list):
        return []
    seen: set[Any] = set()
    out = []
    for item in items:
        if not isinstance(item, dict) or "source" not in item or "line" not in item:
            continue
        key = (item["source"], item["line"])
        if key in seen:
            continue
        seen.add(key)
        focus = item.get("focus") or []
        entry = {"source": item["source"], "line": item["line"], "text": cut_around(str(item.get("text", "")), focus, 300)}
        if focus:
            entry["focus"] = focus
        out.append(entry)
    out.sort(key=lambda e: (e["source"], e["line"]))
    return out[:MAX_EVIDENCE]


def render_template(template: str, env: dict[str, Any]) -> str:
    def substitute(match: re.Match[str]) -> str:
        value = env.get(match.group(1))
        spec = match.group(2)
        if value is None:
            return "(not in the input)"
        if isinstance(value, list):
            shown = [str(v) for v in value[:12]]
            return ", ".join(shown) + (f" (+{len(value) - 12} more)" if len(value) > 12 else "")
        if spec and isinstance(value, (int, float)) and not isinstance(value, bool):
            try:
                return format(value, spec)
            except ValueError:
                return str(value)
        if isinstance(value, float):
            return f"{value:.2f}"
        return str(value)

    return " ".join(_PLACEHOLDER.sub(substitute, template).split())
