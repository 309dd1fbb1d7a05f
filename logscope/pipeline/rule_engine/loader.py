"""rules/<id>.yaml → Rule objects. yaml.safe_load semantics (SafeLoader); every key is validated and an
error names file:line:col and the fix."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from logscope.core import user_cache
from logscope.core.errors import RuleError
from logscope.core.grammar_loader import grammars_digest
from logscope.core.resources import rules_dir
from logscope.core.yamlfile import compose_file, safe_loader, yaml
from logscope.pipeline.rule_engine import expr as expr_module
from logscope.pipeline.rule_engine.expr import Expr

SEVERITIES = ("error", "warning", "info")
_ID = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
_REQUIRED = ("id", "title", "severity", "when", "message", "hint", "why")
_OPTIONAL = ("escalate", "scope", "texts", "let", "ranks", "evidence", "references", "cells", "false_positives")
_LET_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")
MAX_RULE_BYTES = 64 * 1024


@dataclass
class Rule:
    id: str
    title: str
    severity: str
    when: Expr
    message: str
    hint: str
    why: str
    path: str
    scope: str = "launch"
    escalate: dict[str, Expr] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)  # named prose the lets and templates use, as written
    let: list[tuple[str, Expr]] = field(default_factory=list)
    ranks: Expr | None = None
    evidence: Expr | None = None
    references: list[str] = field(default_factory=list)
    cells: list[str] = field(default_factory=list)


def _mark(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _expr(path: str, key: str, node: yaml.Node) -> Expr:
    line, col = _mark(node)
    if not isinstance(node, yaml.ScalarNode):
        raise RuleError(f"{path}:{line}:{col}: {key}: expected an expression string")
    # a block scalar starts on the next line
    if node.style in ("|", ">"):
        line += 1
    try:
        return Expr(node.value, f"{path}")
    except RuleError as exc:
        msg = str(exc)
        m = re.match(rf"^{re.escape(path)}:(\d+):(\d+): (.*)$", msg, re.S)
        if m:
            eline, ecol = int(m.group(1)), int(m.group(2))
            raise RuleError(f"{path}:{line + eline - 1}:{ecol if eline > 1 else col + ecol - 1}: {key}: {m.group(3)}") from None
        raise RuleError(f"{path}:{line}:{col}: {key}: {msg.split(': ', 1)[-1]}") from None


def load_rule_file(path: Path) -> Rule:
    name = str(path)
    raw, root = compose_file(path, MAX_RULE_BYTES, "rule file")
    if not isinstance(root, yaml.MappingNode):
        raise RuleError(f"{name}:1:1: a rule file is a mapping of keys (id, title, severity, when, ...)")
    nodes: dict[str, yaml.Node] = {}
    for key_node, value_node in root.value:
        key = key_node.value
        if key not in _REQUIRED and key not in _OPTIONAL:
            line, col = _mark(key_node)
            raise RuleError(f"{name}:{line}:{col}: unknown key {key!r} (allowed: {', '.join(_REQUIRED + _OPTIONAL)})")
        nodes[key] = value_node
    for key in _REQUIRED:
        if key not in nodes:
            raise RuleError(f"{name}:1:1: missing required key {key!r}")
    try:
        data = yaml.load(raw, Loader=safe_loader())  # noqa: S506 - a safe loader (CSafeLoader or SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        raise RuleError(f"{name}{where}: {getattr(exc, 'problem', exc)}") from None

    def text(key: str, one_line: bool = False) -> str:
        value = data[key]
        line, col = _mark(nodes[key])
        if not isinstance(value, str) or not value.strip():
            raise RuleError(f"{name}:{line}:{col}: {key}: expected a non-empty string")
        if one_line and "\n" in value.strip():
            raise RuleError(f"{name}:{line}:{col}: {key}: must be one line")
        return value.strip()

    rule_id = text("id")
    if not _ID.match(rule_id):
        raise RuleError(f"{name}:{_mark(nodes['id'])[0]}:{_mark(nodes['id'])[1]}: id {rule_id!r} must be kebab-case")
    if path.name != f"{rule_id}.yaml":
        raise RuleError(f"{name}:{_mark(nodes['id'])[0]}:1: id {rule_id!r} must match the file name {path.name!r}")
    severity = text("severity")
    if severity not in SEVERITIES:
        line, col = _mark(nodes["severity"])
        raise RuleError(f"{name}:{line}:{col}: severity should be one of {', '.join(SEVERITIES)}")
    scope = data.get("scope", "launch")
    if scope not in ("launch", "global"):
        line, col = _mark(nodes["scope"])
        raise RuleError(f"{name}:{line}:{col}: scope should be launch or global")
    rule = Rule(
        id=rule_id,
        title=text("title", True),
        severity=severity,
        when=_expr(name, "when", nodes["when"]),
        message=text("message", True),
        hint=text("hint"),
        why=text("why"),
        path=name,
        scope=scope,
    )
    if "texts" in nodes:
        texts = data["texts"]
        if not isinstance(texts, dict) or not all(isinstance(v, str) and v.strip() for v in texts.values()):
            line, col = _mark(nodes["texts"])
            raise RuleError(f"{name}:{line}:{col}: texts: expected a mapping of name: text")
        for key_node, _value in nodes["texts"].value:
            if not _LET_NAME.match(key_node.value):
                line, col = _mark(key_node)
                raise RuleError(f"{name}:{line}:{col}: texts: {key_node.value!r} is not a valid name")
        rule.texts = dict(texts)
    if "let" in nodes:
        if not isinstance(nodes["let"], yaml.MappingNode):
            line, col = _mark(nodes["let"])
            raise RuleError(f"{name}:{line}:{col}: let: expected a mapping of name: expression")
        for key_node, value_node in nodes["let"].value:
            if not _LET_NAME.match(key_node.value):
                line, col = _mark(key_node)
                raise RuleError(f"{name}:{line}:{col}: let: {key_node.value!r} is not a valid name")
            rule.let.append((key_node.value, _expr(name, f"let.{key_node.value}", value_node)))
    if "escalate" in nodes:
        if not isinstance(nodes["escalate"], yaml.MappingNode):
            line, col = _mark(nodes["escalate"])
            raise RuleError(f"{name}:{line}:{col}: escalate: expected severity: expression")
        for key_node, value_node in nodes["escalate"].value:
            if key_node.value not in SEVERITIES:
                line, col = _mark(key_node)
                raise RuleError(f"{name}:{line}:{col}: escalate: {key_node.value!r} is not a severity")
            rule.escalate[key_node.value] = _expr(name, f"escalate.{key_node.value}", value_node)
    for key in ("ranks", "evidence"):
        if key in nodes:
            setattr(rule, key, _expr(name, key, nodes[key]))
    for key in ("references", "cells"):
        if key in data:
            value = data[key]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                line, col = _mark(nodes[key])
                raise RuleError(f"{name}:{line}:{col}: {key}: expected a list of strings")
            setattr(rule, key, value)
    _check_template(rule, name, nodes)
    return rule


_PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)(?::[^{}]*)?\}")


def _check_template(rule: Rule, name: str, nodes: dict[str, yaml.Node]) -> None:
    known = {n for n, _ in rule.let} | set(rule.texts) | {"launch", "ranks_list", "n_ranks"}
    for key in ("message", "hint"):
        for placeholder in _PLACEHOLDER.findall(getattr(rule, key)):
            if placeholder not in known:
                line, col = _mark(nodes[key])
                raise RuleError(
                    f"{name}:{line}:{col}: {key}: placeholder {{{placeholder}}} is not defined in let "
                    f"(defined: {', '.join(sorted(known))})"
                )


def rule_files(extra_dirs: list[str]) -> list[Path]:
    files = sorted(p for p in rules_dir().glob("*.yaml") if not p.name.endswith(".cases.yaml"))
    for folder in extra_dirs:
        directory = Path(folder)
        if not directory.is_dir():
            raise RuleError(f"{folder}: rules folder not found")
        files += sorted(p for p in directory.glob("*.yaml") if not p.name.endswith(".cases.yaml"))
    return files


def load_rules(extra_dirs: list[str] | None = None) -> list[Rule]:
    """The rules of the bundled folder and the extra ones; parsed once per content of the files (and of the
    code and grammar that parse them), then read from the user cache: parsing the expressions with lark was
    most of a small paste's rule time."""
    files = rule_files(extra_dirs or [])

    def parse() -> list[Rule]:
        rules: dict[str, Rule] = {}
        for path in files:
            rule = load_rule_file(path)
            rules[rule.id] = rule  # a user folder may override a bundled rule of the same id
        return list(rules.values())

    key = user_cache.content_key(files, (__file__, expr_module.__file__), grammars_digest())  # type: ignore[arg-type]
    return user_cache.cached("rules", key, parse, lambda v: isinstance(v, list) and all(isinstance(r, Rule) for r in v))


def parse_yaml_file(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, UnicodeDecodeError) as exc:
        raise RuleError(f"{path}: cannot load: {exc}") from None
