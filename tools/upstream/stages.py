"""Which SGLang functions run only at startup and which only while the server serves, per release, read from the
released wheels: catalog/stages.json, which places a failure in time from the frames of its traceback (and from the
function that prints or raises a catalogued wording).

The question is the roots below (the functions that begin startup, or a startup step, and those that run only once
the scheduler's event loop runs batches); the answer comes from each release's source: a call graph over every
function of sglang/srt (and sglang/launch_server.py) whose calls are resolved only as far as the calling file states
them (tools/upstream/call_graph.py: the class of `self`, the file's imports, the types the source gives a receiver;
a receiver of no stated type reaches only the one class of a rare method name). A function any startup root may
reach and any serving root may reach too is `both`, and is never a placement. A function handed to a thread
(`Thread(target=f)`, `executor.submit(f)`) is no call of the code that starts the thread: it runs concurrently, from
then on, so it is reached only from a root; nor is a route handler that a function defines (`@app.get(...)` over a
nested def): it runs on a request.

A function is `startup` when only startup roots reach it (its phase the one phased root that reaches it, and no
other startup code outside that root does), `serving` when only serving roots reach it. Functions that no root
reaches are `none` in that release (kept beside a release that places it: a frame of such a release places
nothing). Per (module, function name), as a traceback frame names it (file and bare name), the releases
are folded into runs of one (stage, phase) with the newest release's file line and the root that reached it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tools.upstream import call_graph, sources
from tools.upstream.call_graph import Func

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


def _add_literal(func: Func, text: str) -> None:
    """A message's literal head (up to its first placeholder or line end, at most MAX_LITERAL characters), when it
    reads like a message: at least MIN_LITERAL characters and three words (a key, a path or a format spec never does)."""
    head = text.split("\n", 1)[0].split("%", 1)[0].strip()
    if len(head) > MAX_LITERAL:  # a paste cuts long messages: their first words place them
        head = head[: head.rfind(" ", 0, MAX_LITERAL + 1)].rstrip()
    if len(head) >= MIN_LITERAL and len(head.split()) >= 3:
        func.literals.add(head)


def _graph(files: Iterable[tuple[str, str]], parsed: call_graph.Parsed | None = None) -> call_graph.Graph:
    return call_graph.Graph(files, sources.module_of, DISPATCHER, _add_literal, parsed)


def release_stages(files: Iterable[tuple[str, str]], parsed: call_graph.Parsed | None = None) -> dict[str, dict[str, Any]]:
    """(module:function name) → {stage, phase, qualname, line, root} of one release, for the functions only
    startup or only serving roots reach; `both` where a name of the module is reached from both sides or its
    functions of that name differ."""
    graph = _graph(files, parsed)
    phased: dict[str, list[Func]] = defaultdict(list)
    plain: list[Func] = []
    for pattern, phase, _why in STARTUP_ROOTS:
        for func in graph.matching(pattern):
            (phased[phase] if phase else plain).append(func)
    phased_ids = {id(f) for funcs in phased.values() for f in funcs}
    startup_general = graph.reach(plain, phased_ids)
    by_phase = {phase: graph.reach(funcs, phased_ids - {id(f) for f in funcs}) for phase, funcs in phased.items()}
    serving = graph.reach([f for pattern, _why in SERVING_ROOTS for f in graph.matching(pattern)] + list(graph.handlers()), set())
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
            literals[literal] = _agree_literal(literals.get(literal), entry)
        key = f"{func.module}:{func.name}"
        out[key] = _agree(out.get(key), entry)
    # a wording code of both times prints is kept as `both` (it places nothing in this release, and says so to a
    # paste that shows no release); one held by code no root reaches is left out (that release tells nothing)
    out.update({f"{WORDING}{text}": entry for text, entry in literals.items() if entry["stage"] != "none"})
    return out


def _agree_literal(prior: dict[str, Any] | None, entry: dict[str, Any]) -> dict[str, Any]:
    """One entry for the functions holding one literal: `both` when code of both times holds it (a function
    reached from both sides, or two functions of the two sides); `none` when a function no root reaches holds it
    beside placed ones (which one printed it is not known), else the placement they agree on."""
    if prior is None:
        return entry
    stages = {prior["stage"], entry["stage"]}
    if "both" in stages or stages == {"startup", "serving"}:
        return {"stage": "both", "qualname": entry["qualname"], "line": entry["line"]}
    if "none" in stages:
        return {"stage": "none", "qualname": entry["qualname"], "line": entry["line"]}
    return _agree(prior, entry)


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


def _releases(versions: list[str]) -> list[tuple[str, dict[str, dict[str, Any]]]]:
    """Each release's stages, in order (one parse cache over consecutive releases: most files repeat)."""
    per_release = []
    parsed = call_graph.Parsed()
    for version in versions:
        wheel = sources.download("sglang", version)
        files = [(p, t) for p, t in sources.python_files(wheel, "sglang/") if p.startswith(_TOP)]
        per_release.append((version, release_stages(files, parsed)))
        parsed.next_release()
    return per_release


