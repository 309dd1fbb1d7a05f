"""The functions SGLang installs as signal handlers, per release, read from the released wheels: catalog/signal_handlers.json.

A handler given to `signal.signal(SIG, f)` or to an event loop's `add_signal_handler(SIG, f)` runs when the signal
arrives, at any moment after it is installed (Python's signal module calls it between two bytecodes of the main
thread), not when the code that installs it runs. Startup code installs them, so a call graph that follows a nested def
into its parent, or an attribute into its method, takes them for startup code (catalog/stages.json placed
"SIGTERM received. signum=... Draining requests and shutting down..." at startup); logscope/core/stage_functions.py
places nothing by them.

Each handler is named by its qualified name as catalog/stages.json names functions: a nested def by its parents'
names ("Engine._launch_subprocesses.sigterm_handler"), a method given through an object by its class
("SignalHandler.sigterm_handler", the one class of the module that defines it), a module's function by its name.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

from tools.upstream import sources

_TOP = ("sglang/srt/", "sglang/launch_server.py")
_REGISTRARS = frozenset({"signal", "add_signal_handler"})  # signal.signal(sig, f), loop.add_signal_handler(sig, f)


def _defs(tree: ast.Module) -> dict[str, list[str]]:
    """Every def of the module by its bare name: the qualified names that define it."""
    found: dict[str, list[str]] = {}

    def walk(node: ast.AST, scope: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = f"{scope}.{child.name}" if scope else child.name
                if not isinstance(child, ast.ClassDef):
                    found.setdefault(child.name, []).append(qual)
                walk(child, qual)
            else:
                walk(child, scope)

    walk(tree, "")
    return found


def _registered(tree: ast.Module) -> list[tuple[str, str]]:
    """(the scope where a handler is installed, the handler as written: a name or `obj.attr`'s attr) per call."""
    out: list[tuple[str, str]] = []

    def walk(node: ast.AST, scope: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = f"{scope}.{child.name}" if scope else child.name
            elif isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and child.func.attr in _REGISTRARS:
                # signal.SIGTERM, a loop's `sig` over them: the first argument names a signal
                signalled = len(child.args) >= 2 and "sig" in ast.unparse(child.args[0]).lower()
                handler = child.args[1] if signalled else None
                if isinstance(handler, ast.Lambda):  # `lambda *_: f()`, `lambda: asyncio.create_task(f())`: f runs
                    called = [c.func for c in ast.walk(handler.body) if isinstance(c, ast.Call)]
                    handler = next((f for f in reversed(called) if isinstance(f, (ast.Name, ast.Attribute))), None)
                if isinstance(handler, ast.Name):
                    out.append((scope, handler.id))
                elif isinstance(handler, ast.Attribute):
                    out.append((scope, handler.attr))
            walk(child, inner)

    walk(tree, "")
    return out


def module_handlers(source: str) -> set[str]:
    """The qualified names of the module's functions that it installs as signal handlers: for a name, the def the
    installing scope sees (its own nested def, an enclosing one's, the module's); for an attribute, the module's
    methods of that name."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    defs = _defs(tree)
    handlers: set[str] = set()
    for scope, name in _registered(tree):
        candidates = defs.get(name, [])
        visible = [q for q in candidates if (parent := q.rpartition(".")[0]) and f"{scope}.".startswith(f"{parent}.")]
        nearest = max(visible, key=len) if visible else None
        handlers.update([nearest] if nearest else candidates)
    return handlers


def release_handlers(files: list[tuple[str, str]]) -> set[str]:
    return {q for path, text in files if "signal" in text for q in module_handlers(text)}


def extract(versions: list[str]) -> dict[str, list[str]]:
    """qualified name -> [first release, last release] that installs it as a signal handler."""
    seen: dict[str, list[str]] = {}
    for version in versions:
        wheel = sources.download("sglang", version)
        files = [(p, t) for p, t in sources.python_files(wheel, "sglang/") if p.startswith(_TOP)]
        for qualname in release_handlers(files):
            seen.setdefault(qualname, [version, version])[1] = version
    return dict(sorted(seen.items()))


def write(target: Path, versions: list[str] | None = None) -> None:
    doc: dict[str, Any] = {
        "doc": "The functions SGLang installs as signal handlers (signal.signal, loop.add_signal_handler), by the "
        "qualified name catalog/stages.json gives them -> [first, last] release: they run when a signal arrives, so "
        "their lines place nothing in time. Read from the released wheels by tools/upstream/signal_handlers.py "
        "(python -m tools.upstream signal-handlers). Generated.",
        "handlers": extract(versions or sources.sglang_versions()),
    }
    target.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
