"""Which SGLang functions run only at startup and which only while the server serves, per release, read from the
released wheels: catalog/stages.json, which places a failure in time from the frames of its traceback (and from the
function that prints or raises a catalogued wording).

The question is the roots below (the functions that begin startup, or a startup step, and those that run only once
the scheduler's event loop runs batches); the answer comes from each release's source: a call graph over every
function of sglang/srt (and sglang/launch_server.py), built from the names each function calls or refers to. A name
is resolved to every function of that name (`self.x` to the methods named x of the class's hierarchy when it has
any; an attribute read on another object, `ctx.server_args`, to every property of that name), so the graph
over-approximates: a function any startup root may reach and any serving root may reach too is
`both`, and is never a placement. A function handed to a thread (`Thread(target=f)`, `executor.submit(f)`) is no
call of the code that starts the thread: it runs concurrently, from then on, so it is reached only from a root; nor
is a route handler that a function defines (`@app.get(...)` over a nested def): it runs on a request.

A function is `startup` when only startup roots reach it (its phase the one phased root that reaches it, and no
other startup code outside that root does), `serving` when only serving roots reach it. Functions that no root
reaches are `none` in that release (kept beside a release that places it: a frame of such a release places
nothing). Per (module, function name), as a traceback frame names it (file and bare name), the releases
are folded into runs of one (stage, phase) with the newest release's file line and the root that reached it.
"""

from __future__ import annotations

import ast
import fnmatch
import json
from collections import defaultdict, deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.upstream import sources

# (qualname pattern (fnmatch over "module:Class.func"), phase or None): startup roots. A phased root is a startup
# step SGLang logs a phase line for (the phase words of logscope/core/phases.py STAGES)
STARTUP_ROOTS: tuple[tuple[str, str | None, str], ...] = (
    ("*.managers.scheduler:Scheduler.__init__", None, "the scheduler process being built"),
    ("*.managers.tp_worker*:*.__init__", None, "the model worker being built"),
    ("*.model_executor.model_runner:ModelRunner.__init__", None, "the model runner being built"),
    ("*.model_executor.model_runner:ModelRunner.initialize", None, "the model runner's set-up"),
    ("*.entrypoints.http_server:launch_server", None, "the HTTP server's launch"),
    ("*.entrypoints.engine:_launch_subprocesses", None, "the engine's start of its processes"),
    ("*.entrypoints.engine:Engine.__init__", None, "the engine being built"),
    ("*.server_args:ServerArgs.__post_init__", None, "the server arguments' checks"),
    ("*.server_args:prepare_server_args", None, "the command line read into ServerArgs"),
    ("sglang.launch_server:*", None, "the launch script"),
    ("*.model_executor.model_runner:ModelRunner.load_model", "load_weight", "the model's weights being loaded"),
    ("*.model_executor.model_runner:ModelRunner.init_memory_pool", "memory_pool", "the KV and request pools being sized"),
    ("*.managers.scheduler:Scheduler.init_memory_pool_and_cache", "memory_pool", "the scheduler's cache over the pools"),
    ("*.managers.scheduler:Scheduler.init_cache_with_memory_pool", "memory_pool", "the scheduler's cache over the pools"),
    ("*.model_executor.model_runner:ModelRunner.init_cuda_graphs", "capture", "CUDA graphs being captured"),
    ("*.model_executor.model_runner:ModelRunner.init_device_graphs", "capture", "CUDA graphs being captured"),
    ("*.model_executor.model_runner:ModelRunner.init_torch_distributed", "init_distributed", "torch.distributed set up"),
    ("*.distributed.parallel_state:init_distributed_environment", "init_distributed", "torch.distributed set up"),
    ("*.distributed.parallel_state:initialize_model_parallel", "init_distributed", "the parallel groups being built"),
    ("*.model_executor.model_runner:ModelRunner.kernel_warmup", "warmup", "the kernels' warmup"),
    ("*.entrypoints.http_server:_wait_and_warmup", "warmup", "the server's warmup request"),
    ("*.entrypoints.http_server:_execute_server_warmup", "warmup", "the server's warmup request"),
)
# serving roots: the scheduler's event loops (every batch after the warmup's), the handling of the requests they
# receive, the overlap worker's batch thread, and the PD transfer threads that move each request's KV cache
SERVING_ROOTS: tuple[tuple[str, str], ...] = (
    ("*.managers.scheduler*:*.event_loop_*", "the scheduler's event loop (receives requests, runs their batches)"),
    ("*.managers.scheduler*:*.process_input_requests", "the scheduler handling the requests it received"),
    ("*.managers.scheduler*:*.run_batch", "the scheduler running a batch"),
    ("*.managers.tp_worker_overlap_thread:*.forward_thread_func", "the overlap worker's batch thread"),
    ("*.disaggregation.*:*.transfer_worker", "the PD transfer thread (a request's KV chunks)"),
    ("*.managers.tokenizer_manager:TokenizerManager.generate_request", "a request arriving at the tokenizer manager"),
)
WORDING = "wording:"  # the key prefix of a literal's entry (beside the module:function entries)
DISPATCHER = "TypeBasedDispatcher"  # sglang 0.4.1+ utils: the scheduler's table of request type -> handler
_TOP = ("sglang/srt/", "sglang/launch_server.py")
MAX_LITERAL = 60  # a longer head is cut to its words within this many characters
MIN_LITERAL = 24  # the shortest literal head a wording is placed by (shorter ones recur in unrelated messages)
FANOUT = 24  # a bare name shared by more functions than this is resolved to none of them (see _Graph._named)