def extract(versions: list[str], workers: int = 1) -> dict[str, list[list[Any]]]:
    """The releases' runs; with workers > 1 the releases are read in that many runs of consecutive releases at once
    (the same result: a release's stages depend on its own files only)."""
    if workers <= 1 or len(versions) < 2:
        return fold(_releases(versions))
    from multiprocessing import Pool

    size = -(-len(versions) // workers)
    parts = [versions[at : at + size] for at in range(0, len(versions), size)]
    with Pool(len(parts)) as pool:
        return fold([release for part in pool.map(_releases, parts) for release in part])


# the files whose code decides the table: the committed table names their digest (with the releases read), and a test
# holds it to the tool as it is (an edit of the tool without regenerating the table fails it)
TOOL_FILES = ("stages.py", "call_graph.py", "sources.py")


def fingerprint(versions: list[str]) -> str:
    digest = hashlib.sha256()
    for name in TOOL_FILES:
        digest.update((Path(__file__).parent / name).read_bytes())
    digest.update("\n".join(versions).encode())
    return digest.hexdigest()[:16]


def write(path: Path, versions: list[str] | None = None) -> None:
    versions = versions or sources.sglang_versions()
    workers = int(os.environ.get("LOGSCOPE_UPSTREAM_WORKERS", "1"))
    doc: dict[str, Any] = {
        "doc": "Which SGLang functions run only at startup (with the startup step, when one phased root alone "
        "reaches them) and which only while serving, per release run: module:function -> [[stage, phase, first, "
        "last, qualname, line (in last), root]]. Read from the released wheels by tools/upstream/stages.py "
        "(python -m tools.upstream stages). Generated.",
        "startup_roots": [{"pattern": p, "phase": ph, "why": why} for p, ph, why in STARTUP_ROOTS],
        "serving_roots": [{"pattern": p, "why": why} for p, why in SERVING_ROOTS],
        "releases": versions,
        "tool": fingerprint(versions),
    }
    functions = extract(versions, workers)
    doc["content"] = content_digest(functions)  # (the test recomputes it: a hand edit of `functions` fails)
    doc["functions"] = functions
    path.write_text(dumps(doc))


def content_digest(functions: dict[str, Any]) -> str:
    """The digest of the table's rows as the tool writes them."""
    return hashlib.sha256(json.dumps(functions, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16]


def dumps(doc: dict[str, Any]) -> str:
    """The document with one function or literal a line (a new release's diff shows the keys it changed)."""
    head = json.dumps({k: v for k, v in doc.items() if k != "functions"}, separators=(",", ":"))[:-1]
    rows = ",\n".join(f"{json.dumps(k)}:{json.dumps(v, separators=(',', ':'))}" for k, v in doc["functions"].items())
    return f'{head},"functions":{{\n{rows}\n}}}}\n'
