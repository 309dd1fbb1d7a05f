"""What SGLang's code does right after it logs at error or critical level, per release, read from the released wheels
with `ast`: whether the process dies there or goes on.

SGLang's log format prints no level (`[%(asctime)s{prefix}] %(message)s`, sglang 0.5.23 utils/common.py
configure_logger), so a log line is known to be an error record only by its wording (catalog/sglang.json's `level`).
Many such records are logged and carried on: a request aborted, a connection retried, an optional import skipped. A
call site `dies` when the statements after the call in its block (and, past the end of an `if` / `with` / `try` /
`except` block, those after that statement) reach a process exit (`sys.exit`, `os._exit`, `exit`, `os.abort`), a kill
of the process tree (`kill_process_tree`) or a signal sent to end a process (`os.kill`, `.send_signal`,
`signal.raise_signal`) before any `return`, `continue` or `break`; it `goes_on` when it reaches the end of a loop's
body, of a function, a bare `return` (or `return None`), `continue` or `break` first; it is `unsure` when a statement
in between raises or exits only on a condition, when it reaches a `raise` (the exception goes to a caller, which may
catch it and go on), or when a `return` hands a value (an error code, a flag) to the caller, which decides.
catalog/error_outcomes.json holds one row per wording and module, each call site with its release range, file, line
and outcome; logscope/core/error_outcomes.py reads it.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from tools.upstream import messages, sources
from tools.upstream.write import _NOT_SERVER, write_generated

DIES, GOES_ON, UNSURE = "dies", "goes_on", "unsure"
_FAILING = frozenset({"error", "critical"})
# calls that end the process, or the process tree, where they stand
_EXITS = frozenset({"exit", "_exit", "abort", "quit", "kill_process_tree", "kill", "send_signal", "raise_signal", "killpg"})


def _call_name(node: ast.AST) -> str:
    func = node.func if isinstance(node, ast.Call) else None
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _ends_process(stmt: ast.stmt) -> bool:
    """A statement that raises or ends the process on every path through it (not nested in a condition)."""
    if _raises(stmt):
        return True
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and _call_name(stmt.value) in _EXITS


def _raises(stmt: ast.stmt) -> bool:
    """A raise (or `assert False`): the exception goes up to a caller, which may catch it (sglang 0.5.23
    pynccl_wrapper.py logs 'Failed to load NCCL library from %s ...' and re-raises; pynccl.py's caller catches it and
    disables pynccl: review10)."""
    if isinstance(stmt, ast.Raise):
        return True
    return isinstance(stmt, ast.Assert) and isinstance(stmt.test, ast.Constant) and not stmt.test.value


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _may_end_process(stmt: ast.stmt) -> bool:
    """A compound statement with a raise or an exit somewhere inside (on some path only)."""
    return any(isinstance(n, ast.stmt) and _ends_process(n) for n in ast.walk(stmt) if n is not stmt)


def _blocks(tree: ast.AST) -> dict[int, tuple[ast.AST, list[ast.stmt], int]]:
    """id(statement) -> (the node owning its block, the block, its index there)."""
    out: dict[int, tuple[ast.AST, list[ast.stmt], int]] = {}
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                for i, stmt in enumerate(block):
                    out[id(stmt)] = (node, block, i)
    return out


def outcome_after(stmt: ast.stmt, blocks: dict[int, tuple[ast.AST, list[ast.stmt], int]]) -> tuple[str, int | None]:
    """(outcome, the line that decides it) of the statements run after `stmt`."""
    current: ast.AST = stmt
    while id(current) in blocks:
        owner, block, index = blocks[id(current)]
        for later in block[index + 1 :]:
            if _raises(later):
                return UNSURE, later.lineno  # the exception goes to a caller, which may catch it and go on
            if _ends_process(later):
                return DIES, later.lineno
            if isinstance(later, ast.Return) and later.value is not None and not _is_none(later.value):
                return UNSURE, later.lineno  # an error value handed to the caller, which decides
            if isinstance(later, (ast.Return, ast.Continue, ast.Break)):
                return GOES_ON, later.lineno
            if _may_end_process(later):
                return UNSURE, later.lineno
        if isinstance(owner, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            return GOES_ON, None  # the loop goes round again, the function returns to its caller
        if isinstance(owner, ast.ExceptHandler):  # the handler's try statement: what comes after it
            found = blocks.get(id(owner))
            if found is None:
                return UNSURE, None
            owner = found[0]
        current = owner
    return UNSURE, None


def _failing_calls(tree: ast.AST) -> list[tuple[ast.Call, str]]:
    """Every logger call at error or critical level with a message, and its level (as messages.py reads calls)."""
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        if not isinstance(func, ast.Attribute) or "log" not in ast.unparse(func.value).lower():
            continue
        level = messages.LOG_LEVELS.get(func.attr)
        arg = node.args[0]
        if func.attr == "log" and len(node.args) >= 2:
            level = messages.LOG_LEVELS.get(ast.unparse(node.args[0]).rsplit(".", 1)[-1].lower())
            arg = node.args[1]
        if level in _FAILING and messages.render(arg) is not None:
            out.append((node, messages.render(arg)[0]))  # type: ignore[index]
    return out


def _functions(tree: ast.AST) -> dict[int, str]:
    """id(node) -> Class.function around it."""
    out: dict[int, str] = {}

    def visit(node: ast.AST, names: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            scoped = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            inner = [*names, child.name] if scoped else names  # type: ignore[attr-defined]
            out[id(child)] = ".".join(inner) or "<module>"
            visit(child, inner)

    visit(tree, [])
    return out


def release_sites(module: str, path: str, text: str) -> list[dict[str, Any]]:
    """(template, outcome, line, decided_at, function) of every failing-level logger call of one module."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    blocks = _blocks(tree)
    functions = _functions(tree)
    statements = {id(n): n for n in ast.walk(tree) if isinstance(n, ast.stmt)}
    parents = {id(child): parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    out = []
    for call, template in _failing_calls(tree):
        node: ast.AST = call
        while id(node) not in statements and id(node) in parents:
            node = parents[id(node)]
        outcome, at = outcome_after(node, blocks) if isinstance(node, ast.stmt) else (UNSURE, None)
        out.append(
            {
                "template": template,
                "module": module,
                "file": path,
                "line": call.lineno,
                "function": functions.get(id(node), "<module>"),
                "outcome": outcome,
                "decided_at": at,
            }
        )
    return out


def extract() -> list[dict[str, Any]]:
    """One row per (wording, module): its call sites, each with its outcome and the releases that hold it."""
    rows: dict[tuple[str, str], dict[tuple[str, str, str], dict[str, Any]]] = {}
    for version in sources.sglang_versions():
        wheel = sources.download("sglang", version)
        for path, text in sources.python_files(wheel):
            module = sources.module_of(path)
            if _NOT_SERVER.search(module) or "log" not in text:
                continue
            for site in release_sites(module, path, text):
                key = (site["function"], site["outcome"], str(site["decided_at"] is not None))
                sites = rows.setdefault((site["template"], module), {})
                held = sites.get(key)
                if held is None:
                    sites[key] = held = {"first": version, **site}
                held.update({"last": version, "file": path, "line": site["line"], "decided_at": site["decided_at"]})
    out = []
    for (template, module), sites in sorted(rows.items()):
        found = sorted(sites.values(), key=lambda s: (s["first"], s["line"]))
        outcomes = {s["outcome"] for s in found}
        outcome = outcomes.pop() if len(outcomes) == 1 else UNSURE
        listed = [{k: s[k] for k in ("first", "last", "file", "line", "function", "outcome", "decided_at")} for s in found]
        out.append({"template": template, "module": module, "outcome": outcome, "sites": listed})
    return out


def write(path: Path) -> None:
    about = (
        "What SGLang's code does right after each logger call at error or critical level: dies (a raise, an exit, a "
        "kill of the process tree or a signal to end a process follows it), goes_on (a bare return, continue, break, "
        "the end of a loop's body or of a function comes first) or unsure (a statement in between ends the process on "
        "a condition only, or a return hands a value to the caller, which decides). One row per wording and module, "
        "every call site with the releases (first, last) that hold it, its file and line (newest release) and the line "
        "that decides (decided_at). Read from the released wheels "
        "by tools/upstream/error_outcomes.py (python -m tools.upstream error-outcomes). Generated."
    )
    write_generated(path, about, {"records": extract()})
