"""The call graph of one SGLang release, each call resolved only as far as its source states it (for
tools/upstream/stages.py).

A call is resolved by what the calling file says:
- `self.x()` / `cls.x()`: the methods named x of the enclosing class's family (its bases, and its subclasses with
  theirs: a mixin's `self.x` may be a sibling mixin's method); `super().x()`: its bases' methods;
- `f()`: a def nested in the calling function (or one enclosing it), else the module's own def or class, else the
  name the file imports (`from m import f`, followed through re-exports), the function's own imports first;
- `m.f()` / `a.b.f()`: through the file's imports of the module (`import sglang.srt.utils as u`,
  `from sglang.srt import utils`);
- `obj.x()`: through the type the source states for obj: a local `obj = Class(...)`, an annotated parameter or
  local (`server_args: ServerArgs`, `Optional[X]`, `X | None`, a quoted name), a module-level `obj = Class()`, an
  attribute assigned or annotated in the class (`self.tp_worker = TpModelWorker(...)`, `self.pool: ReqToTokenPool`),
  a function's, method's or property's return annotation (`def model_runner(self) -> ModelRunner`), a loop over a
  container whose annotation names its items (`for req in self.queue`, `self.queue: List[Req]`), a class chosen
  among named ones (`TpWorkerClass = TpModelWorkerClient if overlap else TpModelWorker`);
- a class called: its `__init__` (the nearest in its bases when it has none) and its `__post_init__`;
- a parameter without annotation looped over (`for poller in pollers`): the items of the lists its callers hand it,
  `poll_and_all_reduce([decode_req.kv_receiver for decode_req in self.queue], ...)` (sglang 0.4.6-0.5.x PD queues).
A call through a receiver the source gives no type for (a parameter without annotation, an item of a list, a
callback) is otherwise left unresolved, unless exactly one class of the package defines a method of that name and the name is
not a common one (COMMON_NAMES: the methods of Python's containers, threads, queues, loggers and of the libraries
SGLang calls on, for which a shared name says nothing about the receiver: `tokenizer.encode` is no `Engine.encode`).
A bare name that is neither defined nor imported (a builtin, a star import) is resolved the same way among the
package's top-level functions and classes. A call into another package (an import from torch, uvicorn, ...) runs no
SGLang code. Reading `obj.x` runs a property x when one of the resolved classes defines it (`self.x`: the family's).
"""

from __future__ import annotations

import ast
import asyncio
import builtins
import collections
import concurrent.futures
import fnmatch
import io
import logging
import queue
import socket
import subprocess
import threading
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

# the method names of the objects SGLang calls methods on whose type the source does not state: Python's containers,
# strings, threads, queues, locks, loggers, sockets, processes, futures and event loops (read from this interpreter),
# and the names torch tensors and modules, HF tokenizers, zmq sockets and uvicorn / FastAPI objects share with
# SGLang's own classes (tokenizer.encode, uvicorn.run, module.forward, tensor.to, socket.send_pyobj, ...)
_STDLIB_TYPES: tuple[type, ...] = (
    dict,
    list,
    set,
    frozenset,
    tuple,
    str,
    bytes,
    int,
    float,
    object,
    collections.deque,
    collections.OrderedDict,
    queue.Queue,
    threading.Thread,
    threading.Event,
    threading.Condition,
    logging.Logger,
    socket.socket,
    subprocess.Popen,
    concurrent.futures.ThreadPoolExecutor,
    concurrent.futures.Future,
    asyncio.Queue,
    asyncio.Event,
    asyncio.AbstractEventLoop,
    asyncio.Future,
    io.TextIOWrapper,
)
_LIBRARY_NAMES = frozenset(
    {
        # torch.Tensor / torch.nn.Module / torch.cuda / torch.distributed
        "to", "cuda", "cpu", "item", "tolist", "numpy", "view", "reshape", "contiguous", "numel", "size", "dim",
        "float", "half", "bfloat16", "long", "bool", "zero_", "fill_", "copy_", "add_", "mul_", "clone", "detach",
        "squeeze", "unsqueeze", "expand", "permute", "transpose", "sum", "mean", "max", "min", "split", "chunk",
        "forward", "eval", "train", "apply", "state_dict", "load_state_dict", "parameters", "named_parameters",
        "buffers", "named_buffers", "modules", "named_modules", "children", "register_buffer", "record",
        "synchronize", "wait", "query", "elapsed_time", "all_reduce", "all_gather", "broadcast", "barrier", "send",
        "recv", "isend", "irecv", "replay", "capture",
        # HF tokenizers / processors / configs
        "encode", "decode", "batch_decode", "tokenize", "apply_chat_template", "convert_tokens_to_ids",
        "from_pretrained", "save_pretrained", "generate", "to_dict", "get_text_config",
        # zmq sockets, uvicorn / FastAPI / aiohttp, json / pickle / files
        "send_pyobj", "recv_pyobj", "send_multipart", "recv_multipart", "bind", "connect", "setsockopt", "poll",
        "run", "serve", "include_router", "add_middleware", "post", "load", "save", "dump", "dumps", "loads",
        # generic verbs any object may define
        "init", "setup", "build", "create", "execute", "process", "handle", "call", "reset", "step", "start", "stop",
        "close", "shutdown", "submit", "result", "done", "cancel", "flush", "update", "get", "add", "set", "put",
    }
)  # fmt: skip
COMMON_NAMES = frozenset({name for cls in _STDLIB_TYPES for name in dir(cls)} | set(dir(builtins)) | _LIBRARY_NAMES)

