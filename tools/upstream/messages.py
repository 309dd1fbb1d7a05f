"""Every logger / print / raise / assert message of one SGLang release, read with `ast` (never regex).

A message's template is the format string as the source writes it: f-string placeholders keep their
expression and format spec (`{mem:.2f}`), %-format keeps its conversions (`%.2f`), and `+`-joined pieces are
joined. A message built at run time from a variable alone has no template and is counted, not catalogued."""

from __future__ import annotations

import ast
from dataclasses import dataclass

LOG_LEVELS = {
    "debug": "debug",
    "info": "info",
    "warning": "warning",
    "warn": "warning",
    "error": "error",
    "critical": "critical",
    "fatal": "critical",
    "exception": "error",
}
# SGLang's logging helpers: name → (level, index of the message argument)
HELPERS = {
    "log_info_on_rank0": ("info", 1),
    "print_info_once": ("info", 0),
    "print_warning_once": ("warning", 0),
    "warning_once": ("warning", 0),
    "info_once": ("info", 0),
    "warn": ("warning", 0),
    "print": ("print", 0),
    "log_rank0": ("info", 1),
    "warning_once_rank0": ("warning", 0),
}


@dataclass(frozen=True, slots=True)
class Message:
    template: str
    style: str  # "f" (f-string), "%" (printf), "format" (str.format), "plain"
    kind: str  # "log", "print", "raise", "assert"
    level: str  # log level, "print", or the exception class
    module: str
    function: str
    line: int


def render(node: ast.AST) -> tuple[str, str] | None:
    """(template, style) of a message expression, or None when it has no literal text."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, "plain"
    if isinstance(node, ast.JoinedStr):
        parts: list[str] = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue):
                expr = ast.unparse(value.value)
                conv = "" if value.conversion == -1 else "!" + chr(value.conversion)
                spec = ""
                if value.format_spec is not None:
                    spec_parts = render(value.format_spec)
                    spec = ":" + (spec_parts[0] if spec_parts else "")
                parts.append("{" + expr + conv + spec + "}")
        return "".join(parts), "f"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        left = render(node.left)
        return (left[0], "%") if left else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = render(node.left), render(node.right)
        if left is None and right is None:
            return None
        head = left[0] if left else "{" + ast.unparse(node.left) + "}"
        text = head + (right[0] if right else "{" + ast.unparse(node.right) + "}")
        styles = {part[1] for part in (left, right) if part is not None} - {"plain"}
        return text, (styles.pop() if len(styles) == 1 else "f" if styles else "plain")
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
    ):
        return node.func.value.value, "format"
    return None


def _call_name(func: ast.AST) -> tuple[str, str]:
    """(receiver text, name) of a call's function."""
    if isinstance(func, ast.Attribute):
        return ast.unparse(func.value), func.attr
    if isinstance(func, ast.Name):
        return "", func.id
    return "", ""


class _Visitor(ast.NodeVisitor):
    def __init__(self, module: str) -> None:
        self.module = module
        self.stack: list[str] = []
        self.found: list[Message] = []
        self.dynamic = 0

    def _scope(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.stack.append(node.name)
        self.generic_visit(node)
        self.stack.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scope

    def _add(self, arg: ast.AST | None, kind: str, level: str, line: int) -> None:
        rendered = render(arg) if arg is not None else None
        if rendered is None:
            self.dynamic += arg is not None
            return
        text, style = rendered
        if not text.strip():
            return
        self.found.append(Message(text, style, kind, level, self.module, ".".join(self.stack) or "<module>", line))

    def visit_Call(self, node: ast.Call) -> None:
        receiver, name = _call_name(node.func)
        if name in LOG_LEVELS and ("log" in receiver.lower() or receiver in ("warnings",)) and node.args:
            self._add(node.args[0], "log", LOG_LEVELS[name], node.lineno)
        elif name == "log" and "log" in receiver.lower() and len(node.args) >= 2:
            level = ast.unparse(node.args[0]).rsplit(".", 1)[-1].lower()
            self._add(node.args[1], "log", LOG_LEVELS.get(level, level), node.lineno)
        elif name in HELPERS and not receiver.endswith(("self", "parser")):
            level, index = HELPERS[name]
            if len(node.args) > index:
                self._add(node.args[index], "print" if level == "print" else "log", level, node.lineno)
        self.generic_visit(node)

    def visit_Raise(self, node: ast.Raise) -> None:
        exc = node.exc
        if isinstance(exc, ast.Call) and exc.args:
            self._add(exc.args[0], "raise", ast.unparse(exc.func).rsplit(".", 1)[-1], node.lineno)
        self.generic_visit(node)

    def visit_Assert(self, node: ast.Assert) -> None:
        if node.msg is not None:
            self._add(node.msg, "assert", "AssertionError", node.lineno)
        self.generic_visit(node)


def extract(module: str, source: str) -> tuple[list[Message], int]:
    """(messages with a template, count of messages built from a variable alone) of one module."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return [], 0
    visitor = _Visitor(module)
    visitor.visit(tree)
    return visitor.found, visitor.dynamic
