"""`logscope rules list | check` and `logscope signatures list`: the loaded rules and signatures, one line each."""

from __future__ import annotations

from logscope.pipeline.parse.signatures.loader import load_signatures
from logscope.pipeline.rule_engine.loader import load_rules


def rule_lines(extra_dirs: list[str]) -> list[str]:
    return [f"{rule.id:<32} {rule.severity:<8} {rule.title}" for rule in load_rules(extra_dirs)]


def rules_checked(extra_dirs: list[str]) -> str:
    """Every rule file loaded (schema and condition syntax checked; a bad one raises with file:line:col)."""
    return f"{len(load_rules(extra_dirs))} rules OK"


def signature_lines() -> list[str]:
    signatures = load_signatures(finding_ids={r.id for r in load_rules()} | {"capture-oom"})
    lines = [
        f"{sig.id:32} {sig.on:12} {sig.finding or '-':20} {sig.phase or '-':16} {sig.pattern.source}"
        for sig in signatures.signatures
    ]
    return [*lines, f"{len(signatures.signatures)} signatures"]
