"""The functions of vLLM's engine (the engine Dynamo, verl, LMCache, gpustack and vllm-ascend run beside or instead of
SGLang) that run only while the engine starts or only once it serves, per release, read from the released wheels:
catalog/engine_stages.json (logscope/core/engine_stages.py places a traceback's vLLM frames by it).

The list below is kept by hand from reading the released source (the engine is built in its constructors, which
profile the memory, size the KV cache and capture the graphs: vllm 0.6.3.post1 engine/llm_engine.py LLMEngine.__init__
-> _initialize_kv_caches; 0.10.2-0.34.0 v1/engine/core.py EngineCore.__init__ -> _initialize_kv_caches, then
run_engine_core -> run_busy_loop, which steps the scheduler for the requests it receives; the workers' init RPCs
init_device, load_model, determine_available_memory, initialize_from_config and compile_or_warm_up_model, and their
execute_model, which only the engine's step calls); this tool checks every entry against each release: a function is
kept for the releases whose module defines it, with every def of that name in the module (a frame names the function,
not its class), and a name the module defines elsewhere than the listed classes is dropped for that release.
An elastic-EP rescale (vllm 0.34.0 distributed/elastic_ep/elastic_execute.py) runs load_model and the capture again
in a serving engine: a stack through that package is placed by nothing (logscope/core/engine_stages.py).
Functions that run at both times are not listed (run_engine_core and WorkerProc.worker_main build the engine and then
loop; the worker's busy loop runs the init RPCs and the steps alike; the model runner's _dummy_run runs in profiling and
in a data-parallel engine's idle steps).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

from tools.upstream import sources

RELEASES = ("0.6.3.post1", "0.8.5.post1", "0.10.2", "0.14.1", "0.20.2", "0.27.1", "0.34.0")
_STARTUP = "startup"
_SERVING = "serving"
# (module, function, the classes whose def it is (None: a module-level function), stage, startup step, why)
ROOTS: tuple[tuple[str, str, tuple[str, ...] | None, str, str | None, str], ...] = (
    # the engine being built (V1): the engine core and its process, the client that starts it and waits for it
    (
        "vllm.v1.engine.core",
        "__init__",
        (
            "EngineCore",
            "EngineCoreProc",
            "DPEngineCoreProc",
            "EngineCoreActorMixin",
            "DPEngineCoreActor",
            "DPMoEEngineCoreActor",
            "EngineCoreActor",
        ),
        _STARTUP,
        None,
        "the engine core being built",
    ),
    (
        "vllm.v1.engine.core",
        "_initialize_kv_caches",
        ("EngineCore",),
        _STARTUP,
        None,
        "the engine core profiling memory and sizing the KV cache",
    ),
    ("vllm.v1.engine.utils", "wait_for_engine_startup", None, _STARTUP, None, "the client waiting for the engine to start"),
    ("vllm.v1.engine.llm_engine", "from_engine_args", ("LLMEngine",), _STARTUP, None, "the engine being built"),
    ("vllm.v1.engine.llm_engine", "from_vllm_config", ("LLMEngine",), _STARTUP, None, "the engine being built"),
    ("vllm.v1.engine.async_llm", "from_engine_args", ("AsyncLLM",), _STARTUP, None, "the engine being built"),
    ("vllm.v1.engine.async_llm", "from_vllm_config", ("AsyncLLM",), _STARTUP, None, "the engine being built"),
    # the engine being built (V0)
    (
        "vllm.engine.llm_engine",
        "_initialize_kv_caches",
        ("LLMEngine",),
        _STARTUP,
        None,
        "the engine profiling memory and sizing the KV cache",
    ),
    ("vllm.engine.llm_engine", "from_engine_args", ("LLMEngine",), _STARTUP, None, "the engine being built"),
    ("vllm.engine.async_llm_engine", "from_engine_args", ("AsyncLLMEngine",), _STARTUP, None, "the engine being built"),
    # V0's engine and its multiprocessing wrapper being built (SchedulerContext is built only in LLMEngine.__init__:
    # vllm 0.6.3.post1 engine/llm_engine.py:398, 0.10.2:306)
    ("vllm.engine.llm_engine", "__init__", ("LLMEngine", "SchedulerContext"), _STARTUP, None, "the engine being built"),
    ("vllm.engine.llm_engine", "from_vllm_config", ("LLMEngine",), _STARTUP, None, "the engine being built"),
    ("vllm.engine.multiprocessing.engine", "__init__", ("MQLLMEngine",), _STARTUP, None, "the engine being built"),
    ("vllm.engine.multiprocessing.engine", "from_vllm_config", ("MQLLMEngine",), _STARTUP, None, "the engine being built"),
    ("vllm.engine.multiprocessing.engine", "from_engine_args", ("MQLLMEngine",), _STARTUP, None, "the engine being built"),
    # the executor being built: its constructor starts the workers and waits for them (V1 v1/executor/, V0 executor/)
    ("vllm.v1.executor.abstract", "__init__", ("Executor",), _STARTUP, None, "the executor being built"),
    ("vllm.v1.executor.abstract", "_init_executor", ("Executor",), _STARTUP, None, "the executor starting its workers"),
    (
        "vllm.executor.executor_base",
        "__init__",
        ("ExecutorBase", "DistributedExecutorBase"),
        _STARTUP,
        None,
        "the executor being built",
    ),
    ("vllm.executor.executor_base", "_init_executor", ("ExecutorBase",), _STARTUP, None, "the executor starting its workers"),
    (
        "vllm.v1.executor.multiproc_executor",
        "_init_executor",
        ("MultiprocExecutor",),
        _STARTUP,
        None,
        "the executor starting its workers",
    ),
    (
        "vllm.v1.executor.multiproc_executor",
        "wait_for_ready",
        ("WorkerProc",),
        _STARTUP,
        None,
        "the executor waiting for its workers to start",
    ),
    (
        "vllm.v1.executor.uniproc_executor",
        "_init_executor",
        ("UniProcExecutor", "ExecutorWithExternalLauncher"),
        _STARTUP,
        None,
        "the executor starting its worker",
    ),
    (
        "vllm.v1.executor.ray_executor",
        "_init_executor",
        ("RayDistributedExecutor",),
        _STARTUP,
        None,
        "the executor starting its workers",
    ),
    (
        "vllm.v1.executor.ray_distributed_executor",
        "_init_executor",
        ("RayDistributedExecutor",),
        _STARTUP,
        None,
        "the executor starting its workers",
    ),
    (
        "vllm.executor.uniproc_executor",
        "_init_executor",
        ("UniProcExecutor", "ExecutorWithExternalLauncher"),
        _STARTUP,
        None,
        "the executor starting its worker",
    ),
    (
        "vllm.executor.mp_distributed_executor",
        "_init_executor",
        ("MultiprocessingDistributedExecutor",),
        _STARTUP,
        None,
        "the executor starting its workers",
    ),
    (
        "vllm.executor.ray_distributed_executor",
        "_init_executor",
        ("RayDistributedExecutor",),
        _STARTUP,
        None,
        "the executor starting its workers",
    ),
    ("vllm.executor.gpu_executor", "_init_executor", ("GPUExecutor",), _STARTUP, None, "the executor starting its worker"),
    # the offline engine and the OpenAI server building theirs
    ("vllm.entrypoints.llm", "__init__", ("LLM",), _STARTUP, None, "the offline engine being built"),
    (
        "vllm.entrypoints.openai.api_server",
        "build_async_engine_client",
        None,
        _STARTUP,
        None,
        "the OpenAI server building its engine",
    ),
    (
        "vllm.entrypoints.openai.api_server",
        "build_async_engine_client_from_engine_args",
        None,
        _STARTUP,
        None,
        "the OpenAI server building its engine",
    ),
    # the workers' init RPCs (V1 and V0 workers)
    ("vllm.v1.worker.gpu_worker", "init_device", ("Worker",), _STARTUP, None, "the worker setting up its device"),
    ("vllm.v1.worker.gpu_worker", "load_model", ("Worker",), _STARTUP, "load_weight", "the worker loading the model"),
    ("vllm.v1.worker.gpu_worker", "determine_available_memory", ("Worker",), _STARTUP, None, "the worker profiling its memory"),
    ("vllm.v1.worker.gpu_worker", "initialize_from_config", ("Worker",), _STARTUP, None, "the worker allocating its KV cache"),
    (
        "vllm.v1.worker.gpu_worker",
        "compile_or_warm_up_model",
        ("Worker",),
        _STARTUP,
        None,
        "the worker compiling, capturing and warming up the model",
    ),
    (
        "vllm.v1.worker.gpu_model_runner",
        "load_model",
        ("GPUModelRunner",),
        _STARTUP,
        "load_weight",
        "the model runner loading the model",
    ),
    (
        "vllm.v1.worker.gpu_model_runner",
        "profile_run",
        ("GPUModelRunner",),
        _STARTUP,
        None,
        "the model runner's memory profiling",
    ),
    (
        "vllm.v1.worker.gpu.model_runner",
        "load_model",
        ("GPUModelRunner",),
        _STARTUP,
        "load_weight",
        "the model runner loading the model",
    ),
    (
        "vllm.v1.worker.gpu.model_runner",
        "profile_run",
        ("GPUModelRunner",),
        _STARTUP,
        None,
        "the model runner's memory profiling",
    ),
    ("vllm.worker.worker", "init_device", ("Worker",), _STARTUP, None, "the worker setting up its device"),
    ("vllm.worker.worker", "load_model", ("Worker",), _STARTUP, "load_weight", "the worker loading the model"),
    (
        "vllm.worker.worker",
        "determine_num_available_blocks",
        ("Worker",),
        _STARTUP,
        None,
        "the worker profiling its memory for the KV blocks",
    ),
    ("vllm.worker.worker", "initialize_cache", ("Worker",), _STARTUP, None, "the worker allocating its KV cache"),
    ("vllm.worker.worker", "_warm_up_model", ("Worker",), _STARTUP, None, "the worker capturing and warming up the model"),
    # serving: the engine core's loop and step (V1), the engines' request entry points, the offline engine's calls
    (
        "vllm.v1.engine.core",
        "run_busy_loop",
        ("EngineCoreProc", "DPEngineCoreProc"),
        _SERVING,
        None,
        "the engine core's loop over requests",
    ),
    ("vllm.v1.engine.core", "_process_engine_step", ("EngineCoreProc",), _SERVING, None, "the engine core's step"),
    ("vllm.v1.engine.core", "step", ("EngineCore",), _SERVING, None, "the engine core's step"),
    ("vllm.v1.engine.core", "step_with_batch_queue", ("EngineCore",), _SERVING, None, "the engine core's step"),
    (
        "vllm.v1.engine.core",
        "add_request",
        ("EngineCore", "DPEngineCoreProc"),
        _SERVING,
        None,
        "the engine core taking a request",
    ),
    ("vllm.v1.engine.async_llm", "generate", ("AsyncLLM",), _SERVING, None, "a request being generated"),
    ("vllm.v1.engine.async_llm", "add_request", ("AsyncLLM",), _SERVING, None, "a request being added"),
    ("vllm.v1.engine.llm_engine", "step", ("LLMEngine",), _SERVING, None, "the engine's step"),
    ("vllm.v1.engine.llm_engine", "add_request", ("LLMEngine",), _SERVING, None, "a request being added"),
    ("vllm.v1.worker.gpu_worker", "execute_model", ("Worker",), _SERVING, None, "the worker running a step's batch"),
    # the model runner's step: its callers in the released wheels are the worker's execute_model, ray's
    # execute_model_ray (0.14.1-0.27.1) and the worker's execute_dummy_batch (0.14.1: the data-parallel idle step of
    # the engine core's run_busy_loop and LLMEngine.step), all serving; profiling and capture run _dummy_run instead
    # (probe Sandermage/genesis-vllm-patches#1: "OOM with long context" from execute_model -> _model_forward)
    (
        "vllm.v1.worker.gpu_model_runner",
        "execute_model",
        ("GPUModelRunner",),
        _SERVING,
        None,
        "the model runner running a step's batch",
    ),
    ("vllm.engine.llm_engine", "step", ("LLMEngine",), _SERVING, None, "the engine's step"),
    ("vllm.engine.llm_engine", "add_request", ("LLMEngine",), _SERVING, None, "a request being added"),
    ("vllm.engine.async_llm_engine", "generate", ("AsyncLLMEngine",), _SERVING, None, "a request being generated"),
    ("vllm.engine.async_llm_engine", "engine_step", ("AsyncLLMEngine",), _SERVING, None, "the engine's step"),
    ("vllm.engine.multiprocessing.engine", "engine_step", ("MQLLMEngine",), _SERVING, None, "the engine's step"),
    ("vllm.engine.multiprocessing.engine", "run_engine_loop", ("MQLLMEngine",), _SERVING, None, "the engine's loop"),
    ("vllm.entrypoints.llm", "generate", ("LLM",), _SERVING, None, "the offline engine generating"),
    ("vllm.entrypoints.llm", "chat", ("LLM",), _SERVING, None, "the offline engine generating"),
    ("vllm.entrypoints.llm", "encode", ("LLM",), _SERVING, None, "the offline engine encoding"),
    ("vllm.entrypoints.llm", "_run_engine", ("LLM",), _SERVING, None, "the offline engine stepping its requests"),
    (
        "vllm.entrypoints.openai.serving_chat",
        "create_chat_completion",
        ("OpenAIServingChat",),
        _SERVING,
        None,
        "a chat completion request",
    ),
    (
        "vllm.entrypoints.openai.serving_completion",
        "create_completion",
        ("OpenAIServingCompletion",),
        _SERVING,
        None,
        "a completion request",
    ),
    (
        "vllm.entrypoints.openai.chat_completion.serving",
        "create_chat_completion",
        ("OpenAIServingChat",),
        _SERVING,
        None,
        "a chat completion request",
    ),
    (
        "vllm.entrypoints.openai.completion.serving",
        "create_completion",
        ("OpenAIServingCompletion",),
        _SERVING,
        None,
        "a completion request",
    ),
)


def _defs(tree: ast.Module) -> dict[str, list[tuple[str | None, int]]]:
    """Every def of a module by name: (its class, None for a module-level def, its line); nested defs are left out
    (a frame of one names the nested function)."""
    found: dict[str, list[tuple[str | None, int]]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.setdefault(node.name, []).append((None, node.lineno))
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    found.setdefault(item.name, []).append((node.name, item.lineno))
    return found


def release_stages(files: dict[str, str]) -> dict[str, dict[str, Any]]:
    """module:function -> {stage, phase, qualnames, line} of one release (modules by their dotted name)."""
    out: dict[str, dict[str, Any]] = {}
    trees: dict[str, dict[str, list[tuple[str | None, int]]]] = {}
    for module, function, classes, stage, phase, _why in ROOTS:
        if module not in files:
            continue
        if module not in trees:
            trees[module] = _defs(ast.parse(files[module]))
        defs = trees[module].get(function, [])
        if not defs or any(cls not in (classes or (None,)) for cls, _ in defs):
            continue  # not defined here, or defined by a class the list does not name: the frame cannot tell them apart
        names = [f"{cls}.{function}" if cls else function for cls, _ in defs]
        out[f"{module}:{function}"] = {"stage": stage, "phase": phase, "qualnames": names, "line": defs[-1][1]}
    return out


def extract(releases: tuple[str, ...] = RELEASES) -> dict[str, list[list[Any]]]:
    """module:function -> runs [stage, phase, first, last, qualnames, line in last] over the releases, oldest first."""
    runs: dict[str, list[list[Any]]] = {}
    previous: set[str] = set()
    for version in releases:
        wheel = sources.download("vllm", version)
        files = {sources.module_of(path): text for path, text in sources.python_files(wheel, "vllm/")}
        stages = release_stages(files)
        for key, entry in stages.items():
            row = [entry["stage"], entry["phase"], version, version, entry["qualnames"], entry["line"]]
            key_runs = runs.setdefault(key, [])
            if key_runs and key in previous and key_runs[-1][:2] == row[:2]:
                key_runs[-1][3:] = row[3:]
            else:
                key_runs.append(row)
        previous = set(stages)
    return dict(sorted(runs.items()))


def write(path: Path) -> None:
    functions = extract()
    doc: dict[str, Any] = {
        "doc": "Which functions of vLLM's engine run only while it starts (with the step, where one alone) and which "
        "only once it serves, per release run: module:function -> [[stage, phase, first, last, qualnames, line (in "
        "last)]]. The function list is kept in tools/upstream/engine_stages.py (read from the released source); each "
        "entry checked against the released wheels of " + ", ".join(RELEASES) + " (python -m tools.upstream "
        "engine-stages). Generated.",
        "roots": [{"function": f"{m}:{f}", "stage": s, "phase": p, "why": w} for m, f, _c, s, p, w in ROOTS],
    }
    head = json.dumps(doc, separators=(",", ":"))[:-1]
    rows = ",\n".join(f"{json.dumps(k)}:{json.dumps(v, separators=(',', ':'))}" for k, v in functions.items())
    path.write_text(f'{head},"functions":{{\n{rows}\n}}}}\n')