_Path = tuple[str, ...]  # a dotted name as written: ("self", "tp_worker"), ("torch", "cuda"), ("ServerArgs",)


@dataclass
class Func:
    module: str
    qualname: str  # Class.func, func, or outer.inner for a nested def
    line: int
    cls: str | None  # the enclosing class's key (module:Class), for a method and the defs nested in it
    parent: Func | None = None  # the function a nested def is defined in
    is_property: bool = False
    returns: _Path | None = None  # its return annotation's type, when it names one
    calls: set[tuple[_Path | None, str]] = field(default_factory=set)  # (receiver or None for a bare name, name)
    super_calls: set[str] = field(default_factory=set)  # `super().x(...)` names
    reads: set[tuple[_Path | None, str]] = field(default_factory=set)  # `recv.x` read without a call
    nested: dict[str, Func | str] = field(default_factory=dict)  # defs (Func) and classes (their key) defined in it
    imports: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # name -> (module, attribute or None)
    types: dict[str, list[_Path]] = field(default_factory=dict)  # local or parameter -> the types the source gives it
    local_names: set[str] = field(default_factory=set)  # its parameters and assigned names (typed or not)
    elements: dict[str, list[_Path]] = field(default_factory=dict)  # a container's item types (`reqs: List[Req]`)
    loops: dict[str, list[_Path]] = field(default_factory=dict)  # `for req in <path>`: the loop name -> the paths
    aliases: dict[str, list[_Path]] = field(default_factory=dict)  # `Worker = A if c else B`: the names it may hold
    handlers: set[str] = field(default_factory=set)  # `self.x` given to the scheduler's request dispatcher
    literals: set[str] = field(default_factory=set)  # the literal head of each message-like string it holds
    params: list[str] = field(default_factory=list)  # its positional parameters, in order
    # `f([r.kv_receiver for r in self.queue], ...)`: (receiver or None, name, argument position, the item's path)
    item_args: list[tuple[_Path | None, str, int, _Path]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]

    @property
    def key(self) -> str:
        return f"{self.module}:{self.qualname}"


@dataclass
class _Class:
    key: str  # module:Class (module:Outer.Inner for a nested class)
    name: str
    module: str
    scope: Func | None  # the function a class defined inside a function belongs to
    bases: list[_Path] = field(default_factory=list)
    methods: dict[str, list[Func]] = field(default_factory=lambda: defaultdict(list))
    # attribute -> (its type as written, the function whose scope names it; None: the module's)
    attrs: dict[str, list[tuple[_Path, Func | None]]] = field(default_factory=lambda: defaultdict(list))
    elements: dict[str, list[tuple[_Path, Func | None]]] = field(default_factory=lambda: defaultdict(list))


@dataclass
class _Module:
    name: str
    package: str  # the package a relative import starts from
    funcs: dict[str, Func] = field(default_factory=dict)
    classes: dict[str, str] = field(default_factory=dict)  # top-level class name -> key
    imports: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    star: list[str] = field(default_factory=list)  # `from m import *`
    types: dict[str, list[_Path]] = field(default_factory=dict)  # module-level `x = Class()`


