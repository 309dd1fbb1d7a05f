"""The rule condition language: parsed by grammars/rule_expr.lark, evaluated by walking the tree.

Values are plain data (dict, list, str, number, bool, None). A path reads dict keys and list indices
only; functions are a fixed table. Missing data evaluates to null, and comparisons or arithmetic with
null are false / null rather than errors, so a rule over a truncated log stays quiet instead of crashing.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from functools import lru_cache
from typing import Any, cast

from lark import Token, Tree
from lark.exceptions import UnexpectedInput

from logscope.core.errors import RuleError
from logscope.core.grammar_loader import parser

MAX_DEPTH = 40
MAX_NODES = 800
MAX_TEXT = 4000
MAX_ITEMS = 1_000_000  # items visited by aggregates in one evaluation


class Expr:
    """A compiled condition; `origin` names the rule file and key for error messages."""

    def __init__(self, text: str, origin: str) -> None:
        if not isinstance(text, str):
            raise RuleError(f"{origin}: expected an expression string, got {type(text).__name__}")
        if len(text) > MAX_TEXT:
            raise RuleError(f"{origin}: expression longer than {MAX_TEXT} characters")
        try:
            self.tree = parser("rule_expr").parse(text)
        except UnexpectedInput as exc:
            raise RuleError(
                f"{origin}:{exc.line}:{exc.column}: syntax error in expression: {exc.get_context(text).splitlines()[0].strip()!r}"
            ) from None
        self.text = text
        self.origin = origin
        nodes, depth = _measure(self.tree)
        if nodes > MAX_NODES or depth > MAX_DEPTH:
            raise RuleError(f"{origin}: expression too large ({nodes} nodes, depth {depth}; limits {MAX_NODES}, {MAX_DEPTH})")
        _check_functions(self.tree, origin)

    def evaluate(self, env: dict[str, Any]) -> Any:
        return _Evaluator(env).eval(self.tree)


def _measure(tree: Any, depth: int = 1) -> tuple[int, int]:
    if not isinstance(tree, Tree):
        return 1, depth
    nodes, deepest = 1, depth
    for child in tree.children:
        n, d = _measure(child, depth + 1)
        nodes += n
        deepest = max(deepest, d)
    return nodes, deepest


def _check_functions(tree: Tree, origin: str) -> None:
    for node in tree.iter_subtrees():
        if node.data == "call":
            head = cast(Token, node.children[0])
            name = str(head)
            if name == "if" and len([c for c in node.children[1:] if c is not None]) != 3:
                raise RuleError(f"{origin}:{head.line}:{head.column}: if(condition, then, else) takes three arguments")
            if name == "case" and len([c for c in node.children[1:] if c is not None]) % 2 != 1:
                raise RuleError(
                    f"{origin}:{head.line}:{head.column}: case(condition, value, "
                    f"..., default) takes condition/value pairs and a default"
                )
            if name not in FUNCTIONS and name not in AGGREGATES and name not in SPECIAL_FORMS:
                known = ", ".join(sorted([*FUNCTIONS, *AGGREGATES, *SPECIAL_FORMS]))
                raise RuleError(f"{origin}:{head.line}:{head.column}: unknown function {name!r} (known: {known})")


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return value
    return None


def _values(items: list[Any]) -> list[float]:
    return [v for v in (_num(x) for x in items) if v is not None]


def _parse_number(value: Any) -> float | int | None:
    """A number from a number or a numeric string (environment values are strings)."""
    if _num(value) is not None:
        return value
    if isinstance(value, str):
        try:
            return int(value) if value.strip().lstrip("-").isdigit() else float(value)
        except ValueError:
            return None
    return None


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "abs": lambda x: abs(x) if _num(x) is not None else None,
    "round": lambda x, n=2: round(x, int(n)) if _num(x) is not None else None,
    "len": lambda x: len(x) if isinstance(x, (list, dict, str)) else 0,
    "contains": lambda s, sub: isinstance(s, str) and isinstance(sub, str) and sub in s,
    "startswith": lambda s, sub: isinstance(s, str) and isinstance(sub, str) and s.startswith(sub),
    "lower": lambda s: s.lower() if isinstance(s, str) else s,
    "exists": lambda x: x is not None,
    "pick": lambda mapping, key: mapping.get(key) if isinstance(mapping, dict) and isinstance(key, str) else None,
    "coalesce": lambda *xs: next((x for x in xs if x is not None and x != []), None),
    "max2": lambda a, b: max(_values([a, b])) if _values([a, b]) else None,
    "min2": lambda a, b: min(_values([a, b])) if _values([a, b]) else None,
    "join": lambda xs, sep=", ": sep.join(str(x) for x in xs) if isinstance(xs, list) else "",
    "unique": lambda xs: list(dict.fromkeys(xs)) if isinstance(xs, list) else [],
    "flat": lambda xs: [y for x in xs for y in (x if isinstance(x, list) else [x])] if isinstance(xs, list) else [],
    "num": _parse_number,
    "fmt": lambda x, digits=2: f"{x:.{int(digits)}f}" if _num(x) is not None else "(not in the input)",
    "str": lambda x: "" if x is None else str(x),
    "last": lambda xs: xs[-1] if isinstance(xs, list) and xs else None,
    "gib": lambda mib: round(mib / 1024, 2) if _num(mib) is not None else None,
}
# aggregates take a collection and an expression evaluated with `it` bound to each item
AGGREGATES = ("any", "all", "count", "min", "max", "sum", "spread", "where", "map", "first", "argmin", "argmax")
# special forms: only the branch taken is evaluated
SPECIAL_FORMS = ("if", "case")


class _Evaluator:
    def __init__(self, env: dict[str, Any]) -> None:
        self.env = env
        self.budget = MAX_ITEMS

    def eval(self, node: Any) -> Any:
        if isinstance(node, Token):
            raise RuleError(f"unexpected token {node!r}")
        return _METHODS[node.data](self, node)

    # literals (a literal is decoded once per text, not at each evaluation: a rule over many events evaluates
    # its literals thousands of times)
    def _number(self, node: Tree) -> Any:
        return _number_literal(str(node.children[0]))

    def _string(self, node: Tree) -> str:
        return _string_literal(str(node.children[0]))

    def _true(self, _node: Tree) -> bool:
        return True

    def _false(self, _node: Tree) -> bool:
        return False

    def _null(self, _node: Tree) -> None:
        return None

    def _list_(self, node: Tree) -> list:
        return [self.eval(c) for c in node.children if c is not None]

    def _path(self, node: Tree) -> Any:
        parts = [str(t) for t in node.children]
        value: Any = self.env.get(parts[0])
        for part in parts[1:]:
            if isinstance(value, dict):
                value = value.get(part)
            elif isinstance(value, list) and part.isdigit():
                index = int(part)
                value = value[index] if index < len(value) else None
            else:
                return None
        return value

    def _call_path(self, node: Tree) -> Any:
        value = self._call(node.children[0])
        for part in (str(t) for t in node.children[1:]):
            if isinstance(value, dict):
                value = value.get(part)
            elif isinstance(value, list) and part.isdigit():
                value = value[int(part)] if int(part) < len(value) else None
            else:
                return None
        return value

    # logic
    def _or_(self, node: Tree) -> bool:
        return any(_truthy(self.eval(c)) for c in node.children)

    def _and_(self, node: Tree) -> bool:
        return all(_truthy(self.eval(c)) for c in node.children)

    def _not_(self, node: Tree) -> bool:
        return not _truthy(self.eval(node.children[0]))

    def _compare(self, node: Tree) -> Any:
        left = self.eval(node.children[0])
        op = str(node.children[1])
        right = self.eval(node.children[2])
        if op == "==":
            return left == right
        if op == "!=":
            return left != right
        if op in ("in", "not in"):
            inside = (
                isinstance(right, (list, dict, str))
                and left is not None
                and ((left in right) if not isinstance(right, str) or isinstance(left, str) else False)
            )
            return inside if op == "in" else not inside
        if (
            _num(left) is None
            and not isinstance(left, str)
            or type(left) is not type(right)
            and (_num(left) is None or _num(right) is None)
        ):
            return False
        return {"<": left < right, ">": left > right, "<=": left <= right, ">=": left >= right}[op]

    def _arith(self, node: Tree) -> Any:
        value = self.eval(node.children[0])
        for i in range(1, len(node.children), 2):
            op = str(node.children[i])
            right = self.eval(node.children[i + 1])
            if _num(value) is None or _num(right) is None:
                if op == "+" and isinstance(value, str) and isinstance(right, str):
                    value = value + right
                    continue
                return None
            if op in ("/", "%") and right == 0:
                return None
            value = {
                "+": lambda a, b: a + b,
                "-": lambda a, b: a - b,
                "*": lambda a, b: a * b,
                "/": lambda a, b: a / b,
                "%": lambda a, b: a % b,
            }[op](value, right)
        return value

    def _neg(self, node: Tree) -> Any:
        value = self.eval(node.children[0])
        return -value if _num(value) is not None else None

    # calls
    def _call(self, node: Tree) -> Any:
        name = str(node.children[0])
        args = [c for c in node.children[1:] if c is not None]
        if name in AGGREGATES:
            return self._aggregate(name, args)
        if name == "if":
            return self.eval(args[1]) if _truthy(self.eval(args[0])) else self.eval(args[2])
        if name == "case":  # case(c1, v1, c2, v2, ..., default): the value of the first true condition
            for condition, value in zip(args[:-1:2], args[1:-1:2]):
                if _truthy(self.eval(condition)):
                    return self.eval(value)
            return self.eval(args[-1])
        return FUNCTIONS[name](*[self.eval(a) for a in args])

    def _aggregate(self, name: str, args: list[Any]) -> Any:
        collection = self.eval(args[0]) if args else None
        items = collection if isinstance(collection, list) else []
        self.budget -= len(items)
        if self.budget < 0:
            raise RuleError("expression visits too many items")
        body = args[1] if len(args) > 1 else None
        outer = self.env.get("it")

        def each(item: Any, expr: Any = body) -> Any:
            self.env["it"] = item
            try:
                return self.eval(expr) if expr is not None else item
            finally:
                self.env["it"] = outer

        if name == "any":
            return any(_truthy(each(i)) for i in items)
        if name == "all":
            return bool(items) and all(_truthy(each(i)) for i in items)
        if name == "count":
            return sum(1 for i in items if _truthy(each(i))) if body is not None else len(items)
        if name == "where":
            return [i for i in items if _truthy(each(i))]
        if name == "map":
            return [each(i) for i in items]
        if name == "first":
            for i in items:
                if _truthy(each(i)):
                    return each(i, args[2]) if len(args) > 2 else i
            return None
        values = [v for v in (each(i) for i in items)]
        numbers = _values(values)
        if name in ("argmin", "argmax"):
            pairs = [(v, i) for v, i in zip(values, items) if _num(v) is not None]
            if not pairs:
                return None
            pick = min if name == "argmin" else max
            return pick(pairs, key=lambda p: p[0])[1]
        if not numbers:
            return None
        if name == "min":
            return min(numbers)
        if name == "max":
            return max(numbers)
        if name == "sum":
            return round(sum(numbers), 6)
        return round(max(numbers) - min(numbers), 6)  # spread


# tree node name → the evaluator's method for it (one lookup per node instead of building its name)
_METHODS: dict[str, Callable[[_Evaluator, Any], Any]] = {
    name[1:]: method for name, method in vars(_Evaluator).items() if name.startswith("_") and not name.startswith("__")
}


@lru_cache(maxsize=4096)
def _number_literal(text: str) -> float | int:
    return float(text) if any(c in text for c in ".eE") else int(text)


@lru_cache(maxsize=4096)
def _string_literal(text: str) -> str:
    return cast(str, ast.literal_eval(text))


def _truthy(value: Any) -> bool:
    return bool(value) and value is not None
