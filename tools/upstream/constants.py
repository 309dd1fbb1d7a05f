"""Constants of the memory-relevant modules, as one release's source writes them (for the cells and sizing).

Read with `ast` and evaluated only as arithmetic over literals and names bound earlier in the same module
(`MB = 1024 * 1024`, `_MAX_CAR_SIZE = 2 * 8192 * 1024`); a call is kept as {"call": name, "args": [...],
"kwargs": {...}} with its arguments evaluated the same way, so per-architecture tables
(`_sm100_configs(...)` returning `{2: config(2, graph=(8.000 * MB, ...))}`) come out as data. What cannot be
evaluated this way keeps its source text under "expr". Each constant says where it is assigned and under
which enclosing `if` conditions (a class body that picks a size per platform gives one row per branch); a
name used later (a default argument, a table) takes its unconditional value. The reserve rules of the
memory settings come as `rule:<name>@<function>` rows: each assignment's source text and operator."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

_UPPER = re.compile(r"^_*[A-Z][A-Z0-9_]*$")
_TABLE_FUNC = re.compile(r"_configs?$|_CONFIGS?$|_table$|_TABLE$")
# the reserve rules of server args' memory settings: every assignment to one of these names inside a function
# (`reserved_mem = 1536`, `reserved_mem += cfg.tp_size * cfg.pp_size / 8 * 1024`) with its if-conditions
_RULE_TARGET = re.compile(r"^(reserved_mem|mem_fraction_static|reserve\w*|\w*_reserve\w*)$")
_RULE_MODULES = ("sglang.srt.server_args", "sglang.srt.arg_groups.memory_hook", "sglang.srt.model_executor.model_runner")
_SIZE_PARAM = re.compile(r"size|bytes|tokens|mem|reserve|buffer|gb|mb", re.IGNORECASE)


class _NotConstant(Exception):
    pass


@dataclass(frozen=True, slots=True)
class Constant:
    name: str  # "CustomAllreduce._MAX_CAR_SIZE", "_sm100_configs()", "param:max_size@CustomAllreduce.__init__"
    value: Any
    condition: str  # "" or the enclosing if-conditions joined by " and "
    module: str
    line: int


def _eval(node: ast.AST, names: dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str, bool, type(None))):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in names:
            return names[node.id]
        raise _NotConstant
    if isinstance(node, (ast.Tuple, ast.List)):
        return [_eval(e, names) for e in node.elts]
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise _NotConstant
        return {str(_eval(k, names)): _eval(v, names) for k, v in zip(node.keys, node.values)}  # type: ignore[arg-type]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, names)
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left, names), _eval(node.right, names)
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (left, right)):
            raise _NotConstant
        ops = {
            ast.Add: lambda: left + right,
            ast.Sub: lambda: left - right,
            ast.Mult: lambda: left * right,
            ast.FloorDiv: lambda: left // right,
            ast.Div: lambda: left / right,
            ast.Pow: lambda: left**right,
            ast.LShift: lambda: left << right,
            ast.Mod: lambda: left % right,
        }
        op = ops.get(type(node.op))
        if op is None:
            raise _NotConstant
        return op()
    if isinstance(node, ast.Call):
        func = ast.unparse(node.func)
        return {
            "call": func,
            "args": [_eval(a, names) for a in node.args],
            "kwargs": {kw.arg or "**": _eval(kw.value, names) for kw in node.keywords},
        }
    raise _NotConstant


def _value(node: ast.AST, names: dict[str, Any]) -> Any:
    try:
        return _eval(node, names)
    except (_NotConstant, ZeroDivisionError, OverflowError, TypeError, ValueError):
        return {"expr": ast.unparse(node)}


class _Visitor(ast.NodeVisitor):
    def __init__(self, module: str) -> None:
        self.module = module
        self.names: dict[str, Any] = {}
        self.scope: list[str] = []
        self.conditions: list[str] = []
        self.found: list[Constant] = []
        self.in_function = 0

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        qual = ".".join([*self.scope, node.name])
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        for arg, default in zip(positional[len(positional) - len(args.defaults) :], args.defaults):
            self._param(arg.arg, default, qual)
        for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults):
            if kw_default is not None:
                self._param(arg.arg, kw_default, qual)
        if _TABLE_FUNC.search(node.name):
            local = dict(self.names)
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                    local[stmt.targets[0].id] = _value(stmt.value, local)
                elif isinstance(stmt, ast.FunctionDef):  # a local row builder: kept as a call by name
                    local.pop(stmt.name, None)
                if isinstance(stmt, ast.Return) and stmt.value is not None:
                    self.found.append(Constant(f"{qual}()", _value(stmt.value, local), "", self.module, stmt.lineno))
        self.in_function += 1
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()
        self.in_function -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def _param(self, name: str, default: ast.expr, qual: str) -> None:
        if _SIZE_PARAM.search(name):
            value = _value(default, self.names)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                self.found.append(Constant(f"param:{name}@{qual}", value, "", self.module, default.lineno))

    def visit_If(self, node: ast.If) -> None:
        self.conditions.append(ast.unparse(node.test))
        for stmt in node.body:
            self.visit(stmt)
        self.conditions[-1] = f"not ({self.conditions[-1]})"
        for stmt in node.orelse:
            self.visit(stmt)
        self.conditions.pop()

    def _rule(self, target: ast.AST, value: ast.AST, op: str, line: int) -> None:
        name = ast.unparse(target).rsplit(".", 1)[-1]
        if self.module.startswith(_RULE_MODULES) and _RULE_TARGET.match(name):
            qual = ".".join(self.scope)
            rule = {"op": op, "expr": ast.unparse(value)}
            self.found.append(Constant(f"rule:{name}@{qual}", rule, " and ".join(self.conditions), self.module, line))

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if self.in_function:
            op = {ast.Add: "+=", ast.Sub: "-=", ast.Mult: "*=", ast.Div: "/="}.get(type(node.op), "op=")
            self._rule(node.target, node.value, op, node.lineno)

    def visit_Assign(self, node: ast.Assign) -> None:
        if self.in_function and len(node.targets) == 1:
            self._rule(node.targets[0], node.value, "=", node.lineno)
        if self.in_function or len(node.targets) != 1:
            return
        target = node.targets[0]
        if (
            isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) and len(target.elts) == len(node.value.elts)
        ):  # KB, MB = 1024, 1024 * 1024
            for element, value in zip(target.elts, node.value.elts):
                self.visit_Assign(ast.Assign(targets=[element], value=value, lineno=node.lineno))
            return
        if not isinstance(target, ast.Name):
            return
        name = target.id
        value = _value(node.value, self.names)
        # a later name refers to the unconditional binding: a value assigned under an `if` (one platform's
        # size) is a row of its own, never what a default argument or a table reads
        if not (isinstance(value, dict) and "expr" in value) and (not self.conditions or name not in self.names):
            self.names[name] = value
        if _UPPER.match(name):
            qual = ".".join([*self.scope, name])
            self.found.append(Constant(qual, value, " and ".join(self.conditions), self.module, node.lineno))

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None and isinstance(node.target, ast.Name):
            self.visit_Assign(ast.Assign(targets=[node.target], value=node.value, lineno=node.lineno))


def extract(module: str, source: str) -> list[Constant]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    visitor = _Visitor(module)
    visitor.visit(tree)
    return visitor.found