@dataclass
class _Func:
    module: str
    qualname: str  # Class.func, func, or outer.inner for a nested def
    line: int
    cls: str | None
    is_property: bool = False
    calls: set[str] = field(default_factory=set)  # names called (not through `self.`), and nested defs / classes
    self_calls: set[str] = field(default_factory=set)  # `self.x(...)` names
    super_calls: set[str] = field(default_factory=set)  # `super().x(...)` names
    self_reads: set[str] = field(default_factory=set)  # `self.x` read without a call (a property runs)
    reads: set[str] = field(default_factory=set)  # `obj.x` read on another object (a property of that name may run)
    handlers: set[str] = field(default_factory=set)  # `self.x` given to the scheduler's request dispatcher
    literals: set[str] = field(default_factory=set)  # the literal head of each message-like string it holds

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]

    @property
    def key(self) -> str:
        return f"{self.module}:{self.qualname}"


class _Collector(ast.NodeVisitor):
    """Every def of one module with the names its body calls (nested defs are their own nodes, each called by its
    parent; a class body's names belong to no function). A name only referred to (a callback handed on, a thread's
    target) is no call: whoever holds it calls it later, so it is reached only from where that is known (a root)."""

    def __init__(self, module: str) -> None:
        self.module = module
        self.funcs: list[_Func] = []
        self.bases: dict[str, list[str]] = {}
        self._stack: list[_Func] = []
        self._classes: list[str] = []

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.bases[node.name] = [
            b.id if isinstance(b, ast.Name) else b.attr for b in node.bases if isinstance(b, ast.Name | ast.Attribute)
        ]
        if self._stack:  # a class inside a function: its methods are the function's
            self._stack[-1].calls.add(node.name)
        self._classes.append(node.name)
        saved, self._stack = self._stack, []
        self.generic_visit(node)
        self._stack = saved
        self._classes.pop()

    def _visit_def(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        cls = self._classes[-1] if self._classes and not self._stack else None
        if self._stack:
            qual = f"{self._stack[-1].qualname}.{node.name}"
            if not _is_route(node):  # a route handler runs on a request, never when the function that defines it runs
                self._stack[-1].calls.add(node.name)
            cls = self._stack[-1].cls
        else:
            qual = f"{cls}.{node.name}" if cls else node.name
        decorators = {_callee_name(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list}
        func = _Func(self.module, qual, node.lineno, cls, is_property=bool(decorators & {"property", "cached_property"}))
        self.funcs.append(func)
        self._stack.append(func)
        for stmt in node.body:
            self.visit(stmt)
        self._stack.pop()

    visit_FunctionDef = _visit_def
    visit_AsyncFunctionDef = _visit_def

    def visit_Call(self, node: ast.Call) -> None:
        if self._stack:
            func, callee = self._stack[-1], node.func
            if isinstance(callee, ast.Name):
                func.calls.add(callee.id)
            elif isinstance(callee, ast.Attribute):
                value = callee.value
                if isinstance(value, ast.Name) and value.id in ("self", "cls"):
                    func.self_calls.add(callee.attr)
                elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super":
                    func.super_calls.add(callee.attr)
                else:
                    func.calls.add(callee.attr)
            if _callee_name(callee) == DISPATCHER:
                func.handlers.update(_self_attrs(node))
        self.generic_visit(node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        if self._stack and node.values and isinstance(node.values[0], ast.Constant) and isinstance(node.values[0].value, str):
            _add_literal(self._stack[-1], node.values[0].value)
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if self._stack and isinstance(node.value, str):
            _add_literal(self._stack[-1], node.value)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if self._stack and isinstance(node.value, ast.Name) and node.value.id == "self":
            self._stack[-1].self_reads.add(node.attr)
        elif self._stack:
            self._stack[-1].reads.add(node.attr)
        self.generic_visit(node)


# a web framework's route decorators (FastAPI's app.get / app.post / app.api_route, ...): the function runs on a request
_ROUTE_DECORATORS = frozenset({"get", "post", "put", "delete", "patch", "api_route", "route", "websocket"})


def _is_route(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`@app.get("/health_generate")` over the def (sglang 0.5.2 utils.launch_dummy_health_check_server defines its
    routes inside the function that starts that server at startup)."""
    return any(
        isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr in _ROUTE_DECORATORS
        for d in node.decorator_list
    )


def _add_literal(func: _Func, text: str) -> None:
    """A message's literal head (up to its first placeholder or line end, at most MAX_LITERAL characters), when it
    reads like a message: at least MIN_LITERAL characters and three words (a key, a path or a format spec never does)."""
    head = text.split("\n", 1)[0].split("%", 1)[0].strip()
    if len(head) > MAX_LITERAL:  # a paste cuts long messages: their first words place them
        head = head[: head.rfind(" ", 0, MAX_LITERAL + 1)].rstrip()
    if len(head) >= MIN_LITERAL and len(head.split()) >= 3:
        func.literals.add(head)


def _self_attrs(node: ast.AST) -> set[str]:
    return {
        n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self"
    }


def _closure(start: str, edges: dict[str, set[str]]) -> set[str]:
    """`start` and every class reached from it along `edges` (bases, or subclasses)."""
    seen, todo = set(), [start]
    while todo:
        c = todo.pop()
        if c not in seen:
            seen.add(c)
            todo += edges.get(c, ())
    return seen


def _callee_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


class _Graph:
    """The name-resolved call graph of one release."""

    def __init__(self, files: Iterable[tuple[str, str]]) -> None:
        self.funcs: list[_Func] = []
        self.bases: dict[str, set[str]] = defaultdict(set)
        for path, text in files:
            try:
                tree = ast.parse(text)
            except SyntaxError:
                continue
            collector = _Collector(sources.module_of(path))
            collector.visit(tree)
            self.funcs += collector.funcs
            for cls, bases in collector.bases.items():
                self.bases[cls].update(bases)
        self.by_name: dict[str, list[_Func]] = defaultdict(list)
        self.by_class: dict[str, dict[str, list[_Func]]] = defaultdict(lambda: defaultdict(list))
        for func in self.funcs:
            self.by_name[func.name].append(func)
            if func.cls is not None and "." not in func.qualname[len(func.cls) + 1 :]:
                self.by_class[func.cls][func.name].append(func)
        children: dict[str, set[str]] = defaultdict(set)
        for cls, ancestors in self.bases.items():
            for base in ancestors:
                children[base].add(cls)
        self._family: dict[str, set[str]] = {}
        self._children = children

    def _ancestors(self, cls: str) -> set[str]:
        return _closure(cls, self.bases)

    def family(self, cls: str) -> set[str]:
        """The classes whose methods `self.x` in a method of `cls` may run: its ancestors, its descendants and
        their ancestors (a mixin's `self.x` is a sibling mixin's method)."""
        if cls not in self._family:
            self._family[cls] = set().union(*(self._ancestors(c) for c in _closure(cls, self._children)))
        return self._family[cls]

    def callees(self, func: _Func) -> list[_Func]:
        """The functions a call of `func` may run, in a fixed order (names sorted: the root a walk reports is the same
        every run)."""
        out = [init for name in sorted(func.calls) for init in self.by_class.get(name, {}).get("__init__", ())]
        out += [f for name in sorted(func.calls) for f in self._named(name)]
        family = sorted(self.family(func.cls)) if func.cls else []
        for name in sorted(func.self_calls):
            own = [f for c in family for f in self.by_class.get(c, {}).get(name, ())]
            out += own or self._named(name)
        for name in sorted(func.self_reads - func.self_calls):
            out += [f for c in family for f in self.by_class.get(c, {}).get(name, ()) if f.is_property]
        # another object's property (`get_global_server_args()` reading `ctx.server_args`): every property of the name
        out += [f for name in sorted(func.reads - func.calls) for f in self._named(name) if f.is_property]
        for name in sorted(func.super_calls):  # a base outside sglang (torch.nn.Module) runs no sglang code
            bases = sorted(self._ancestors(func.cls) - {func.cls}) if func.cls else []
            out += [f for c in bases for f in self.by_class.get(c, {}).get(name, ())]
        return out

    def handlers(self) -> list[_Func]:
        """The request handlers of the scheduler's dispatcher: process_input_requests runs them per request."""
        out = []
        for func in self.funcs:
            if func.handlers and ".managers.scheduler" in func.module and func.cls:
                out += [
                    f
                    for c in sorted(self.family(func.cls))
                    for name in sorted(func.handlers)
                    for f in self.by_class.get(c, {}).get(name, ())
                ]
        return out

    def _named(self, name: str) -> list[_Func]:
        """The functions a call by this bare name may run; none for a name too many functions share (`forward`,
        `get`, `__init__`): such a call is left unresolved on both sides, so the code only it reaches is placed by
        no root (left out), never on one side only through the edges kept."""
        found = self.by_name.get(name, [])
        return found if len(found) <= FANOUT else []

    def matching(self, pattern: str) -> list[_Func]:
        return [f for f in self.funcs if fnmatch.fnmatchcase(f.key, pattern)]

    def reach(self, roots: list[_Func], stop: set[int]) -> dict[int, _Func]:
        """Every function reachable from `roots` (id → the root it came from), not entering the functions of
        `stop` (other than the roots themselves)."""
        seen: dict[int, _Func] = {id(r): r for r in roots}
        todo = deque((r, r) for r in roots)
        while todo:
            func, root = todo.popleft()
            for callee in self.callees(func):
                if id(callee) not in seen and id(callee) not in stop:
                    seen[id(callee)] = root
                    todo.append((callee, root))
        return seen


def release_stages(files: Iterable[tuple[str, str]]) -> dict[str, dict[str, Any]]:
    """(module:function name) → {stage, phase, qualname, line, root} of one release, for the functions only
    startup or only serving roots reach; `both` where a name of the module is reached from both sides or its
    functions of that name differ."""
    graph = _Graph(files)
    phased: dict[str, list[_Func]] = defaultdict(list)
    plain: list[_Func] = []
    for pattern, phase, _why in STARTUP_ROOTS:
        for func in graph.matching(pattern):
            (phased[phase] if phase else plain).append(func)
    phased_ids = {id(f) for funcs in phased.values() for f in funcs}
    startup_general = graph.reach(plain, phased_ids)
    by_phase = {phase: graph.reach(funcs, phased_ids - {id(f) for f in funcs}) for phase, funcs in phased.items()}
    serving = graph.reach([f for pattern, _why in SERVING_ROOTS for f in graph.matching(pattern)] + graph.handlers(), set())
    out: dict[str, dict[str, Any]] = {}
    literals: dict[str, dict[str, Any]] = {}
    for func in graph.funcs:
        fid = id(func)
        phases = [p for p, reached in by_phase.items() if fid in reached]
        at_startup = fid in startup_general or bool(phases)
        entry: dict[str, Any]
        if at_startup == (fid in serving):
            entry = {"stage": "both" if at_startup else "none"}
        elif at_startup:
            phase = phases[0] if len(phases) == 1 and fid not in startup_general else None
            root = (by_phase[phase] if phase else startup_general if fid in startup_general else by_phase[phases[0]])[fid]
            entry = {"stage": "startup", "phase": phase, "root": root.qualname}
        else:
            entry = {"stage": "serving", "phase": None, "root": serving[fid].qualname}
        entry.update(qualname=func.qualname, line=func.line)
        for literal in func.literals:  # a literal held by functions of two placements places nothing
            literals[literal] = _agree(literals.get(literal), entry)
        key = f"{func.module}:{func.name}"
        out[key] = _agree(out.get(key), entry)
    out.update({f"{WORDING}{text}": entry for text, entry in literals.items() if entry["stage"] in ("startup", "serving")})
    return out


def _agree(prior: dict[str, Any] | None, entry: dict[str, Any]) -> dict[str, Any]:
    """One entry for two functions of one key (two classes' methods of one name, or two functions holding one
    literal): a key cannot tell them apart, so it places only where both agree."""
    if prior is None:
        return entry
    if (prior["stage"], prior.get("phase")) == (entry["stage"], entry.get("phase")):
        return prior
    if prior["stage"] == entry["stage"] == "startup":
        return {**prior, "phase": None}
    return {"stage": "both", "qualname": entry["qualname"], "line": entry["line"]}


def fold(per_release: list[tuple[str, dict[str, dict[str, Any]]]]) -> dict[str, list[list[Any]]]:
    """Releases (oldest first) folded into runs per key: [stage, phase, first, last, qualname, line, root] with the
    newest release's qualname, line and root of each run."""
    runs: dict[str, list[list[Any]]] = {}
    for version, stages in per_release:
        for key, entry in stages.items():
            row = [entry["stage"], entry.get("phase"), version, version, entry["qualname"], entry["line"], entry.get("root")]
            key_runs = runs.setdefault(key, [])
            if key_runs and key_runs[-1][:2] == row[:2] and key_runs[-1][3] == _previous(per_release, version, key):
                key_runs[-1][3:] = row[3:]
            else:
                key_runs.append(row)
    return {key: value for key, value in sorted(runs.items()) if any(r[0] in ("startup", "serving") for r in value)}


def _previous(per_release: list[tuple[str, dict[str, dict[str, Any]]]], version: str, key: str) -> str | None:
    """The release before `version` that holds `key` when it is the one right before it (else None: a gap)."""
    versions = [v for v, _ in per_release]
    at = versions.index(version)
    return versions[at - 1] if at > 0 and key in per_release[at - 1][1] else None


def extract(versions: list[str]) -> dict[str, list[list[Any]]]:
    per_release = []
    for version in versions:
        wheel = sources.download("sglang", version)
        files = [(p, t) for p, t in sources.python_files(wheel, "sglang/") if p.startswith(_TOP)]
        per_release.append((version, release_stages(files)))
    return fold(per_release)


def write(path: Path, versions: list[str] | None = None) -> None:
    doc = {
        "doc": "Which SGLang functions run only at startup (with the startup step, when one phased root alone "
        "reaches them) and which only while serving, per release run: module:function -> [[stage, phase, first, "
        "last, qualname, line (in last), root]]. Read from the released wheels by tools/upstream/stages.py "
        "(python -m tools.upstream stages). Generated.",
        "startup_roots": [{"pattern": p, "phase": ph, "why": why} for p, ph, why in STARTUP_ROOTS],
        "serving_roots": [{"pattern": p, "why": why} for p, why in SERVING_ROOTS],
        "functions": extract(versions or sources.sglang_versions()),
    }
    path.write_text(dumps(doc))


def dumps(doc: dict[str, Any]) -> str:
    """The document with one function or literal a line (a new release's diff shows the keys it changed)."""
    head = json.dumps({k: v for k, v in doc.items() if k != "functions"}, separators=(",", ":"))[:-1]
    rows = ",\n".join(f"{json.dumps(k)}:{json.dumps(v, separators=(',', ':'))}" for k, v in doc["functions"].items())
    return f'{head},"functions":{{\n{rows}\n}}}}\n'
