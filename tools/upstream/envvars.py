"""Environment variables SGLang reads and their defaults, as one release declares them.

Newer releases declare them in `sglang/srt/environ.py` (`class Envs: NAME = EnvInt(128)`); older ones read
them where they are used (`get_bool_env_var("X", "false")`, `get_int_env_var("X", 8)`, `os.getenv("X", d)`,
`os.environ.get("X", d)`). Both are read with `ast`; a default is kept as its source text (`128`,
`"false"`, `1 << 30`), never evaluated."""

from __future__ import annotations

import ast
from dataclasses import dataclass

ACCESSORS = {"get_bool_env_var", "get_int_env_var", "get_float_env_var", "get_str_env_var", "getenv", "get"}


@dataclass(frozen=True, slots=True)
class EnvVar:
    name: str
    default: str  # source text of the default; "" when none is given
    declared_by: str  # "environ.py EnvInt", "get_bool_env_var", "os.getenv", ...
    module: str
    line: int


def _declarations(module: str, tree: ast.Module) -> list[EnvVar]:
    """`NAME = EnvX(default, ...)` in a class body of environ.py."""
    found = []
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for stmt in cls.body:
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
                continue
            target, call = stmt.targets[0], stmt.value
            if (
                isinstance(target, ast.Name)
                and isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id.startswith("Env")
            ):
                default = ast.unparse(call.args[0]) if call.args else ""
                for kw in call.keywords:
                    if kw.arg == "default":
                        default = ast.unparse(kw.value)
                found.append(EnvVar(target.id, default, f"environ.py {call.func.id}", module, stmt.lineno))
    return found


def _reads(module: str, tree: ast.Module) -> list[EnvVar]:
    """Calls that read one variable by a literal name, with the default they pass."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name not in ACCESSORS:
            continue
        receiver = ast.unparse(func.value) if isinstance(func, ast.Attribute) else ""
        if name == "get" and receiver != "os.environ":
            continue
        if name == "getenv" and receiver not in ("os", ""):
            continue
        first = node.args[0]
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            continue
        default = ast.unparse(node.args[1]) if len(node.args) > 1 else ""
        for kw in node.keywords:
            if kw.arg == "default":
                default = ast.unparse(kw.value)
        accessor = f"{receiver}.{name}" if receiver else name
        found.append(EnvVar(first.value, default, accessor, module, node.lineno))
    return found


def extract(module: str, source: str) -> list[EnvVar]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found = _reads(module, tree)
    if module.endswith("srt.environ"):
        found = _declarations(module, tree) + found
    return found