def _dotted(node: ast.AST) -> _Path | None:
    """`a.b.c` as ("a", "b", "c"); None for anything else (a call, a subscript)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return (node.id, *reversed(parts))
    return None


_WRAPPERS = frozenset({"Optional", "Union", "Annotated", "Final", "ClassVar", "Type", "type"})


_CONTAINERS = frozenset(
    {"List", "list", "Deque", "deque", "Set", "set", "FrozenSet", "frozenset", "Sequence", "MutableSequence", "Iterable"}
    | {"Iterator", "Collection", "Tuple", "tuple"}
)


def _annotation(node: ast.AST | None) -> list[_Path]:
    """The class types an annotation names: `X`, `m.X`, `"X"`, `Optional[X]`, `Union[X, Y]`, `X | None`; a container
    (`List[X]`) names no type of the value itself."""
    return _types(node, items=False)


def _elements(node: ast.AST | None) -> list[_Path]:
    """The item types a container annotation names: `List[Req]`, `Optional[Deque[Req]]`, `Tuple[Req, ...]`."""
    return _types(node, items=True)


def _types(node: ast.AST | None, items: bool) -> list[_Path]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return _types(ast.parse(node.value, mode="eval").body, items)
        except SyntaxError:
            return []
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _types(node.left, items) + _types(node.right, items)
    if isinstance(node, ast.Subscript):
        outer = _dotted(node.value)
        args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if outer and outer[-1] in _WRAPPERS:
            return [t for arg in args for t in _types(arg, items)]
        if items and outer and outer[-1] in _CONTAINERS:
            tuple_of_one = len(args) == 2 and isinstance(args[1], ast.Constant) and args[1].value is Ellipsis
            return [] if outer[-1] in ("Tuple", "tuple") and not tuple_of_one else _types(args[0], items=False)
        return []
    path = _dotted(node) if node is not None and not items else None
    return [path] if path and path != ("None",) else []


def _named_values(node: ast.AST) -> list[_Path]:
    """The names a value is (`A`, `m.A`, `A if c else B`): a class chosen at run time among those named."""
    if isinstance(node, ast.IfExp):
        return _named_values(node.body) + _named_values(node.orelse)
    path = _dotted(node)
    return [path] if path and path[0] not in ("self", "cls") else []


def _constructed(node: ast.AST | None) -> list[_Path]:
    """The class a value is built from, `Class(...)` / `m.Class(...)` (resolved later: a function's call names none)."""
    if isinstance(node, ast.Call):
        path = _dotted(node.func)
        return [path] if path else []
    return []


# a web framework's route decorators (FastAPI's app.get / app.post / app.api_route, ...): the function runs on a request
_ROUTE_DECORATORS = frozenset({"get", "post", "put", "delete", "patch", "api_route", "route", "websocket"})


def _is_route(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`@app.get("/health_generate")` over the def (sglang 0.5.2 utils.launch_dummy_health_check_server defines its
    routes inside the function that starts that server at startup)."""
    return any(
        isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr in _ROUTE_DECORATORS
        for d in node.decorator_list
    )


def _callee_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


class Collector(ast.NodeVisitor):
    """Every def and class of one module with what its body calls, reads, imports and states of types (nested defs
    are their own nodes, each called by its parent; a class body's names belong to no function). A name only
    referred to (a callback handed on, a thread's target) is no call: whoever holds it calls it later, so it is
    reached only from where that is known (a root)."""

    def __init__(self, module: str, is_package: bool, dispatcher: str, add_literal: Callable[[Func, str], None]) -> None:
        self.mod = _Module(module, module if is_package else module.rpartition(".")[0])
        self.funcs: list[Func] = []
        self.classes: list[_Class] = []
        self._dispatcher = dispatcher
        self._add_literal = add_literal
        self._stack: list[Func] = []
        self._class_stack: list[_Class] = []

    # --- scopes
    def _absolute(self, module: str | None, level: int) -> str:
        if level == 0:
            return module or ""
        base = self.mod.package.split(".")
        base = base[: len(base) - (level - 1)] if level > 1 else base
        return ".".join([*base, module] if module else base)

    def visit_Import(self, node: ast.Import) -> None:
        target = self._stack[-1].imports if self._stack else self.mod.imports
        for alias in node.names:
            if alias.asname:
                target[alias.asname] = (alias.name, None)
            else:  # `import a.b.c` binds `a`; the path a.b.c is followed from it
                top = alias.name.split(".", 1)[0]
                target[top] = (top, None)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = self._absolute(node.module, node.level)
        target = self._stack[-1].imports if self._stack else self.mod.imports
        for alias in node.names:
            if alias.name == "*":
                if not self._stack:
                    self.mod.star.append(module)
                continue
            target[alias.asname or alias.name] = (module, alias.name)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        outer = ".".join(c.name for c in self._class_stack) if self._class_stack and not self._stack else ""
        scope = self._stack[-1] if self._stack else None
        name = f"{outer}.{node.name}" if outer else node.name
        key = f"{self.mod.name}:{scope.qualname}.{name}" if scope else f"{self.mod.name}:{name}"
        cls = _Class(key, node.name, self.mod.name, scope, [p for b in node.bases if (p := _dotted(b))])
        self.classes.append(cls)
        if scope is not None:  # a class inside a function: its methods are the function's
            scope.nested[node.name] = key
        elif not self._class_stack:
            self.mod.classes[node.name] = key
        for stmt in node.body:  # `attr: Type` in the class body (a dataclass's fields)
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                cls.attrs[stmt.target.id] += [(t, scope) for t in _annotation(stmt.annotation)]
                cls.elements[stmt.target.id] += [(t, scope) for t in _elements(stmt.annotation)]
        self._class_stack.append(cls)
        saved, self._stack = self._stack, []
        self.generic_visit(node)
        self._stack = saved
        self._class_stack.pop()

    def _visit_def(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        parent = self._stack[-1] if self._stack else None
        if parent is not None:
            qual, cls = f"{parent.qualname}.{node.name}", parent.cls
            if not _is_route(node):  # a route handler runs on a request, never when the function that defines it runs
                parent.calls.add((None, node.name))
        else:
            owner = self._class_stack[-1] if self._class_stack else None
            qual = f"{owner.name}.{node.name}" if owner else node.name
            cls = owner.key if owner else None
        decorators = {_callee_name(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list}
        returns = _annotation(node.returns)
        func = Func(
            self.mod.name,
            qual,
            node.lineno,
            cls,
            parent,
            is_property=bool(decorators & {"property", "cached_property"}),
            returns=returns[0] if len(returns) == 1 else None,
        )
        args = node.args
        func.params = [arg.arg for arg in [*args.posonlyargs, *args.args]]
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, (args.vararg, args.kwarg))]:
            func.local_names.add(arg.arg)
            if types := _annotation(arg.annotation):
                func.types[arg.arg] = types
            if items := _elements(arg.annotation):
                func.elements[arg.arg] = items
        self.funcs.append(func)
        if parent is not None:
            parent.nested[node.name] = func
        elif self._class_stack:
            self._class_stack[-1].methods[node.name].append(func)
        else:
            self.mod.funcs[node.name] = func
        self._stack.append(func)
        for stmt in node.body:
            self.visit(stmt)
        self._stack.pop()

    visit_FunctionDef = _visit_def
    visit_AsyncFunctionDef = _visit_def

    # --- what a function states of types
    def visit_Assign(self, node: ast.Assign) -> None:
        if self._stack:
            self._stack[-1].local_names.update(n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name))
            named = _named_values(node.value)
            for target in node.targets:
                if named and isinstance(target, ast.Name):
                    self._stack[-1].aliases.setdefault(target.id, []).extend(named)
        self._assigned(node.targets, _constructed(node.value))
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if self._stack or not self._class_stack:  # a class body's annotations are read by visit_ClassDef
            self._assigned([node.target], _annotation(node.annotation) or _constructed(node.value))
            items, target = _elements(node.annotation), node.target
            if items and self._stack and isinstance(target, ast.Name):
                self._stack[-1].elements.setdefault(target.id, []).extend(items)
            elif items and self._stack and self._stack[-1].cls and _dotted(target) == ("self", getattr(target, "attr", "")):
                cls = next(c for c in reversed(self.classes) if c.key == self._stack[-1].cls)
                cls.elements[getattr(target, "attr", "")] += [(t, self._stack[-1]) for t in items]
        self.generic_visit(node)

    def _loop(self, target: ast.AST, iterated: ast.AST) -> None:
        path = _dotted(iterated)
        if self._stack and path and isinstance(target, ast.Name):
            self._stack[-1].loops.setdefault(target.id, []).append(path)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self._loop(node.target, node.iter)
        self.generic_visit(node)

    visit_AsyncFor = visit_For

    def visit_comprehension(self, node: ast.comprehension) -> None:
        self._loop(node.target, node.iter)
        self.generic_visit(node)

    def _assigned(self, targets: list[ast.expr], types: list[_Path]) -> None:
        if self._stack:
            self._stack[-1].local_names.update(t.id for t in targets if isinstance(t, ast.Name))
        if not types:
            return
        for target in targets:
            if isinstance(target, ast.Name):
                scope = self._stack[-1].types if self._stack else self.mod.types
                scope.setdefault(target.id, []).extend(types)
            elif (
                self._stack
                and self._stack[-1].cls
                and isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
            ):
                cls = next(c for c in reversed(self.classes) if c.key == self._stack[-1].cls)
                cls.attrs[target.attr] += [(t, self._stack[-1]) for t in types]

    # --- calls and reads
    def _item_args(self, func: Func, recv: _Path | None, name: str, node: ast.Call) -> None:
        """A list built from items of one path handed to a call (`[r.kv_receiver for r in self.queue]`)."""
        for at, arg in enumerate(node.args):
            comprehension = isinstance(arg, (ast.ListComp, ast.GeneratorExp, ast.SetComp)) and len(arg.generators) == 1
            if comprehension and (item := _dotted(arg.elt)):  # type: ignore[attr-defined]
                func.item_args.append((recv, name, at, item))

    def visit_Call(self, node: ast.Call) -> None:
        if self._stack:
            func, callee = self._stack[-1], node.func
            if isinstance(callee, ast.Name):
                func.calls.add((None, callee.id))
                self._item_args(func, None, callee.id, node)
            elif isinstance(callee, ast.Attribute):
                value = callee.value
                if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super":
                    func.super_calls.add(callee.attr)
                else:
                    func.calls.add((_dotted(value) or (), callee.attr))
                    self._item_args(func, _dotted(value) or (), callee.attr, node)
                    self.visit(value)  # the receiver's own reads (`self.tp_worker` of `self.tp_worker.x()`)
                if _callee_name(callee) == self._dispatcher:
                    func.handlers.update(_self_attrs(node))
                    self._outside_lambdas(node.args, node.keywords)
                    return
                for arg in [*node.args, *node.keywords]:
                    self.visit(arg)
                return
            if _callee_name(callee) == self._dispatcher:
                func.handlers.update(_self_attrs(node))
                self._outside_lambdas(node.args, node.keywords)
                return
        self.generic_visit(node)

    def _outside_lambdas(self, *nodes: Iterable[ast.AST]) -> None:
        """The dispatcher's table visited without its lambdas: a lambda there runs on its request, never when the
        table is built (sglang 0.4.1-0.4.2 Scheduler.__init__: `(ReleaseMemoryOccupationReqInput, lambda _:
        self.release_memory_occupation())` is a handler, no call of __init__ reaching flush_cache at startup)."""
        for child in (c for group in nodes for c in group):
            if isinstance(child, ast.Lambda):
                continue
            if any(isinstance(n, ast.Lambda) for n in ast.walk(child)):
                self._outside_lambdas(ast.iter_child_nodes(child))
            else:
                self.visit(child)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        if self._stack and node.values and isinstance(node.values[0], ast.Constant) and isinstance(node.values[0].value, str):
            self._add_literal(self._stack[-1], node.values[0].value)
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if self._stack and isinstance(node.value, str):
            self._add_literal(self._stack[-1], node.value)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if self._stack:
            self._stack[-1].reads.add((_dotted(node.value) or (), node.attr))
        self.generic_visit(node)


def _self_attrs(node: ast.AST) -> set[str]:
    return {
        n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self"
    }


class Parsed:
    """The collected files of a release by (path, text), kept for the next release: most files of a release are
    those of the one before, and parsing is most of a graph's cost. The graph never changes what it collected."""

    def __init__(self) -> None:
        self._last: dict[tuple[str, str], Collector | None] = {}
        self._now: dict[tuple[str, str], Collector | None] = {}

    def next_release(self) -> None:
        self._last, self._now = self._now, {}

    def collect(
        self,
        path: str,
        text: str,
        module_of: Callable[[str], str],
        dispatcher: str,
        add_literal: Callable[[Func, str], None],
    ) -> Collector | None:
        key = (path, text)
        if key in self._last:
            self._now[key] = self._last[key]
        elif key not in self._now:
            try:
                tree = ast.parse(text)
            except SyntaxError:
                self._now[key] = None
                return None
            collector = Collector(module_of(path), path.endswith("__init__.py"), dispatcher, add_literal)
            collector.visit(tree)
            self._now[key] = collector
        return self._now[key]


def closure(start: str, edges: dict[str, set[str]]) -> set[str]:
    """`start` and every class reached from it along `edges` (bases, or subclasses)."""
    seen, todo = set(), [start]
    while todo:
        c = todo.pop()
        if c not in seen:
            seen.add(c)
            todo += edges.get(c, ())
    return seen


# what a name or dotted path resolves to: a module of the package, a class (its key), a function, an instance of
# classes, something outside the package (runs no SGLang code), or not known (the source states nothing)
_Target = tuple[str, object]
_EXTERNAL: _Target = ("external", None)
_UNKNOWN: _Target = ("unknown", None)
_LOCAL: _Target = ("local", None)  # a parameter or local the source gives no type: a call of it is a callback


class Graph:
    """The call graph of one release, each call resolved as the module docstring says."""

    def __init__(
        self,
        files: Iterable[tuple[str, str]],
        module_of: Callable[[str], str],
        dispatcher: str,
        add_literal: Callable[[Func, str], None],
        parsed: Parsed | None = None,
    ) -> None:
        self.funcs: list[Func] = []
        self.modules: dict[str, _Module] = {}
        self.classes: dict[str, _Class] = {}
        for path, text in files:
            collector = (parsed or Parsed()).collect(path, text, module_of, dispatcher, add_literal)
            if collector is None:
                continue
            self.funcs += collector.funcs
            self.modules[collector.mod.name] = collector.mod
            self.classes.update((c.key, c) for c in collector.classes)
        self._prefixes = {m.rsplit(".", i)[0] for m in self.modules for i in range(1, m.count(".") + 1)}
        self._resolving: set[tuple[int, str, _Path]] = set()
        self._attrs: dict[tuple[frozenset[str], str], _Target] = {}
        self.top_level: dict[str, list[Func | str]] = defaultdict(list)  # a bare name's package-wide candidates
        for mod in self.modules.values():
            for name, func in mod.funcs.items():
                self.top_level[name].append(func)
            for name, key in mod.classes.items():
                self.top_level[name].append(key)
        self.method_classes: dict[str, set[str]] = defaultdict(set)  # method name -> the classes defining it
        for cls in self.classes.values():
            for name in cls.methods:
                self.method_classes[name].add(cls.key)
        self.bases: dict[str, set[str]] = {}
        self.children: dict[str, set[str]] = defaultdict(set)
        self._family: dict[str, set[str]] = {}
        self.bases = {key: self._bases(cls) for key, cls in self.classes.items()}
        for key, bases in self.bases.items():
            for base in bases:
                self.children[base].add(key)
        self._family = {}  # what resolving the bases cached knew no bases yet
        self._attrs.clear()
        self._callees: dict[int, list[Func]] = {}
        self._param_items: dict[tuple[int, str], list[tuple[_Path, Func | None]]] | None = None

    # --- names
    def _bases(self, cls: _Class) -> set[str]:
        out = set()
        for path in cls.bases:
            kind, value = self.resolve_path(path, cls.scope, cls.module)
            if kind == "class":
                out.add(str(value))
            elif kind == "unknown" and len(path) == 1:  # a base named by a star import: the package's one class of it
                found = [c for c in self.top_level.get(path[0], []) if isinstance(c, str)]
                out.update(found if len(found) == 1 else ())
        return out

    def resolve_symbol(self, module: str, name: str, depth: int = 0) -> _Target:
        """`name` as module `module` defines or imports it (followed through re-exports)."""
        if depth > 8:
            return _UNKNOWN
        mod = self.modules.get(module)
        if mod is None:
            sub = f"{module}.{name}"
            return ("module", sub) if sub in self.modules else _EXTERNAL
        if name in mod.funcs:
            return ("func", mod.funcs[name])
        if name in mod.classes:
            return ("class", mod.classes[name])
        if name in mod.imports:
            return self._imported(mod.imports[name], depth)
        if name in mod.types:
            return self._instance(mod.types[name], None, module)
        if f"{module}.{name}" in self.modules:
            return ("module", f"{module}.{name}")
        for star in mod.star:
            found = self.resolve_symbol(star, name, depth + 1)
            if found[0] not in ("unknown", "external"):
                return found
        return _UNKNOWN

    def _imported(self, imported: tuple[str, str | None], depth: int = 0) -> _Target:
        module, attr = imported
        if attr is None:
            return ("module", module) if module in self.modules or self._is_package_prefix(module) else _EXTERNAL
        if module in self.modules:
            return self.resolve_symbol(module, attr, depth + 1)
        if f"{module}.{attr}" in self.modules:
            return ("module", f"{module}.{attr}")
        return _EXTERNAL

    def _is_package_prefix(self, module: str) -> bool:
        return module in self.modules or module in self._prefixes

    def resolve_name(self, name: str, func: Func | None, module: str) -> _Target:
        """A bare name as the code of `func` (or the module's top level) sees it: nested defs and locals of the
        function and those enclosing it, then the module."""
        scope = func
        while scope is not None:
            if name in scope.nested:
                found = scope.nested[name]
                return ("func", found) if isinstance(found, Func) else ("class", found)
            if name in scope.imports:
                return self._imported(scope.imports[name])
            if name in scope.types:
                return self._instance(scope.types[name], scope, module)
            if name in scope.loops:  # `for req in self.queue` with `self.queue: List[Req]`
                return self._items(scope.loops[name], scope, module)
            if name in scope.aliases:  # `Worker = A if c else B`: every class it may name, or nothing known
                return self._aliased(scope.aliases[name], scope, module)
            if name in scope.local_names and name not in ("self", "cls"):
                return _LOCAL
            scope = scope.parent
        if func is not None and func.cls and name in ("self", "cls"):
            return ("instance", frozenset(self.family(func.cls)))
        return self.resolve_symbol(module, name)

    def resolve_path(self, path: _Path, func: Func | None, module: str) -> _Target:
        """A dotted receiver (`self.tp_worker`, `utils`, `sglang.srt.utils`, `server_args`) as far as it resolves."""
        key = (id(func), module, path)
        if key in self._resolving:  # `x = x()`, `self.a = self.a.copy()`: a type stated by itself states none
            return _UNKNOWN
        self._resolving.add(key)
        try:
            target = self.resolve_name(path[0], func, module)
            for part in path[1:]:
                target = self._member(target, part)
        finally:
            self._resolving.discard(key)
        return target

    def _member(self, target: _Target, name: str) -> _Target:
        kind, value = target
        if kind == "module":
            mod = str(value)
            if mod in self.modules:
                return self.resolve_symbol(mod, name)
            return ("module", f"{mod}.{name}") if self._is_package_prefix(f"{mod}.{name}") else _EXTERNAL
        if kind in ("instance", "class", "classes"):
            return self._attribute(self._as_family(target), name)
        return _EXTERNAL if kind == "external" else _UNKNOWN

    def _attribute(self, classes: frozenset[str], name: str) -> _Target:
        """An attribute of an instance of `classes`: the type its class states (an assignment or annotation in the
        class, a property's return annotation)."""
        if (classes, name) in self._attrs:
            return self._attrs[(classes, name)]
        self._attrs[(classes, name)] = _UNKNOWN  # while it resolves: an attribute typed by itself has no type
        types: set[str] = set()
        for key in classes:
            cls = self.classes[key]
            for path, scope in cls.attrs.get(name, ()):
                types |= self._classes_of(path, scope, cls.module)
            for method in cls.methods.get(name, ()):  # a property, or a method called (`self.make()`)
                if method.returns:
                    types |= self._classes_of(method.returns, method, cls.module)
        self._attrs[(classes, name)] = found = ("instance", frozenset(types)) if types else _UNKNOWN
        return found

    def _instance(self, paths: list[_Path], scope: Func | None, module: str) -> _Target:
        types: set[str] = set()
        for path in paths:
            types |= self._classes_of(path, scope, module)
        return ("instance", frozenset(types)) if types else _UNKNOWN

    def _classes_of(self, path: _Path, scope: Func | None, module: str) -> set[str]:
        """The classes a stated type or a value's maker names: a class, or a function whose return annotation names one
        (`x = make()`, `def make() -> Class`)."""
        kind, value = self.resolve_path(path, scope, module)
        if kind == "func" and isinstance(value, Func) and value.returns:
            kind, value = self.resolve_path(value.returns, value, value.module)
        if kind == "classes" and isinstance(value, frozenset):
            return set().union(*(self.family(key) for key in value))
        return self.family(str(value)) if kind == "class" else set()

    def _aliased(self, paths: list[_Path], scope: Func, module: str) -> _Target:
        classes: set[str] = set()
        for path in paths:
            kind, value = self.resolve_path(path, scope, module)
            if kind == "class":
                classes.add(str(value))
            elif kind == "classes" and isinstance(value, frozenset):
                classes |= value
            else:
                return _LOCAL
        return ("classes", frozenset(classes))

    def _items(self, paths: list[_Path], scope: Func, module: str) -> _Target:
        """The type of a loop's name: the item types the iterated container's annotation states."""
        types: set[str] = set()
        for path in paths:
            for item, item_scope in self._item_paths(path, scope):
                item_module = item_scope.module if item_scope else module
                kind, value = self.resolve_path(item, item_scope, item_module)
                if kind == "instance" and isinstance(value, frozenset):  # a caller's value (`decode_req.kv_receiver`)
                    types |= value
                else:
                    types |= self._classes_of(item, item_scope, item_module)
        return ("instance", frozenset(types)) if types else _UNKNOWN

    def _item_paths(self, path: _Path, scope: Func) -> list[tuple[_Path, Func | None]]:
        if len(path) == 1:
            at: Func | None = scope
            while at is not None:
                if path[0] in at.elements:
                    return [(item, at) for item in at.elements[path[0]]]
                if path[0] in at.params and path[0] not in at.types:  # an untyped parameter: its callers' lists
                    return self._call_site_items().get((id(at), path[0]), [])
                at = at.parent
            return []
        kind, value = self.resolve_path(path[:-1], scope, scope.module)
        if kind != "instance" or not isinstance(value, frozenset):
            return []
        return [pair for key in sorted(value) for pair in self.classes[key].elements.get(path[-1], ())]

    def _call_site_items(self) -> dict[tuple[int, str], list[tuple[_Path, Func | None]]]:
        """(function id, untyped parameter) -> the item paths (with the caller) of the lists its callers hand it:
        `poll_and_all_reduce([decode_req.kv_receiver for decode_req in self.queue], ...)` gives `pollers` the items
        `decode_req.kv_receiver` of DecodeRequest (sglang 0.4.6-0.5.x disaggregation). Built once, before any
        parameter's items are asked for (while it is built, a parameter has none)."""
        if self._param_items is None:
            self._param_items = {}
            found: dict[tuple[int, str], list[tuple[_Path, Func | None]]] = defaultdict(list)
            for func in self.funcs:
                for recv, name, at, item in func.item_args:
                    for callee in self._call_targets(func, recv, name):
                        offset = 1 if callee.cls and callee.params[:1] in (["self"], ["cls"]) else 0
                        if at + offset < len(callee.params):
                            found[(id(callee), callee.params[at + offset])].append((item, func))
            self._param_items = dict(found)
        return self._param_items

    def _call_targets(self, func: Func, recv: _Path | None, name: str) -> list[Func]:
        """The functions one call of `func` may run (as callees() resolves each call)."""
        if recv is None:
            target = self.resolve_name(name, func, func.module)
            return self._unbound(name) if target[0] == "unknown" else self._runs(target, None)
        if recv == ():
            return self._unique(name)
        return self._runs(self.resolve_path(recv, func, func.module), name)

    # --- classes
    def family(self, cls: str) -> set[str]:
        """The classes whose methods `self.x` in a method of `cls` may run: its ancestors, its descendants and
        their ancestors (a mixin's `self.x` is a sibling mixin's method)."""
        if cls not in self._family:
            self._family[cls] = set().union(*(closure(c, self.bases) for c in closure(cls, self.children)))
        return self._family[cls]

    def methods(self, classes: Iterable[str], name: str) -> list[Func]:
        return [f for key in sorted(classes) for f in self.classes[key].methods.get(name, ())]

    def constructor(self, key: str) -> list[Func]:
        """What calling the class runs: its `__init__` (the nearest of its bases when it has none), `__post_init__`."""
        out: list[Func] = []
        for name in ("__init__", "__post_init__"):
            level, seen = {key}, {key}
            while level:
                found = self.methods(level, name)
                if found:
                    out += found
                    break
                level = {b for c in level for b in self.bases.get(c, ())} - seen
                seen |= level
        return out

    # --- calls
    def _unique(self, name: str) -> list[Func]:
        """A method name through an unknown receiver: the one class defining it, when the name is no common one."""
        if name in COMMON_NAMES or name.startswith("__"):
            return []
        classes = self.method_classes.get(name, set())
        return self.methods(classes, name) if len(classes) == 1 else []

    def _unbound(self, name: str) -> list[Func]:
        """A bare name neither defined nor imported (a builtin, a star import of another package): the one top-level
        function or class of the package of that name, when the name is no common one."""
        found = self.top_level.get(name, [])
        if name in COMMON_NAMES or len(found) != 1:
            return []
        only = found[0]
        return [only] if isinstance(only, Func) else self.constructor(only)

    def _runs(self, target: _Target, name: str | None) -> list[Func]:
        """The functions that calling `name` on `target` (or `target` itself, when name is None) runs."""
        kind, value = target
        if name is not None:
            if kind == "module":
                target = self.resolve_symbol(str(value), name)
            elif kind in ("instance", "class", "classes"):
                found = self.methods(self._as_family(target), name)
                return found or self._unique(name)
            elif kind in ("unknown", "local"):
                return self._unique(name)
            else:
                return []
            kind, value = target
        if kind == "func":
            return [value]  # type: ignore[list-item]
        if kind == "class":
            return self.constructor(str(value))
        if kind == "classes" and isinstance(value, frozenset):
            return [f for key in sorted(value) for f in self.constructor(key)]
        return []

    def _as_family(self, target: _Target) -> frozenset[str]:
        """The classes whose methods a call on an instance, a class or one of several classes may run."""
        kind, value = target
        if kind == "instance" and isinstance(value, frozenset):
            return value
        keys = value if kind == "classes" and isinstance(value, frozenset) else {str(value)}
        return frozenset(set().union(*(self.family(key) for key in keys)))

    def callees(self, func: Func) -> list[Func]:
        """The functions a call of `func` may run, in a fixed order (the root a walk reports is the same every run)."""
        if id(func) in self._callees:
            return self._callees[id(func)]
        out: list[Func] = []
        self._call_site_items()  # (before any call is resolved: a parameter's items are the same for every caller)
        for recv, name in sorted(func.calls, key=lambda c: (c[0] or (), c[1])):
            out += self._call_targets(func, recv, name)
        for recv, name in sorted(func.reads, key=lambda c: (c[0] or (), c[1])):
            out += [f for f in self._read(recv, name, func) if f.is_property]
        for name in sorted(func.super_calls):  # a base outside sglang (torch.nn.Module) runs no sglang code
            if func.cls:
                out += self.methods(closure(func.cls, self.bases) - {func.cls}, name)
        self._callees[id(func)] = out
        return out

    def _read(self, recv: _Path | None, name: str, func: Func) -> list[Func]:
        """The properties reading `recv.name` may run: the resolved classes', or the one class's of that name."""
        target = self.resolve_path(recv, func, func.module) if recv else _UNKNOWN
        if target[0] in ("instance", "class", "classes"):
            return self.methods(self._as_family(target), name)
        if target[0] in ("unknown", "local"):
            return self._unique(name)
        return []

    def handlers(self) -> Iterator[Func]:
        """The request handlers of the scheduler's dispatcher: process_input_requests runs them per request."""
        for func in self.funcs:
            if func.handlers and ".managers.scheduler" in func.module and func.cls:
                yield from (f for name in sorted(func.handlers) for f in self.methods(self.family(func.cls), name))

    def matching(self, pattern: str) -> list[Func]:
        return [f for f in self.funcs if fnmatch.fnmatchcase(f.key, pattern)]

    def reach(self, roots: list[Func], stop: set[int]) -> dict[int, Func]:
        """Every function reachable from `roots` (id -> the root it came from), not entering the functions of
        `stop` (other than the roots themselves)."""
        seen: dict[int, Func] = {id(r): r for r in roots}
        todo = deque((r, r) for r in roots)
        while todo:
            func, root = todo.popleft()
            for callee in self.callees(func):
                if id(callee) not in seen and id(callee) not in stop:
                    seen[id(callee)] = root
                    todo.append((callee, root))
        return seen

    def edges(self) -> int:
        """How many (caller, callee) pairs the graph holds."""
        return sum(len({id(c) for c in self.callees(f)}) for f in self.funcs)
